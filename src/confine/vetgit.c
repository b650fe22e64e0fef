/* vetgit.c - new submodule and worktree git directories, and the .git files naming them,
 * vetted after a run: what in them would make the user's own git run a program goes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/path.h"
#include "core/strv.h"
#include "core/util.h"
#include "gitconfig.h"
#include "trash/trash.h"
#include "vetgit.h"

/* The largest configuration or gitdir: file read; a larger one goes. */
#define TEXT_MAX (1 << 20)

/* A directory holding HEAD is a git directory, whose own modules are looked into; any other is
 * looked into as a name's next part, a few deep. */
static int scan(const char *dir, int depth, char ***out, size_t *n_out)
{
	DIR *d = depth <= 4 ? opendir(dir) : NULL;
	struct dirent *e;
	int r = 0;

	while (d && r == 0 && (e = readdir(d))) {
		_cleanup_free_ char *g = NULL, *head = NULL, *mods = NULL;
		struct stat st;

		if (e->d_name[0] == '.' || !(g = pdk_path_join(dir, e->d_name)) ||
		    lstat(g, &st) < 0 || !S_ISDIR(st.st_mode) ||
		    !(head = pdk_path_join(g, "HEAD")) || !(mods = pdk_path_join(g, "modules")))
			continue;
		if (lstat(head, &st) < 0)
			r = scan(g, depth + 1, out, n_out);
		else if ((r = pdk_strv_append(out, n_out, steal_pointer(&g))) == 0)
			r = scan(mods, depth + 1, out, n_out);
	}
	if (d)
		closedir(d);
	return r;
}

int pdk_vetgit_gitdirs_under(const char *dir, char ***out, size_t *n_out)
{
	return scan(dir, 1, out, n_out);
}

/* The text of the file at path, not through a final symlink; NULL when it cannot be read. */
static char *read_text(const char *path, size_t *len)
{
	char *text = NULL;

	return pdk_read_small_at(AT_FDCWD, path, TEXT_MAX, &text, len) < 0 ? NULL : text;
}

/* The largest index read: a project of a few hundred thousand files. */
#define INDEX_MAX (256 << 20)

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * The gitlinks (submodules) in the index of the git directory gitdir, a work tree's .git:
 * each as the path of its .git in the work tree, onto *out (*n of them). Index versions 2 to
 * 4, SHA-1 or SHA-256 names; an index that cannot be read gives none. 0 or -ENOMEM.
 */
static int gitlinks(const char *gitdir, char ***out, size_t *n)
{
	size_t glen = strlen(gitdir), len = 0, hash = 20;
	_cleanup_free_ char *index = NULL, *text = NULL, *config = NULL, *cfg = NULL, *prev = NULL;
	size_t prev_len = 0;
	int r = 0;

	if (glen < 5 || strcmp(gitdir + glen - 5, "/.git") != 0)
		return 0;
	if (!(index = pdk_path_join(gitdir, "index")) || !(config = pdk_path_join(gitdir, "config")))
		return -ENOMEM;
	size_t clen = 0;
	if ((cfg = read_text(config, &clen)) && strcasestr(cfg, "sha256"))
		hash = 32;
	_cleanup_close_ int fd = open(index, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || pdk_read_size(fd, INDEX_MAX, &text, &len) < 0 || len < 12 ||
	    memcmp(text, "DIRC", 4) != 0)
		return 0;
	const unsigned char *p = (const unsigned char *)text, *end = p + len;
	uint32_t version = be32(p + 4), count = be32(p + 8);
	if (version < 2 || version > 4)
		return 0;
	p += 12;
	for (uint32_t i = 0; r == 0 && i < count; i++) {
		const unsigned char *e = p;
		size_t fixed = 40 + hash + 2, nlen;
		uint32_t mode;
		uint16_t flags;
		_cleanup_free_ char *name = NULL;

		if ((size_t)(end - e) < fixed)
			return 0;
		mode = be32(e + 24);
		flags = (uint16_t)(e[40 + hash] << 8 | e[40 + hash + 1]);
		if (version >= 3 && (flags & 0x4000))
			fixed += 2;
		if ((size_t)(end - e) < fixed)
			return 0;
		const unsigned char *nm = e + fixed;
		if (version == 4) {
			/* A number of bytes to drop from the previous name, then the rest. */
			size_t strip = 0;
			unsigned char c;

			do {
				if (nm >= end)
					return 0;
				c = *nm++;
				strip = (strip << 7) | (c & 0x7f);
				if (c & 0x80)
					strip++;
			} while (c & 0x80);
			const unsigned char *z = memchr(nm, 0, (size_t)(end - nm));
			if (!z || strip > prev_len)
				return 0;
			nlen = prev_len - strip + (size_t)(z - nm);
			if (!(name = malloc(nlen + 1)))
				return -ENOMEM;
			memcpy(name, prev ? prev : "", prev_len - strip);
			memcpy(name + prev_len - strip, nm, (size_t)(z - nm));
			name[nlen] = '\0';
			p = z + 1;
		} else {
			const unsigned char *z = memchr(nm, 0, (size_t)(end - nm));
			if (!z)
				return 0;
			nlen = (size_t)(z - nm);
			if (!(name = strndup((const char *)nm, nlen)))
				return -ENOMEM;
			/* Entries are padded with NULs to a multiple of eight bytes. */
			size_t total = (fixed + nlen + 8) & ~(size_t)7;
			if ((size_t)(end - e) < total)
				return 0;
			p = e + total;
		}
		free(prev);
		prev = strdup(name);
		prev_len = nlen;
		if (!prev)
			return -ENOMEM;
		if ((mode & 0170000) != 0160000 || strstr(name, "..") || name[0] == '/')
			continue;
		char *path = NULL;
		if (asprintf(&path, "%.*s/%s/.git", (int)(glen - 5), gitdir, name) < 0)
			return -ENOMEM;
		r = pdk_strv_append(out, n, path);
	}
	return r;
}

/* pdk_vetgit_scan of one git directory whose gitlinks were read already. */
static int scan_one(const char *gitdir, char *const *links, size_t n_links, char ***out,
		    size_t *n_out)
{
	static const char *const kinds[] = {"modules", "worktrees"};
	int r = 0;

	/* A repository already at a submodule's path is the user's. */
	for (size_t k = 0; r == 0 && k < n_links; k++) {
		struct stat st;

		if (lstat(links[k], &st) == 0 && S_ISDIR(st.st_mode))
			r = pdk_strv_append(out, n_out, strdup(links[k]));
	}
	for (size_t k = 0; r == 0 && k < 2; k++) {
		_cleanup_free_ char *sub = pdk_path_join(gitdir, kinds[k]);

		r = sub ? scan(sub, 1, out, n_out) : -ENOMEM;
	}
	return r;
}

int pdk_vetgit_scan(char *const *gitdirs, size_t n, char ***out, size_t *n_out)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < n; i++) {
		_cleanup_strv_ char **links = NULL;
		size_t n_links = 0;

		if ((r = gitlinks(gitdirs[i], &links, &n_links)) == 0)
			r = scan_one(gitdirs[i], links, n_links, out, n_out);
	}
	return r;
}

/* The directory a one-line file of git's names ("gitdir: PATH", or PATH) names, relative to
 * its own directory, resolved; NULL when it names none. */
static char *named_dir(const char *file)
{
	_cleanup_free_ char *joined = pdk_git_named_path(file, NULL);

	return joined ? realpath(joined, NULL) : NULL;
}

/* Move path to the trash (a file it will not take is deleted), saying so onto f. */
static void undo_one(char *const *roots, size_t n_roots, const char *path, const char *why,
		     FILE *f)
{
	char failed[256] = "";
	const char *name;

	fprintf(f, "%sthe command made %s, %s", ftell(f) ? "; " : "", path, why);
	if (pdk_trash_put(path, (const char *const *)roots, n_roots, NULL, failed, sizeof(failed)) == 0) {
		fputs(": moved to the trash", f);
		return;
	}
	_cleanup_close_ int dfd = pdk_open_parent_nofollow_at(AT_FDCWD, path, &name);
	if (dfd >= 0 && unlinkat(dfd, name, 0) == 0)
		fprintf(f, ": deleted, the trash would not take it (%s)", failed);
	else
		fprintf(f, ": left in place (%s)", failed);
}

static bool open_note(FILE **f, char **buf, size_t *size)
{
	return *f || (*f = open_memstream(buf, size));
}

/* The new git directory g, in the repository whose git directory is top (NULL: a repository of
 * its own, with no commondir). */
static int vet_new(char *const *roots, size_t n_roots, const char *top, const char *g, FILE **f,
		   char **buf, size_t *size)
{
	static const char *const configs[] = {"config", "config.worktree"};
	_cleanup_free_ char *hooks = pdk_path_join(g, "hooks"), *cfile = pdk_path_join(g, "commondir");
	DIR *d;
	struct dirent *e;

	if (!hooks || !cfile)
		return -ENOMEM;
	for (size_t i = 0; i < 2; i++) {
		_cleanup_free_ char *p = pdk_path_join(g, configs[i]), *text = NULL;
		char **risky = NULL;
		size_t len = 0, n = 0;
		struct stat st;
		int r;

		if (!p)
			return -ENOMEM;
		if (lstat(p, &st) < 0)
			continue;
		text = read_text(p, &len);
		r = text ? pdk_gitconfig_risky(text, len, &risky, &n) : -EINVAL;
		if (r == -ENOMEM)
			return r;
		if (r == 0 && n == 0) {
			free(risky);
			continue;
		}
		if (!open_note(f, buf, size)) {
			pdk_strv_freep(&risky);
			return -ENOMEM;
		}
		char why[300];
		if (r == 0)
			snprintf(why, sizeof(why), "a new git directory's configuration setting %.200s, "
				 "which makes git run a program", risky[0]);
		else
			snprintf(why, sizeof(why), "a new git directory's configuration git cannot read");
		pdk_strv_freep(&risky);
		undo_one(roots, n_roots, p, why, *f);
	}
	/* A worktree's commondir names its repository; a submodule's names nothing. */
	struct stat st;
	if (lstat(cfile, &st) == 0) {
		_cleanup_free_ char *common = named_dir(cfile);
		_cleanup_free_ char *real_top = top ? realpath(top, NULL) : NULL;

		if (!common || !real_top || strcmp(common, real_top) != 0) {
			if (!open_note(f, buf, size))
				return -ENOMEM;
			undo_one(roots, n_roots, cfile,
				 "a commondir naming another repository than its own", *f);
		}
	}
	if (!(d = opendir(hooks)))
		return 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		_cleanup_free_ char *p = NULL;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    (len > 7 && !strcmp(e->d_name + len - 7, ".sample")))
			continue;
		if (!(p = pdk_path_join(hooks, e->d_name)) || !open_note(f, buf, size)) {
			closedir(d);
			return -ENOMEM;
		}
		undo_one(roots, n_roots, p, "a hook in a new git directory", *f);
	}
	closedir(d);
	return 0;
}

/* Does dir lie in the modules or worktrees of one of the n git directories? */
static bool in_repository(const char *dir, char *const *gitdirs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *top = realpath(gitdirs[i], NULL);
		_cleanup_free_ char *m = top ? pdk_path_join(top, "modules") : NULL;
		_cleanup_free_ char *w = top ? pdk_path_join(top, "worktrees") : NULL;

		if ((m && pdk_path_under(dir, m) && strcmp(dir, m)) ||
		    (w && pdk_path_under(dir, w) && strcmp(dir, w)))
			return true;
	}
	return false;
}

int pdk_vetgit_undo(const struct pdk_vetgit_repos *g, FILE **f, char **buf, size_t *size)
{
	size_t n = g->n_gitdirs;
	int r = 0;
	/* Each index is read once: the command is gone, and nothing here changes an index. */
	struct gitlinks_of {
		char **v;
		size_t n;
	} *links = calloc(n + 1, sizeof(*links));

	if (!links)
		return -ENOMEM;
	for (size_t i = 0; r == 0 && i < n; i++)
		r = gitlinks(g->gitdirs[i], &links[i].v, &links[i].n);
	for (size_t i = 0; r == 0 && i < n; i++) {
		_cleanup_strv_ char **now = NULL;
		size_t n_now = 0;

		if ((r = scan_one(g->gitdirs[i], links[i].v, links[i].n, &now, &n_now)) < 0)
			break;
		for (size_t k = 0; r == 0 && k < n_now; k++)
			if (!pdk_strv_contains(g->known, g->n_known, now[k]))
				r = vet_new(g->roots, g->n_roots, g->gitdirs[i], now[k], f, buf, size);
	}
	/* What the user's git in a work tree enters: its submodules' .git. One the command
	 * made a repository of its own in is vetted as a new git directory; a gitdir: file
	 * must name a git directory of the repository's (a pinned one was put back). */
	for (size_t i = 0; r == 0 && i < n; i++) {
		for (size_t k = 0; r == 0 && k < links[i].n; k++) {
			const char *lk = links[i].v[k];
			_cleanup_free_ char *dir = NULL;
			struct stat st;

			if (pdk_strv_contains(g->pins, g->n_pins, lk) ||
			    pdk_strv_contains(g->known, g->n_known, lk) || lstat(lk, &st) < 0)
				continue;
			if (S_ISDIR(st.st_mode)) {
				r = vet_new(g->roots, g->n_roots, NULL, lk, f, buf, size);
				continue;
			}
			if (S_ISREG(st.st_mode) && (dir = named_dir(lk)) &&
			    in_repository(dir, g->gitdirs, n))
				continue;
			if (!open_note(f, buf, size)) {
				r = -ENOMEM;
				break;
			}
			undo_one(g->roots, g->n_roots, lk,
				 "a submodule's .git naming a git directory outside its repository's",
				 *f);
		}
	}
	for (size_t i = 0; i < n; i++)
		pdk_strv_freep(&links[i].v);
	free(links);
	for (size_t i = 0; r == 0 && i < g->n_gitfiles; i++) {
		_cleanup_free_ char *dir = NULL;
		struct stat st;

		if (lstat(g->gitfiles[i], &st) < 0 || S_ISDIR(st.st_mode))
			continue;
		if (S_ISREG(st.st_mode) && (dir = named_dir(g->gitfiles[i])) &&
		    in_repository(dir, g->gitdirs, g->n_gitdirs))
			continue;
		if (!open_note(f, buf, size))
			return -ENOMEM;
		undo_one(g->roots, g->n_roots, g->gitfiles[i],
			 "a submodule's .git naming a git directory outside its repository's", *f);
	}
	return r;
}
