/* sandbox_git.c - what git runs code from in a project, kept from the command: the hooks and
 * configuration of a repository, of its submodules and worktrees, and of the git directory a
 * .git file or a commondir names. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/path.h"
#include "sandbox.h"
#include "sandbox_int.h"
#include "core/util.h"
#include "gitconfig.h"
#include "vetgit.h"

/* What git runs code from in a git directory: its hooks and configuration, and the common
 * directory named by commondir, whose hooks and configuration then count. */
static const char *const gitdir_names[] = {"hooks", "config", "commondir", "config.worktree"};

/*
 * The names of gitdir_names from first on in the git directory dir: protected (a configuration:
 * vetted) where they exist; where they do not, what the command makes there is undone after the run
 * (sb->trash.missing, vet.h).
 */
static int add_git_names(struct pdk_sandbox *sb, size_t *np, const char *dir, size_t first)
{
	int r = 0;

	for (size_t i = first; r == 0 && i < PDK_ARRAY_SIZE(gitdir_names); i++) {
		char *p;
		struct stat st;

		/* --allow-git-hooks: the call was approved to install them. */
		if (sb->git.allow_hooks && !strcmp(gitdir_names[i], "hooks"))
			continue;
		p = pdk_path_join(dir, gitdir_names[i]);

		/* A configuration stays writable, for user.email, a remote or an upstream, and
		 * is vetted after the run (vet.h); hooks and a commondir are held. */
		if (p && lstat(p, &st) == 0)
			r = !strncmp(gitdir_names[i], "config", 6)
				? pdk_strv_append(&sb->git.configs, &sb->git.n_configs, p)
				: pdk_strv_append(&sb->protect, np, p);
		else
			r = pdk_strv_append(&sb->trash.missing, &sb->trash.n_missing, p);
	}
	return r;
}

/*
 * The directory a one-line file of git's names ("gitdir: PATH" in a .git file, PATH in a
 * commondir), relative to base, resolved: when it lies inside a root, its hooks and
 * configuration are protected too (depth bounds a chain of them). NULL target: nothing.
 */
static int add_gitdirs(struct pdk_sandbox *sb, size_t *np, const char *dir);

/* The directory a one-line file of git's names ("gitdir: PATH", or PATH), relative to base,
 * resolved; NULL when it names no directory (or is not such a file). */
static char *named_dir(const char *file, const char *base)
{
	_cleanup_free_ char *joined = pdk_git_named_path(file, base);
	struct stat st;
	char *real;

	if (!joined || !(real = realpath(joined, NULL)))
		return NULL;
	if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
		free(real);
		return NULL;
	}
	return real;
}

static int add_named_gitdir(struct pdk_sandbox *sb, size_t *np, const char *file, const char *base,
			    int depth)
{
	_cleanup_free_ char *real = depth > 3 ? NULL : named_dir(file, base);
	int r;

	if (!real)
		return 0;
	bool inside = false;
	for (char **root = sb->roots; root && *root; root++)
		inside |= pdk_path_under(real, *root);
	if (!inside)
		return 0; /* read-only already */
	/* New submodules and worktrees in it are vetted after the run. */
	if (!pdk_strv_contains(sb->git.gitdirs, sb->git.n_gitdirs, real) &&
	    (r = pdk_strv_append(&sb->git.gitdirs, &sb->git.n_gitdirs, strdup(real))) < 0)
		return r;
	/* Its hooks and configuration, and those of its submodules and other worktrees. */
	if ((r = add_git_names(sb, np, real, 0)) < 0 || (r = add_gitdirs(sb, np, real)) < 0)
		return r;
	_cleanup_free_ char *common = pdk_path_join(real, "commondir");
	return common ? add_named_gitdir(sb, np, common, real, depth + 1) : -ENOMEM;
}

/* The git directories of the submodules and worktrees of the git directory dir. */
static int add_gitdirs(struct pdk_sandbox *sb, size_t *np, const char *dir)
{
	static const char *const kinds[] = {"modules", "worktrees"};
	int r = 0;

	for (size_t k = 0; r == 0 && k < PDK_ARRAY_SIZE(kinds); k++) {
		_cleanup_free_ char *sub = pdk_path_join(dir, kinds[k]);
		_cleanup_strv_ char **found = NULL;
		size_t n_found = 0;

		r = sub ? pdk_vetgit_gitdirs_under(sub, &found, &n_found) : -ENOMEM;
		for (size_t i = 0; r == 0 && i < n_found; i++)
			r = add_git_names(sb, np, found[i], 0);
	}
	return r;
}

int pdk_sandbox_worktree_roots(struct pdk_sandbox *sb, size_t *n, const char *root)
{
	_cleanup_free_ char *git = pdk_path_join(root, ".git"), *gdir = NULL, *common = NULL;
	_cleanup_free_ char *cfile = NULL;
	int r = 0;

	if (!git || !(gdir = named_dir(git, root)) || !(cfile = pdk_path_join(gdir, "commondir")) ||
	    !(common = named_dir(cfile, gdir)))
		return git ? 0 : -ENOMEM;
	char *dirs[] = {gdir, common};
	for (size_t i = 0; r == 0 && i < 2; i++) {
		bool inside = false;

		for (size_t k = 0; k < *n && !inside; k++)
			inside = pdk_path_under(dirs[i], sb->roots[k]);
		if (!inside)
			r = pdk_strv_append(&sb->roots, n, strdup(dirs[i]));
	}
	return r;
}

/*
 * The submodules .gitmodules in root names, each path = line's (depth bounds their own): a
 * gitdir: file at PATH/.git is pinned, put back after the run if the command changes it; a
 * missing one may be made (git submodule update --init) but must name a git directory of
 * the repository's.
 */
static int add_submodules(struct pdk_sandbox *sb, const char *root, int depth)
{
	_cleanup_free_ char *file = pdk_path_join(root, ".gitmodules"), *text = NULL;
	struct stat st;
	int r = 0;

	if (!file)
		return -ENOMEM;
	if (depth > 3 || pdk_read_small_at(AT_FDCWD, file, 1 << 20, &text, NULL) < 0)
		return 0;
	for (char *line = text, *next; r == 0 && line && *line; line = next) {
		_cleanup_free_ char *dir = NULL, *git = NULL;
		char *v;
		size_t len;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line += strspn(line, " \t");
		if (strncmp(line, "path", 4) != 0)
			continue;
		v = line + 4 + strspn(line + 4, " \t");
		if (*v++ != '=')
			continue;
		v += strspn(v, " \t");
		len = strcspn(v, "\r#;");
		while (len && (v[len - 1] == ' ' || v[len - 1] == '\t'))
			len--;
		v[len] = '\0';
		/* Git itself refuses a path out of the work tree. */
		if (!*v || v[0] == '/' || v[0] == '"' || strstr(v, "..") || strchr(v, '\\'))
			continue;
		if (!(dir = pdk_path_join(root, v)) || !(git = pdk_path_join(dir, ".git")))
			return -ENOMEM;
		int e = lstat(git, &st) == 0 ? 0 : errno;

		if (e == 0 && S_ISREG(st.st_mode)) {
			if (!pdk_strv_contains(sb->git.pins, sb->git.n_pins, git))
				r = pdk_strv_append(&sb->git.pins, &sb->git.n_pins,
						    steal_pointer(&git));
		} else if (e == ENOENT || e == ENOTDIR) {
			if (!pdk_strv_contains(sb->git.gitfiles, sb->git.n_gitfiles, git))
				r = pdk_strv_append(&sb->git.gitfiles, &sb->git.n_gitfiles,
							  steal_pointer(&git));
		}
		if (r == 0)
			r = add_submodules(sb, dir, depth + 1);
	}
	return r;
}

/* The absolute path p with no empty, "." or ".." part, in place (a ".." takes the part
 * before it away): how the part of a missing path after its real parent is spelled for the
 * backends, which match names. */
static void normalise(char *p)
{
	char *out = p, *in = p;

	while (*in) {
		size_t len;

		while (*in == '/')
			in++;
		len = strcspn(in, "/");
		if (len == 0 || (len == 1 && in[0] == '.')) {
			in += len;
			continue;
		}
		if (len == 2 && in[0] == '.' && in[1] == '.') {
			while (out > p && *--out != '/')
				;
			in += len;
			continue;
		}
		*out++ = '/';
		memmove(out, in, len);
		out += len;
		in += len;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

char *pdk_sandbox_resolve_want(const char *path, bool *exists)
{
	char cur[PATH_MAX], next[PATH_MAX], target[PATH_MAX];

	if (path[0] != '/' || snprintf(cur, sizeof(cur), "%s", path) >= (int)sizeof(cur))
		return NULL;
	for (int hops = 0; hops < 40; hops++) {
		char *real = realpath(cur, NULL), *end = cur;
		struct stat st;

		if (real) {
			*exists = true;
			return real;
		}
		if (errno != ENOENT)
			return NULL;
		/* The first prefix of cur that is missing, or a symlink that leads nowhere. */
		for (;;) {
			end = strchr(end + 1, '/');
			if (end)
				*end = '\0';
			if (lstat(cur, &st) < 0 || (S_ISLNK(st.st_mode) && stat(cur, &st) < 0))
				break;
			if (!end)
				return NULL; /* there after all: changed under us */
			*end = '/';
		}
		char *slash = strrchr(cur, '/');
		_cleanup_free_ char *parent =
		    slash == cur ? strdup("/") : strndup(cur, (size_t)(slash - cur));
		_cleanup_free_ char *rparent = parent ? realpath(parent, NULL) : NULL;
		ssize_t tn;

		if (!rparent)
			return NULL;
		if (lstat(cur, &st) < 0) {
			/* Missing: the real way to its parent, its name and the rest. */
			char *want = NULL;

			if (errno != ENOENT ||
			    asprintf(&want, "%s%s%s%s%s", rparent, strcmp(rparent, "/") ? "/" : "",
				     slash + 1, end ? "/" : "", end ? end + 1 : "") < 0)
				return NULL;
			normalise(want);
			*exists = false;
			return want;
		}
		/* A symlink to nowhere: followed, and the rest of the path after it. */
		if ((tn = readlink(cur, target, sizeof(target) - 1)) < 0)
			return NULL;
		target[tn] = '\0';
		if (snprintf(next, sizeof(next), "%s%s%s%s%s", target[0] == '/' ? "" : rparent,
			     target[0] == '/' ? "" : "/", target, end ? "/" : "",
			     end ? end + 1 : "") >= (int)sizeof(next))
			return NULL;
		memcpy(cur, next, sizeof(cur));
	}
	return NULL;
}

int pdk_sandbox_add_want(struct pdk_sandbox *sb, size_t *np, const char *want)
{
	_cleanup_free_ char *first = strdup(want);
	struct stat st;
	int r;

	if (!first)
		return -ENOMEM;
	for (char *end = first; (end = strchr(end + 1, '/'));) {
		*end = '\0';
		if (lstat(first, &st) < 0)
			break;
		*end = '/';
	}
	if (!pdk_strv_contains(sb->protect, *np, want) &&
	    (r = pdk_strv_append(&sb->protect, np, strdup(want))) < 0)
		return r;
	if (lstat(first, &st) == 0 || errno != ENOENT ||
	    pdk_strv_contains(sb->trash.missing, sb->trash.n_missing, first))
		return 0;
	return pdk_strv_append(&sb->trash.missing, &sb->trash.n_missing, steal_pointer(&first));
}

/* Is path inside one of the roots (strictly: not a root itself)? */
static bool in_a_root(const struct pdk_sandbox *sb, const char *path)
{
	for (char **root = sb->roots; root && *root; root++)
		if (pdk_path_under(path, *root) && strcmp(path, *root) != 0)
			return true;
	return false;
}

/* The configuration file at path, when it is one, read for core.hooksPath onto *value. */
static int read_hooks_path(const char *path, char **value)
{
	_cleanup_close_ int fd = path ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	_cleanup_free_ char *text = NULL;
	struct stat st;
	size_t len = 0;
	int r;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    pdk_read_size(fd, 1 << 20, &text, &len) < 0)
		return 0;
	r = pdk_gitconfig_get(text, len, "core.hookspath", value);
	return r == -ENOMEM ? r : 0;
}

/*
 * The value of core.hooksPath git would take in the repository whose git directory is gitdir
 * (its common directory common): the system's configuration, the user's, the repository's,
 * the worktree's, the last one that sets it. NULL when none does. Not followed, as git would:
 * include.path and includeIf (their files are not read), GIT_CONFIG_COUNT and -c (the
 * environment of a later git is not paddock's to know), and a system configuration other than
 * $GIT_CONFIG_SYSTEM or /etc/gitconfig (git built with another prefix, Xcode's git).
 */
static int hooks_path_value(const char *gitdir, const char *common, char **ret)
{
	const char *sys = getenv("GIT_CONFIG_SYSTEM"), *glob = getenv("GIT_CONFIG_GLOBAL");
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	const char *nosys = getenv("GIT_CONFIG_NOSYSTEM");
	_cleanup_free_ char *xdgfile = NULL, *homefile = NULL, *local = NULL, *wt = NULL;
	int r = 0;

	*ret = NULL;
	if (!nosys || !nosys[0] || !strcmp(nosys, "0") || !strcasecmp(nosys, "false"))
		r = read_hooks_path(sys ? sys : "/etc/gitconfig", ret);
	if (r == 0 && glob) {
		r = read_hooks_path(glob, ret);
	} else if (r == 0) {
		if (xdg && xdg[0] == '/')
			xdgfile = pdk_path_join(xdg, "git/config");
		else if (home && home[0] == '/')
			xdgfile = pdk_path_join(home, ".config/git/config");
		if (home && home[0] == '/')
			homefile = pdk_path_join(home, ".gitconfig");
		if ((r = read_hooks_path(xdgfile, ret)) == 0)
			r = read_hooks_path(homefile, ret);
	}
	/* config.worktree counts only with extensions.worktreeConfig; read either way, it
	 * could only protect one directory more. */
	if (r == 0 && (!(local = pdk_path_join(common, "config")) ||
		       !(wt = pdk_path_join(gitdir, "config.worktree"))))
		r = -ENOMEM;
	if (r == 0 && (r = read_hooks_path(local, ret)) == 0)
		r = read_hooks_path(wt, ret);
	if (r < 0 || (*ret && !(*ret)[0])) {
		free(*ret);
		*ret = NULL; /* an empty value: git's own hooks directory */
	}
	return r;
}

/* The value of core.hooksPath as git resolves it: "~/" is the home directory, a relative one
 * is taken from the top of the work tree top. NULL when it cannot be: "~user/" (another
 * user's home, which paddock does not look up, lies outside the roots) or no HOME. */
static char *hooks_path_resolve(const char *value, const char *top)
{
	const char *home = getenv("HOME");
	char *out = NULL;

	if (value[0] != '~')
		return value[0] == '/' ? strdup(value) : pdk_path_join(top, value);
	if ((value[1] && value[1] != '/') || !home || home[0] != '/' ||
	    asprintf(&out, "%s%s", home, value + 1) < 0)
		return NULL;
	return out;
}

int pdk_sandbox_add_hookdir(struct pdk_sandbox *sb, size_t *np, const char *path)
{
	bool exists = false;
	_cleanup_free_ char *want = pdk_sandbox_resolve_want(path, &exists);
	struct stat st;
	int r = 0;

	if (!want || !in_a_root(sb, want))
		return 0; /* read-only already, or nothing git could run from */
	if (!exists)
		return pdk_sandbox_add_want(sb, np, want);
	if (!pdk_strv_contains(sb->git.hookdirs, sb->git.n_hookdirs, want) &&
	    (r = pdk_strv_append(&sb->git.hookdirs, &sb->git.n_hookdirs, strdup(want))) < 0)
		return r;
	if (!pdk_strv_contains(sb->protect, *np, want) &&
	    (r = pdk_strv_append(&sb->protect, np, strdup(want))) < 0)
		return r;
	/* The name as written too when it is a symlink: vetted after the run, so that the
	 * command cannot point it at a directory of its own. */
	if (strcmp(want, path) != 0 && lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
	    in_a_root(sb, path) && !pdk_strv_contains(sb->protect, *np, path))
		r = pdk_strv_append(&sb->protect, np, strdup(path));
	return r;
}

/*
 * core.hooksPath of the repository whose work tree is top and git directory gitdir: the
 * directory it names, held like .git/hooks when it lies in a root (at its real path; a
 * missing one may not be made), unless the call may install hooks (--allow-git-hooks).
 */
static int add_hooks_path(struct pdk_sandbox *sb, size_t *np, const char *top, const char *gitdir)
{
	_cleanup_free_ char *cfile = pdk_path_join(gitdir, "commondir"), *common = NULL;
	_cleanup_free_ char *value = NULL, *path = NULL;
	int r;

	if (sb->git.allow_hooks)
		return 0;
	if (!cfile)
		return -ENOMEM;
	common = named_dir(cfile, gitdir);
	if ((r = hooks_path_value(gitdir, common ? common : gitdir, &value)) < 0 || !value)
		return r;
	if (!(path = hooks_path_resolve(value, top)))
		return 0;
	return pdk_sandbox_add_hookdir(sb, np, path);
}

int pdk_sandbox_protect_git(struct pdk_sandbox *sb, size_t *np, const char *root)
{
	_cleanup_free_ char *git = pdk_path_join(root, ".git");
	struct stat st;
	int r;

	if (!git)
		return -ENOMEM;
	if (lstat(git, &st) < 0)
		return 0;
	if ((r = add_submodules(sb, root, 0)) < 0)
		return r;
	/* A gitdir: file is as good as the directory it names, and pinned where it cannot be
	 * held (Landlock); a symlink the command could point elsewhere (see select_backend in
	 * sandbox.c). */
	if (S_ISREG(st.st_mode)) {
		_cleanup_free_ char *gdir = named_dir(git, root);

		if (gdir && (r = add_hooks_path(sb, np, root, gdir)) < 0)
			return r;
		if ((r = add_named_gitdir(sb, np, git, root, 0)) < 0 ||
		    (r = pdk_strv_append(&sb->git.pins, &sb->git.n_pins, strdup(git))) < 0)
			return r;
		return pdk_strv_append(&sb->protect, np, steal_pointer(&git));
	}
	if (S_ISLNK(st.st_mode))
		return pdk_strv_append(&sb->protect, np, steal_pointer(&git));
	if (!S_ISDIR(st.st_mode))
		return 0;
	if ((r = add_hooks_path(sb, np, root, git)) < 0 || (r = add_git_names(sb, np, git, 1)) < 0 ||
	    (r = add_gitdirs(sb, np, git)) < 0 ||
	    (r = pdk_strv_append(&sb->git.gitdirs, &sb->git.n_gitdirs, strdup(git))) < 0)
		return r;
	_cleanup_free_ char *common = pdk_path_join(git, "commondir");
	return common ? add_named_gitdir(sb, np, common, git, 1) : -ENOMEM;
}
