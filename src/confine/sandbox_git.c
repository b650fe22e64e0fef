/* sandbox_git.c - what git runs code from in a project, kept from the command: the hooks and
 * configuration of a repository, of its submodules and worktrees, and of the git directory a
 * .git file or a commondir names. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/path.h"
#include "sandbox.h"
#include "sandbox_int.h"
#include "core/util.h"
#include "vetgit.h"

/* What git runs code from in a git directory: its hooks and configuration, and the common
 * directory named by commondir, whose hooks and configuration then count. */
static const char *const gitdir_names[] = {"hooks", "config", "commondir", "config.worktree"};

/*
 * The names of gitdir_names from first on in the git directory dir: protected (a configuration:
 * vetted) where they exist; where they do not, what the command makes there is undone after the run
 * (sb->missing, vet.h).
 */
static int add_git_names(struct pdk_sandbox *sb, size_t *np, const char *dir, size_t first)
{
	int r = 0;

	for (size_t i = first; r == 0 && i < PDK_ARRAY_SIZE(gitdir_names); i++) {
		char *p;
		struct stat st;

		/* --allow-git-hooks: the call was approved to install them. */
		if (sb->allow_hooks && !strcmp(gitdir_names[i], "hooks"))
			continue;
		p = pdk_path_join(dir, gitdir_names[i]);

		/* A configuration stays writable, for user.email, a remote or an upstream, and
		 * is vetted after the run (vet.h); hooks and a commondir are held. */
		if (p && lstat(p, &st) == 0)
			r = !strncmp(gitdir_names[i], "config", 6)
				? pdk_strv_append(&sb->configs, &sb->n_configs, p)
				: pdk_strv_append(&sb->protect, np, p);
		else
			r = pdk_strv_append(&sb->missing, &sb->n_missing, p);
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
	_cleanup_free_ char *text = NULL, *joined = NULL;
	_cleanup_close_ int fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *t, *real;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    pdk_read_size(fd, 4096, &text, NULL) < 0)
		return NULL;
	t = text + (strncmp(text, "gitdir:", 7) ? 0 : 7);
	t += strspn(t, " \t");
	t[strcspn(t, "\r\n")] = '\0';
	if (!t[0] || !(joined = t[0] == '/' ? strdup(t) : pdk_path_join(base, t)))
		return NULL;
	if (!(real = realpath(joined, NULL)))
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
	if (!pdk_strv_contains(sb->gitdirs, sb->n_gitdirs, real) &&
	    (r = pdk_strv_append(&sb->gitdirs, &sb->n_gitdirs, strdup(real))) < 0)
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
	_cleanup_close_ int fd = -1;
	struct stat st;
	int r = 0;

	if (!file)
		return -ENOMEM;
	fd = open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (depth > 3 || fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    pdk_read_size(fd, 1 << 20, &text, NULL) < 0)
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
			if (!pdk_strv_contains(sb->pins, sb->n_pins, git))
				r = pdk_strv_append(&sb->pins, &sb->n_pins, steal_pointer(&git));
		} else if (e == ENOENT || e == ENOTDIR) {
			if (!pdk_strv_contains(sb->gitfiles, sb->n_gitfiles, git))
				r = pdk_strv_append(&sb->gitfiles, &sb->n_gitfiles,
							  steal_pointer(&git));
		}
		if (r == 0)
			r = add_submodules(sb, dir, depth + 1);
	}
	return r;
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
	if (S_ISREG(st.st_mode))
		return (r = add_named_gitdir(sb, np, git, root, 0)) < 0 ||
			       (r = pdk_strv_append(&sb->pins, &sb->n_pins, strdup(git))) < 0
			   ? r
			   : pdk_strv_append(&sb->protect, np, steal_pointer(&git));
	if (S_ISLNK(st.st_mode))
		return pdk_strv_append(&sb->protect, np, steal_pointer(&git));
	if (!S_ISDIR(st.st_mode))
		return 0;
	if ((r = add_git_names(sb, np, git, 1)) < 0 || (r = add_gitdirs(sb, np, git)) < 0 ||
	    (r = pdk_strv_append(&sb->gitdirs, &sb->n_gitdirs, strdup(git))) < 0)
		return r;
	_cleanup_free_ char *common = pdk_path_join(git, "commondir");
	return common ? add_named_gitdir(sb, np, common, git, 1) : -ENOMEM;
}
