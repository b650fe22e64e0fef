/* vet.c - protected paths with no file in the user's tree: a journal of those missing before
 * the run, and after it (or after paddock's death) what the command made there to the trash. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/path.h"
#include "gitconfig.h"
#include "core/util.h"
#include "core/state.h"
#include "trash/trash.h"
#include "vet.h"
#include "vetgit.h"
#include "vettrack.h"

/* The largest journal read back: thousands of paths. */
#define JOURNAL_MAX (1 << 20)
/* The largest git configuration vetted; a larger one is left as the command leaves it. */
#define CONFIG_MAX (1 << 20)
/* The largest hook copied, and how deep a hooks directory is looked into. */
#define HOOK_MAX (4 << 20)
#define HOOKS_DEPTH 3

static int push(char ***v, size_t *n, const char *s, size_t len)
{
	char **nv = realloc(*v, (*n + 2) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	if (!(nv[*n] = strndup(s, len)))
		return -ENOMEM;
	nv[++*n] = NULL;
	return 0;
}

/*
 * What is at each of the n missing paths goes to the trash, taken only from under the roots;
 * one the trash will not take (the command can see to that) is deleted when it is a file.
 * The list of what was found, for a note, onto f (*f opened on first use). 0 or -ENOMEM.
 */
static int undo_made(const struct pdk_vet *v, FILE **f, char **buf, size_t *size)
{
	char *const *roots = v->roots, *const *missing = v->missing;
	size_t n_roots = v->n_roots;

	for (size_t i = 0; i < v->n_missing; i++) {
		char why[256] = "";
		struct stat st;

		/* git's own checkout of a commit that was there before the run stays. */
		if (lstat(missing[i], &st) < 0 ||
		    pdk_vettrack_checked_out(missing[i], v->tips, v->n_tips))
			continue;
		if (!*f && !(*f = open_memstream(buf, size)))
			return -ENOMEM;
		fprintf(*f, "%s%s", ftell(*f) ? ", " : "", missing[i]);
		if (pdk_trash_put(missing[i], (const char *const *)roots, n_roots, NULL, why, sizeof(why)) == 0)
			continue;
		const char *name;
		_cleanup_close_ int dfd = pdk_open_parent_nofollow_at(AT_FDCWD, missing[i], &name);
		if (dfd >= 0 && unlinkat(dfd, name, 0) == 0)
			fprintf(*f, " (deleted: the trash would not take it: %s)", why);
		else
			fprintf(*f, " (left in place: %s)", why);
	}
	return 0;
}

/* Put text back at dfd/name, by a file written beside it and renamed over it. */
static int restore(int dfd, const char *name, const char *text, size_t len, mode_t mode)
{
	char tmp[64];
	unsigned int rnd = 0;
	int fd, r;

	if (getentropy(&rnd, sizeof(rnd)) < 0)
		rnd = (unsigned int)getpid() * 2654435761u; /* O_EXCL below catches a clash */
	snprintf(tmp, sizeof(tmp), ".paddock-restore-%08x", rnd);
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode & 0777);
	if (fd < 0)
		return -errno;
	r = pdk_write_all(fd, text, len);
	if (r == 0 && fchmod(fd, mode & 07777) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(dfd, tmp, dfd, name) < 0)
		r = -errno;
	if (r < 0)
		(void)unlinkat(dfd, tmp, 0);
	return r;
}

/*
 * A git configuration after the run: kept when the command changed nothing that runs a
 * program; else its version goes to the trash and the one before is put back. What was done,
 * as a clause, onto *f.
 */
static int vet_config(char *const *roots, size_t n_roots, const struct pdk_vet_config *c,
		      bool allow_hooks, FILE **f, char **buf, size_t *size)
{
	_cleanup_free_ char *now = NULL, *first = NULL, *trashed = NULL;
	const char *name;
	_cleanup_close_ int dfd = pdk_open_parent_nofollow_at(AT_FDCWD, c->path, &name);
	size_t len = 0;
	struct stat st;
	int r;

	/* Its directory gone, nothing of it is left for git to read; no copy of it (the journal's
	 * could not be written): nothing to compare with. */
	if (dfd < 0 || !c->before)
		return 0;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		/* Removed: git itself never does; put back. A submodule's .git goes with it. */
		if (c->pinned)
			return 0;
		r = 0;
	} else if (S_ISREG(st.st_mode) && st.st_size <= CONFIG_MAX) {
		_cleanup_close_ int fd =
		    openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || pdk_read_size(fd, CONFIG_MAX, &now, &len) < 0)
			return 0;
		if (len == c->len && !memcmp(now, c->before, len))
			return 0;
		r = c->pinned ? 2
			      : pdk_gitconfig_added(c->before, c->len, now, len,
						    allow_hooks ? "core.hookspath" : NULL, &first);
		if (r == -ENOMEM)
			return r;
		if (r == 0)
			return 0; /* user.email, a remote, an upstream: the command's to set */
	} else {
		r = -EINVAL; /* a symlink, a directory, a huge file: not a configuration to keep */
	}
	if (!*f && !(*f = open_memstream(buf, size)))
		return -ENOMEM;
	if (r == 1)
		fprintf(*f, "%sthe command set %s in %s, which makes git run a program", ftell(*f) ? "; " : "",
			first, c->path);
	else if (r == 2 || (c->pinned && r == -EINVAL))
		fprintf(*f, "%sthe command changed %s, which tells git where a repository is "
			    "(its configuration and hooks)", ftell(*f) ? "; " : "", c->path);
	else if (r == -EINVAL)
		fprintf(*f, "%sthe command left %s as git could not read it", ftell(*f) ? "; " : "",
			c->path);
	else
		fprintf(*f, "%sthe command removed %s", ftell(*f) ? "; " : "", c->path);
	if (r != 0) {
		char why[256] = "";

		if (pdk_trash_put(c->path, (const char *const *)roots, n_roots, &trashed, why, sizeof(why)) == 0)
			fprintf(*f, ": its version is in the trash as %s", trashed);
		else
			fprintf(*f, ": its version could not go to the trash (%s)", why);
	}
	if ((r = restore(dfd, name, c->before, c->len, c->mode)) == 0) {
		fprintf(*f, ", and the one from before the run is back");
	} else {
		fprintf(*f, ", and the one from before the run could not be put back: %s",
			strerror(-r));
	}
	return 0;
}

/* Put the symlink to target back at dfd/name, by one made beside it and renamed over it. */
static int restore_link(int dfd, const char *name, const char *target)
{
	char tmp[64];
	unsigned int rnd = 0;
	int r = 0;

	if (getentropy(&rnd, sizeof(rnd)) < 0)
		rnd = (unsigned int)getpid() * 2654435761u;
	snprintf(tmp, sizeof(tmp), ".paddock-restore-%08x", rnd);
	if (symlinkat(target, dfd, tmp) < 0)
		return -errno;
	if (renameat(dfd, tmp, dfd, name) < 0) {
		r = -errno;
		(void)unlinkat(dfd, tmp, 0);
	}
	return r;
}

static bool open_clause(FILE **f, char **buf, size_t *size)
{
	if (!*f && !(*f = open_memstream(buf, size)))
		return false;
	if (ftell(*f))
		fputs("; ", *f);
	return true;
}

/* Is path a hooks directory or in one? A hook the command removed is put back, as the
 * user's; any other protected path it removed stays removed (a checkout of a branch without
 * it): nothing runs from a path that is not there. */
static bool in_hooks(const struct pdk_vet *v, const char *path)
{
	size_t l = strlen(path);

	for (size_t i = 0; i < v->n_hookroots; i++)
		if (pdk_path_under(path, v->hookroots[i]))
			return true;
	return strstr(path, "/hooks/") || (l >= 6 && !strcmp(path + l - 6, "/hooks"));
}

/* Is path one of the hooks directories or of what was in them before the run? */
static bool hook_known(const struct pdk_vet *v, const char *path)
{
	if (pdk_strv_contains(v->hookdirs, v->n_hookdirs, path))
		return true;
	for (size_t i = 0; i < v->n_configs; i++)
		if (v->configs[i].hook && !strcmp(v->configs[i].path, path))
			return true;
	return false;
}

/*
 * A hooks directory, or another protected directory the backend could not hold, after the
 * run: what the command put in its place to the trash (a hooks directory is then made
 * again), and what is new in it to the trash, unless git checked it out (vettrack.h). What
 * was done, as clauses, onto *f; *undone is set when anything was.
 */
static int vet_hookdir(const struct pdk_vet *v, const char *dir, FILE **f, char **buf,
		       size_t *size, bool *undone)
{
	const char *name;
	_cleanup_close_ int pfd = pdk_open_parent_nofollow_at(AT_FDCWD, dir, &name);
	struct stat st;
	DIR *d;
	struct dirent *e;
	int fd;

	if (pfd < 0)
		return 0; /* its parent gone: git reads nothing there */
	bool there = fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0, hooks = in_hooks(v, dir);
	const char *what = hooks ? "hooks directory" : "protected directory";

	if (!there && !hooks)
		return 0;
	if (there && !S_ISDIR(st.st_mode) && pdk_vettrack_checked_out(dir, v->tips, v->n_tips))
		return 0;
	if (!there || !S_ISDIR(st.st_mode)) {
		_cleanup_free_ char *trashed = NULL;
		char why[256] = "";

		if (!open_clause(f, buf, size))
			return -ENOMEM;
		*undone = true;
		if (!there)
			fprintf(*f, "the command removed the %s %s", what, dir);
		else if (pdk_trash_put(dir, (const char *const *)v->roots, v->n_roots, &trashed,
				       why, sizeof(why)) == 0)
			fprintf(*f, "the command put something else in place of the %s %s: moved to "
				    "the trash as %s", what, dir, trashed);
		else
			fprintf(*f, "the command put something else in place of the %s %s, which "
				    "could not go to the trash (%s)", what, dir, why);
		if (!hooks)
			return 0;
		if (mkdirat(pfd, name, 0755) < 0 && errno != EEXIST) {
			fprintf(*f, ", and it could not be made again: %s", strerror(errno));
			return 0;
		}
		fprintf(*f, there ? "; it is made again" : ": it is made again");
	}
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((e = readdir(d))) {
		_cleanup_free_ char *path = NULL, *trashed = NULL;
		char why[256] = "";

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!(path = pdk_path_join(dir, e->d_name))) {
			closedir(d);
			return -ENOMEM;
		}
		if (hook_known(v, path) || pdk_vettrack_checked_out(path, v->tips, v->n_tips))
			continue;
		if (!open_clause(f, buf, size)) {
			closedir(d);
			return -ENOMEM;
		}
		*undone = true;
		if (pdk_trash_put(path, (const char *const *)v->roots, v->n_roots, &trashed, why, sizeof(why)) == 0)
			fprintf(*f, "the command made %s, in a %s: moved to the trash as %s", path,
				what, trashed);
		else if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			fprintf(*f, "the command made %s, in a %s: deleted, as the trash would not "
				    "take it (%s)", path, what, why);
		else
			fprintf(*f, "the command made %s, in a %s, and it could not be taken away: %s",
				path, what, why);
	}
	closedir(d);
	return 0;
}

/* A hook, or another protected file the backend could not hold, that was there before the
 * run: put back when the command changed it (or removed a hook), its version to the trash,
 * unless git checked out what is there now (vettrack.h). */
static int vet_hook(const struct pdk_vet *v, const struct pdk_vet_config *c, FILE **f,
		    char **buf, size_t *size, bool *undone)
{
	_cleanup_free_ char *now = NULL, *trashed = NULL;
	const char *name;
	_cleanup_close_ int dfd = -1;
	struct stat st;
	size_t len = 0;
	bool there;
	int r;

	if (c->hook == 'D' || !c->before)
		return 0;
	if ((dfd = pdk_open_parent_nofollow_at(AT_FDCWD, c->path, &name)) < 0)
		return 0;
	there = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
	bool hook = in_hooks(v, c->path);
	const char *what = hook ? "hook" : "protected file";

	if (!there && !hook)
		return 0;
	if (there && c->hook == 'H' && S_ISREG(st.st_mode) && (st.st_mode & 07777) == c->mode &&
	    (size_t)st.st_size == c->len) {
		_cleanup_close_ int fd =
		    openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

		if (fd >= 0 && pdk_read_size(fd, c->len + 1, &now, &len) == 0 && len == c->len &&
		    !memcmp(now, c->before, len))
			return 0;
	} else if (there && c->hook == 'L' && S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);

		if (n >= 0 && (size_t)n == c->len && !memcmp(target, c->before, c->len))
			return 0;
	}
	if (there && pdk_vettrack_checked_out(c->path, v->tips, v->n_tips))
		return 0;
	if (!open_clause(f, buf, size))
		return -ENOMEM;
	*undone = true;
	if (!there) {
		fprintf(*f, "the command removed the %s %s", what, c->path);
	} else {
		char why[256] = "";

		if (pdk_trash_put(c->path, (const char *const *)v->roots, v->n_roots, &trashed,
				  why, sizeof(why)) == 0)
			fprintf(*f, "the command changed the %s %s: its version is in the trash as %s",
				what, c->path, trashed);
		else
			fprintf(*f, "the command changed the %s %s: its version could not go to the "
				    "trash (%s)", what, c->path, why);
	}
	r = c->hook == 'L' ? restore_link(dfd, name, c->before)
			   : restore(dfd, name, c->before, c->len, c->mode);
	if (r == 0)
		fprintf(*f, ", and the one from before the run is back");
	else
		fprintf(*f, ", and the one from before the run could not be put back: %s",
			strerror(-r));
	return 0;
}

static int undo(const struct pdk_vet *v, char **ret_made, char **ret_configs)
{
	char *mbuf = NULL, *cbuf = NULL;
	size_t msize = 0, csize = 0;
	FILE *mf = NULL, *cf = NULL;
	int r = 0;

	/* What the command made at missing paths comes last: git reads the configurations, as
	 * they are put back, to say whether a checkout made it. */
	for (size_t i = 0; r == 0 && i < v->n_configs; i++)
		if (!v->configs[i].hook)
			r = vet_config(v->roots, v->n_roots, &v->configs[i], v->allow_hooks, &cf,
				       &cbuf, &csize);
	/* The hooks directories, made again where they went, then what was in them. */
	bool hooks_undone = false;
	for (size_t i = 0; r == 0 && i < v->n_hookdirs; i++)
		r = vet_hookdir(v, v->hookdirs[i], &cf, &cbuf, &csize, &hooks_undone);
	for (size_t i = 0; r == 0 && i < v->n_configs; i++)
		if (v->configs[i].hook)
			r = vet_hook(v, &v->configs[i], &cf, &cbuf, &csize, &hooks_undone);
	if (r == 0 && hooks_undone)
		fprintf(cf, " (the backend could not hold the protected path while the run "
			    "lasted, so it is put back after it; a hook manager's install step "
			    "asks for hooks with --allow-git-hooks, an agent's or editor's set-up "
			    "for its configuration with --allow-agent-config)");
	_cleanup_free_ char **pins = calloc(v->n_configs + 1, sizeof(char *));
	size_t n_pins = 0;
	if (!pins)
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < v->n_configs; i++)
		if (v->configs[i].pinned && !v->configs[i].hook)
			pins[n_pins++] = v->configs[i].path;
	if (r == 0) {
		struct pdk_vetgit_repos g = {
		    .roots = v->roots, .n_roots = v->n_roots,
		    .gitdirs = v->gitdirs, .n_gitdirs = v->n_gitdirs,
		    .known = v->known, .n_known = v->n_known,
		    .gitfiles = v->gitfiles, .n_gitfiles = v->n_gitfiles,
		    .pins = pins, .n_pins = n_pins,
		};
		r = pdk_vetgit_undo(&g, &cf, &cbuf, &csize);
	}
	if (r == 0)
		r = undo_made(v, &mf, &mbuf, &msize);
	/* What the run committed is never taken for git's own checkout by a later run. */
	if (r == 0)
		(void)pdk_vettrack_taint(v->worktrees, v->n_worktrees, v->tips, v->n_tips);
	if (mf && fclose(mf) == EOF)
		r = -ENOMEM;
	if (cf && fclose(cf) == EOF)
		r = -ENOMEM;
	if (r < 0) {
		free(mbuf);
		free(cbuf);
		return r;
	}
	*ret_made = mbuf;
	*ret_configs = cbuf;
	return 0;
}

/* The note for what undo() did: NULL when it did nothing. */
static int make_note(const char *made, const char *configs, char **ret_note)
{
	*ret_note = NULL;
	if (!made && !configs)
		return 0;
	if (asprintf(ret_note, "sandbox: %s%s%s%s%s",
		     made ? "the command made " : "", made ? made : "",
		     made ? ", at protected names from which code would run later outside the "
			    "sandbox (git's hooks or configuration, a shell's or an editor's start-up "
			    "files); moved to the trash, unless said otherwise: look at them before "
			    "you restore them"
			  : "",
		     made && configs ? "; " : "",
		     configs ? configs : "") < 0) {
		*ret_note = NULL;
		return -ENOMEM;
	}
	if (configs) {
		char *with = NULL;

		if (asprintf(&with, "%s; to keep such a setting or file, look at it and set it "
				    "up yourself (git config for a setting)",
			     *ret_note) < 0)
			return -ENOMEM;
		free(*ret_note);
		*ret_note = with;
	}
	return 0;
}

static int journal_dir(char **ret)
{
	_cleanup_free_ char *state = pdk_state_dir();

	if (!state || asprintf(ret, "%s/" PDK_VET_DIR, state) < 0) {
		*ret = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int add_config(struct pdk_vet *v, const char *path, size_t len)
{
	struct pdk_vet_config *nc = realloc(v->configs, (v->n_configs + 1) * sizeof(*nc));

	if (!nc)
		return -ENOMEM;
	v->configs = nc;
	nc[v->n_configs] = (struct pdk_vet_config){.path = strndup(path, len)};
	if (!nc[v->n_configs].path)
		return -ENOMEM;
	v->n_configs++;
	return 0;
}

/* The configuration named at path (len bytes) and its copy beside the journal, JOURNAL.N
 * (missing: there was none), onto v. */
static int load_config(struct pdk_vet *v, const char *journal, const char *path, size_t len)
{
	_cleanup_free_ char *copy = NULL;
	struct pdk_vet_config *c;
	struct stat st;
	int r, fd;

	if ((r = add_config(v, path, len)) < 0)
		return r;
	c = &v->configs[v->n_configs - 1];
	if (asprintf(&copy, "%s.%zu", journal, v->n_configs - 1) < 0) {
		copy = NULL;
		return -ENOMEM;
	}
	fd = open(copy, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	c->copied = fd >= 0 || errno != ENOENT;
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    pdk_read_size(fd, HOOK_MAX, &c->before, &c->len) == 0)
		c->mode = st.st_mode & 07777;
	close(fd);
	return 0;
}

/* Remove the copies of configurations beside the journal: those written (a text before) or
 * found there, not the names of all the missing ones. */
static void unlink_copies(const char *journal, const struct pdk_vet_config *configs, size_t n)
{
	for (size_t i = 0; journal && i < n; i++) {
		char *copy = NULL;

		if (!configs[i].before && !configs[i].copied)
			continue;
		if (asprintf(&copy, "%s.%zu", journal, i) >= 0) {
			(void)unlink(copy);
			free(copy);
		}
	}
}

/* Read the journal on fd into v (roots, missing) and its own path into *ret_path. */
static int parse(int fd, struct pdk_vet *v, char **ret_path)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	int r;

	/* A journal handed on by a guardian shares paddock's offset: at its end. */
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	if ((r = pdk_read_size(fd, JOURNAL_MAX, &text, &len)) < 0)
		return r;
	if (strncmp(text, "paddock-vet 1\n", 14) != 0)
		return -EINVAL;
	for (char *line = text + 14, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
		size_t l = (size_t)(nl - line);

		if (l == 7 && !memcmp(line, "A\thooks", 7))
			v->allow_hooks = true;
		if (l < 3 || line[1] != '\t' || line[2] != '/')
			continue;
		if (line[0] == 'T')
			r = push(&v->tips, &v->n_tips, line + 2, l - 2);
		else if (line[0] == 'V')
			r = push(&v->worktrees, &v->n_worktrees, line + 2, l - 2);
		else if (line[0] == 'R')
			r = push(&v->roots, &v->n_roots, line + 2, l - 2);
		else if (line[0] == 'M')
			r = push(&v->missing, &v->n_missing, line + 2, l - 2);
		else if (line[0] == 'J' && !*ret_path)
			r = (*ret_path = strndup(line + 2, l - 2)) ? 0 : -ENOMEM;
		else if (strchr("CPHLX", line[0]) && *ret_path) {
			if ((r = load_config(v, *ret_path, line + 2, l - 2)) == 0) {
				struct pdk_vet_config *c = &v->configs[v->n_configs - 1];

				c->pinned = line[0] == 'P';
				c->hook = line[0] == 'X' ? 'D' : strchr("HL", line[0]) ? line[0] : 0;
			}
		} else if (line[0] == 'G')
			r = push(&v->hookroots, &v->n_hookroots, line + 2, l - 2);
		else if (line[0] == 'h')
			r = push(&v->hookdirs, &v->n_hookdirs, line + 2, l - 2);
		else if (line[0] == 'D')
			r = push(&v->gitdirs, &v->n_gitdirs, line + 2, l - 2);
		else if (line[0] == 'K')
			r = push(&v->known, &v->n_known, line + 2, l - 2);
		else if (line[0] == 'S')
			r = push(&v->gitfiles, &v->n_gitfiles, line + 2, l - 2);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Remove the journal at path if it is still the file open on fd. */
static void unlink_journal(const char *path, int fd)
{
	struct stat a, b;

	if (path && fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino)
		(void)unlink(path);
}

static int finish(int fd, char **ret_note)
{
	struct pdk_vet v = {.fd = -1};
	_cleanup_free_ char *path = NULL, *made = NULL, *configs = NULL;
	int r;

	*ret_note = NULL;
	if ((r = parse(fd, &v, &path)) == 0)
		r = undo(&v, &made, &configs);
	if (r == 0) {
		unlink_copies(path, v.configs, v.n_configs);
		unlink_journal(path, fd);
		r = make_note(made, configs, ret_note);
	}
	pdk_vet_release(&v);
	return r;
}

int pdk_vet_finish_fd(int fd)
{
	_cleanup_free_ char *note = NULL;

	(void)flock(fd, LOCK_EX);
	return finish(fd, &note);
}

/* The next journal in the journals' directory d that a run going on holds, parsed into
 * *other, which the caller releases: 1, or 0 when there is none left. */
static int next_running(DIR *d, struct pdk_vet *other)
{
	struct dirent *e;

	while ((e = readdir(d))) {
		_cleanup_free_ char *path = NULL;
		_cleanup_close_ int fd = -1;

		if (e->d_name[0] == '.' || strchr(e->d_name, '.'))
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		/* Only a run going on holds its journal's lock. */
		if (fd < 0 || flock(fd, LOCK_SH | LOCK_NB) == 0 || errno != EWOULDBLOCK)
			continue;
		*other = (struct pdk_vet){.fd = -1};
		if (parse(fd, other, &path) == 0)
			return 1;
		pdk_vet_release(other);
	}
	return 0;
}

/*
 * The tips a run may trust: none a sandbox made, by the ledger (vettrack.h); and none made
 * by a run going on now in the same worktree, which will write them in the ledger only when
 * it ends: a tip must be among each such run's tips from its start.
 */
static int trusted_tips(struct pdk_vet *v)
{
	_cleanup_free_ char *dir = NULL;
	struct pdk_vet other;
	DIR *d;

	pdk_vettrack_untaint(v->tips, &v->n_tips);
	if (!v->n_tips || journal_dir(&dir) < 0 || !(d = opendir(dir)))
		return 0;
	while (next_running(d, &other)) {
		size_t kept = 0;

		for (size_t i = 0; i < v->n_tips; i++) {
			const char *t = v->tips[i];
			_cleanup_free_ char *wt = strndup(t, strcspn(t, "\t"));

			if (!wt) {
				closedir(d);
				pdk_vet_release(&other);
				return -ENOMEM;
			}
			if (pdk_strv_contains(other.worktrees, other.n_worktrees, wt) &&
			    !pdk_strv_contains(other.tips, other.n_tips, t))
				free(v->tips[i]);
			else
				v->tips[kept++] = v->tips[i];
		}
		for (size_t i = kept; i < v->n_tips; i++)
			v->tips[i] = NULL;
		v->n_tips = kept;
		pdk_vet_release(&other);
	}
	closedir(d);
	return 0;
}

int pdk_vet_adopt(char *const *roots, size_t n_roots, const char *skip, char ***missing,
		  size_t *n)
{
	_cleanup_free_ char *dir = NULL;
	struct pdk_vet other;
	DIR *d;
	int r = 0;

	if (journal_dir(&dir) < 0 || !(d = opendir(dir)))
		return 0;
	while (r == 0 && next_running(d, &other)) {
		for (size_t i = 0; r == 0 && i < other.n_missing; i++) {
			const char *m = other.missing[i], *base = strrchr(m, '/');
			bool inside = false;

			if (skip && base && !strcmp(base + 1, skip))
				continue;
			for (size_t k = 0; k < n_roots && !inside; k++)
				inside = pdk_path_under(m, roots[k]) && strcmp(m, roots[k]);
			if (inside && !pdk_strv_contains(*missing, *n, m))
				r = push(missing, n, m, strlen(m));
		}
		pdk_vet_release(&other);
	}
	closedir(d);
	return r;
}

int pdk_vet_sweep(char **ret_note)
{
	_cleanup_free_ char *dir = NULL, *all = NULL;
	DIR *d;
	struct dirent *e;
	int r = 0;

	if (ret_note)
		*ret_note = NULL;
	if (journal_dir(&dir) < 0 || !(d = opendir(dir)))
		return 0;
	while (r == 0 && (e = readdir(d))) {
		_cleanup_free_ char *list = NULL;
		_cleanup_close_ int fd = -1;

		const char *dot = strchr(e->d_name, '.');

		if (e->d_name[0] == '.')
			continue;
		/* A copy of a configuration stays as long as its journal. */
		if (dot) {
			_cleanup_free_ char *journal = strndup(e->d_name, (size_t)(dot - e->d_name));
			struct stat st;

			if (journal && fstatat(dirfd(d), journal, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
			    errno == ENOENT)
				(void)unlinkat(dirfd(d), e->d_name, 0);
			continue;
		}
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0)
			continue;
		if ((r = finish(fd, &list)) == -EINVAL) {
			(void)unlinkat(dirfd(d), e->d_name, 0); /* not a journal */
			r = 0;
		}
		/* Its note, less "sandbox: ", after the first one's. */
		if (r == 0 && list) {
			char *joined = NULL;

			if (asprintf(&joined, "%s%s%s", all ? all : "", all ? "; " : "",
				     list + strlen("sandbox: ")) < 0)
				r = -ENOMEM;
			free(all);
			all = joined;
		}
	}
	closedir(d);
	if (r == 0 && all && ret_note &&
	    asprintf(ret_note, "sandbox: from an earlier run that ended without paddock (killed): %s",
		     all) < 0) {
		*ret_note = NULL;
		r = -ENOMEM;
	}
	return r == -ENOMEM ? r : 0;
}

/* The configuration at path as it is now, onto v (missing: before stays NULL). */
static int snapshot_config(struct pdk_vet *v, const char *path, bool pinned)
{
	struct pdk_vet_config *c;
	struct stat st;
	int r, fd;

	_cleanup_free_ char *text = NULL;
	size_t len = 0;

	/* One that cannot be read whole (a symlink, a huge file) is not vetted. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	r = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= CONFIG_MAX
		? pdk_read_size(fd, CONFIG_MAX, &text, &len)
		: -EINVAL;
	close(fd);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	if ((r = add_config(v, path, strlen(path))) < 0)
		return r;
	c = &v->configs[v->n_configs - 1];
	c->before = steal_pointer(&text);
	c->len = len;
	c->mode = st.st_mode & 0777;
	c->pinned = pinned;
	return 0;
}

/* The file or symlink dfd/name (path), as it is now, onto v; one that cannot be copied (too
 * large, a device, a directory too deep, a *.sample hook) only known to be there. */
static int snapshot_entry(struct pdk_vet *v, int dfd, const char *name, const char *path,
			  const struct stat *st)
{
	_cleanup_free_ char *text = NULL;
	struct pdk_vet_config *c;
	size_t len = 0, name_len = strlen(name);
	char kind = 'D';
	bool sample = name_len > 7 && !strcmp(name + name_len - 7, ".sample");
	int r;

	if (S_ISREG(st->st_mode) && !sample && st->st_size <= HOOK_MAX) {
		_cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

		if (fd >= 0 && pdk_read_size(fd, HOOK_MAX, &text, &len) == 0)
			kind = 'H';
	} else if (S_ISLNK(st->st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);

		if (n >= 0 && (text = strndup(target, (size_t)n))) {
			len = (size_t)n;
			kind = 'L';
		}
	}
	if ((r = add_config(v, path, strlen(path))) < 0)
		return r;
	c = &v->configs[v->n_configs - 1];
	c->hook = kind;
	c->before = kind == 'D' ? NULL : steal_pointer(&text);
	c->len = len;
	c->mode = st->st_mode & 07777;
	return 0;
}

/* What is in the directory dir (depth levels down), onto v: each file and symlink as it is
 * now, each directory to look into after the run. git's *.sample files, which git never
 * runs, are only known to be there: a fresh repository's dozen of them are not copied. */
static int snapshot_hooks(struct pdk_vet *v, const char *dir, int depth)
{
	_cleanup_close_ int pfd = pdk_open_dir_nofollow(dir);
	struct dirent *e;
	DIR *d;
	int fd, r;

	if (pfd < 0)
		return 0;
	if ((fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 0;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return 0;
	}
	r = push(&v->hookdirs, &v->n_hookdirs, dir, strlen(dir));
	while (r == 0 && (e = readdir(d))) {
		_cleanup_free_ char *path = NULL;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (!(path = pdk_path_join(dir, e->d_name)))
			r = -ENOMEM;
		else if (S_ISDIR(st.st_mode) && depth < HOOKS_DEPTH)
			r = snapshot_hooks(v, path, depth + 1);
		else
			r = snapshot_entry(v, dirfd(d), e->d_name, path, &st);
	}
	closedir(d);
	return r;
}

/* A protected path the backend cannot hold, as it is now: a directory with what is in it,
 * or one file or symlink. */
static int snapshot_vetted(struct pdk_vet *v, const char *path)
{
	const char *name;
	_cleanup_close_ int dfd = pdk_open_parent_nofollow_at(AT_FDCWD, path, &name);
	struct stat st;

	if (dfd < 0 || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (S_ISDIR(st.st_mode))
		return snapshot_hooks(v, path, 0);
	return snapshot_entry(v, dfd, name, path, &st);
}

/*
 * A run going on that vets the hooks directory dir copied it before its command started: what
 * is there now may be that command's. Its copy of dir, and of what was in it, onto v: 1 when
 * one was found, 0 when none (then dir is copied as it is), or -ENOMEM.
 */
static int adopt_hooks(struct pdk_vet *v, const char *dir)
{
	_cleanup_free_ char *jdir = NULL;
	struct pdk_vet other;
	DIR *d;
	int r = 0;

	if (journal_dir(&jdir) < 0 || !(d = opendir(jdir)))
		return 0;
	while (r == 0 && next_running(d, &other)) {
		if (hook_known(&other, dir)) {
			for (size_t i = 0; r == 0 && i < other.n_hookdirs; i++)
				if (pdk_path_under(other.hookdirs[i], dir))
					r = push(&v->hookdirs, &v->n_hookdirs, other.hookdirs[i],
						 strlen(other.hookdirs[i]));
			for (size_t i = 0; r == 0 && i < other.n_configs; i++) {
				struct pdk_vet_config *oc = &other.configs[i], *c;

				if (!oc->hook || !pdk_path_under(oc->path, dir))
					continue;
				if ((r = add_config(v, oc->path, strlen(oc->path))) < 0)
					break;
				c = &v->configs[v->n_configs - 1];
				c->hook = oc->hook;
				c->before = steal_pointer(&oc->before);
				c->len = oc->len;
				c->mode = oc->mode;
			}
			r = r < 0 ? r : 1;
		}
		pdk_vet_release(&other);
	}
	closedir(d);
	return r;
}

/* The copies of the configurations beside the journal, for whoever finishes it. */
static int write_copies(const struct pdk_vet *v)
{
	for (size_t i = 0; i < v->n_configs; i++) {
		const struct pdk_vet_config *c = &v->configs[i];
		char *copy = NULL;
		int fd, r;

		if (!c->before)
			continue;
		if (asprintf(&copy, "%s.%zu", v->journal, i) < 0)
			return -ENOMEM;
		fd = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		free(copy);
		if (fd < 0)
			return -errno;
		r = pdk_write_all(fd, c->before, c->len);
		if (r == 0 && fchmod(fd, c->hook == 'L' ? 0600 : c->mode & 07777) < 0)
			r = -errno;
		close(fd);
		if (r < 0)
			return r;
	}
	return 0;
}

int pdk_vet_begin(struct pdk_vet *v, const char *const *roots, size_t n_roots,
		  char *const *missing, size_t n, char *const *configs, size_t n_configs,
		  const struct pdk_vet_git *git)
{
	_cleanup_free_ char *dir = NULL, *text = NULL;
	size_t size = 0;
	unsigned int rnd = 0;
	FILE *f;
	int r = 0;

	*v = (struct pdk_vet){.fd = -1, .allow_hooks = git && git->allow_hooks};
	for (size_t i = 0; r == 0 && i < n_roots; i++)
		r = push(&v->roots, &v->n_roots, roots[i], strlen(roots[i]));
	for (size_t i = 0; r == 0 && i < n; i++)
		r = push(&v->missing, &v->n_missing, missing[i], strlen(missing[i]));
	/* The ref tips of each worktree a missing or vetted path lies directly in. */
	for (size_t i = 0; r == 0 && i < n + (git ? git->n_hooks : 0); i++) {
		const char *p = i < n ? missing[i] : git->hooks[i - n], *slash = strrchr(p, '/');
		char *wt = slash ? strndup(p, (size_t)(slash - p)) : NULL;

		if (!wt || pdk_strv_contains(v->worktrees, v->n_worktrees, wt))
			free(wt);
		else if ((r = pdk_strv_append(&v->worktrees, &v->n_worktrees, wt)) == 0)
			r = pdk_vettrack_snapshot(wt, &v->tips, &v->n_tips);
	}
	if (r == 0)
		r = trusted_tips(v);
	for (size_t i = 0; r == 0 && i < n_configs; i++)
		r = snapshot_config(v, configs[i], false);
	for (size_t i = 0; git && r == 0 && i < git->n_pins; i++)
		r = snapshot_config(v, git->pins[i], true);
	for (size_t i = 0; git && r == 0 && i < git->n_gitdirs; i++)
		r = push(&v->gitdirs, &v->n_gitdirs, git->gitdirs[i], strlen(git->gitdirs[i]));
	for (size_t i = 0; git && r == 0 && i < git->n_gitfiles; i++)
		r = push(&v->gitfiles, &v->n_gitfiles, git->gitfiles[i], strlen(git->gitfiles[i]));
	for (size_t i = 0; git && r == 0 && i < git->n_hookroots; i++)
		r = push(&v->hookroots, &v->n_hookroots, git->hookroots[i],
			 strlen(git->hookroots[i]));
	for (size_t i = 0; git && r == 0 && i < git->n_hooks; i++)
		if ((r = adopt_hooks(v, git->hooks[i])) == 0)
			r = snapshot_vetted(v, git->hooks[i]);
	r = r < 0 ? r : 0;
	if (r == 0)
		r = pdk_vetgit_scan(v->gitdirs, v->n_gitdirs, &v->known, &v->n_known);
	if (r < 0 || (!n && !v->n_configs && !v->n_gitdirs && !v->n_gitfiles && !v->n_hookdirs))
		return r;
	/* Best effort from here: without a journal paddock still undoes after the run. */
	if (journal_dir(&dir) < 0)
		return 0;
	if (getentropy(&rnd, sizeof(rnd)) < 0)
		rnd = (unsigned int)getpid() * 2654435761u;
	if (asprintf(&v->journal, "%s/%ld-%08x", dir, (long)getpid(), rnd) < 0) {
		v->journal = NULL;
		return -ENOMEM;
	}
	if (!(f = open_memstream(&text, &size)))
		return -ENOMEM;
	fprintf(f, "paddock-vet 1\nJ\t%s\n", v->journal);
	for (size_t i = 0; i < v->n_roots; i++)
		fprintf(f, "R\t%s\n", v->roots[i]);
	for (size_t i = 0; i < v->n_missing; i++)
		fprintf(f, "M\t%s\n", v->missing[i]);
	for (size_t i = 0; i < v->n_hookroots; i++)
		fprintf(f, "G\t%s\n", v->hookroots[i]);
	for (size_t i = 0; i < v->n_hookdirs; i++)
		fprintf(f, "h\t%s\n", v->hookdirs[i]);
	for (size_t i = 0; i < v->n_configs; i++) {
		const struct pdk_vet_config *c = &v->configs[i];

		fprintf(f, "%c\t%s\n", c->hook == 'D' ? 'X' : c->hook ? c->hook : c->pinned ? 'P' : 'C',
			c->path);
	}
	for (size_t i = 0; i < v->n_gitdirs; i++)
		fprintf(f, "D\t%s\n", v->gitdirs[i]);
	for (size_t i = 0; i < v->n_known; i++)
		fprintf(f, "K\t%s\n", v->known[i]);
	for (size_t i = 0; i < v->n_gitfiles; i++)
		fprintf(f, "S\t%s\n", v->gitfiles[i]);
	if (v->allow_hooks)
		fprintf(f, "A\thooks\n");
	for (size_t i = 0; i < v->n_tips; i++)
		fprintf(f, "T\t%s\n", v->tips[i]);
	for (size_t i = 0; i < v->n_worktrees; i++)
		fprintf(f, "V\t%s\n", v->worktrees[i]);
	if (fclose(f) == EOF)
		return -ENOMEM;
	/* Made and locked, then written (the copies first): a sweep never finds it unlocked
	 * while its run lives. */
	v->fd = pdk_create_locked(dir, v->journal);
	if (v->fd >= 0 && write_copies(v) == 0 && pdk_write_all(v->fd, text, size) == 0)
		return 0;
	unlink_copies(v->journal, v->configs, v->n_configs);
	if (v->fd >= 0) {
		(void)unlink(v->journal);
		close(steal_fd(&v->fd));
	}
	free(steal_pointer(&v->journal));
	return 0;
}

int pdk_vet_end(struct pdk_vet *v, char **ret_note)
{
	_cleanup_free_ char *made = NULL, *configs = NULL;
	int r;

	*ret_note = NULL;
	r = undo(v, &made, &configs);
	if (r == 0 && v->journal) {
		unlink_copies(v->journal, v->configs, v->n_configs);
		unlink_journal(v->journal, v->fd);
	}
	if (r == 0)
		r = make_note(made, configs, ret_note);
	pdk_vet_release(v);
	return r;
}

void pdk_vet_release(struct pdk_vet *v)
{
	pdk_strv_freep(&v->roots);
	pdk_strv_freep(&v->missing);
	pdk_strv_freep(&v->gitdirs);
	pdk_strv_freep(&v->known);
	pdk_strv_freep(&v->gitfiles);
	pdk_strv_freep(&v->hookdirs);
	pdk_strv_freep(&v->hookroots);
	pdk_strv_freep(&v->tips);
	pdk_strv_freep(&v->worktrees);
	for (size_t i = 0; i < v->n_configs; i++) {
		free(v->configs[i].path);
		free(v->configs[i].before);
	}
	free(v->configs);
	/* fd counts only with a journal: a struct zeroed by its owner holds no fd 0. */
	if (v->journal && v->fd >= 0)
		close(v->fd);
	free(v->journal);
	*v = (struct pdk_vet){.fd = -1};
}
