/* cli_pkg.c - `paddock pkg ACTION [PACKAGE]`: the host's package manager,
 * outside the sandbox (what it needs cannot be granted inside one), through
 * the confirm gate for what changes the system; the result as any run's. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cli_call.h"
#include "core/defaults.h"
#include "core/fmt.h"
#include "core/util.h"
#include "output/render.h"
#include "pkg/pkg.h"
#include "run/runner.h"

static const char pkg_usage[] =
	"usage: paddock pkg ACTION [PACKAGE] [OPTIONS]\n"
	"  install PACKAGE, remove PACKAGE   change the system, as root: the confirm gate asks\n"
	"  update, upgrade                   refresh the package index; upgrade what is installed\n"
	"  search WORD, info PACKAGE         only read; asked for nothing\n"
	"      --yes              approve what the confirm gate would ask\n"
	"      --json             print the result as one JSON object\n"
	"  -t, --timeout SECONDS  kill the package manager after this long (default: the cap)\n"
	"      --bound BYTES      the most the result may take (default 16K, 1K to 1M)\n"
	"      --config FILE      read only this configuration file\n"
	"PACKAGE is one bare name. pip, npm, cargo and other language packages: use paddock run.\n";

/* The language tools people reach for: pkg is not theirs. */
static const char *const language_tools[] = {"pip",   "pip3", "pipx", "uv",	"npm",	 "npx",
					     "yarn",  "pnpm", "cargo", "gem",	"go",	 "composer",
					     "bundle", "conda", "poetry", "bun", "deno", NULL};

/* One line, as text on standard error, or, with --json, as the result object. */
static int __attribute__((format(printf, 3, 4)))
say_error(bool json, enum pdk_failure kind, const char *fmt, ...)
{
	struct pdk_render_out res = {0};
	char line[1400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (json) {
		_cleanup_free_ char *cwd = getcwd(NULL, 0);
		struct pdk_render_in in = {
		    .failure = kind,
		    .error = line,
		    .cwd = cwd,
		    .exit_code = PDK_EXIT_FAILURE,
		    .bound = PDK_BOUND_DEFAULT,
		    .json = true,
		};

		if (pdk_render(&in, &res) == 0) {
			fwrite(res.text, 1, res.len, stdout);
			pdk_render_out_release(&res);
			fflush(stdout);
			return PDK_EXIT_FAILURE;
		}
	}
	pdk_cli_error("%s", line);
	return PDK_EXIT_FAILURE;
}

#ifdef __linux__
/* The program on PATH, resolved; NULL when it is not there. */
static char *find(const char *prog)
{
	char *path = NULL;

	return pdk_find_program(prog, &path) == 0 ? path : NULL;
}

/* Run argv with stdin /dev/null, stdout to /dev/null and stderr to err_fd
 * (/dev/null when -1); its exit status, or -1. */
static int quiet_status(char *const *argv, int err_fd)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
		    dup2(err_fd >= 0 ? err_fd : null, 2) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

struct sudo_ctx {
	const char *sudo;    /* resolved */
	const char *program; /* the manager's, for the error */
};

/*
 * Before a change runs through `sudo -n`: sudo must not need a password, or
 * a person at this terminal types it now (`sudo -v`, which caches it for the
 * run). Without a terminal, one line saying what to do.
 */
static int sudo_ready(void *ctx, char *why, size_t why_len)
{
	const struct sudo_ctx *s = ctx;
	char *check[] = {(char *)s->sudo, "-n", "true", NULL};
	char *validate[] = {(char *)s->sudo, "-v", NULL};
	int tty;

	if (quiet_status(check, -1) == 0)
		return 0;
	tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (tty >= 0 && tcgetpgrp(tty) == getpgrp()) {
		int r = quiet_status(validate, tty);

		close(tty);
		if (r == 0)
			return 0;
		snprintf(why, why_len,
			 "pkg: sudo did not accept the password, so %s did not run; try again, or "
			 "run paddock pkg as root",
			 s->program);
		return -1;
	}
	if (tty >= 0)
		close(tty);
	snprintf(why, why_len,
		 "pkg: %s must run as root, and sudo needs a password that no terminal can "
		 "give here; run paddock pkg as root or from a terminal, or let this user run "
		 "sudo without a password",
		 s->program);
	return -1;
}
#endif

int pdk_cli_pkg_main(int argc, char **argv, const struct pdk_cli_face *face)
{
	static const struct option opts[] = {
	    {"yes", no_argument, NULL, 'y'},	      {"json", no_argument, NULL, 'j'},
	    {"timeout", required_argument, NULL, 't'}, {"bound", required_argument, NULL, 'b'},
	    {"config", required_argument, NULL, 'c'}, {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *timeout = NULL, *bound = NULL, *config = NULL;
	bool yes = false, json = pdk_cli_wants_json(argc, argv);
	int c;

	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--json") == 0)
			json = true;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:h", opts, NULL)) != -1) {
		switch (c) {
		case 'y':
			yes = true;
			break;
		case 'j':
			json = true;
			break;
		case 't':
			timeout = optarg;
			break;
		case 'b':
			bound = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 'h':
			fputs(pkg_usage, stdout);
			return 0;
		case ':':
			return say_error(json, PDK_FAIL_BAD_REQUEST, "pkg: option '%s' needs a value",
					 argv[optind - 1]);
		default:
			return say_error(json, PDK_FAIL_BAD_REQUEST,
					 "pkg: '%.64s' is not an option of paddock pkg, nor a package "
					 "name (a name never starts with -); paddock pkg sets the "
					 "manager's options itself; see 'paddock pkg --help'",
					 argv[optind - 1]);
		}
	}
#ifndef __linux__
	(void)yes, (void)timeout, (void)bound, (void)config, (void)language_tools;
	return say_error(json, PDK_FAIL_BAD_REQUEST,
			 "pkg: drives Linux package managers (apt, dnf, yum, pacman, apk) and "
			 "does nothing on this system; install with Homebrew yourself, or "
			 "through paddock run for a project's own packages");
#else
	enum pdk_pkg_manager m = PDK_PKG_NONE;
	enum pdk_pkg_action a;
	const char *action = optind < argc ? argv[optind] : NULL;
	const char *name = optind + 1 < argc ? argv[optind + 1] : NULL;
	_cleanup_strv_ char **cmd = NULL;
	_cleanup_free_ char *sudo = NULL, *what = NULL, *note = NULL, *cap = NULL;
	struct pdk_config cfg;
	char why[1200];
	bool root = geteuid() == 0;

	if (!action)
		return say_error(json, PDK_FAIL_BAD_REQUEST,
				 "pkg: give an action: install, remove, update, upgrade, search "
				 "or info; see 'paddock pkg --help'");
	for (size_t i = 0; language_tools[i]; i++)
		if (strcmp(action, language_tools[i]) == 0)
			return say_error(json, PDK_FAIL_BAD_REQUEST,
					 "pkg: %s packages are not the system's: install them "
					 "with paddock run (as in paddock run -- %s install NAME), "
					 "into the project",
					 action, action);
	if (pdk_pkg_action_parse(action, &a) < 0)
		return say_error(json, PDK_FAIL_BAD_REQUEST,
				 "pkg: '%.64s' is not an action: give install, remove, update, "
				 "upgrade, search or info",
				 action);
	if (pdk_pkg_action_takes_name(a) && !name)
		return say_error(json, PDK_FAIL_BAD_REQUEST,
				 "pkg: %s needs one package name, as in paddock pkg %s hello",
				 action, action);
	if (!pdk_pkg_action_takes_name(a) && name)
		return say_error(json, PDK_FAIL_BAD_REQUEST,
				 "pkg: %s takes no package name; it acts on the whole system "
				 "(install NAME, remove NAME for one package)",
				 action);
	if (optind + 2 < argc)
		return say_error(json, PDK_FAIL_BAD_REQUEST,
				 "pkg: give one package per call; '%.64s' is a second one",
				 argv[optind + 2]);
	if (pdk_cli_config_load_why(face, "pkg", config, false, &cfg, why, sizeof(why)) < 0)
		return say_error(json, PDK_FAIL_BAD_REQUEST, "%s", why);
	if (cfg.pkg_manager) {
		_cleanup_free_ char *prog = NULL;

		pdk_pkg_manager_parse(cfg.pkg_manager, &m);
		prog = find(pdk_pkg_manager_program(m));
		if (!prog) {
			int code = say_error(json, PDK_FAIL_NOT_FOUND,
					     "pkg: pkg.manager is %s, but %s is not on PATH; install "
					     "it, or set pkg.manager to this system's manager",
					     cfg.pkg_manager, pdk_pkg_manager_program(m));
			pdk_cli_config_done(face, &cfg);
			return code;
		}
	} else if (pdk_pkg_detect("/etc/os-release", getenv("PATH"), &m) < 0) {
		pdk_cli_config_done(face, &cfg);
		return say_error(json, PDK_FAIL_NOT_FOUND,
				 "pkg: no package manager here: none of apt-get, dnf, yum, pacman "
				 "or apk is on PATH; set pkg.manager in the configuration if it "
				 "lies elsewhere on PATH");
	}
	if (!timeout) {
		cap = pdk_asprintf("%g", cfg.timeout_cap);
		timeout = cap;
		if (!cap) {
			pdk_cli_config_done(face, &cfg);
			return say_error(json, PDK_FAIL_INTERNAL, "pkg: out of memory");
		}
	}
	pdk_cli_config_done(face, &cfg);
	if (name && pdk_pkg_name_check(m, name, why, sizeof(why)) < 0)
		return say_error(json, PDK_FAIL_BAD_REQUEST, "%s", why);
	if (pdk_pkg_action_changes(a) && !root && !(sudo = find("sudo")))
		return say_error(json, PDK_FAIL_NOT_FOUND,
				 "pkg: %s must run as root, this user is not root, and sudo is not "
				 "installed; run paddock pkg as root",
				 pdk_pkg_manager_program(m));
	if (pdk_pkg_argv(m, a, name, sudo ? "sudo" : NULL, &cmd) < 0)
		return say_error(json, PDK_FAIL_INTERNAL, "pkg: out of memory");
	what = pdk_asprintf("%s %s%s%s with %s, as root, outside the sandbox (paddock pkg)",
			    action, name ? "`" : "the system", name ? name : "", name ? "`" : "",
			    pdk_pkg_manager_program(m));
	note = pdk_asprintf("sandbox: none: paddock pkg ran %s outside the sandbox, as %s",
			    pdk_pkg_manager_name(m),
			    pdk_pkg_action_changes(a) ? "root" : "this user");
	if (!what || !note)
		return say_error(json, PDK_FAIL_INTERNAL, "pkg: out of memory");

	/* run's own options, then the command. */
	const char *run_argv[32];
	int n = 0;
	struct sudo_ctx sctx = {.sudo = sudo, .program = pdk_pkg_manager_program(m)};
	struct pdk_cli_preset preset = {
	    .ask = pdk_pkg_action_changes(a),
	    .what = what,
	    .note = note,
	    .before = sudo ? sudo_ready : NULL,
	    .ctx = &sctx,
	};

	run_argv[n++] = "run";
	if (json)
		run_argv[n++] = "--json";
	if (yes)
		run_argv[n++] = "--yes";
	run_argv[n++] = "--timeout";
	run_argv[n++] = timeout;
	if (bound) {
		run_argv[n++] = "--bound";
		run_argv[n++] = bound;
	}
	if (config) {
		run_argv[n++] = "--config";
		run_argv[n++] = config;
	}
	run_argv[n++] = "--";
	for (size_t i = 0; cmd[i] && n < (int)PDK_ARRAY_SIZE(run_argv) - 1; i++)
		run_argv[n++] = cmd[i];
	run_argv[n] = NULL;
	return pdk_cli_run_preset(n, (char **)run_argv, face, &preset);
#endif
}
