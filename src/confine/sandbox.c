/* sandbox.c - the confinement stage: from a request and the configuration to
 * writable roots, protected paths, a scrubbed environment and a chosen
 * backend, ready for the runner; and the run, with its one fallback. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "config/config.h"
#include "core/fmt.h"
#include "core/path.h"
#include "sandbox.h"
#include "grants.h"
#include "net/proxy.h"
#ifdef __linux__
#include "net/supervise.h"
#endif
#include <sys/socket.h>
#include "agentconf.h"
#include "sandbox_int.h"
#include "vettrack.h"
#include "core/state.h"
#include "trash/trash.h"
#include "core/util.h"
#ifdef __linux__
#include "run/cgroup.h"
#include "run/zygote.h"
#endif
#ifdef HAVE_BWRAP
#endif

const char *const pdk_secret_env_default[] = {
    "*TOKEN*",
    "*SECRET*",
    "*PASSWORD*",
    "*PASSWD*",
    "*_KEY",
    "*API_KEY*",
    "*APIKEY*",
    "*CREDENTIAL*",
    "*PRIVATE_KEY*",
    "AWS_*",
    "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO",
    "*_PAT",
    "*SESSION_KEY*",
    "*_PWD",
    "*_PASS",
    "*PASSPHRASE*",
    "*JWT*",
    "*_DSN",
    "*WEBHOOK*",
    "*AUTH_CONFIG*",
    "*_COOKIE",
    /* sessions and keys by names of their own */
    "BW_SESSION",
    "OP_SESSION_*",
    "SSHPASS",
    "*AUTHKEY*",
    "*AUTHORIZATION*",
    "*CONNECTION_STRING*",
    "*_PW",
    "FASTLANE_SESSION",
    NULL,
};

/* Names that, written inside a root, let code run later outside it; a project's .git/config is
 * vetted after the run instead (sandbox_git.c), and the agents' and editors' configuration is
 * pdk_agentconf_project (agentconf.c). */
static const char *const protected_names[] = {
	".git/hooks", ".bashrc", ".bash_profile", ".zshrc", ".zprofile", ".profile", NULL,
};

__attribute__((format(printf, 2, 3))) static void add_note(struct pdk_sandbox *sb,
							    const char *fmt, ...)
{
	va_list ap;

	if (sb->n_note_buf >= PDK_ARRAY_SIZE(sb->note_buf))
		return;
	va_start(ap, fmt);
	vsnprintf(sb->note_buf[sb->n_note_buf++], sizeof(sb->note_buf[0]), fmt, ap);
	va_end(ap);
}

/* The result lines: the fallback first, then the rest. */
static void collect_notes(struct pdk_sandbox *sb)
{
	sb->n_notes = 0;
	if (sb->fallback_note[0])
		sb->notes[sb->n_notes++] = sb->fallback_note;
	for (size_t i = 0; i < sb->n_note_buf && sb->n_notes < PDK_SANDBOX_NOTES; i++)
		sb->notes[sb->n_notes++] = sb->note_buf[i];
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
	if (pdk_strv_contains(sb->roots, *n, real)) {
		free(real);
		return 0;
	}
	return pdk_strv_append(&sb->roots, n, real);
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
	if (pdk_strv_contains(sb->roots, *n, real)) {
		free(real);
		return 0;
	}
	return pdk_strv_append(&sb->roots, n, real);
}

/* name in ASCII lower case, into buf (size > strlen(name)). */
static void fold(char *buf, const char *name)
{
	for (; *name; name++)
		*buf++ = *name >= 'A' && *name <= 'Z' ? (char)(*name + ('a' - 'A')) : *name;
	*buf = '\0';
}

/*
 * fnmatch(pattern, name, FNM_CASEFOLD) in the C locale, which paddock runs
 * in; folded is fold(name). A pattern of '*' and plain characters, as
 * the shipped ones are, is matched by its pieces: the first a prefix, the
 * last a suffix, each between found leftmost in turn. fnmatch() would cost
 * every variable of the environment each pattern's multibyte set-up.
 */
static bool env_match(const char *pat, const char *name, const char *folded)
{
	char p[256];
	const char *n = folded, *piece, *star;
	size_t len;

	/* The name as it is: a class such as [[:upper:]] looks at the
	 * character itself, case folding or not. */
	if (strpbrk(pat, "?[\\") || strlen(pat) >= sizeof(p))
		return fnmatch(pat, name, FNM_CASEFOLD) == 0;
	fold(p, pat);
	if (!(star = strchr(p, '*')))
		return strcmp(p, n) == 0;
	len = (size_t)(star - p);
	if (strncmp(p, n, len) != 0)
		return false;
	n += len;
	for (piece = star + 1; (star = strchr(piece, '*')); piece = star + 1) {
		len = (size_t)(star - piece);
		if (!len)
			continue;
		/* Names and pieces are short: look at each place the piece's
		 * first character is (memmem() sets up a table per call). */
		while ((n = strchr(n, piece[0])) && strncmp(n, piece, len) != 0)
			n++;
		if (!n)
			return false;
		n += len;
	}
	len = strlen(piece);
	return strlen(n) >= len && strcmp(n + strlen(n) - len, piece) == 0;
}

static bool is_secret(const char *name, const struct pdk_config *cfg)
{
	char folded[256];

	fold(folded, name);
	for (const char *const *p = pdk_secret_env_default; *p; p++)
		if (env_match(*p, name, folded))
			return true;
	for (size_t i = 0; cfg && i < cfg->env.n; i++)
		if (env_match(cfg->env.v[i], name, folded))
			return true;
	return false;
}

/* Does value hold a credential whatever its name: a URL with a password
 * (scheme://user:password@host, as a DATABASE_URL or a REDIS_URL has), a
 * password, token, secret or key query parameter, or an Azure AccountKey=? */
static bool url_with_password(const char *value)
{
	static const char *const params[] = {
	    "password=", "passwd=",  "pwd=",	      "token=", "secret=", "key=",
	    "apikey=",	 "api_key=", "access_token=", "sig=",	NULL};

	for (const char *p = value; (p = strstr(p, "://"));) {
		size_t auth = strcspn(p += 3, "/?#@ \t");

		if (p[auth] == '@' && memchr(p, ':', auth))
			return true;
	}
	for (const char *p = value; *p; p++) {
		if (*p != '?' && *p != '&' && *p != ';')
			continue;
		for (const char *const *k = params; *k; k++)
			if (!strncasecmp(p + 1, *k, strlen(*k)) && p[1 + strlen(*k)] &&
			    p[1 + strlen(*k)] != '&')
				return true;
	}
	return strcasestr(value, "AccountKey=") || strcasestr(value, "SharedAccessKey=");
}

static int build_env(struct pdk_sandbox *sb, char **env, const struct pdk_config *cfg)
{
	size_t n = 0, k = 0;

	while (env[n])
		n++;
	sb->envp = calloc(n + 1, sizeof(char *));
	if (!sb->envp)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		char name[256];
		const char *eq = strchr(env[i], '=');
		size_t len = eq ? (size_t)(eq - env[i]) : strlen(env[i]);

		/* A name this long is no one's setting, and cut short it
		 * would slip past a suffix such as *_KEY: it stays out. */
		if (len >= sizeof(name))
			continue;
		memcpy(name, env[i], len);
		name[len] = '\0';
		/* A proxy's password is what the network, when on, needs. */
		if (!is_secret(name, cfg) &&
		    (!url_with_password(eq ? eq + 1 : "") ||
		     (sb->policy.network && len >= 6 && !strcasecmp(name + len - 6, "_proxy"))))
			sb->envp[k++] = env[i];
	}
	return 0;
}

/*
 * Package tools keep their caches outside the cache directory (~/.npm, ~/.cargo, ~/go/pkg/mod,
 * ~/.m2, ~/.gradle, ...), where a confined command cannot write. Each is pointed, through its
 * own variable, at a directory of its own under CACHE/paddock, which the command may write:
 * npm ci or cargo fetch then work, and what a command leaves there can mislead only later
 * confined runs, never the user's own tools, which still read their own caches. A variable
 * the user set is left as it is.
 */
static const struct {
	const char *name, *sub;
} tool_caches[] = {
	{"npm_config_cache", "npm"},		/* npm; npx */
	{"YARN_GLOBAL_FOLDER", "yarn-berry"},	/* yarn 2+; yarn 1 caches in CACHE/yarn */
	{"BUN_INSTALL_CACHE_DIR", "bun"},
	{"CARGO_HOME", "cargo"},		/* registry and git checkouts */
	{"GOMODCACHE", "go-mod"},		/* the build cache is CACHE/go-build already */
	{"GRADLE_USER_HOME", "gradle"},
	{"MAVEN_USER_HOME", "m2"},		/* the Maven wrapper's downloads */
	{"MAVEN_OPTS", "m2/repository"},	/* -Dmaven.repo.local=... added */
	{"NUGET_PACKAGES", "nuget"},
};

/* The environment entry NAME= in sb->envp, or NULL. */
static const char *env_entry(const struct pdk_sandbox *sb, const char *name)
{
	size_t len = strlen(name);

	for (char **e = sb->envp; e && *e; e++)
		if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
			return *e + len + 1;
	return NULL;
}

static int tool_cache_env(struct pdk_sandbox *sb)
{
	char *set[PDK_ARRAY_SIZE(tool_caches) + 1] = {0};
	size_t k = 0;
	int r = 0;

	/* The variables travel in MAVEN_OPTS's words, split at spaces. */
	if (!sb->cache || strpbrk(sb->cache, " \t\n\\\"'"))
		return 0;
	for (size_t i = 0; i < PDK_ARRAY_SIZE(tool_caches) && r == 0; i++) {
		const char *name = tool_caches[i].name, *old = env_entry(sb, name);
		int n;

		if (!strcmp(name, "MAVEN_OPTS")) {
			if (old && strstr(old, "maven.repo.local"))
				continue;
			n = asprintf(&set[k], "%s=%s%s-Dmaven.repo.local=%s/paddock/%s", name,
				     old ? old : "", old && *old ? " " : "", sb->cache,
				     tool_caches[i].sub);
		} else if (old) {
			continue;
		} else {
			n = asprintf(&set[k], "%s=%s/paddock/%s", name, sb->cache,
				     tool_caches[i].sub);
		}
		if (n < 0) {
			set[k] = NULL;
			r = -ENOMEM;
		} else {
			k++;
		}
	}
	if (r == 0)
		r = pdk_sandbox_setenv(sb, (const char *const *)set);
	for (size_t i = 0; i < k; i++)
		free(set[i]);
	return r;
}

/* Each protected name under each project root; an absolute configured one
 * is protected where it is. */
static int add_protected(struct pdk_sandbox *sb, size_t *np, size_t named, const char *name)
{
	int r;

	if (strchr(name, '\n'))
		return 0; /* no such path can be bound or matched */
	if (name[0] == '/') {
		char *real = pdk_path_resolve(name);

		return real ? pdk_strv_append(&sb->protect, np, real) : -ENOMEM;
	}
	for (size_t i = 0; i < named; i++) {
		char *pp;

		while (name[0] == '.' && name[1] == '/')
			name += 2;
		if (!(pp = pdk_path_join(sb->roots[i], name)))
			return -ENOMEM;
		if (pdk_strv_contains(sb->protect, *np, pp)) {
			free(pp);
			continue;
		}
		if ((r = pdk_strv_append(&sb->protect, np, pp)) < 0)
			return r;
	}
	return 0;
}

/* What lstat said of one path: its file type, or the error. */
struct pdk_seen {
	char *path;
	mode_t mode;
	int err;
};

/*
 * lstat(2) of a protected path, for the stages that look at it before the command starts
 * (tracked, reached through a symlink, missing, a .git symlink): while sb->seeing, the first
 * answer is kept and given again. Only st_mode is filled. 0, or -errno.
 */
static int seen_lstat(struct pdk_sandbox *sb, const char *path, struct stat *st)
{
	struct pdk_seen *s;
	int err;

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; sb->seeing && i < sb->n_seen; i++)
		if (!strcmp(sb->seen[i].path, path)) {
			st->st_mode = sb->seen[i].mode;
			return -sb->seen[i].err;
		}
	err = lstat(path, st) < 0 ? errno : 0;
	if (!sb->seeing || !(s = realloc(sb->seen, (sb->n_seen + 1) * sizeof(*s))))
		return -err;
	sb->seen = s;
	s += sb->n_seen;
	if ((s->path = strdup(path))) {
		s->mode = st->st_mode;
		s->err = err;
		sb->n_seen++;
	}
	return -err;
}

static void seen_end(struct pdk_sandbox *sb)
{
	for (size_t i = 0; i < sb->n_seen; i++)
		free(sb->seen[i].path);
	free(sb->seen);
	sb->seen = NULL;
	sb->n_seen = 0;
	sb->seeing = false;
}

/* A protected name in a project root that git tracks there (.vscode/settings.json, a
 * .mcp.json) moves from sb->protect to sb->git.tracked: held, it would stop a checkout of a
 * branch without it or with another version; vetted after the run instead, on every
 * backend, what git checked out stays and anything else is undone (vet.h). */
static int split_tracked(struct pdk_sandbox *sb, size_t *np, size_t named)
{
	size_t kept = 0;
	int r = 0;

	for (size_t i = 0; i < *np; i++) {
		const char *p = sb->protect[i], *slash = strrchr(p, '/');
		bool top = false;
		struct stat st;

		for (size_t k = 0; slash && k < named && !top; k++)
			top = strlen(sb->roots[k]) == (size_t)(slash - p) &&
			      !strncmp(p, sb->roots[k], (size_t)(slash - p));
		if (r == 0 && top && seen_lstat(sb, p, &st) == 0 && pdk_vettrack_in_index(p)) {
			r = pdk_strv_append(&sb->git.tracked, &sb->git.n_tracked, sb->protect[i]);
			if (r == 0)
				continue;
		}
		sb->protect[kept++] = sb->protect[i];
	}
	for (size_t i = kept; i < *np; i++)
		sb->protect[i] = NULL;
	*np = kept;
	return r;
}

/* Whether path, a name right in one of the first named roots (real paths), is its own real
 * path: missing, or there and no symlink. One lstat instead of resolving it part by part. */
static bool is_its_own_real_path(struct pdk_sandbox *sb, const char *path, size_t named)
{
	const char *slash = strrchr(path, '/');
	bool in_root = false;
	struct stat st;
	int r;

	if (!slash || !strcmp(slash, "/.") || !strcmp(slash, "/..") || !slash[1])
		return false;
	for (size_t k = 0; sb->roots && k < named && sb->roots[k] && !in_root; k++)
		in_root = strlen(sb->roots[k]) == (size_t)(slash - path) &&
			  !strncmp(path, sb->roots[k], (size_t)(slash - path));
	if (!in_root)
		return false;
	r = seen_lstat(sb, path, &st);
	return r == -ENOENT || (r == 0 && !S_ISLNK(st.st_mode));
}

/*
 * A protected path reached through a symlink inside a root (.git/hooks -> ../tools/hooks, a
 * .vscode that leads to a shared directory) is protected at its real path too: held there,
 * or, missing, what the command makes there undone after the run. A hooks directory's real
 * path is a hooks directory (sandbox_int.h). The symlink itself is vetted after the run
 * (protect_to_vet).
 */
static int add_real_paths(struct pdk_sandbox *sb, size_t *np, size_t named)
{
	size_t n = *np;
	int r = 0;

	for (size_t i = 0; r == 0 && i < n; i++) {
		_cleanup_free_ char *p = strdup(sb->protect[i]), *want = NULL;
		const char *base;
		bool exists = false, inside = false;

		if (!p)
			return -ENOMEM;
		if (is_its_own_real_path(sb, p, named))
			continue;
		if (!(want = pdk_sandbox_resolve_want(p, &exists)) || !strcmp(want, p))
			continue;
		base = strrchr(p, '/');
		if (base && !strcmp(base, "/hooks")) {
			r = pdk_sandbox_add_hookdir(sb, np, p);
			continue;
		}
		for (char **root = sb->roots; root && *root && !inside; root++)
			inside = pdk_path_under(want, *root) && strcmp(want, *root) != 0;
		if (!inside)
			continue;
		if (!exists)
			r = pdk_sandbox_add_want(sb, np, want);
		else if (!pdk_strv_contains(sb->protect, *np, want))
			r = pdk_strv_append(&sb->protect, np, steal_pointer(&want));
	}
	return r;
}

#define N_OWN 4
#define OWN_WHAT                                                                                   \
	"paddock trusts it after the run (its state, configuration or output store, or the trash)"

/* The first symlink on the way to path, as written, whose own directory lies inside one of
 * the n roots: the command could point it elsewhere. Its path into link and that root, or
 * NULL when there is none. Each link met is followed as the kernel would, 16 at most. */
static const char *link_in_roots(char *const *roots, size_t n, const char *path, char *link,
				 size_t len)
{
	char cur[PATH_MAX], target[PATH_MAX], next[PATH_MAX];

	if (snprintf(cur, sizeof(cur), "%s", path) >= (int)sizeof(cur))
		return NULL;
	for (int hops = 0; hops < 16; hops++) {
		char *end = cur;
		struct stat st;
		ssize_t tn;

		/* The first prefix of cur that is a symlink, cut at its end. */
		do {
			end = strchr(end + 1, '/');
			if (end)
				*end = '\0';
			if (lstat(cur, &st) == 0 && S_ISLNK(st.st_mode))
				break;
			if (end)
				*end = '/';
		} while (end);
		if (!end && !(lstat(cur, &st) == 0 && S_ISLNK(st.st_mode)))
			return NULL;
		char *slash = strrchr(cur, '/');
		_cleanup_free_ char *parent =
		    slash == cur ? strdup("/") : strndup(cur, (size_t)(slash - cur));
		_cleanup_free_ char *real = parent ? pdk_path_resolve(parent) : NULL;
		for (size_t k = 0; real && k < n; k++)
			if (pdk_path_under(real, roots[k])) {
				snprintf(link, len, "%s", cur);
				return roots[k];
			}
		if (!parent || (tn = readlink(cur, target, sizeof(target) - 1)) < 0)
			return NULL;
		target[tn] = '\0';
		if (snprintf(next, sizeof(next), "%s%s%s%s%s", target[0] == '/' ? "" : parent,
			     target[0] == '/' ? "" : "/", target, end ? "/" : "",
			     end ? end + 1 : "") >= (int)sizeof(next))
			return NULL;
		memcpy(cur, next, sizeof(cur));
	}
	return NULL;
}

/*
 * Make what is missing of the absolute path below its longest existing prefix, one directory
 * at a time, each opened through no symlink: a symlink planted in the missing part, even
 * while paddock makes the rest, is never followed, so the root can never be more than the
 * path named. *ret_real gets the real path of what was made. 0 or -errno.
 */
static int make_missing(const char *path, char **ret_real)
{
	char prefix[PATH_MAX];
	_cleanup_free_ char *real = NULL;
	_cleanup_close_ int fd = -1;
	const char *rest;
	struct stat st;
	size_t len;
	FILE *f;
	char *out = NULL;
	size_t out_len = 0;

	if (snprintf(prefix, sizeof(prefix), "%s", path) >= (int)sizeof(prefix))
		return -ENAMETOOLONG;
	while ((len = strlen(prefix)) > 1 && prefix[len - 1] == '/')
		prefix[len - 1] = '\0';
	while (stat(prefix, &st) < 0) {
		char *slash;

		if (errno != ENOENT)
			return -errno;
		slash = strrchr(prefix, '/');
		if (slash == prefix)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (!(real = realpath(prefix, NULL)))
		return -errno;
	if ((fd = pdk_open_dir_nofollow(real)) < 0)
		return fd;
	if (!(f = open_memstream(&out, &out_len)))
		return -ENOMEM;
	fputs(strcmp(real, "/") ? real : "", f);
	rest = path + strlen(prefix);
	for (const char *c = rest; *(c += strspn(c, "/"));) {
		size_t clen = strcspn(c, "/");
		char name[NAME_MAX + 1];
		int next;

		if (clen > NAME_MAX || (clen == 1 && c[0] == '.') ||
		    (clen == 2 && c[0] == '.' && c[1] == '.')) {
			fclose(f);
			free(out);
			return clen > NAME_MAX ? -ENAMETOOLONG : -EINVAL;
		}
		memcpy(name, c, clen);
		name[clen] = '\0';
		c += clen;
		if (mkdirat(fd, name, 0777) < 0 && errno != EEXIST) {
			int e = errno;
			fclose(f);
			free(out);
			return -e;
		}
		next = openat(fd, name, PDK_O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			int e = errno;
			fclose(f);
			free(out);
			return -e;
		}
		close(fd);
		fd = next;
		fprintf(f, "/%s", name);
	}
	if (fclose(f) != 0) {
		free(out);
		return -ENOMEM;
	}
	*ret_real = out;
	return 0;
}

/*
 * A writable path a person named (--write) or configured (writablePaths): a directory, or a
 * path that does not exist yet, whose missing part paddock makes (a cache on first use). The
 * way to it must not pass through a symlink inside a writable root (the n roots so far and
 * the extra ones to come): a command could have planted it, or could point it elsewhere for
 * the next run. A configured path that cannot be granted is left out with a note, since a
 * drive not mounted today must not stop every run; a --write path is an error.
 */
static int add_writable(struct pdk_sandbox *sb, size_t *n, bool configured, const char *p,
			const char *const *extra, size_t n_extra, char *why, size_t why_len)
{
	const char *opt = configured ? "writablePaths:" : "--write";
	_cleanup_free_ char *abs = NULL, *real = NULL;
	_cleanup_free_ char **all = calloc(*n + n_extra + 1, sizeof(char *));
	char link[PATH_MAX], msg[600], cwd[PATH_MAX];
	const char *root;
	struct stat st;
	int r;

	if (!all)
		return -ENOMEM;
	if (configured && p[0] != '/') {
		snprintf(why, why_len, "writablePaths: %s is not an absolute path; name it from /",
			 p);
		return -EINVAL;
	}
	if (strchr(p, '\n')) {
		snprintf(why, why_len, "%s: the path has a newline in it; name a path without one",
			 opt);
		return -EINVAL;
	}
	if (p[0] == '/')
		abs = strdup(p);
	else if (getcwd(cwd, sizeof(cwd)))
		abs = pdk_path_join(cwd, p);
	else
		return (snprintf(why, why_len, "%s %s: %s", opt, p, strerror(errno)), -errno);
	if (!abs)
		return -ENOMEM;
	for (size_t i = 0; i < *n; i++)
		all[i] = sb->roots[i];
	for (size_t i = 0; i < n_extra; i++)
		all[*n + i] = (char *)extra[i];
	if ((root = link_in_roots(all, *n + n_extra, abs, link, sizeof(link)))) {
		snprintf(msg, sizeof(msg),
			 "%s %.150s is reached through the symlink %.150s inside the writable root "
			 "%.150s, which a command could point elsewhere",
			 opt, p, link, root);
		if (configured) {
			add_note(sb, "sandbox: %.560s; not granted", msg);
			return 0;
		}
		snprintf(why, why_len, "%.560s; name the directory itself", msg);
		return -EPERM;
	}
	if (stat(abs, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			snprintf(why, why_len, "%s %s: not a directory; name the directory to write in",
				 opt, p);
			return -EINVAL;
		}
		if (!(real = realpath(abs, NULL))) {
			snprintf(why, why_len, "%s %s: %s", opt, p, strerror(errno));
			return -EINVAL;
		}
	} else if ((r = errno == ENOENT ? make_missing(abs, &real) : -errno) < 0) {
		snprintf(msg, sizeof(msg), "%s %.300s does not exist and could not be made: %s", opt,
			 p, strerror(-r));
		if (configured) {
			add_note(sb, "sandbox: %.560s; not granted", msg);
			return 0;
		}
		snprintf(why, why_len, "%.560s; create it first, or name a directory that exists",
			 msg);
		return -EINVAL;
	}
	if (pdk_strv_contains(sb->roots, *n, real))
		return 0;
	return pdk_strv_append(&sb->roots, n, steal_pointer(&real));
}

/*
 * The directories paddock trusts after a run, resolved, onto the protected list: its state,
 * the user's configuration, a configured output store (the default one is in the state) and
 * the trash the rm sweep fills. The run is refused when the way to one of them, as paddock
 * will take it after the run, has a symlink inside a root, or when a root lies inside one.
 */
static int add_own_dirs(struct pdk_sandbox *sb, const struct pdk_config *cfg, size_t n_roots,
			size_t *np, char *why, size_t why_len)
{
	char *dirs[N_OWN] = {pdk_state_dir(), pdk_config_user_dir(),
			     cfg && cfg->store_dir ? strdup(cfg->store_dir) : NULL,
			     pdk_trash_home_dir()};
	char link[PATH_MAX];
	int r = 0;

	sb->own_first = *np;
	for (size_t i = 0; i < N_OWN; i++) {
		const char *root;
		char *real;

		if (!dirs[i] || r < 0)
			continue;
		if ((root = link_in_roots(sb->roots, n_roots, dirs[i], link, sizeof(link)))) {
			snprintf(
			    why, why_len,
			    "%s is reached through the symlink %s inside the writable root %s, "
			    "and " OWN_WHAT ": the command could point it elsewhere; put the "
			    "directory itself in the symlink's place, or keep it out of the "
			    "writable roots",
			    dirs[i], link, root);
			r = -EPERM;
			continue;
		}
		if (!(real = pdk_path_resolve(dirs[i]))) {
			r = -errno;
			snprintf(why, why_len,
				 "%s cannot be reached (%s), and " OWN_WHAT ": it must be this "
				 "user's, or set XDG_STATE_HOME (XDG_CONFIG_HOME) to a directory of "
				 "this user's own",
				 dirs[i], strerror(-r));
			continue;
		}
		for (size_t k = 0; r == 0 && k < n_roots; k++)
			if (pdk_path_under(sb->roots[k], real)) {
				snprintf(why, why_len,
					 "the writable root %s lies in %s, and " OWN_WHAT
					 "; name a directory outside it",
					 sb->roots[k], real);
				r = -EPERM;
			}
		if (r == 0)
			r = pdk_strv_append(&sb->protect, np, real);
		else
			free(real);
	}
	for (size_t i = 0; i < N_OWN; i++)
		free(dirs[i]);
	return r;
}

static int setup_domains(struct pdk_sandbox *sb, const struct pdk_request *req,
			 const struct pdk_config *cfg);
static int setup_unix(struct pdk_sandbox *sb, const struct pdk_request *req,
		      const struct pdk_config *cfg, char *why, size_t why_len);

/* The secrets the command may not read, and the blanks a backend covers them with. */
static int setup_secrets(struct pdk_sandbox *sb, const struct pdk_request *req,
			 const struct pdk_config *cfg, char *why, size_t why_len)
{
	struct pdk_secrets *s = &sb->secrets;
	int r;

	r = pdk_secrets_build(s, getenv("HOME"), sb->roots, sb->policy.n_roots, req->cwd,
			      cfg ? &cfg->deny_read : NULL, cfg ? &cfg->allow_read : NULL,
			      req->reads, req->n_reads, why, why_len);
	if (r < 0)
		return r;
	/* Without a state directory: /dev/null (read empty) and an empty tmpfs. */
	if (s->n_hide && pdk_secrets_blanks(&sb->blank, &sb->blank_dir) < 0 &&
	    !(sb->blank = strdup("/dev/null")))
		return -ENOMEM;
	sb->policy.hide = (const char *const *)s->hide;
	sb->policy.n_hide = s->n_hide;
	sb->policy.blank = sb->blank;
	sb->policy.blank_dir = sb->blank_dir;
	sb->policy.deny_read = (const char *const *)s->deny;
	sb->policy.n_deny_read = s->n_deny;
	sb->policy.allow_read = (const char *const *)s->allow;
	sb->policy.n_allow_read = s->n_allow;
	return 0;
}

static int build_policy(const struct pdk_request *req, const struct pdk_config *cfg,
			struct pdk_sandbox *sb, char *why, size_t why_len)
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
#ifdef __APPLE__
	/* Not ~/Library/Caches, which holds what other programs trust later: macOS's own per-user
	 * cache directory, under /var/folders. */
	char darwin[PATH_MAX];
	size_t dn;

	(void)home;
	if ((!cache || cache[0] != '/') &&
	    (dn = confstr(_CS_DARWIN_USER_CACHE_DIR, darwin, sizeof(darwin))) > 0 &&
	    dn <= sizeof(darwin))
		cache = darwin;
#else
	if ((!cache || cache[0] != '/') && home && home[0] == '/') {
		if (asprintf(&homecache, "%s/.cache", home) < 0)
			return -ENOMEM;
		cache = homecache;
	}
#endif
	/* The per-user cache is where build tools expect to write: make it. */
	if (cache && cache[0] == '/' && mkdir(cache, 0700) < 0 && errno != EEXIST)
		cache = NULL;
	_cleanup_free_ char *tmp_real = realpath(tmp && tmp[0] == '/' ? tmp : "/tmp", NULL);
	if (cache && cache[0] == '/')
		sb->cache = realpath(cache, NULL);
	free(homecache);
	/* The roots still to come, against which a named path's symlinks are judged. */
	const char *extra[2] = {tmp_real ? tmp_real : sb->cache, tmp_real ? sb->cache : NULL};
	size_t n_extra = !!tmp_real + !!sb->cache;
	for (size_t i = 0; i < req->n_writes; i++)
		if ((r = add_writable(sb, &n, false, req->writes[i], extra, n_extra, why,
				      why_len)) < 0)
			return r;
	for (size_t i = 0; cfg && i < cfg->writable_paths.n; i++)
		if ((r = add_writable(sb, &n, true, cfg->writable_paths.v[i], extra, n_extra, why,
				      why_len)) < 0)
			return r;
	named = n; /* protected names matter in the project, not in temp dirs */
	/* A linked worktree's own git directory and its repository's, wherever they lie. */
	for (size_t i = 0; i < named; i++)
		if ((r = pdk_sandbox_worktree_roots(sb, &n, sb->roots[i])) < 0)
			return r;
	sb->git.wt_first = named;
	sb->git.n_wt = n - named;
	sb->policy.n_socket_roots = n;
	r = add_default_root(sb, &n, tmp && tmp[0] == '/' ? tmp : "/tmp");
	if (r == 0)
		r = add_default_root(sb, &n, sb->cache);
	if (r < 0)
		return r;
	for (const char *const *p = protected_names; *p; p++)
		if (!(sb->git.allow_hooks && !strcmp(*p, ".git/hooks")) &&
		    (r = add_protected(sb, &np, named, *p)) < 0)
			return r;
	for (const char *const *p = pdk_agentconf_project; !sb->allow_agent_config && *p; p++)
		if ((r = add_protected(sb, &np, named, *p)) < 0)
			return r;
	for (size_t i = 0; cfg && i < cfg->protected_paths.n; i++)
		if ((r = add_protected(sb, &np, named, cfg->protected_paths.v[i])) < 0)
			return r;
	for (size_t i = 0; i < named; i++)
		if ((r = pdk_sandbox_protect_git(sb, &np, sb->roots[i])) < 0)
			return r;
	if ((r = add_real_paths(sb, &np, named)) < 0 || (r = split_tracked(sb, &np, named)) < 0)
		return r;
	/* Nothing paddock trusts after the run may be writable from inside,
	 * even when a root holds it (paddock started in $HOME): its state (the
	 * session's approvals, the rm shim), its configuration, its output
	 * store, and the trash it moves files into. */
	if ((r = add_own_dirs(sb, cfg, n, &np, why, why_len)) < 0)
		return r;
	sb->own_end = np;
	/* After them: paddock makes those missing in a root, and the home's are watched from
	 * below them, so that what paddock made is never taken for the command's. */
	if ((r = pdk_sandbox_add_home(sb, &np, n, sb->cache)) < 0)
		return r;
	sb->policy.roots = (const char *const *)sb->roots;
	sb->policy.n_roots = n;
	sb->policy.protect = (const char *const *)sb->protect;
	sb->policy.n_protect = np;
	sb->policy.network = req->network;
	if ((r = setup_secrets(sb, req, cfg, why, why_len)) < 0)
		return r;
	if ((r = setup_domains(sb, req, cfg)) < 0)
		return r;
	if ((r = setup_unix(sb, req, cfg, why, why_len)) < 0)
		return r;
	sb->policy.gpu = req->gpu || (cfg && cfg->allow_gpu);
#ifndef __APPLE__ /* Seatbelt opens Metal, not device nodes */
	if (sb->policy.gpu && (r = pdk_grant_gpu(&sb->devices, &sb->n_devices, why, why_len)) < 0)
		return r;
#endif
	sb->policy.devices = (const char *const *)sb->devices;
	sb->policy.n_devices = sb->n_devices;
	sb->policy.cwd = req->cwd;
	sb->policy.max_procs = cfg && cfg->max_procs ? cfg->max_procs : PDK_MAX_PROCS_DEFAULT;
	return 0;
}

/*
 * The domains mode: with the network not on, the configured domains and the
 * call's --allow-domain ones are reached through paddock's proxy; its control
 * socket is made now, since the backend names the sandbox's end when it
 * prepares.
 */
static int setup_domains(struct pdk_sandbox *sb, const struct pdk_request *req,
			 const struct pdk_config *cfg)
{
	size_t n = 0;
	int sv[2], r;

	if (req->network)
		return 0;
	for (size_t i = 0; cfg && i < cfg->allowed_domains.n; i++)
		if ((r = pdk_strv_append(&sb->net.domains, &n,
					 strdup(cfg->allowed_domains.v[i]))) < 0)
			return r;
	for (size_t i = 0; i < req->n_domains; i++)
		if ((r = pdk_strv_append(&sb->net.domains, &n, strdup(req->domains[i]))) < 0)
			return r;
	sb->net.n_domains = n;
	if (!n)
		return 0;
	for (size_t i = 0; cfg && i < cfg->allow_local_addresses.n; i++)
		if ((r = pdk_strv_append(&sb->net.local_addrs, &sb->net.n_local_addrs,
					 strdup(cfg->allow_local_addresses.v[i]))) < 0)
			return r;
	if ((r = pdk_socketpair_cloexec(sv)) < 0)
		return r;
	/* Above 2: the runner's dup2 onto stdio must not clobber the
	 * sandbox's end. */
	for (int i = 0; i < 2; i++)
		if (sv[i] < 3) {
			int hi = fcntl(sv[i], F_DUPFD_CLOEXEC, 3);

			close(sv[i]);
			sv[i] = hi;
		}
	if (sv[0] < 0 || sv[1] < 0) {
		r = -errno;
		if (sv[0] >= 0)
			close(sv[0]);
		if (sv[1] >= 0)
			close(sv[1]);
		return r;
	}
	sb->net.domains_mode = true;
	sb->net.proxy_ctl = sv[0];
	sb->policy.proxy_fd = sv[1];
	sb->policy.domains = (const char *const *)sb->net.domains;
	sb->policy.n_domains = n;
	return 0;
}

/* Whether the backend lets the command reach the domains mode's proxy: one on
 * the host's loopback gives the proxy's variables when it does (Landlock does
 * only with its connect supervisor). */
static bool proxy_reachable(const struct pdk_sandbox *sb)
{
	const struct pdk_backend *b = sb->backend;

	return b->private_network ||
	       (b->proxy_on_loopback && (!b->env || (sb->state && b->env(sb->state))));
}

/* One host socket the run may reach, with the descriptor that reaches it and
 * what opened it. */
static int add_unix(struct pdk_sandbox *sb, const char *path, int fd, const char *from)
{
	char **paths = realloc(sb->net.unix_paths, (sb->net.n_unix + 2) * sizeof(*paths));
	const char **froms;
	int *fds;

	if (!paths)
		return -ENOMEM;
	sb->net.unix_paths = paths;
	froms = realloc(sb->net.unix_from, (sb->net.n_unix + 1) * sizeof(*froms));
	if (!froms)
		return -ENOMEM;
	sb->net.unix_from = froms;
	froms[sb->net.n_unix] = from;
	fds = realloc(sb->net.unix_fds, (sb->net.n_unix + 1) * sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	sb->net.unix_fds = fds;
	if (!(paths[sb->net.n_unix] = strdup(path)))
		return -ENOMEM;
	fds[sb->net.n_unix++] = fd;
	paths[sb->net.n_unix] = NULL;
	return 0;
}

/*
 * commandPolicy.sandbox.allowUnixSockets: each socket is opened now (O_PATH),
 * so that a connect() to its path reaches that socket and no other, whatever
 * happens to the path during the run; it is known by the path as configured
 * and by its real path. One that is not a socket now is left out. Elsewhere
 * (Seatbelt), where a socket cannot be opened, the profile names the paths
 * and the descriptor is -1.
 */
static int setup_unix(struct pdk_sandbox *sb, const struct pdk_request *req,
		      const struct pdk_config *cfg, char *why, size_t why_len)
{
	size_t n_cfg = cfg ? cfg->allow_unix_sockets.n : 0;
	char grant[PDK_GRANT_N][PATH_MAX];
	int r;

	/* The named grants (--ssh-agent, --docker or their keys) after the
	 * configured paths, each one a path here and then the same as those. */
	for (int g = 0; g < PDK_GRANT_N; g++) {
		bool on = g == PDK_GRANT_SSH_AGENT
				  ? req->ssh_agent || (cfg && cfg->allow_ssh_agent)
				  : req->docker || (cfg && cfg->allow_docker);

		grant[g][0] = '\0';
		if (on && (r = pdk_grant_socket(g, grant[g], sizeof(grant[g]), why, why_len)) < 0)
			return r;
	}
	for (size_t i = 0; i < n_cfg + PDK_GRANT_N; i++) {
		const char *p = i < n_cfg ? cfg->allow_unix_sockets.v[i] : grant[i - n_cfg];
		const char *from = i < n_cfg ? "allowUnixSockets" : pdk_grant_flag(i - n_cfg);

		if (!*p)
			continue;
		_cleanup_free_ char *real = NULL;
		struct stat st;
#ifdef __linux__
		int fd = open(p, PDK_O_PATH | O_CLOEXEC);

		if (fd < 0)
			continue;
		if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode)) {
			close(fd);
			continue;
		}
#else
		int fd = -1;

		if (stat(p, &st) < 0 || !S_ISSOCK(st.st_mode))
			continue;
#endif
		if ((r = add_unix(sb, p, fd, from)) < 0) {
			if (fd >= 0)
				close(fd);
			return r;
		}
		real = realpath(p, NULL);
		if (real && strcmp(real, p) != 0) {
			int dup = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : -1;

			if (fd >= 0 && dup < 0)
				return -errno;
			if ((r = add_unix(sb, real, dup, from)) < 0) {
				if (dup >= 0)
					close(dup);
				return r;
			}
		}
	}
	sb->policy.unix_paths = (const char *const *)sb->net.unix_paths;
	sb->policy.unix_fds = sb->net.unix_fds;
	sb->policy.unix_from = sb->net.unix_from;
	sb->policy.n_unix = sb->net.n_unix;
	return 0;
}

/* Prepare the chosen backend and, for a wrapper, the argv it runs. */
static int arm(struct pdk_sandbox *sb, char *why, size_t why_len)
{
	char **argv = sb->argv;
	char *saved0 = argv[0];
	const char *note;
	int r;

	sb->spec.path = sb->path;
	sb->spec.argv = sb->argv;
	if (sb->backend->prepare && (r = sb->backend->prepare(&sb->policy, &sb->state)) < 0) {
		const char *bwhy = sb->backend->prepare_why ? sb->backend->prepare_why() : NULL;

		sb->state = NULL;
		snprintf(why, why_len, "backend %s could not set up: %s", sb->backend->name,
			 bwhy ? bwhy : strerror(-r));
		return r;
	}
	if (sb->backend->note && (note = sb->backend->note(sb->state, &sb->nested))) {
		add_note(sb, "%s", note);
		collect_notes(sb);
	}
	if (sb->backend->env &&
	    (r = pdk_sandbox_setenv(sb, (const char *const *)sb->backend->env(sb->state))) < 0) {
		snprintf(why, why_len, "backend %s could not set the command's environment: %s",
			 sb->backend->name, strerror(-r));
		return r;
	}
	if (sb->backend->wrap_argv) {
		/* The command starts from its resolved path, never a PATH
		 * lookup inside the sandbox. */
		argv[0] = (char *)sb->path;
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
	sb->spec.tree_dies_with_parent = sb->backend->tree_dies_with_parent;
	if (sb->net.domains_mode && !proxy_reachable(sb)) {
		add_note(sb, "sandbox: the network is off: the %s backend has no network of the "
			     "run's own to hold the proxy that reaches the allowed domains (bwrap "
			     "has); they are out of reach here",
			 sb->backend->name);
		collect_notes(sb);
	}
	return 0;
}

/* One run of the command, with the domains mode's proxy around it. */
static int run_proxied(struct pdk_sandbox *sb, struct pdk_capture *out, struct pdk_capture *err,
		       struct pdk_run_status *st)
{
	const char *const *refused;
	size_t n;
	int ctl, r;

	if (!sb->net.domains_mode || !sb->backend || !proxy_reachable(sb))
		return pdk_run(&sb->spec, out, err, st);
	ctl = fcntl(sb->net.proxy_ctl, F_DUPFD_CLOEXEC, 3);
	if (ctl < 0)
		return -errno;
	r = pdk_proxy_start((const char *const *)sb->net.domains, sb->net.n_domains,
			    (const char *const *)sb->net.local_addrs, sb->net.n_local_addrs, ctl,
			    &sb->net.proxy);
	if (r < 0)
		return r;
	r = pdk_run(&sb->spec, out, err, st);
	pdk_proxy_stop(sb->net.proxy);
	n = pdk_proxy_refused(sb->net.proxy, &refused);
	for (size_t i = 0; i < n; i++)
		if (pdk_strv_append(&sb->net.refused, &sb->net.n_refused, strdup(refused[i])) < 0)
			break;
	if (n) {
		char list[400] = "";

		for (size_t i = 0; i < n; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", refused[i]);
		add_note(sb, "sandbox: the proxy refused %s: not an allowed domain; allow one with "
			     "--allow-domain NAME, or list it in commandPolicy.sandbox.allowedDomains",
			 list);
		collect_notes(sb);
	}
	n = pdk_proxy_refused_local(sb->net.proxy, &refused);
	if (n) {
		char list[300] = "";

		for (size_t i = 0; i < n; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", refused[i]);
		add_note(sb, "sandbox: the proxy refused %s: an allowed name never leads to the "
			     "host's own, private or link-local addresses; if the command must "
			     "reach one, list it in commandPolicy.sandbox.allowLocalAddresses",
			 list);
		collect_notes(sb);
	}
	pdk_proxy_free(sb->net.proxy);
	sb->net.proxy = NULL;
	return r;
}

static void disarm(struct pdk_sandbox *sb)
{
	if (sb->backend && sb->backend->release)
		sb->backend->release(sb->state);
	sb->state = NULL;
	pdk_strv_freep(&sb->wrapped);
	sb->spec.backend = NULL;
	sb->spec.backend_state = NULL;
	sb->spec.tree_dies_with_parent = false;
}

/*
 * The protected paths (not paddock's own directories) inside a root that are missing while
 * their parent is a directory there, onto sb->trash.missing: nothing holds their place in the
 * user's tree, and what the command makes at them is undone after the run (vet.h). One whose parent
 * is missing too is left alone: a `git init` makes .git/hooks and .git/config of its own.
 */
static int add_missing(struct pdk_sandbox *sb)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < sb->own_first; i++) {
		const char *p = sb->protect[i], *slash = strrchr(p, '/');
		struct stat st;
		bool inside = false;

		for (size_t k = 0; k < sb->policy.n_roots && !inside; k++)
			inside = pdk_path_under(p, sb->policy.roots[k]) &&
				 strcmp(p, sb->policy.roots[k]) != 0;
		if (!inside || !slash || slash == p || seen_lstat(sb, p, &st) != -ENOENT ||
		    pdk_strv_contains(sb->trash.missing, sb->trash.n_missing, p))
			continue;
		_cleanup_free_ char *parent = strndup(p, (size_t)(slash - p));
		if (!parent)
			return -ENOMEM;
		if (seen_lstat(sb, parent, &st) == 0 && S_ISDIR(st.st_mode))
			r = pdk_strv_append(&sb->trash.missing, &sb->trash.n_missing, strdup(p));
	}
	/* And those that runs going on now found missing in these roots (but for git's hooks,
	 * when this call may install them). */
	return r < 0 ? r
		     : pdk_vet_adopt(sb->roots, sb->policy.n_roots,
				     sb->git.allow_hooks ? "hooks" : NULL, &sb->trash.missing,
				     &sb->trash.n_missing);
}

static int select_backend(struct pdk_sandbox *sb, const char *name, char *why, size_t why_len)
{
	const char *fallback = NULL;
	int r;

	r = pdk_backend_select(name, &sb->backend, &fallback, why, why_len);
	if (r < 0) {
		sb->backend = NULL;
		return r;
	}
	if (sb->n_devices && !sb->backend->devices) {
		snprintf(why, why_len, "--gpu: the %s backend cannot open device nodes to a run; "
				       "drop --gpu, or use bwrap or landlock", sb->backend->name);
		sb->backend = NULL;
		return -EINVAL;
	}
	/* A .git that is a symlink cannot be held: bwrap binds what it points
	 * to, and the command could point it at a git directory of its own. */
	for (size_t i = 0; sb->backend->enforces_protect && i < sb->own_first; i++) {
		const char *base = strrchr(sb->protect[i], '/');
		struct stat st;

		if (base && !strcmp(base, "/.git") && seen_lstat(sb, sb->protect[i], &st) == 0 &&
		    S_ISLNK(st.st_mode)) {
			snprintf(why, why_len,
				 "%s is a symlink: the %s backend cannot keep it pointing at the "
				 "same repository, whose hooks and configuration run code outside "
				 "the sandbox; put the directory (or a gitdir: file) in its place",
				 sb->protect[i], sb->backend->name);
			sb->backend = NULL;
			return -EPERM;
		}
	}
	/* A linked worktree's repository is writable only where its hooks can be held: a backend
	 * that cannot keeps it read-only, as it lies outside the roots (git commit there fails). */
	if (!sb->backend->enforces_protect && sb->git.n_wt) {
		for (size_t i = sb->git.wt_first; i < sb->git.wt_first + sb->git.n_wt; i++)
			free(sb->roots[i]);
		size_t end = sb->git.wt_first + sb->git.n_wt;

		memmove(sb->roots + sb->git.wt_first, sb->roots + end,
			(sb->policy.n_roots - end + 1) * sizeof(*sb->roots));
		sb->policy.n_roots -= sb->git.n_wt;
		sb->git.n_wt = 0;
	}
	/* A backend that cannot keep paths read-only inside a root must not
	 * get a root that holds what paddock trusts after the run: the
	 * command could approve itself, plant a program on paddock's PATH, or
	 * point the trash or the store at a directory outside the roots. One
	 * that can must find them there: a missing one the command could make. */
	for (size_t i = sb->own_first; i < sb->own_end; i++)
		for (size_t k = 0; k < sb->policy.n_roots; k++) {
			if (!pdk_path_under(sb->protect[i], sb->policy.roots[k]))
				continue;
			if (sb->backend->enforces_protect) {
				(void)pdk_mkdir_p(sb->protect[i], 0700);
				break;
			}
			snprintf(why, why_len,
				 "the %s backend cannot keep %s read-only inside the writable "
				 "root %s, and " OWN_WHAT "; run from a project directory or give "
				 "--root DIR, or use a backend that can (bwrap)",
				 sb->backend->name, sb->protect[i], sb->policy.roots[k]);
			sb->backend = NULL;
			return -EPERM;
		}
	snprintf(sb->fallback_note, sizeof(sb->fallback_note), "%s", fallback ? fallback : "");
	collect_notes(sb);
	return 0;
}

/* The variables a granted socket is found by: SSH_AUTH_SOCK (otherwise held back
 * as a secret's) and DOCKER_HOST, naming the socket the run may reach. */
static int grant_env(struct pdk_sandbox *sb)
{
	for (size_t i = 0; i < sb->net.n_unix; i++) {
		const char *from = sb->net.unix_from[i];
		const char *name = !strcmp(from, "--ssh-agent") ? "SSH_AUTH_SOCK="
				   : !strcmp(from, "--docker")  ? "DOCKER_HOST=unix://"
								: NULL;
		_cleanup_free_ char *v =
		    name ? pdk_asprintf("%s%s", name, sb->net.unix_paths[i]) : NULL;
		const char *env[] = {v, NULL};
		int r;

		if (!name)
			continue;
		if (!v)
			return -ENOMEM;
		if ((r = pdk_sandbox_setenv(sb, env)) < 0)
			return r;
		/* The path as the person's environment says it comes first. */
		while (i + 1 < sb->net.n_unix && sb->net.unix_from[i + 1] == sb->net.unix_from[i])
			i++;
	}
	return 0;
}

#ifdef __linux__
/* A resident session's zygote of this policy's shape, when the backend and the shape fit one
 * (run/zygote.h): the command is forked there, confined already, and nothing is prepared
 * here. 1 when it is; 0 when the run sets up as without one. */
static int from_zygote(struct pdk_sandbox *sb, int host)
{
	const char *why;
	char key[17];
	int fd, version;
	size_t body = 0;

	if (sb->net.domains_mode || !pdk_zygote_fits(sb->backend, &sb->policy) ||
	    pdk_cgroup_where(&version, &why, &why) < 0)
		return 0;
	/* A call too big for one message to the zygote (what paddock adds to the
	 * environment later is a few lines) is set up as without one. */
	for (char **a = sb->argv; *a; a++)
		body += strlen(*a) + 2;
	for (char **e = sb->envp; e && *e; e++)
		body += strlen(*e) + 2;
	if (body > PDK_ZYGOTE_MAX_BODY / 2)
		return 0;
	pdk_zygote_key(&sb->policy, sb->backend->name, key);
	if (pdk_zygote_get(host, sb->backend->name, key, &sb->policy, &fd) < 0)
		return 0;
	sb->spec.path = sb->path;
	sb->spec.argv = sb->argv;
	sb->spec.zygote_fd = fd;
	return 1;
}
#endif

int pdk_sandbox_setup(const struct pdk_request *req, const struct pdk_config *cfg,
		      const char *path, char **env, struct pdk_sandbox *sb, char *why,
		      size_t why_len)
{
	const char *name = req->backend ? req->backend : cfg ? cfg->backend : NULL;
	char cwd_real[PATH_MAX];
	int r;

	sb->path = path;
	sb->argv = req->argv;
	sb->spec.path = path;
	sb->spec.argv = req->argv;
	sb->spec.envp = env;
	sb->spec.cwd = req->cwd;
	sb->spec.timeout = req->timeout;
	sb->git.allow_hooks = req->allow_git_hooks;
	sb->allow_agent_config = req->allow_agent_config;
	if (req->cwd && !realpath(req->cwd, cwd_real)) {
		snprintf(why, why_len, "--cwd %s: %s", req->cwd, strerror(errno));
		return -EINVAL;
	}
	if (req->no_sandbox) {
		add_note(sb, "sandbox: none: the command ran unconfined, as %s",
			 cfg && !cfg->sandbox_enabled ? "the configuration asks "
							"(commandPolicy.sandbox.enabled is false)"
						      : "--no-sandbox asked");
		collect_notes(sb);
		return 0;
	}
	if (pdk_backend_set_helper("bwrap", cfg ? cfg->bwrap : NULL) < 0) {
		snprintf(why, why_len, "bwrap: %s is not an absolute path; name the bubblewrap "
				       "binary from /", cfg && cfg->bwrap ? cfg->bwrap : "");
		return -EINVAL;
	}
	/* Before the protected paths are looked at: what a killed run's command made at
	 * them must be gone, so that this run finds them missing. */
	sb->seeing = true;
	r = pdk_vet_sweep(&sb->trash.sweep_note);
	if (r == 0 && (r = build_policy(req, cfg, sb, why, why_len)) == 0)
		r = add_missing(sb);
	/* A grant with nothing to grant is a mistake: say so rather than ask for it. */
	if (r == 0 && req->allow_git_hooks && !sb->git.n_gitdirs && !sb->git.n_hookdirs) {
		snprintf(why, why_len, "--allow-git-hooks: no git repository is in the writable "
				       "roots (%s%s), so there are no hooks to allow: leave it out, or "
				       "run in the repository (--cwd DIR or --root DIR)",
			 sb->roots && sb->roots[0] ? sb->roots[0] : "none",
			 sb->roots && sb->roots[0] && sb->roots[1] ? " and the others" : "");
		r = -EINVAL;
	}
	if (r < 0) {
		seen_end(sb);
		return r;
	}
	if ((r = build_env(sb, env, cfg)) < 0)
		return r;
	sb->spec.envp = sb->envp;
	if ((r = grant_env(sb)) < 0)
		return r;
	if ((!cfg || cfg->tool_caches) && (r = tool_cache_env(sb)) < 0)
		return r;
	sb->spec.max_procs = sb->policy.max_procs;
	sb->named = name != NULL;
	r = select_backend(sb, name, why, why_len);
	seen_end(sb);
	if (r < 0)
		return r;
#ifdef __linux__
	if (req->zygote_host > 2 && !req->print_profile && from_zygote(sb, req->zygote_host) == 1)
		return 0;
#endif
	return arm(sb, why, why_len);
}

int pdk_sandbox_setenv(struct pdk_sandbox *sb, const char *const *extra_env)
{
	size_t n = 0, k = 0, n_add = 0, n_old = 0;
	char **envp, **added;

	if (!extra_env)
		return 0;
	while (extra_env[n_add])
		n_add++;
	while (sb->spec.envp && sb->spec.envp[n_old])
		n_old++;
	while (sb->env_added && sb->env_added[n])
		n++;
	added = realloc(sb->env_added, (n + n_add + 1) * sizeof(*added));
	if (!added)
		return -ENOMEM;
	sb->env_added = added;
	added[n] = NULL;
	envp = calloc(n_old + n_add + 1, sizeof(*envp));
	if (!envp)
		return -ENOMEM;
	/* The old entries but those replaced, then the new ones. */
	for (size_t i = 0; i < n_old; i++) {
		const char *old = sb->spec.envp[i];
		size_t len = strcspn(old, "=");
		bool replaced = false;

		for (size_t j = 0; j < n_add && !replaced; j++)
			replaced = strncmp(extra_env[j], old, len) == 0 &&
				   (extra_env[j][len] == '=' || extra_env[j][len] == '\0');
		if (!replaced)
			envp[k++] = (char *)old;
	}
	for (size_t j = 0; j < n_add; j++) {
		if (!extra_env[j][0] || extra_env[j][0] == '=') {
			free(envp);
			return -EINVAL;
		}
		if (!strchr(extra_env[j], '='))
			continue; /* a name alone: taken out above */
		if (!(added[n] = strdup(extra_env[j]))) {
			free(envp);
			return -ENOMEM;
		}
		envp[k++] = added[n++];
		added[n] = NULL;
	}
	free(sb->envp);
	sb->envp = envp;
	sb->spec.envp = envp;
	return 0;
}

/* The first line the helper printed: its complaint, cut to one line. */
static void first_line(const struct pdk_capture *err, char *buf, size_t len)
{
	size_t i = 0, k = 0;

	while (i < err->head_len && (err->head[i] == '\n' || err->head[i] == ' '))
		i++;
	for (; i < err->head_len && err->head[i] != '\n' && k + 1 < len; i++)
		buf[k++] = (unsigned char)err->head[i] < 0x20 ? '?' : err->head[i];
	buf[k] = '\0';
}

static int capture_reset(struct pdk_capture *c)
{
	int stream = c->stream;
	size_t cap = c->cap;
	struct pdk_store_entry *store = c->store;

	pdk_capture_release(c);
	return pdk_capture_init(c, stream, cap, store);
}

/* A wrapper's error line that says the host cannot make its sandbox. */
static bool host_cannot(const char *line)
{
	static const char *const signs[] = {"namespace", "uid map", "gid map", "setgroups",
					    "make / slave", "mount proc", "Operation not permitted",
					    "Permission denied", NULL};

	for (const char *const *p = signs; *p; p++)
		if (strstr(line, *p))
			return true;
	return false;
}

/* The protected paths vetted after the run: those git tracks, those the backend cannot
 * hold (Landlock) that are there (hooks directories, an editor's or agent's settings, shell
 * start-up files, a commondir), and those that are symlinks inside a root. Borrowed from
 * sb->git.tracked and sb->protect into *ret. */
static int protect_to_vet(const struct pdk_sandbox *sb, const char ***ret, size_t *n)
{
	*ret = NULL;
	*n = 0;
	if (!sb->backend)
		return 0;
	if (!(*ret = calloc(sb->own_first + sb->git.n_tracked + 1, sizeof(**ret))))
		return -ENOMEM;
	for (size_t i = 0; i < sb->git.n_tracked; i++)
		(*ret)[(*n)++] = sb->git.tracked[i];
	for (size_t i = 0; i < sb->own_first; i++) {
		const char *base = strrchr(sb->protect[i], '/');
		struct stat st;
		bool made = false, inside = false;

		if (sb->git.allow_hooks && base && !strcmp(base, "/hooks"))
			continue;
		/* A backend that holds protected paths cannot hold a symlink (bwrap binds what it
		 * leads to, which is held too): the link is put back after the run. */
		for (size_t k = 0; k < sb->policy.n_roots && !inside; k++)
			inside = pdk_path_under(sb->protect[i], sb->policy.roots[k]);
		if (sb->backend->enforces_protect &&
		    !(inside && lstat(sb->protect[i], &st) == 0 && S_ISLNK(st.st_mode)))
			continue;
		/* One a run going on found missing was made since: it goes to the trash. */
		for (size_t k = 0; k < sb->trash.n_missing && !made; k++)
			made = pdk_path_under(sb->protect[i], sb->trash.missing[k]);
		if (!made && lstat(sb->protect[i], &st) == 0 &&
		    (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
		    !pdk_strv_contains((char **)*ret, *n, sb->protect[i]))
			(*ret)[(*n)++] = sb->protect[i];
	}
	return 0;
}

/* Write down, before the command starts, what is missing and what is vetted after the run,
 * for the guardian to finish with if paddock dies. */
static int begin_vet(struct pdk_sandbox *sb)
{
	_cleanup_free_ const char **hooks = NULL;
	size_t n_hooks;
	int r;

	if ((r = protect_to_vet(sb, &hooks, &n_hooks)) < 0)
		return r;
	struct pdk_vet_git git = {sb->git.pins,	 sb->git.n_pins,	 sb->git.gitdirs,
				  sb->git.n_gitdirs, sb->git.gitfiles, sb->git.n_gitfiles,
				  sb->git.allow_hooks, (char *const *)hooks, n_hooks,
				  sb->git.hookdirs,	 sb->git.n_hookdirs};

	if ((r = pdk_vet_begin(&sb->trash.vet, sb->policy.roots, sb->policy.n_roots,
			       sb->trash.missing, sb->trash.n_missing, sb->git.configs,
			       sb->git.n_configs, &git)) < 0)
		return r;
	sb->trash.vetting = true;
	sb->spec.finish_fd = pdk_vet_fd(&sb->trash.vet);
	return 0;
}

int pdk_sandbox_run(struct pdk_sandbox *sb, struct pdk_capture *out, struct pdk_capture *err,
		    struct pdk_run_status *st)
{
	char line[240], why[512];
	int r;

	sb->why[0] = '\0';
	sb->spec.why = sb->why;
	sb->spec.why_len = sizeof(sb->why);
	/* What is missing is written down before the command starts, for the guardian to
	 * finish with if paddock dies; the journal stays through a second backend's run. */
	if (sb->backend && !sb->trash.vetting && (r = begin_vet(sb)) < 0)
		return r;
	r = run_proxied(sb, out, err, st);
	/* The run is over, its cgroup emptied: the zygote may serve the next call. */
	if (sb->spec.zygote_fd > 2) {
		close(sb->spec.zygote_fd);
		sb->spec.zygote_fd = 0;
	}
	if (r < 0 || !sb->backend || !sb->backend->started)
		return r;
	/* Stopped or timed out while the helper set up: that is the result. */
	if (st->timed_out || st->stopped || st->exec_errno)
		return 0;
	if (sb->backend->started(sb->state) != 0) {
		if (sb->backend->exit_status)
			st->exit_status = sb->backend->exit_status(sb->state, st->exit_status);
		return 0;
	}
	/* The bytes of a stream that spilled are in the store already; a
	 * helper's complaint never comes near that size. */
	if (out->spilling || err->spilling)
		return 0;
	first_line(err, line, sizeof(line));
	if (!line[0])
		snprintf(line, sizeof(line), "%s exited with status %d before starting the command",
			 sb->backend->name, st->exit_status);
	/* The sandbox was made, but the command itself could not start in it
	 * (not executable there): that is the command's failure, reported as
	 * the helper printed it. */
	if (strstr(line, "execvp "))
		return 0;
	/* Only a host that cannot make the sandbox at all (no user namespaces,
	 * no mounts in them) sends the run to another backend; any other
	 * failure of this one run is reported, never a reason to confine it
	 * less (Landlock does not keep protected paths). */
	if (!host_cannot(line)) {
		snprintf(sb->why, sizeof(sb->why), "%s could not set up the sandbox: %s; run the "
						   "command again",
			 sb->backend->name, line);
		return -EIO;
	}
	pdk_backend_mark_broken(sb->backend, line);
	if (sb->named) {
		snprintf(sb->why, sizeof(sb->why), "backend %s does not work here: %s; 'paddock "
						   "doctor' says which backends do",
			 sb->backend->name, line);
		return -ENOSYS;
	}
	bool held = sb->backend->enforces_protect;
	disarm(sb);
	if ((r = select_backend(sb, NULL, why, sizeof(why))) < 0 ||
	    (r = arm(sb, why, sizeof(why))) < 0) {
		snprintf(sb->why, sizeof(sb->why), "%s", why);
		return r;
	}
	/* The next backend cannot hold what this one held: the hooks are vetted after the run
	 * instead, in a new journal (nothing of the command ran yet). */
	if (held && !sb->backend->enforces_protect && sb->trash.vetting) {
		_cleanup_free_ char *note = NULL;

		sb->trash.vetting = false;
		if ((r = pdk_vet_end(&sb->trash.vet, &note)) < 0 || (r = begin_vet(sb)) < 0)
			return r;
	}
	if ((r = capture_reset(out)) < 0 || (r = capture_reset(err)) < 0)
		return r;
	return run_proxied(sb, out, err, st);
}

const char *pdk_sandbox_network(const struct pdk_sandbox *sb)
{
	if (!sb->backend)
		return NULL;
	if (sb->policy.network)
		return "on";
	return sb->net.domains_mode && proxy_reachable(sb) ? "domains" : "off";
}

size_t pdk_sandbox_unix_sockets(const struct pdk_sandbox *sb, const char *const **ret_paths)
{
	*ret_paths = (const char *const *)sb->net.unix_paths;
	if (!sb->backend || sb->net.n_unix == 0)
		return 0;
#ifdef __linux__
	/* Both Linux backends let them through the connect supervisor only. */
	char why[128];

	if (pdk_netsup_probe(why, sizeof(why)) < 0)
		return 0;
#endif
	return sb->net.n_unix;
}

/* One line per path: what it is, then the path as a shell word. */
static void put_paths(FILE *out, const char *what, char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fputs(what, out);
		pdk_fput_shell_word(out, v[i]);
		fputc('\n', out);
	}
}

int pdk_sandbox_describe(const struct pdk_sandbox *sb, FILE *out)
{
	if (!sb->backend) {
		fprintf(out, "no confinement: --no-sandbox\n");
		return 0;
	}
	fprintf(out, "backend: %s\n", sb->backend->name);
	if (sb->policy.network)
		fprintf(out, "network: on (the host's unix sockets stay out of reach)\n");
	else if (sb->net.domains_mode && proxy_reachable(sb))
		fprintf(out, "network: domains, through paddock's proxy (HTTP, HTTPS CONNECT, "
			     "SOCKS5) only\n");
	else
		fprintf(out, "network: off%s\n",
			sb->backend->private_network ? ", loopback of the run's own"
			: !strcmp(sb->backend->name, "seatbelt")
			    ? ", loopback (the host's: Seatbelt cannot tell the run's own listeners)"
			    : "");
	for (size_t i = 0; sb->net.domains_mode && i < sb->net.n_domains; i++)
		fprintf(out, "network: allowed domain %s\n", sb->net.domains[i]);
	for (size_t i = 0; sb->net.domains_mode && i < sb->net.n_local_addrs; i++)
		fprintf(out, "network: local address %s, reached by an allowed name "
			     "(allowLocalAddresses)\n", sb->net.local_addrs[i]);
	for (size_t i = 0; i < sb->net.n_unix; i++)
		fprintf(out, "network: unix socket %s (%s)\n", sb->net.unix_paths[i],
			sb->net.unix_from[i]);
	for (size_t i = 0; i < sb->n_devices; i++)
		fprintf(out, "device: %s, writable and its ioctls (--gpu)\n", sb->devices[i]);
	if (sb->policy.gpu && !sb->n_devices) /* Seatbelt: no nodes, Metal */
		fprintf(out, "device: %s (--gpu)\n", PDK_GRANT_GPU_METAL);
	for (size_t i = 0; i < sb->n_notes; i++)
		fprintf(out, "%s\n", sb->notes[i]);
	put_paths(out, "missing protected path, refused at once where its directory is there "
		   "(the supervisor sees each call that makes a name); what is made there "
		   "without it goes to the trash after the run: ",
		  sb->trash.missing, sb->trash.n_missing);
	put_paths(out, "git configuration, writable; put back after the run if the command set in it "
		   "what makes git run a program: ",
		  sb->git.configs, sb->git.n_configs);
	if (sb->git.allow_hooks)
		fprintf(out, "git hooks: writable, and kept after the run, with core.hooksPath "
			     "(--allow-git-hooks)\n");
	if (sb->allow_agent_config)
		fprintf(out, "agent and editor configuration: writable, and kept after the run "
			     "(--allow-agent-config)\n");
	put_paths(out, "secret, unread (--read to ask for it): ", sb->secrets.hide,
		  sb->secrets.n_hide);
	put_paths(out, "secret, readable this once (--read): ", sb->secrets.asked,
		  sb->secrets.n_asked);
	_cleanup_free_ const char **vetted = NULL;
	size_t n_vetted = 0;

	if (protect_to_vet(sb, &vetted, &n_vetted) == 0)
		put_paths(out, "protected path, writable while the run lasts (the backend cannot hold "
			       "it); what the command changes or adds there is undone after the run, "
			       "and a hook it removes put back: ",
			  (char *const *)vetted, n_vetted);
	put_paths(out, "submodule's gitdir: file, writable; put back after the run if the command "
		   "changed it: ",
		  sb->git.pins, sb->git.n_pins);
	put_paths(out, "git directory whose new submodules and worktrees are vetted after the run "
		   "(configuration, hooks, commondir): ",
		  sb->git.gitdirs, sb->git.n_gitdirs);
	put_paths(out, "submodule's .git still to be made; after the run it must name a git directory "
		   "of its repository's: ",
		  sb->git.gitfiles, sb->git.n_gitfiles);
	if (!sb->backend->describe)
		return 0;
	return sb->backend->describe(sb->state, sb->spec.argv, out);
}

int pdk_sandbox_undo_made(struct pdk_sandbox *sb, char **ret_note, char **ret_sweep_note)
{
	*ret_sweep_note = steal_pointer(&sb->trash.sweep_note);
	*ret_note = NULL;
	if (!sb->trash.vetting)
		return 0;
	sb->trash.vetting = false;
	return pdk_vet_end(&sb->trash.vet, ret_note);
}

void pdk_sandbox_release(struct pdk_sandbox *sb)
{
	disarm(sb);
	seen_end(sb);
	if (sb->spec.zygote_fd > 2)
		close(sb->spec.zygote_fd);
	sb->spec.zygote_fd = 0;
	pdk_strv_freep(&sb->roots);
	pdk_strv_freep(&sb->protect);
	pdk_strv_freep(&sb->trash.missing);
	pdk_strv_freep(&sb->git.configs);
	pdk_strv_freep(&sb->git.pins);
	pdk_strv_freep(&sb->git.gitdirs);
	pdk_strv_freep(&sb->git.tracked);
	pdk_strv_freep(&sb->git.gitfiles);
	pdk_strv_freep(&sb->git.hookdirs);
	pdk_vet_release(&sb->trash.vet);
	free(sb->trash.sweep_note);
	pdk_strv_freep(&sb->env_added);
	pdk_strv_freep(&sb->net.domains);
	pdk_strv_freep(&sb->net.local_addrs);
	pdk_strv_freep(&sb->net.refused);
	pdk_proxy_free(sb->net.proxy);
	if (sb->net.domains_mode) {
		close(sb->net.proxy_ctl);
		close(sb->policy.proxy_fd);
	}
	for (size_t i = 0; i < sb->net.n_unix; i++)
		if (sb->net.unix_fds[i] >= 0)
			close(sb->net.unix_fds[i]);
	free(sb->net.unix_fds);
	free(sb->net.unix_from);
	pdk_strv_freep(&sb->devices);
	pdk_strv_freep(&sb->net.unix_paths);
	free(sb->envp);
	free(sb->cache);
	pdk_secrets_release(&sb->secrets);
	free(sb->blank);
	free(sb->blank_dir);
	memset(sb, 0, sizeof(*sb));
}
