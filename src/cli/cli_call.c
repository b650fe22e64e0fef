/* cli_call.c - everything before a call runs, shared by `run` and `check`:
 * options, the configuration, the session's directory, the decision and the gate. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_call.h"
#include "confine/grants.h"
#include "core/fmt.h"
#include "core/path.h"
#include "core/strv.h"
#include "gate/session.h"
#include "output/store.h"
#include "core/util.h"
#include "confine/secrets.h"
#include "net/proxy.h"
#include <strings.h>

static void warn_line(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "paddock: warning: %s\n", line);
}

/* Is the call's i-th --write the MCP server's own -w? Whoever configured the
 * client chose them, as they would writablePaths: a call is not asked about
 * them, and they need no password. */
static bool server_write(const struct pdk_cli_call *c, size_t i)
{
	return i < c->o.n_server_writes;
}

int pdk_cli_config_load_why(const struct pdk_cli_face *face, const char *verb, const char *path,
			    bool warn, struct pdk_config *cfg, char *why, size_t why_len)
{
	char line[1024];

	/* A call's process of the MCP server: what the server read at its start
	 * (its own copy, so the call may release it). */
	if (face && face->config) {
		*cfg = *face->config;
		return 0;
	}

	pdk_config_init(cfg);
	if (pdk_config_load(cfg, path, warn ? warn_line : NULL, NULL, line, sizeof(line)) < 0) {
		snprintf(why, why_len, "%s: configuration: %s", verb, line);
		return -EINVAL;
	}
	return 0;
}

int pdk_cli_config_load(const char *verb, const char *path, bool warn, struct pdk_config *cfg)
{
	char why[1200];

	if (pdk_cli_config_load_why(NULL, verb, path, warn, cfg, why, sizeof(why)) < 0) {
		pdk_cli_error("%s", why);
		return -EINVAL;
	}
	return 0;
}

bool pdk_cli_wants_json(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			return true;
		if (strcmp(argv[i], "--") == 0 || argv[i][0] != '-')
			return false;
		if (pdk_cli_run_takes_value(argv[i]))
			i++;
	}
	return false;
}

char *pdk_cli_store_dir_why(const char *verb, const struct pdk_config *cfg, char *why,
			    size_t why_len)
{
	char *dir = cfg->store_dir ? strdup(cfg->store_dir) : pdk_store_default_dir();

	if (dir)
		return dir;
	if (cfg->store_dir)
		snprintf(why, why_len, "%s: out of memory", verb);
	else
		snprintf(why, why_len,
			 "%s: no place for the output store: neither HOME nor "
			 "XDG_STATE_HOME is an absolute path; set one of them, or "
			 "output.storeDir",
			 verb);
	return NULL;
}

char *pdk_cli_store_dir(const char *verb, const struct pdk_config *cfg)
{
	char why[512];
	char *dir = pdk_cli_store_dir_why(verb, cfg, why, sizeof(why));

	if (!dir)
		pdk_cli_error("%s", why);
	return dir;
}

static int policy_roots(struct pdk_cli_call *c);

/* Each --read names a path the sandbox keeps unread (else the call is bad input), made
 * absolute from where the command runs. */
static int check_reads(struct pdk_cli_call *c, const char *verb)
{
	__attribute__((cleanup(pdk_secrets_release))) struct pdk_secrets s = {0};
	char why[800];
	int r;

	for (size_t i = 0; i < c->o.n_reads; i++) {
		_cleanup_free_ char *p = c->o.reads[i][0] == '/' ? strdup(c->o.reads[i])
						: pdk_path_join(c->cwd, c->o.reads[i]);
		if (!p || pdk_strv_push(&c->reads, p) < 0)
			return -ENOMEM;
	}
	if (!c->o.n_reads)
		return 0;
	for (size_t i = 0; i < c->o.n_reads; i++)
		c->o.reads[i] = c->reads.v[i];
	if ((r = policy_roots(c)) < 0)
		return r;
	r = pdk_secrets_build(&s, getenv("HOME"), c->roots.v, c->roots.n, c->cwd,
			      &c->cfg.deny_read, &c->cfg.allow_read, c->o.reads, c->o.n_reads, why,
			      sizeof(why));
	pdk_strv_release(&c->roots);
	if (r == -EINVAL)
		snprintf(c->why, sizeof(c->why), "%s: %s", verb, why);
	return r;
}

/* Whether the call's grant is asked for, by the call itself or the configuration. */
static bool granted(const struct pdk_cli_call *c, enum pdk_grant g, bool *by_call)
{
	*by_call = g == PDK_GRANT_SSH_AGENT ? c->o.ssh_agent : c->o.docker;
	bool by_cfg = g == PDK_GRANT_SSH_AGENT ? c->cfg.allow_ssh_agent : c->cfg.allow_docker;

	return !c->o.no_sandbox && (*by_call || by_cfg);
}

/* Find each granted socket and the GPU's device nodes once, for the question and
 * paddock check. One that is not there, or that this host cannot give: bad input. */
static int grants_find(struct pdk_cli_call *c, const char *verb)
{
	char path[PATH_MAX], why[512];

	for (int g = 0; g < PDK_GRANT_N; g++) {
		if (!granted(c, g, &c->grant_by_call[g]))
			continue;
		if (pdk_grant_socket(g, path, sizeof(path), why, sizeof(why)) < 0) {
			snprintf(c->why, sizeof(c->why), "%s: %s", verb, why);
			return -EINVAL;
		}
		if (!(c->grant[g] = strdup(path)))
			return -ENOMEM;
	}
	if (!c->o.no_sandbox && (c->o.gpu || c->cfg.allow_gpu)) {
		int r = pdk_grant_gpu(&c->gpu.v, &c->gpu.n, why, sizeof(why));

		if (r == -EINVAL)
			snprintf(c->why, sizeof(c->why), "%s: %s", verb, why);
		if (r < 0)
			return r;
	}
	return 0;
}

void pdk_cli_config_done(const struct pdk_cli_face *face, struct pdk_config *cfg)
{
	if (!face || !face->config)
		pdk_config_release(cfg);
}

int pdk_cli_call_init_argv(struct pdk_cli_call *c, const char *verb, int argc, char **argv,
			   const struct pdk_cli_face *face)
{
	struct pdk_request req;
	char why[1024];

	if (pdk_cli_parse_run(argc, argv, &req, why, sizeof(why)) < 0) {
		memset(c, 0, sizeof(*c));
		pdk_config_init(&c->cfg);
		c->face = face;
		c->o.json = pdk_cli_wants_json(argc, argv);
		snprintf(c->why, sizeof(c->why), "%s: %s", verb, why);
		return -EINVAL;
	}
	return pdk_cli_call_init(c, verb, &req, face);
}

int pdk_cli_call_init(struct pdk_cli_call *c, const char *verb, struct pdk_request *req,
		      const struct pdk_cli_face *face)
{
	int r;

	memset(c, 0, sizeof(*c));
	pdk_config_init(&c->cfg);
	c->o = *req;
	memset(req, 0, sizeof(*req));
	c->face = face;
	if (pdk_cli_config_load_why(face, verb, c->o.config, true, &c->cfg, c->why,
				    sizeof(c->why)) < 0)
		return -EINVAL;
	pdk_request_apply_config(&c->o, &c->cfg);
	if (grants_find(c, verb) < 0)
		return -EINVAL;
	if (pdk_session_name(&c->session) < 0) {
		snprintf(c->why, sizeof(c->why),
			 "%s: PADDOCK_SESSION must be 1 to 64 of A-Z a-z 0-9 . _ -; "
			 "set it to such a name or unset it",
			 verb);
		return -EINVAL;
	}
	/* Where the call runs: -C, else where the session's last cd from this
	 * launch directory went, else here. A relative -C is taken from the
	 * session's directory, as a relative cd is. */
	c->launch = getcwd(NULL, 0);
	if (!c->launch) {
		snprintf(c->why, sizeof(c->why),
			 "%s: the current directory: %s; start paddock in an existing directory",
			 verb, strerror(errno));
		return -EINVAL;
	}
	r = pdk_session_cwd_get(c->session, c->launch, &c->session_cwd);
	if (r == 0) {
		struct stat st;
		if (stat(c->session_cwd, &st) < 0 || !S_ISDIR(st.st_mode))
			c->stale_cwd = true;
	}
	const char *here = c->session_cwd && !c->stale_cwd ? c->session_cwd : NULL;
	if (c->o.cwd) {
		_cleanup_free_ char *joined = NULL;
		if (c->o.cwd[0] != '/' && here && !(joined = pdk_path_join(here, c->o.cwd))) {
			snprintf(c->why, sizeof(c->why), "%s: out of memory", verb);
			return -EINVAL;
		}
		c->cwd = realpath(joined ? joined : c->o.cwd, NULL);
	} else {
		c->cwd = strdup(here ? here : c->launch);
	}
	if (!c->cwd) {
		snprintf(c->why, sizeof(c->why),
			 "%s: %s: %s; give an existing directory with -C, or 'cd' to one", verb,
			 c->o.cwd ? c->o.cwd : ".", strerror(errno));
		return -EINVAL;
	}
	return check_reads(c, verb);
}

/* -w paths outside $HOME (and a --root there, pushed before): writing there
 * needs the person's password. */
static int password_paths(struct pdk_cli_call *c)
{
	const char *home = getenv("HOME");
	_cleanup_free_ char *rhome = home && *home ? pdk_path_resolve(home) : NULL;

	for (size_t i = 0; i < c->o.n_writes; i++) {
		if (server_write(c, i))
			continue;
		_cleanup_free_ char *p = pdk_path_resolve(c->o.writes[i]);
		if (!p)
			return -errno;
		if (!(rhome && pdk_path_under(p, rhome)) && pdk_strv_push(&c->password, p) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The call as one line a shell would run the same, for the person asked. */
static char *call_line(char *const *argv)
{
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			fputc(' ', f);
		pdk_fput_shell_word(f, argv[i]);
	}
	if (fclose(f) != 0) {
		free(line);
		return NULL;
	}
	return line;
}

static int push_resolved(struct pdk_strv *sv, const char *p)
{
	_cleanup_free_ char *r = p && p[0] == '/' ? pdk_path_resolve(p) : NULL;

	return r ? pdk_strv_push(sv, r) : 0;
}

/* The writable roots the sandbox will grant (project, --write, writablePaths,
 * temp and cache): a program there is the project's own to the policy. */
static int policy_roots(struct pdk_cli_call *c)
{
	const char *tmp = getenv("TMPDIR"), *cache = getenv("XDG_CACHE_HOME"),
		   *home = getenv("HOME");
	_cleanup_free_ char *launch = c->o.root ? NULL : getcwd(NULL, 0);
	_cleanup_free_ char *homecache = NULL;
	_cleanup_free_ char *root = c->o.root ? pdk_path_resolve(c->o.root) : NULL;
	int r = push_resolved(&c->roots, root ? root : launch);

	for (size_t i = 0; r == 0 && i < c->o.n_writes; i++) {
		_cleanup_free_ char *w = pdk_path_resolve(c->o.writes[i]);
		r = push_resolved(&c->roots, w);
	}
	for (size_t i = 0; r == 0 && i < c->cfg.writable_paths.n; i++)
		r = push_resolved(&c->roots, c->cfg.writable_paths.v[i]);
	if (r == 0)
		r = push_resolved(&c->roots, tmp && tmp[0] == '/' ? tmp : "/tmp");
	if (r == 0 && (!cache || cache[0] != '/') && home && home[0] == '/') {
		homecache = pdk_path_join(home, ".cache");
		cache = homecache;
		if (!homecache)
			r = -ENOMEM;
	}
	if (r == 0)
		r = push_resolved(&c->roots, cache);
	return r;
}

/* What a configuration grants beyond the built-in defaults, as one phrase
 * ("turns the sandbox off, writable /srv"), or "" when it only narrows. */
static char *config_widenings(const struct pdk_config *cfg)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	const char *sep = "";

	if (!f)
		return NULL;
#define SAY(...) (fputs(sep, f), fprintf(f, __VA_ARGS__), sep = ", ")
	if (!cfg->sandbox_enabled)
		SAY("turns the sandbox off");
	if (cfg->allow_network)
		SAY("network for every call");
	for (size_t i = 0; i < cfg->writable_paths.n; i++)
		SAY("writable %s", cfg->writable_paths.v[i]);
	for (size_t i = 0; i < cfg->allowed_domains.n; i++)
		SAY("reaches %s", cfg->allowed_domains.v[i]);
	for (size_t i = 0; i < cfg->allow_unix_sockets.n; i++)
		SAY("reaches the unix socket %s", cfg->allow_unix_sockets.v[i]);
	for (size_t i = 0; i < cfg->allow_local_addresses.n; i++)
		SAY("reaches the local address %s", cfg->allow_local_addresses.v[i]);
	for (size_t i = 0; i < cfg->allow_read.n; i++)
		SAY("reads the secret %s (allowRead)", cfg->allow_read.v[i]);
	if (cfg->allow_outside_sandbox)
		SAY("allows runs outside the sandbox");
	if (cfg->allow_ssh_agent)
		SAY("reaches your ssh-agent (allowSshAgent)");
	if (cfg->allow_docker)
		SAY("reaches the container engine's socket, the host's root (allowDocker)");
	if (cfg->allow_gpu)
		SAY("opens the GPU's device nodes (allowGpu)");
	if (cfg->approval_mode == PDK_APPROVAL_ALLOW)
		SAY("approves every question (approval.mode allow)");
	if (cfg->approval_mode == PDK_APPROVAL_COMMAND)
		SAY("lets %s answer (approval.command)",
		    cfg->approval_command ? cfg->approval_command : "a program");
	if (cfg->threshold > PDK_RISK_MODERATE)
		SAY("asks only for dangerous commands");
	if (cfg->n_allow)
		SAY("allow rules");
	if (cfg->read_only_command.n)
		SAY("read-only commands");
	if (cfg->bwrap)
		SAY("runs %s as bubblewrap", cfg->bwrap);
#undef SAY
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

static bool in_strv(const struct pdk_strv *sv, const char *p)
{
	for (size_t i = 0; i < sv->n; i++)
		if (pdk_path_under(p, sv->v[i]))
			return true;
	return false;
}

/* Every widening is named in the question: each -w path (but the MCP server's own), a --root other
 * than the launch directory (or one inside it), --allow-git-hooks, --allow-agent-config,
 * --no-sandbox, and a
 * configuration that widens when it came from --config or lies inside a
 * writable root. */
static int widenings(struct pdk_cli_call *c)
{
	_cleanup_free_ char *launch = getcwd(NULL, 0), *what = NULL;
	int r = 0;

	for (size_t i = 0; r == 0 && i < c->o.n_writes; i++) {
		if (server_write(c, i))
			continue;
		_cleanup_free_ char *p = pdk_path_resolve(c->o.writes[i]);
		r = pdk_strv_push(&c->writes, p ? p : c->o.writes[i]);
	}
	if (r == 0 && c->o.root) {
		_cleanup_free_ char *root = pdk_path_resolve(c->o.root);
		const char *home = getenv("HOME");
		_cleanup_free_ char *rhome = home && *home ? pdk_path_resolve(home) : NULL;

		if (root && !(launch && pdk_path_under(root, launch))) {
			_cleanup_free_ char *w = pdk_asprintf("writable root %s (--root)", root);

			r = w ? pdk_strv_push(&c->widen, w) : -ENOMEM;
			/* outside HOME, like -w: the person's password */
			if (r == 0 && !(rhome && pdk_path_under(root, rhome)))
				r = pdk_strv_push(&c->password, root);
		}
	}
	/* Hooks the user's own git runs later, outside the sandbox: asked every time it is not
	 * remembered, and remembered for this widening only. */
	if (r == 0 && c->o.allow_git_hooks && !c->o.no_sandbox)
		r = pdk_strv_push(&c->widen, PDK_WIDEN_GIT_HOOKS);
	/* A host socket the call asks for, with its path. */
	for (int g = 0; r == 0 && g < PDK_GRANT_N; g++) {
		if (!c->grant[g] || !c->grant_by_call[g])
			continue;
		_cleanup_free_ char *w = pdk_grant_question(g, c->grant[g]);
		r = w ? pdk_strv_push(&c->widen, w) : -ENOMEM;
	}
	if (r == 0 && c->o.gpu && c->gpu.n) {
		_cleanup_free_ char *list = NULL, *w = NULL;

		for (size_t i = 0; i < c->gpu.n; i++) {
			char *l = pdk_asprintf("%s%s%s", list ? list : "", i ? ", " : "", c->gpu.v[i]);

			free(list);
			if (!(list = l))
				return -ENOMEM;
		}
		if (!(w = pdk_asprintf("opens the GPU%s %s (--gpu)",
				       c->gpu.v[0][0] == '/' ? "'s device nodes" : " to", list)))
			return -ENOMEM;
		r = pdk_strv_push(&c->widen, w);
	}
	if (r == 0 && c->o.allow_agent_config && !c->o.no_sandbox)
		r = pdk_strv_push(&c->widen, PDK_WIDEN_AGENT_CONFIG);
	for (size_t i = 0; r == 0 && i < c->o.n_reads; i++) {
		_cleanup_free_ char *w = pdk_asprintf(PDK_WIDEN_READ "%s", c->o.reads[i]);

		r = w ? pdk_strv_push(&c->widen, w) : -ENOMEM;
	}
	/* Turning the sandbox off is the person's call: asked, unless their
	 * configuration turned it off already. */
	if (r == 0 && c->o.no_sandbox_asked && c->cfg.sandbox_enabled)
		r = pdk_strv_push(&c->widen, PDK_WIDEN_NO_SANDBOX);
	if (r < 0 || !(what = config_widenings(&c->cfg)))
		return r < 0 ? r : -ENOMEM;
	if (!*what)
		return 0;
	for (size_t i = 0; i < c->cfg.files.n; i++) {
		const char *file = c->cfg.files.v[i];
		_cleanup_free_ char *real = pdk_path_resolve(file), *w = NULL;
		bool inside = real && in_strv(&c->roots, real);

		if (!c->o.config && !inside)
			continue;
		w = pdk_asprintf("configuration %s (%s): %s", real ? real : file,
				 !c->o.config ? "inside a writable root"
				 : inside     ? "--config, inside a writable root"
					      : "--config",
				 what);
		if (!w || pdk_strv_push(&c->widen, w) < 0)
			return -ENOMEM;
		c->config_widens = true;
	}
	return 0;
}

/* The --allow-domain patterns the configuration does not list: each is asked for. */
static int unconfigured_domains(const struct pdk_cli_call *c, struct pdk_strv *ret)
{
	for (size_t i = 0; i < c->o.n_domains; i++) {
		bool listed = false;

		for (size_t k = 0; k < c->cfg.allowed_domains.n && !listed; k++)
			listed = !strcasecmp(c->cfg.allowed_domains.v[k], c->o.domains[i]) ||
				 pdk_domain_matches(c->cfg.allowed_domains.v[k], c->o.domains[i]);
		if (!listed && pdk_strv_push(ret, c->o.domains[i]) < 0)
			return -ENOMEM;
	}
	return 0;
}

int pdk_cli_call_decide(struct pdk_cli_call *c)
{
	__attribute__((cleanup(pdk_strv_release))) struct pdk_strv asked = {0};
	struct pdk_policy_call pc = {
	    .argv = c->o.argv,
	    .cwd = c->cwd,
	    .home = getenv("HOME"),
	    .network = c->o.network && !c->o.no_sandbox,
	    .outside_sandbox = c->o.outside_sandbox,
	    .sandbox_off = c->o.no_sandbox,
	};
	int r;

	if ((r = policy_roots(c)) < 0 || (r = widenings(c)) < 0)
		return r;
	pc.roots = (const char *const *)c->roots.v;
	pc.n_roots = c->roots.n;
	pc.writes = (const char *const *)c->writes.v;
	pc.n_writes = c->writes.n;
	pc.widen = (const char *const *)c->widen.v;
	pc.n_widen = c->widen.n;
	pc.sockets = (const char *const *)c->cfg.allow_unix_sockets.v;
	pc.n_sockets = c->cfg.allow_unix_sockets.n;
	if (!c->o.no_sandbox && (r = unconfigured_domains(c, &asked)) < 0)
		return r;
	pc.domains = (const char *const *)asked.v;
	pc.n_domains = asked.n;
	r = pdk_policy_decide(&c->cfg, &pc, &c->d);
	if (r < 0)
		return r;
	c->line = call_line(c->o.argv);
	if (!c->line)
		return -ENOMEM;
	/* Deny and allow rules apply to an outside run as to any; then the switch. */
	if (c->d.verdict != PDK_VERDICT_REFUSE && pc.outside_sandbox &&
	    !c->cfg.allow_outside_sandbox) {
		/* The decision says so too, for check and --json alike. */
		free(c->d.message);
		free(c->d.rule);
		c->d.message = strdup("command denied by policy: running outside the sandbox is "
				      "turned off here (commandPolicy.sandbox.allowOutsideSandbox "
				      "is false); run it in the sandbox, with --write PATH for what "
				      "it must write, or ask the person to run it themselves");
		c->d.rule = strdup("commandPolicy.sandbox.allowOutsideSandbox");
		c->d.verdict = PDK_VERDICT_REFUSE;
		free(c->d.ask);
		c->d.ask = NULL;
		if (!c->d.message || !c->d.rule)
			return -ENOMEM;
	}
	if (c->d.verdict == PDK_VERDICT_REFUSE) {
		c->refusal = strdup(c->d.message ? c->d.message : "command denied by policy");
		return c->refusal ? 0 : -ENOMEM;
	}
	return password_paths(c);
}

int pdk_cli_call_decide_preset(struct pdk_cli_call *c, bool ask, const char *what)
{
	c->line = call_line(c->o.argv);
	c->d.verdict = ask ? PDK_VERDICT_ASK : PDK_VERDICT_RUN;
	/* What changes the system as root is as far from the sandbox as it gets. */
	c->d.risk = ask ? PDK_RISK_DANGEROUS : PDK_RISK_SAFE;
	c->d.read_only = !ask;
	c->d.rule = strdup("pkg");
	c->d.ask = ask ? strdup(what) : NULL;
	if (!c->line || !c->d.rule || (ask && !c->d.ask))
		return -ENOMEM;
	return 0;
}

bool pdk_cli_call_needs_gate(const struct pdk_cli_call *c)
{
	return c->d.verdict == PDK_VERDICT_ASK || c->password.n || c->o.outside_sandbox;
}

static struct pdk_gate_request gate_request(const struct pdk_cli_call *c)
{
	return (struct pdk_gate_request){
	    .line = c->line,
	    .d = &c->d,
	    .session = c->session,
	    .cwd = c->cwd,
	    .project = c->roots.n ? c->roots.v[0] : NULL,
	    .outside_sandbox = c->o.outside_sandbox,
	    .password_paths = (const char *const *)c->password.v,
	    .n_password_paths = c->password.n,
	    .remote = c->face && c->face->remote_fd >= 0,
	    .remote_fd = c->face ? c->face->remote_fd : -1,
	};
}

int pdk_cli_call_session_covers(const struct pdk_cli_call *c)
{
	struct pdk_gate_request rq = gate_request(c);

	return pdk_cli_call_needs_gate(c) ? pdk_gate_session_covers(&rq) : 0;
}

int pdk_cli_call_gate(struct pdk_cli_call *c)
{
	struct pdk_gate_request rq = gate_request(c);
	int r;

	if (!pdk_cli_call_needs_gate(c))
		return 0;
	if (c->config_widens) {
		/* A configuration that widens does not answer its own question:
		 * a person at the terminal does, or --yes. */
		struct pdk_config gate_cfg = c->cfg;

		gate_cfg.approval_mode = PDK_APPROVAL_AUTO;
		gate_cfg.approval_command = NULL;
		r = pdk_gate_decide(&gate_cfg, c->o.yes, &rq, &c->g);
	} else {
		r = pdk_gate_decide(&c->cfg, c->o.yes, &rq, &c->g);
	}
	if (r < 0)
		return r;
	c->gated = true;
	if (!c->g.approved) {
		c->refusal = strdup(c->g.message ? c->g.message : "command not approved");
		return c->refusal ? 0 : -ENOMEM;
	}
	return 0;
}

void pdk_cli_call_release(struct pdk_cli_call *c)
{
	pdk_gate_result_release(&c->g);
	pdk_decision_release(&c->d);
	pdk_strv_release(&c->password);
	pdk_strv_release(&c->roots);
	pdk_strv_release(&c->writes);
	pdk_strv_release(&c->reads);
	pdk_strv_release(&c->widen);
	pdk_strv_release(&c->gpu);
	for (int g = 0; g < PDK_GRANT_N; g++)
		free(c->grant[g]);
	pdk_config_release(&c->cfg);
	pdk_request_release(&c->o);
	free(c->session_cwd);
	free(c->launch);
	free(c->cwd);
	free(c->line);
	free(c->refusal);
}
