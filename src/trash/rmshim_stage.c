/* rmshim_stage.c - rm inside a confined command, the part that runs inside the sandbox as `rm`:
 * each operand is renamed into a staging area in its own writable root, next to a record. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rmshim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "core/fmt.h"
#include "core/path.h"
#include "rmshim_int.h"
#include "trash.h"
#include "core/util.h"

struct stage_ctx {
	struct pdk_strv roots; /* real paths */
	const char *top;       /* ".paddock-rm-UID" */
	const char *run_id;
	char roots_text[512]; /* for messages */
};

/* The root holding PATH: the deepest one, so that staging stays as close as it can. */
static const char *root_of(const struct stage_ctx *c, const char *path)
{
	const char *best = NULL;

	for (size_t i = 0; i < c->roots.n; i++)
		if (pdk_path_under(path, c->roots.v[i]) &&
		    (!best || strlen(c->roots.v[i]) > strlen(best)))
			best = c->roots.v[i];
	return best;
}

/* Where to stage a file whose directory is DIR (real) inside ROOT: the highest directory
 * between ROOT and DIR on DIR's own mount, since rename(2) never crosses mounts. */
static int stage_base(const char *root, const char *dir, char **ret)
{
	struct pdk_mount_ident want;
	int r;

	if ((r = pdk_trash_mount_ident_at(AT_FDCWD, dir, &want)) < 0)
		return r;
	return pdk_trash_mount_top(dir, &want, root, ret);
}

/* Open (making it when missing) NAME in DFD as a directory of this user, never through a
 * symlink. */
static int own_dir_at(int dfd, const char *name, bool *ret_made)
{
	struct stat st;
	int fd;

	for (int tries = 0; tries < 5; tries++) {
		bool made = mkdirat(dfd, name, 0700) == 0;

		if (!made && errno != EEXIST)
			return -errno;
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT)
			continue; /* a sweep removed it between the two calls */
		if (fd < 0)
			return errno == ELOOP || errno == ENOTDIR ? -ENOTDIR : -errno;
		if (fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
			close(fd);
			return -EPERM;
		}
		if (ret_made)
			*ret_made = made;
		return fd;
	}
	return -ENOENT;
}

/* BASE/.paddock-rm-UID/RUNID, made when missing: returns it open, or -errno with WHY set. */
static int run_dir_at(const char *base, const struct stage_ctx *c, char *why, size_t why_len)
{
	_cleanup_free_ char *area = pdk_path_join(base, c->top);
	_cleanup_close_ int dfd = -1, sfd = -1;
	bool made = false;
	int rfd;

	if (!area)
		return pdk_why(why, why_len, -ENOMEM, "%s", strerror(ENOMEM));
	dfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return pdk_why(why, why_len, -errno, "cannot stage it in %s: %s; left in place", area,
			    strerror(errno));
	sfd = own_dir_at(dfd, c->top, &made);
	if (sfd < 0)
		return pdk_why(why, why_len, sfd, "cannot stage it in %s: %s; left in place", area,
			    sfd == -EPERM ? "not a directory of this user" : strerror(-sfd));
	if (made) {
		/* git status should not list the staging area while a run goes on. */
		int g = openat(sfd, ".gitignore",
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (g >= 0) {
			(void)pdk_write_all(g, "*\n", 2);
			close(g);
		}
	}
	rfd = own_dir_at(sfd, c->run_id, NULL);
	if (rfd < 0)
		return pdk_why(why, why_len, rfd, "cannot stage it in %s/%s: %s; left in place", area,
			    c->run_id,
			    rfd == -EPERM ? "not a directory of this user" : strerror(-rfd));
	return rfd;
}

static int write_record(int rfd, const char *name, const char *orig)
{
	_cleanup_free_ char *enc = pdk_trash_path_encode(orig);
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -1;
	char date[64];
	int len, r;

	if (!enc)
		return -ENOMEM;
	if ((r = pdk_trash_date(time(NULL), date, sizeof(date))) < 0)
		return r;
	len = asprintf(&text, PDK_RMSHIM_RECORD_FMT, enc, date);
	if (len < 0)
		return -ENOMEM;
	fd = openat(rfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	r = pdk_write_all(fd, text, (size_t)len);
	if (r == 0 && close(steal_fd(&fd)) < 0)
		r = -errno;
	if (r < 0)
		unlinkat(rfd, name, 0);
	return r;
}

static int stage(void *ctx, const char *path, char **ret_where, char *why, size_t why_len)
{
	const struct stage_ctx *c = ctx;
	_cleanup_free_ char *base = NULL, *real = NULL;
	_cleanup_free_ char *orig = NULL, *at = NULL, *area = NULL;
	_cleanup_close_ int parent_fd = -1, rfd = -1;
	const char *root;
	int r;

	if ((r = pdk_trash_open_operand(path, &parent_fd, &real, &base, why, why_len)) < 0)
		return r;
	root = root_of(c, real);
	if (!root)
		return pdk_why(why, why_len, -EPERM, "outside the writable roots (%s); left in place",
			    c->roots_text);
	orig = pdk_path_join(real, base);
	if (!orig)
		return pdk_why(why, why_len, -ENOMEM, "%s", strerror(ENOMEM));
	if ((r = pdk_trash_refuse_mount_point(parent_fd, base, why, why_len)) < 0)
		return r;

	if ((r = stage_base(root, real, &at)) < 0)
		return pdk_why(why, why_len, r, "cannot find where to stage it: %s", strerror(-r));
	area = pdk_path_join(at, c->top);
	if (!area)
		return pdk_why(why, why_len, -ENOMEM, "%s", strerror(ENOMEM));
	if (pdk_path_under(orig, area))
		return pdk_why(why, why_len, -EBUSY,
			    "it holds files on their way to the trash (they go there when the run "
			    "ends); left in place");

	/* The sweep reads the mount table only when some root holds a staging area, or cannot
	 * be written: staging on a mount below the root marks the root with this run's (empty)
	 * directory first. A root that cannot take the mark is one the sweep looks below
	 * anyway. */
	if (strcmp(at, root) != 0) {
		int mark = run_dir_at(root, c, NULL, 0);

		if (mark >= 0)
			close(mark);
	}
	rfd = run_dir_at(at, c, why, why_len);
	if (rfd < 0)
		return rfd;

	for (unsigned n = 1; n < 1000000; n++) {
		char num[16], info[24];
		_cleanup_close_ int nfd = -1;

		snprintf(num, sizeof(num), "%u", n);
		snprintf(info, sizeof(info), "%u.info", n);
		/* The record first: a shim killed at any point leaves either the file in place,
		 * or the file staged next to its record. */
		r = write_record(rfd, info, orig);
		if (r == -EEXIST)
			continue;
		if (r < 0)
			return pdk_why(why, why_len, r, "cannot write its record in %s: %s; left in place",
				    area, strerror(-r));
		if (mkdirat(rfd, num, 0700) < 0) {
			r = -errno;
			unlinkat(rfd, info, 0);
			if (r == -EEXIST)
				continue;
			return pdk_why(why, why_len, r, "cannot stage it in %s: %s; left in place", area,
				    strerror(-r));
		}
		nfd = openat(rfd, num, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 || renameat(parent_fd, base, nfd, base) < 0) {
			r = -errno;
			unlinkat(rfd, num, AT_REMOVEDIR);
			unlinkat(rfd, info, 0);
			if (r == -EXDEV)
				return pdk_why(why, why_len, r,
				    "on another filesystem than its staging area %s; left in "
				    "place (files are never copied)",
				    area);
			return pdk_why(why, why_len, r, "%s", strerror(-r));
		}
		if (ret_where && asprintf(ret_where, "%s/%s/%s/%s", area, c->run_id, num, base) < 0)
			*ret_where = NULL;
		return 0;
	}
	return pdk_why(why, why_len, -EEXIST, "no free slot left in %s", area);
}

static bool stage_env_valid(const char *s, const char **ret_run)
{
	const char *slash = strchr(s, '/');
	size_t plen = strlen(PDK_RMSHIM_STAGE_PREFIX);

	if (!slash || strncmp(s, PDK_RMSHIM_STAGE_PREFIX, plen) != 0 ||
	    !pdk_rmshim_digits(s + plen, (size_t)(slash - s) - plen) ||
	    !pdk_rmshim_run_id_valid(slash + 1))
		return false;
	*ret_run = slash + 1;
	return true;
}

int pdk_rmshim_main(int argc, char **argv)
{
	const char *stage_env = getenv(PDK_RMSHIM_ENV_STAGE);
	const char *roots_env = getenv(PDK_RMSHIM_ENV_ROOTS);
	_cleanup_free_ char *top = NULL, *list = NULL;
	struct stage_ctx c = {0};
	struct pdk_rm_mover m = {.move = stage, .ctx = &c, .done = "staged for the trash"};
	char *tok, *save = NULL;
	const char *run_id;
	size_t used = 0;
	int code;

	/* An unconfined run (--no-sandbox, outside the sandbox): the trash is
	 * in reach, so the files go there at once, from wherever they are.
	 * Set inside a sandbox, this only makes rm fail: the trash lies
	 * outside the writable roots. */
	if (getenv(PDK_RMSHIM_ENV_DIRECT)) {
		static const char *const everywhere[] = {"/"};
		return pdk_rm_main(argc, argv, everywhere, 1, stderr);
	}
	if (!stage_env || !roots_env || !stage_env_valid(stage_env, &run_id)) {
		fprintf(stderr,
			"rm: this is paddock's rm, which only works for a command run by 'paddock "
			"run'; nothing was removed (use /bin/rm to delete, or 'paddock run -- rm "
			"...' to move files to the trash)\n");
		return 1;
	}
	top = strndup(stage_env, (size_t)(strchr(stage_env, '/') - stage_env));
	list = strdup(roots_env);
	if (!top || !list) {
		fprintf(stderr, "rm: %s\n", strerror(ENOMEM));
		return 1;
	}
	c.top = top;
	c.run_id = run_id;
	for (tok = strtok_r(list, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
		char *real = realpath(tok, NULL);

		if (!real)
			continue;
		if (pdk_strv_push(&c.roots, real) < 0) {
			free(real);
			fprintf(stderr, "rm: %s\n", strerror(ENOMEM));
			pdk_strv_release(&c.roots);
			return 1;
		}
		if (used < sizeof(c.roots_text))
			used += (size_t)snprintf(c.roots_text + used, sizeof(c.roots_text) - used,
						 "%s%s", used ? ", " : "", real);
		free(real);
	}
	if (used >= sizeof(c.roots_text))
		strcpy(c.roots_text + sizeof(c.roots_text) - 4, "...");
	code = pdk_rm_main_with(argc, argv, &m, stderr);
	pdk_strv_release(&c.roots);
	return code;
}
