/* sandbox.c - the confinement stage: from a request to writable roots,
 * protected paths, a scrubbed environment and a chosen backend, ready for
 * the runner. */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "path.h"
#include "sandbox.h"
#include "store.h"
#include "util.h"

const char *const pdk_secret_env_default[] = {
	"*TOKEN*", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*_KEY", "*API_KEY*", "*APIKEY*",
	"*CREDENTIAL*", "*PRIVATE_KEY*", "AWS_*", "SSH_AUTH_SOCK", "GPG_AGENT_INFO",
	"*_PAT", "*SESSION_KEY*", NULL,
};

/* Names that, written inside a root, let code run later outside it. */
static const char *const protected_names[] = {
	".git/hooks", ".git/config", ".bashrc", ".bash_profile", ".zshrc", ".zprofile",
	".profile", ".mcp.json", ".vscode", ".idea", NULL,
};

static int strv_push(char ***v, size_t *n, char *s)
{
	char **nv;

	if (!s)
		return -ENOMEM;
	nv = realloc(*v, (*n + 2) * sizeof(**v));
	if (!nv) {
		free(s);
		return -ENOMEM;
	}
	nv[(*n)++] = s;
	nv[*n] = NULL;
	*v = nv;
	return 0;
}

static bool strv_has(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* A root a person named must be a directory that exists. */
static int add_named_root(struct pdk_sandbox *sb, size_t *n, const char *opt, const char *p,
			  char *why, size_t why_len)
{
	struct stat st;
	char *real;

	if (strpbrk(p, "\n")) {
		snprintf(why, why_len, "%s: the path has a newline in it; name a path without one",
			 opt);
		return -EINVAL;
	}
	if (stat(p, &st) < 0) {
		snprintf(why, why_len, "%s %s: %s; create it first, or name a directory that exists",
			 opt, p, strerror(errno));
		return -EINVAL;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, why_len, "%s %s: not a directory; name the directory to write in",
			 opt, p);
		return -EINVAL;
	}
	real = realpath(p, NULL);
	if (!real) {
		snprintf(why, why_len, "%s %s: %s", opt, p, strerror(errno));
		return -EINVAL;
	}
	if (strv_has(sb->roots, *n, real)) {
		free(real);
		return 0;
	}
	return strv_push(&sb->roots, n, real);
}

/* A default root is granted only if it exists. */
static int add_default_root(struct pdk_sandbox *sb, size_t *n, const char *p)
{
	struct stat st;
	char *real;

	if (!p || p[0] != '/' || stat(p, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	real = realpath(p, NULL);
	if (!real)
		return 0;
	if (strv_has(sb->roots, *n, real)) {
		free(real);
		return 0;
	}
	return strv_push(&sb->roots, n, real);
}

static int build_env(struct pdk_sandbox *sb, char **environ)
{
	size_t n = 0, k = 0;

	while (environ[n])
		n++;
	sb->envp = calloc(n + 1, sizeof(char *));
	if (!sb->envp)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		char name[256];
		const char *eq = strchr(environ[i], '=');
		size_t len = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
		bool secret = false;

		if (len >= sizeof(name))
			len = sizeof(name) - 1;
		memcpy(name, environ[i], len);
		name[len] = '\0';
		for (const char *const *p = pdk_secret_env_default; *p && !secret; p++)
			secret = fnmatch(*p, name, FNM_CASEFOLD) == 0;
		if (!secret)
			sb->envp[k++] = environ[i];
	}
	return 0;
}

static int build_policy(const struct pdk_request *req, struct pdk_sandbox *sb, char *why,
			size_t why_len)
{
	size_t n = 0, np = 0, named;
	char cwd[PATH_MAX];
	const char *tmp = getenv("TMPDIR"), *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *homecache = NULL;
	int r;

	if (req->root)
		r = add_named_root(sb, &n, "--root", req->root, why, why_len);
	else if (getcwd(cwd, sizeof(cwd)))
		r = add_named_root(sb, &n, "the launch directory", cwd, why, why_len);
	else
		r = (snprintf(why, why_len, "cannot tell the launch directory: %s", strerror(errno)),
		     -errno);
	if (r < 0)
		return r;
	for (size_t i = 0; i < req->n_writes; i++)
		if ((r = add_named_root(sb, &n, "--write", req->writes[i], why, why_len)) < 0)
			return r;
	named = n; /* protected names matter in the project, not in temp dirs */
	r = add_default_root(sb, &n, tmp && tmp[0] == '/' ? tmp : "/tmp");
	if (r == 0 && (!cache || cache[0] != '/') && home && home[0] == '/') {
#ifdef __APPLE__
		r = asprintf(&homecache, "%s/Library/Caches", home) < 0 ? -ENOMEM : 0;
#else
		r = asprintf(&homecache, "%s/.cache", home) < 0 ? -ENOMEM : 0;
#endif
		cache = homecache;
	}
	/* The per-user cache is where build tools expect to write: make it. */
	if (r == 0 && cache && cache[0] == '/' && mkdir(cache, 0700) < 0 && errno != EEXIST)
		cache = NULL;
	if (r == 0)
		r = add_default_root(sb, &n, cache && cache[0] == '/' ? cache : NULL);
	free(homecache);
	if (r < 0)
		return r;
	for (size_t i = 0; i < named; i++)
		for (const char *const *p = protected_names; *p; p++) {
			char *pp;
			if (asprintf(&pp, "%s%s%s", sb->roots[i],
				     strcmp(sb->roots[i], "/") == 0 ? "" : "/", *p) < 0)
				return -ENOMEM;
			if ((r = strv_push(&sb->protect, &np, pp)) < 0)
				return r;
		}
	/* Nothing paddock keeps for itself may be writable from inside, even
	 * when a root holds it (paddock started in $HOME). */
	{
		_cleanup_free_ char *state = pdk_state_dir();
		char *real = state ? pdk_path_resolve(state) : NULL;
		if (real && (r = strv_push(&sb->protect, &np, real)) < 0)
			return r;
	}
	sb->policy.roots = (const char *const *)sb->roots;
	sb->policy.n_roots = n;
	sb->policy.protect = (const char *const *)sb->protect;
	sb->policy.n_protect = np;
	sb->policy.network = req->network;
	sb->policy.cwd = req->cwd;
	sb->policy.max_procs = 0;
	return 0;
}

int pdk_sandbox_setup(const struct pdk_request *req, const char *path, char **environ,
		      struct pdk_sandbox *sb, char *why, size_t why_len)
{
	const char *fallback = NULL;
	char cwd_real[PATH_MAX];
	int r;

	sb->spec.path = path;
	sb->spec.argv = req->argv;
	sb->spec.envp = environ;
	sb->spec.cwd = req->cwd;
	sb->spec.timeout = req->timeout;
	if (req->cwd && !realpath(req->cwd, cwd_real)) {
		snprintf(why, why_len, "--cwd %s: %s", req->cwd, strerror(errno));
		return -EINVAL;
	}
	if (req->no_sandbox) {
		snprintf(sb->note_buf[0], sizeof(sb->note_buf[0]),
			 "sandbox: none: the command ran unconfined, as --no-sandbox asked");
		sb->notes[sb->n_notes++] = sb->note_buf[0];
		return 0;
	}
	if ((r = build_policy(req, sb, why, why_len)) < 0)
		return r;
	if ((r = build_env(sb, environ)) < 0)
		return r;
	sb->spec.envp = sb->envp;
	if ((r = pdk_backend_select(req->backend, &sb->backend, &fallback, why, why_len)) < 0)
		return r;
	if (fallback) {
		snprintf(sb->note_buf[0], sizeof(sb->note_buf[0]), "%s", fallback);
		sb->notes[sb->n_notes++] = sb->note_buf[0];
	}
	/* The command starts from its resolved path, never a PATH lookup
	 * inside the sandbox. */
	char **argv = req->argv;
	char *saved0 = argv[0];
	if (sb->backend->prepare && (r = sb->backend->prepare(&sb->policy, &sb->state)) < 0) {
		snprintf(why, why_len, "backend %s could not set up: %s", sb->backend->name,
			 strerror(-r));
		return r;
	}
	if (sb->backend->wrap_argv) {
		argv[0] = (char *)path;
		r = sb->backend->wrap_argv(sb->state, argv, &sb->wrapped);
		argv[0] = saved0;
		if (r < 0) {
			snprintf(why, why_len, "backend %s could not wrap the command: %s",
				 sb->backend->name, strerror(-r));
			return r;
		}
		sb->spec.path = sb->wrapped[0];
		sb->spec.argv = sb->wrapped;
		/* A wrapper changes directory itself (it sees the policy's cwd). */
	}
	sb->spec.backend = sb->backend;
	sb->spec.backend_state = sb->state;
	return 0;
}

int pdk_sandbox_describe(const struct pdk_sandbox *sb, FILE *out)
{
	if (!sb->backend) {
		fprintf(out, "no confinement: --no-sandbox\n");
		return 0;
	}
	fprintf(out, "backend: %s\n", sb->backend->name);
	for (size_t i = 0; i < sb->n_notes; i++)
		fprintf(out, "%s\n", sb->notes[i]);
	if (!sb->backend->describe)
		return 0;
	return sb->backend->describe(sb->state, sb->spec.argv, out);
}

void pdk_sandbox_release(struct pdk_sandbox *sb)
{
	if (sb->backend && sb->backend->release)
		sb->backend->release(sb->state);
	pdk_strvfreep(&sb->roots);
	pdk_strvfreep(&sb->protect);
	pdk_strvfreep(&sb->wrapped);
	free(sb->envp);
	memset(sb, 0, sizeof(*sb));
}
