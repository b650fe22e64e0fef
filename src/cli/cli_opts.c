/* cli_opts.c - option parsing for the verbs, separate from what the verbs
 * do so that tests can drive it directly. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config/config.h"
#include "net/proxy.h"
#include "output/render.h"
#include "run/runner.h"

void pdk_cli_error(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One line, whatever the message carried. */
	for (char *p = line; *p; p++)
		if (*p == '\n')
			*p = ' ';
	fprintf(stderr, "paddock: %s\n", line);
}

int pdk_cli_parse_size(const char *s, size_t *ret)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	if (*end == 'k' || *end == 'K') {
		v *= 1024;
		end++;
	} else if (*end == 'm' || *end == 'M') {
		v *= 1024 * 1024;
		end++;
	}
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	if (*end)
		return -EINVAL;
	if (v > (1ULL << 40))
		return -ERANGE;
	*ret = (size_t)v;
	return 0;
}

int pdk_cli_parse_seconds(const char *s, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0)
		return -EINVAL;
	*ret = v;
	return 0;
}

enum {
	OPT_BOUND = 256,
	OPT_JSON,
	OPT_NO_SANDBOX,
	OPT_ROOT,
	OPT_BACKEND,
	OPT_PRINT_PROFILE,
	OPT_CONFIG,
	OPT_YES,
	OPT_OUTSIDE_SANDBOX,
	OPT_ALLOW_DOMAIN,
	OPT_ALLOW_GIT_HOOKS,
	OPT_SSH_AGENT,
	OPT_DOCKER,
	OPT_GPU,
	OPT_ALLOW_AGENT_CONFIG,
	OPT_READ,
};

static const struct option run_options[] = {
	{"timeout", required_argument, NULL, 't'},
	{"bound", required_argument, NULL, OPT_BOUND},
	{"json", no_argument, NULL, OPT_JSON},
	{"no-sandbox", no_argument, NULL, OPT_NO_SANDBOX},
	{"cwd", required_argument, NULL, 'C'},
	{"write", required_argument, NULL, 'w'},
	{"network", no_argument, NULL, 'n'},
	{"root", required_argument, NULL, OPT_ROOT},
	{"backend", required_argument, NULL, OPT_BACKEND},
	{"print-profile", no_argument, NULL, OPT_PRINT_PROFILE},
	{"config", required_argument, NULL, OPT_CONFIG},
	{"yes", no_argument, NULL, OPT_YES},
	{"outside-sandbox", no_argument, NULL, OPT_OUTSIDE_SANDBOX},
	{"allow-domain", required_argument, NULL, OPT_ALLOW_DOMAIN},
	{"allow-git-hooks", no_argument, NULL, OPT_ALLOW_GIT_HOOKS},
	{"ssh-agent", no_argument, NULL, OPT_SSH_AGENT},
	{"docker", no_argument, NULL, OPT_DOCKER},
	{"gpu", no_argument, NULL, OPT_GPU},
	{"allow-agent-config", no_argument, NULL, OPT_ALLOW_AGENT_CONFIG},
	{"read", required_argument, NULL, OPT_READ},
	{NULL, 0, NULL, 0},
};

/* run's short options, as getopt_long reads them ('+': options end at the program). */
static const char run_short[] = "+:t:C:w:n";

bool pdk_cli_run_takes_value(const char *arg)
{
	size_t len;
	const struct option *hit = NULL;

	if (arg[0] != '-' || !arg[1] || strcmp(arg, "--") == 0)
		return false;
	if (arg[1] != '-') {
		/* -t300 holds its value; -nt 300 does not (a value ends a cluster). */
		for (const char *p = arg + 1; *p; p++) {
			const char *o = strchr(run_short + 2, *p);
			if (*p != ':' && o && o[1] == ':')
				return !p[1];
		}
		return false;
	}
	arg += 2;
	len = strcspn(arg, "=");
	if (arg[len] == '=')
		return false;
	/* getopt_long takes an unambiguous prefix too: so does this. */
	for (const struct option *o = run_options; o->name; o++) {
		if (strncmp(o->name, arg, len) != 0)
			continue;
		if (strlen(o->name) == len)
			return o->has_arg == required_argument;
		if (hit)
			return false;
		hit = o;
	}
	return hit && hit->has_arg == required_argument;
}

static int parse_run(int argc, char **argv, bool program, struct pdk_request *ret, char *why,
		     size_t why_len)
{
	struct pdk_request o = {0};
	int c;

	*why = '\0';
	optind = 1;
	opterr = 0;
	/* '+': options end at the program, so its own options stay its own. */
	while ((c = getopt_long(argc, argv, run_short, run_options, NULL)) != -1) {
		switch (c) {
		case 't':
			if (pdk_cli_parse_seconds(optarg, &o.timeout_asked) < 0) {
				snprintf(why, why_len, "--timeout '%s' is not a positive number of "
						       "seconds; give one such as 300",
					 optarg);
				goto fail;
			}
			break;
		case OPT_BOUND: {
			int r = pdk_cli_parse_size(optarg, &o.bound);
			if (r < 0 || o.bound < PDK_BOUND_MIN || o.bound > PDK_BOUND_MAX) {
				snprintf(why, why_len, "--bound '%s' is out of range: give a number of "
						       "bytes from 1024 to 1048576 (or 1K to 1M)",
					 optarg);
				goto fail;
			}
			break;
		}
		case OPT_JSON:
			o.json = true;
			break;
		case OPT_NO_SANDBOX:
			o.no_sandbox = o.no_sandbox_asked = true;
			break;
		case 'C':
			o.cwd = optarg;
			break;
		case 'w': {
			const char **w = realloc(o.writes, (o.n_writes + 1) * sizeof(*w));
			if (!w) {
				snprintf(why, why_len, "out of memory");
				goto fail;
			}
			o.writes = w;
			o.writes[o.n_writes++] = optarg;
			break;
		}
		case 'n':
			o.network = true;
			break;
		case OPT_ROOT:
			o.root = optarg;
			break;
		case OPT_BACKEND:
			o.backend = optarg;
			break;
		case OPT_PRINT_PROFILE:
			o.print_profile = true;
			break;
		case OPT_CONFIG:
			o.config = optarg;
			break;
		case OPT_YES:
			o.yes = true;
			break;
		case OPT_OUTSIDE_SANDBOX:
			o.outside_sandbox = true;
			break;
		case OPT_ALLOW_GIT_HOOKS:
			o.allow_git_hooks = true;
			break;
		case OPT_SSH_AGENT:
			o.ssh_agent = true;
			break;
		case OPT_DOCKER:
			o.docker = true;
			break;
		case OPT_GPU:
			o.gpu = true;
			break;
		case OPT_ALLOW_AGENT_CONFIG:
			o.allow_agent_config = true;
			break;
		case OPT_READ: {
			const char **rd = realloc(o.reads, (o.n_reads + 1) * sizeof(*rd));
			if (!rd) {
				snprintf(why, why_len, "out of memory");
				goto fail;
			}
			o.reads = rd;
			o.reads[o.n_reads++] = optarg;
			break;
		}
		case OPT_ALLOW_DOMAIN: {
			const char **d;

			if (!pdk_domain_pattern_valid(optarg)) {
				snprintf(why, why_len, "--allow-domain '%s' is not a domain: give a name "
						       "such as registry.npmjs.org or *.pythonhosted.org",
					 optarg);
				goto fail;
			}
			d = realloc(o.domains, (o.n_domains + 1) * sizeof(*d));
			if (!d) {
				snprintf(why, why_len, "out of memory");
				goto fail;
			}
			o.domains = d;
			o.domains[o.n_domains++] = optarg;
			break;
		}
		case ':':
			snprintf(why, why_len, "option '%s' needs a value", argv[optind - 1]);
			goto fail;
		default:
			if (optopt)
				snprintf(why, why_len, "unknown option '-%c'; see 'paddock run --help'",
					 optopt);
			else
				snprintf(why, why_len, "unknown option '%s'; see 'paddock run --help'",
					 argv[optind - 1]);
			goto fail;
		}
	}
	/* A grant lifts a protection; unconfined, nothing is protected to lift. */
	if ((o.allow_git_hooks || o.allow_agent_config) && o.no_sandbox_asked) {
		snprintf(why, why_len, "%s goes with the sandbox, and --no-sandbox has none: drop "
				       "--no-sandbox to let the confined command write them",
			 o.allow_git_hooks ? "--allow-git-hooks" : "--allow-agent-config");
		goto fail;
	}
	if (!program) {
		if (optind < argc) {
			snprintf(why, why_len, "with --request, the program comes from the "
					       "request's \"argv\"; give no program on the command "
					       "line ('%s')",
				 argv[optind]);
			goto fail;
		}
		*ret = o;
		return 0;
	}
	if (optind >= argc) {
		snprintf(why, why_len, "no program to run: put it after '--', as in "
				       "'paddock run -- ls -l'");
		goto fail;
	}
	if (!argv[optind][0]) {
		snprintf(why, why_len, "the program name is empty");
		goto fail;
	}
	o.argv = argv + optind;
	*ret = o;
	return 0;
fail:
	free(o.writes);
	free(o.domains);
	free(o.reads);
	return -EINVAL;
}

int pdk_cli_parse_run(int argc, char **argv, struct pdk_request *ret, char *why, size_t why_len)
{
	return parse_run(argc, argv, true, ret, why, why_len);
}

int pdk_cli_parse_run_opts(int argc, char **argv, struct pdk_request *ret, char *why,
			   size_t why_len)
{
	return parse_run(argc, argv, false, ret, why, why_len);
}

void pdk_request_apply_config(struct pdk_request *o, const struct pdk_config *cfg)
{
	o->timeout_cap = cfg->timeout_cap;
	o->timeout = o->timeout_asked > 0 ? o->timeout_asked : cfg->timeout_default;
	if (o->timeout > o->timeout_cap) {
		o->timeout = o->timeout_cap;
		o->timeout_clamped = o->timeout_asked > 0;
	}
	if (!o->bound)
		o->bound = cfg->bound;
	if (!o->backend)
		o->backend = cfg->backend;
	if (cfg->allow_network)
		o->network = true;
	if (!cfg->sandbox_enabled)
		o->no_sandbox = true;
	/* Unconfined already: nothing to ask to leave. */
	if (o->no_sandbox) {
		o->outside_sandbox = false;
		o->allow_git_hooks = false;
		o->allow_agent_config = false;
		o->n_reads = 0;
	}
}
