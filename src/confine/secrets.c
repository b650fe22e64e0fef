/* secrets.c - the default list of files a confined command may not read, and how a run's list
 * is made: patterns for a backend that matches them (Seatbelt), existing paths for the others. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "secrets.h"
#include "core/fmt.h"
#include "core/path.h"
#include "core/strv.h"
#include "core/util.h"
#include "core/state.h"

/* Under a home directory: credential stores, password stores, browser profiles (cookies and
 * saved passwords), and the histories of shells and REPLs, where tokens typed once stay. */
static const char *const home_deny[] = {
    ".ssh",
    ".aws",
    ".gnupg",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".config/gh",
    ".config/hub",
    ".config/gcloud",
    ".azure",
    ".oci",
    ".config/doctl",
    ".pypirc",
    ".npmrc",
    ".gem/credentials",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".composer/auth.json",
    ".config/composer/auth.json",
    ".m2/settings-security.xml",
    ".pgpass",
    ".my.cnf",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
    ".config/rclone/rclone.conf",
    ".s3cfg",
    ".boto",
    ".password-store",
    ".local/share/keyrings",
    ".config/op",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
    ".config/vivaldi",
    "snap/firefox",
    "snap/chromium",
    "Library/Keychains",
    "Library/Cookies",
    "Library/Application Support/Google/Chrome",
    "Library/Application Support/Firefox",
    "Library/Application Support/BraveSoftware",
    ".bash_history",
    ".zsh_history",
    ".zhistory",
    ".histfile",
    ".sh_history",
    ".local/share/fish/fish_history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".rediscli_history",
    ".irb_history",
    ".Rhistory",
    ".lesshst",
};
/* What ssh and git need of ~/.ssh, with no secret in it. */
static const char *const home_allow[] = {
    ".ssh/known_hosts",
    ".ssh/known_hosts2",
    ".ssh/config",
    ".ssh/*.pub",
};
/* The host's: only root can read them at all. */
static const char *const root_deny[] = {
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/ssh/ssh_host_*_key",
    "/etc/ssl/private",
};

/* In a project: what the policy's word match calls .env and .env.* too. */
static const char *const env_templates[] = {"example", "sample", "template", "dist", "defaults"};

bool pdk_secrets_env_template(const char *ext, size_t l)
{
	for (size_t i = 0; i < PDK_ARRAY_SIZE(env_templates); i++)
		if (l == strlen(env_templates[i]) && !memcmp(ext, env_templates[i], l))
			return true;
	return false;
}

/* s with the characters glob and fnmatch give a meaning to escaped, then rest as written. */
static char *pattern(const char *s, const char *rest)
{
	size_t n = strlen(s), m = rest ? strlen(rest) : 0;
	char *p = malloc(2 * n + m + 2), *o = p;

	if (!p)
		return NULL;
	for (; *s; s++) {
		if (strchr("*?[]\\", *s))
			*o++ = '\\';
		*o++ = *s;
	}
	if (rest) {
		if (o == p || o[-1] != '/')
			*o++ = '/';
		memcpy(o, rest, m);
		o += m;
	}
	*o = '\0';
	return p;
}

static int add(char ***v, size_t *n, const char *base, const char *rest)
{
	char *p = pattern(base, rest);

	if (p && pdk_strv_contains(*v, *n, p)) {
		free(p);
		return 0;
	}
	return pdk_strv_append(v, n, p);
}

static bool matches(char *const *v, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (fnmatch(v[i], path, FNM_PATHNAME | FNM_LEADING_DIR) == 0)
			return true;
	return false;
}

static bool denied_as_written(const struct pdk_secrets *s, const char *path)
{
	return matches(s->deny, s->n_deny, path) && !matches(s->allow, s->n_allow, path);
}

bool pdk_secrets_denied(const struct pdk_secrets *s, const char *path)
{
	_cleanup_free_ char *real = NULL;

	if (!path || path[0] != '/')
		return false;
	if (denied_as_written(s, path))
		return true;
	real = realpath(path, NULL);
	return real && strcmp(real, path) && denied_as_written(s, real);
}

/* An exception lies below path: the directory is split into its entries. */
static bool allow_below(const struct pdk_secrets *s, const char *path)
{
	_cleanup_free_ char *p = pattern(path, NULL);
	size_t l = p ? strlen(p) : 0;

	for (size_t i = 0; p && i < s->n_allow; i++)
		if (!strncmp(s->allow[i], p, l) && s->allow[i][l] == '/')
			return true;
	return false;
}

static int expand(struct pdk_secrets *s, const char *path, int depth)
{
	struct stat st;
	char *real;

	if (stat(path, &st) < 0 || matches(s->allow, s->n_allow, path))
		return 0;
	if (S_ISDIR(st.st_mode) && depth < 8 && allow_below(s, path)) {
		DIR *d = opendir(path);
		struct dirent *e;
		int r = 0;

		if (d) {
			while (r == 0 && (e = readdir(d))) {
				_cleanup_free_ char *c = NULL;

				if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
					continue;
				if (!(c = pdk_path_join(path, e->d_name)))
					r = -ENOMEM;
				else
					r = expand(s, c, depth + 1);
			}
			closedir(d);
			return r;
		}
	}
	real = realpath(path, NULL);
	if (!real)
		return errno == ENOMEM ? -ENOMEM : 0;
	if (pdk_strv_contains(s->hide, s->n_hide, real)) {
		free(real);
		return 0;
	}
	return pdk_strv_append(&s->hide, &s->n_hide, real);
}

static int cmp_len(const void *a, const void *b)
{
	size_t la = strlen(*(char *const *)a), lb = strlen(*(char *const *)b);

	return la < lb ? -1 : la > lb;
}

/* A pattern with no wildcard, its escapes undone into buf: most of the list, looked up with one
 * stat instead of glob(3)'s walk. */
static bool literal(const char *pat, char *buf, size_t size)
{
	size_t n = 0;

	for (const char *p = pat; *p; p++) {
		if (strchr("*?[", *p))
			return false;
		if (*p == '\\' && p[1])
			p++;
		if (n + 1 >= size)
			return false;
		buf[n++] = *p;
	}
	buf[n] = '\0';
	return true;
}

/* The existing paths the patterns name, less those under another, and those that hold a root
 * (a root is a person's choice: what it holds the command reads). */
static int build_hide(struct pdk_secrets *s, char *const *roots, size_t n_roots)
{
	size_t k = 0;
	int r;

	for (size_t i = 0; i < s->n_deny; i++) {
		char path[PATH_MAX];
		glob_t g;

		if (literal(s->deny[i], path, sizeof(path))) {
			if ((r = expand(s, path, 0)) < 0)
				return r;
			continue;
		}
		if (glob(s->deny[i], GLOB_NOSORT | GLOB_PERIOD, NULL, &g) != 0)
			continue;
		r = 0;
		for (size_t j = 0; r == 0 && j < g.gl_pathc; j++) {
			const char *base = strrchr(g.gl_pathv[j], '/');

			if (base && (!strcmp(base, "/.") || !strcmp(base, "/..")))
				continue;
			r = expand(s, g.gl_pathv[j], 0);
		}
		globfree(&g);
		if (r < 0)
			return r;
	}
	if (!s->n_hide)
		return 0;
	qsort(s->hide, s->n_hide, sizeof(*s->hide), cmp_len);
	for (size_t i = 0; i < s->n_hide; i++) {
		bool drop = false;

		for (size_t j = 0; !drop && j < k; j++)
			drop = pdk_path_under(s->hide[i], s->hide[j]);
		for (size_t j = 0; !drop && j < n_roots; j++)
			drop = pdk_path_under(roots[j], s->hide[i]);
		if (drop)
			free(s->hide[i]);
		else
			s->hide[k++] = s->hide[i];
	}
	s->n_hide = k;
	s->hide[k] = NULL;
	return 0;
}

/* A home's list: the default one, its exceptions. */
static int add_home(struct pdk_secrets *s, const char *home)
{
	int r = 0;

	if (!home || home[0] != '/' || !strcmp(home, "/"))
		return 0;
	for (size_t i = 0; r == 0 && i < PDK_ARRAY_SIZE(home_deny); i++)
		r = add(&s->deny, &s->n_deny, home, home_deny[i]);
	for (size_t i = 0; r == 0 && i < PDK_ARRAY_SIZE(home_allow); i++)
		r = add(&s->allow, &s->n_allow, home, home_allow[i]);
	return r;
}

/* A directory's .env and .env.*, less the templates. */
static int add_env(struct pdk_secrets *s, const char *dir)
{
	int r = add(&s->deny, &s->n_deny, dir, ".env");

	if (r == 0)
		r = add(&s->deny, &s->n_deny, dir, ".env.*");
	for (size_t i = 0; r == 0 && i < PDK_ARRAY_SIZE(env_templates); i++) {
		char name[32];

		snprintf(name, sizeof(name), ".env.%s", env_templates[i]);
		r = add(&s->allow, &s->n_allow, dir, name);
	}
	return r;
}

/* A configured entry: absolute (~ expanded by the configuration), or a name in each root. */
static int add_configured(char ***v, size_t *n, const struct pdk_strv *list, char *const *roots,
			  size_t n_roots)
{
	int r = 0;

	for (size_t i = 0; r == 0 && list && i < list->n; i++) {
		const char *e = list->v[i];

		if (e[0] == '/')
			r = pdk_strv_contains(*v, *n, e) ? 0 : pdk_strv_append(v, n, strdup(e));
		for (size_t k = 0; r == 0 && e[0] != '/' && k < n_roots; k++)
			r = add(v, n, roots[k], e);
	}
	return r;
}

int pdk_secrets_build(struct pdk_secrets *s, const char *home, char *const *roots, size_t n_roots,
		      const char *cwd, const struct pdk_strv *deny, const struct pdk_strv *allow,
		      const char *const *reads, size_t n_reads, char *why, size_t why_len)
{
	_cleanup_free_ char *cwd_real = cwd ? realpath(cwd, NULL) : NULL;
	_cleanup_free_ char *home_real = home && home[0] == '/' ? realpath(home, NULL) : NULL;
	bool cwd_in = false;
	int r;

	/* As written, and where it leads: a program names a secret either way. */
	if ((r = add_home(s, home)) < 0 ||
	    (home_real && strcmp(home_real, home) && (r = add_home(s, home_real)) < 0))
		return r;
	if (geteuid() == 0) {
		if ((!home || strcmp(home, "/root")) && (r = add_home(s, "/root")) < 0)
			return r;
		for (size_t i = 0; i < PDK_ARRAY_SIZE(root_deny); i++)
			if ((r = pdk_strv_append(&s->deny, &s->n_deny, strdup(root_deny[i]))) < 0)
				return r;
	}
	for (size_t i = 0; i < n_roots; i++) {
		if ((r = add_env(s, roots[i])) < 0)
			return r;
		cwd_in = cwd_in || (cwd_real && pdk_path_under(cwd_real, roots[i]));
	}
	if (cwd_in && (r = add_env(s, cwd_real)) < 0)
		return r;
	if ((r = add_configured(&s->deny, &s->n_deny, deny, roots, n_roots)) < 0 ||
	    (r = add_configured(&s->allow, &s->n_allow, allow, roots, n_roots)) < 0)
		return r;
	for (size_t i = 0; i < n_reads; i++) {
		_cleanup_free_ char *real = realpath(reads[i], NULL);

		if (!pdk_secrets_denied(s, reads[i]))
			return pdk_why(why, why_len, -EINVAL,
				       "--read %s: the sandbox does not keep it unread (not on the "
				       "list of secrets, or allowed already); drop --read",
				       reads[i]);
		if ((r = add(&s->allow, &s->n_allow, reads[i], NULL)) < 0 ||
		    (real && (r = add(&s->allow, &s->n_allow, real, NULL)) < 0) ||
		    (r = pdk_strv_append(&s->asked, &s->n_asked, strdup(reads[i]))) < 0)
			return r;
	}
	return build_hide(s, roots, n_roots);
}

/* name in dir: an empty regular file (or directory) of ours, mode 0; made or put right. */
static int blank(const char *path, bool dir)
{
	for (int tries = 0; tries < 4; tries++) {
		struct stat st;
		int fd;

		if (lstat(path, &st) == 0) {
			bool is_dir = S_ISDIR(st.st_mode);
			bool right = st.st_uid == geteuid() &&
				     (dir ? is_dir : S_ISREG(st.st_mode) && !st.st_size);

			if (right)
				return (st.st_mode & 07777) && chmod(path, 0) < 0 ? -errno : 0;
			if ((is_dir ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT)
				return -errno;
		} else if (errno != ENOENT) {
			return -errno;
		}
		if (dir) {
			if (mkdir(path, 0) == 0)
				return 0;
		} else if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				      0)) >= 0) {
			close(fd);
			return 0;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int pdk_secrets_blanks(char **ret_file, char **ret_dir)
{
	_cleanup_free_ char *state = pdk_state_dir(), *file = NULL, *dir = NULL;
	int r;

	if (!state)
		return -ENOMEM;
	if ((r = pdk_mkdir_p(state, 0700)) < 0)
		return r;
	if (!(file = pdk_path_join(state, "unreadable")) ||
	    !(dir = pdk_path_join(state, "unreadable.d")))
		return -ENOMEM;
	if ((r = blank(file, false)) < 0 || (r = blank(dir, true)) < 0)
		return r;
	*ret_file = steal_pointer(&file);
	*ret_dir = steal_pointer(&dir);
	return 0;
}

void pdk_secrets_release(struct pdk_secrets *s)
{
	pdk_strv_freep(&s->deny);
	pdk_strv_freep(&s->allow);
	pdk_strv_freep(&s->hide);
	pdk_strv_freep(&s->asked);
	s->n_deny = s->n_allow = s->n_hide = s->n_asked = 0;
}
