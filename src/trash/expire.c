/* expire.c - the trash paddock fills does not grow without bound: a record of each entry paddock
 * made, and the expiry that removes those entries (never the user's own) by age and total size. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "trash.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/path.h"
#include "core/util.h"
#include "core/state.h"

#define RECORD_DIR   "trash"
#define RECORD_FILE  "made"
#define RECORD_LOCK  "lock"
#define RECORD_STAMP "expired"
#define RECORD_TAG   "1"
/* A record file larger than this is not read (a million entries is far beyond any trash). */
#define RECORD_MAX (256u << 20)
/* How deep a trashed tree is walked; deeper parts are left (and so is the entry). */
#define TREE_MAX_DEPTH 256

/* A record field (pdk_trash_path_encode: no blank or newline), in place; false on a
 * malformed escape or an escaped NUL. */
static bool decode(char *s)
{
	char *o = s;

	for (char *p = s; *p; p++) {
		if (*p != '%') {
			*o++ = *p;
			continue;
		}
		int hi = pdk_hexval(p[1]), lo = hi < 0 ? -1 : pdk_hexval(p[2]);

		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
			return false;
		*o++ = (char)(hi * 16 + lo);
		p += 2;
	}
	*o = '\0';
	return true;
}

static char *record_dir(void)
{
	_cleanup_free_ char *state = pdk_state_dir();

	return state ? pdk_path_join(state, RECORD_DIR) : NULL;
}

static int lock_records(const char *dir)
{
	_cleanup_free_ char *path = pdk_path_join(dir, RECORD_LOCK);
	_cleanup_close_ int fd = -1;

	if (!path)
		return -ENOMEM;
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR)
			return -errno;
	return steal_fd(&fd);
}

int pdk_trash_note_made(const char *trash, const char *name, const struct stat *st,
			const char *date)
{
	_cleanup_free_ char *dir = record_dir(), *path = NULL, *t = NULL, *n = NULL, *line = NULL;
	_cleanup_close_ int lock = -1, fd = -1;
	int len, r;

	if (!dir)
		return -ENOENT;
	if (!(path = pdk_path_join(dir, RECORD_FILE)) || !(t = pdk_trash_path_encode(trash)) ||
	    !(n = pdk_trash_path_encode(name)))
		return -ENOMEM;
	if (!date || !date[0] || strchr(date, ' ') || strchr(date, '\n'))
		date = "-";
	len = asprintf(&line, RECORD_TAG " %s %s %ju %ju %jd %s %jd\n", t, n, (uintmax_t)st->st_dev,
		       (uintmax_t)st->st_ino, (intmax_t)st->st_ctime, date, (intmax_t)time(NULL));
	if (len < 0)
		return -ENOMEM;
	if ((r = pdk_mkdir_p(dir, 0700)) < 0)
		return r;
	if ((lock = lock_records(dir)) < 0)
		return lock;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	return pdk_write_all(fd, line, (size_t)len);
}

/* One record, parsed; the line it came from is kept to rewrite the file without it. */
struct rec {
	char *line; /* without the newline */
	char *trash, *name, *date;
	dev_t dev;
	ino_t ino;
	time_t ctime, made;
	time_t when; /* the deletion date as a time: the age counts from it */
	uint64_t size;
	bool drop; /* gone from the trash, or removed now: leaves the record */
	bool live; /* still in the trash, as paddock left it */
};

static void rec_release(struct rec *r)
{
	free(r->line);
	free(r->trash);
	free(r->name);
	free(r->date);
}

static bool name_ok(const char *n)
{
	return n[0] && !strchr(n, '/') && strcmp(n, ".") && strcmp(n, "..");
}

static bool parse_num(const char *s, intmax_t *ret)
{
	char *end;

	errno = 0;
	*ret = strtoimax(s, &end, 10);
	return s[0] && !*end && errno == 0;
}

/* LINE (NUL-terminated, no newline) into R; false when it is not a record of this version. */
static bool parse_rec(char *line, struct rec *r)
{
	char *f[8], *save = NULL, *copy = strdup(line);
	intmax_t dev, ino, ct, made;
	size_t n = 0;

	if (!copy)
		return false;
	for (char *t = strtok_r(copy, " ", &save); t && n < 8; t = strtok_r(NULL, " ", &save))
		f[n++] = t;
	if (n != 8 || strcmp(f[0], RECORD_TAG) || !decode(f[1]) || !decode(f[2]) ||
	    f[1][0] != '/' || !name_ok(f[2]) || !parse_num(f[3], &dev) || !parse_num(f[4], &ino) ||
	    !parse_num(f[5], &ct) || !parse_num(f[7], &made) || dev < 0 || ino < 0) {
		free(copy);
		return false;
	}
	r->trash = strdup(f[1]);
	r->name = strdup(f[2]);
	r->date = strdup(f[6]);
	r->dev = (dev_t)dev;
	r->ino = (ino_t)ino;
	r->ctime = (time_t)ct;
	r->made = (time_t)made;
	r->line = strdup(line);
	free(copy);
	if (!r->trash || !r->name || !r->date || !r->line) {
		rec_release(r);
		return false;
	}
	return true;
}

/* The records file, under the lock: its lines. */
static int read_records(const char *dir, char **ret_text)
{
	_cleanup_free_ char *path = pdk_path_join(dir, RECORD_FILE);
	_cleanup_close_ int fd = -1;
	struct stat st;

	if (!path)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			return -errno;
		*ret_text = strdup("");
		return *ret_text ? 0 : -ENOMEM;
	}
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > RECORD_MAX)
		return -EFBIG;
	return pdk_read_size(fd, (size_t)st.st_size, ret_text, NULL);
}

#if !defined(__APPLE__)
/* YYYY-MM-DDThh:mm:ss, local time, as a time_t; false for any other shape (the freedesktop
 * .trashinfo's date; macOS keeps none). */
static bool parse_date(const char *d, time_t *ret)
{
	struct tm tm = {0};
	const char *end;

	if (strlen(d) != 19)
		return false;
	end = strptime(d, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end || *end)
		return false;
	tm.tm_isdst = -1;
	*ret = mktime(&tm);
	return *ret != (time_t)-1;
}
#endif

/* Is the entry still the one paddock put there? Its trash directory must be there, opened with
 * no symlink as its last name; the entry itself is the same inode, and (freedesktop) its
 * .trashinfo names the deletion date paddock wrote. -ENOENT: it is gone. */
static int open_entry(const struct rec *r, int *ret_dirfd, int *ret_infofd, time_t *ret_when)
{
	_cleanup_close_ int tfd = -1, dfd = -1, ifd = -1;
	struct stat st;

	tfd = open(r->trash, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tfd < 0)
		return -errno;
#if defined(__APPLE__)
	dfd = steal_fd(&tfd);
#else
	dfd = openat(tfd, "files", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	ifd = openat(tfd, "info", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || ifd < 0)
		return -ENOENT; /* emptied by hand, or not a trash paddock would use */
#endif
	if (fstatat(dfd, r->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (st.st_dev != r->dev || st.st_ino != r->ino)
		return -ENOENT;
#if defined(__APPLE__)
	/* No .trashinfo on macOS: the change time paddock saw after the move stands in for the
	 * date, so that a file put back and trashed again by the user is not taken for ours. */
	if (st.st_ctime != r->ctime)
		return -ENOENT;
	*ret_when = r->made;
#else
	{
		_cleanup_free_ char *info = NULL, *text = NULL;
		_cleanup_close_ int fd = -1;
		struct stat ist;
		const char *d;
		time_t when;

		if (asprintf(&info, "%s.trashinfo", r->name) < 0)
			return -ENOMEM;
		fd = openat(ifd, info, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			return errno == ELOOP ? -ENOENT : -errno;
		if (fstat(fd, &ist) < 0)
			return -errno;
		if (!S_ISREG(ist.st_mode) || ist.st_size > 65536)
			return -ENOENT;
		int rr = pdk_read_size(fd, (size_t)ist.st_size, &text, NULL);

		if (rr < 0)
			return rr;
		d = strstr(text, "\nDeletionDate=");
		if (!d)
			return -ENOENT;
		d += strlen("\nDeletionDate=");
		if (strncmp(d, r->date, strlen(r->date)) != 0 ||
		    (d[strlen(r->date)] != '\n' && d[strlen(r->date)] != '\0') ||
		    !parse_date(r->date, &when))
			return -ENOENT;
		*ret_when = when;
	}
#endif
	*ret_dirfd = steal_fd(&dfd);
	*ret_infofd = steal_fd(&ifd);
	return 0;
}

/* Bytes under DIRFD/NAME (its own size included), never through a symlink and never into
 * another file system; directories count nothing of their own. */
static uint64_t tree_size(int at, const char *name, dev_t dev, int depth)
{
	struct stat st;
	uint64_t sum = 0;
	int fd;
	DIR *d;
	struct dirent *e;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (!S_ISDIR(st.st_mode))
		return (uint64_t)st.st_size;
	if (st.st_dev != dev || depth > TREE_MAX_DEPTH)
		return 0;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			sum += tree_size(dirfd(d), e->d_name, dev, depth + 1);
	closedir(d);
	return sum;
}

/* rm -r of DIRFD/NAME through descriptors alone: a symlink is removed, never followed, and
 * nothing on another file system is entered. 0 or -errno (what could not go stays). */
static int tree_remove(int at, const char *name, dev_t dev, int depth)
{
	struct stat st, dst;
	struct dirent *e;
	int fd, r = 0;
	DIR *d;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(at, name, 0) < 0 && errno != ENOENT ? -errno : 0;
	if (st.st_dev != dev)
		return -EXDEV;
	if (depth > TREE_MAX_DEPTH)
		return -ELOOP;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* What was opened is what was looked at; a read-only directory (Go's module cache makes
	 * them) is made writable, as it is ours to empty. */
	if (fstat(fd, &dst) < 0 || dst.st_ino != st.st_ino || dst.st_dev != st.st_dev) {
		close(fd);
		return -ESTALE;
	}
	if ((dst.st_mode & 0700) != 0700)
		(void)fchmod(fd, (dst.st_mode & 07777) | 0700);
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((e = readdir(d))) {
		int rr;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		rr = tree_remove(dirfd(d), e->d_name, dev, depth + 1);
		if (rr < 0 && r == 0)
			r = rr;
	}
	closedir(d);
	if (r == 0 && unlinkat(at, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		r = -errno;
	return r;
}

/* Remove one entry: the file first, its .trashinfo once the file is gone, so that an
 * interrupted removal is still listed (and still ours) and is finished next time. */
static int remove_entry(const struct rec *r, int dirfd, int infofd)
{
	int rr = tree_remove(dirfd, r->name, r->dev, 0);

	if (rr < 0)
		return rr;
	if (infofd >= 0) {
		_cleanup_free_ char *info = NULL;

		if (asprintf(&info, "%s.trashinfo", r->name) < 0)
			return -ENOMEM;
		if (unlinkat(infofd, info, 0) < 0 && errno != ENOENT)
			return -errno;
	}
	return 0;
}

static int by_age(const void *a, const void *b)
{
	const struct rec *x = *(const struct rec *const *)a, *y = *(const struct rec *const *)b;

	if (x->when != y->when)
		return x->when < y->when ? -1 : 1;
	return x->made < y->made ? -1 : x->made > y->made;
}

/* The records file without the lines of the records that were dropped, written whole and
 * renamed over it, under the lock; lines appended meanwhile stay. */
static int rewrite_records(const char *dir, struct rec *recs, size_t n)
{
	_cleanup_free_ char *path = pdk_path_join(dir, RECORD_FILE), *tmp = NULL, *text = NULL;
	_cleanup_close_ int lock = -1, fd = -1;
	char *line, *save = NULL;
	int r;

	if (!path || asprintf(&tmp, "%s.new", path) < 0)
		return -ENOMEM;
	if ((lock = lock_records(dir)) < 0)
		return lock;
	if ((r = read_records(dir, &text)) < 0)
		return r;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		bool dropped = false;

		for (size_t i = 0; i < n && !dropped; i++)
			dropped = recs[i].drop && strcmp(recs[i].line, line) == 0;
		if (dropped)
			continue;
		if ((r = pdk_write_all(fd, line, strlen(line))) < 0 ||
		    (r = pdk_write_all(fd, "\n", 1)) < 0) {
			unlink(tmp);
			return r;
		}
	}
	if (close(steal_fd(&fd)) < 0 || rename(tmp, path) < 0) {
		r = -errno;
		unlink(tmp);
		return r;
	}
	return 0;
}

/* Time to expire? The stamp file's time says when it last ran; it is taken with a lock that
 * a second paddock expiring at the same moment does not wait for. The fd or -errno; 0 when
 * not due (or another is at it). */
static int take_stamp(const char *dir, time_t now, bool force)
{
	_cleanup_free_ char *path = pdk_path_join(dir, RECORD_STAMP);
	_cleanup_close_ int fd = -1;
	struct stat st;

	if (!path)
		return -ENOMEM;
	if (!force && lstat(path, &st) == 0 && st.st_mtime <= now + 60 &&
	    now - st.st_mtime < PDK_TRASH_EXPIRE_EVERY)
		return 0;
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		return errno == EWOULDBLOCK ? 0 : -errno;
	if (futimens(fd, NULL) < 0)
		return -errno;
	return steal_fd(&fd);
}

int pdk_trash_expire(const struct pdk_trash_expiry *cfg, time_t now, bool force,
		     struct pdk_trash_expired *ret)
{
	_cleanup_free_ char *dir = record_dir(), *text = NULL;
	_cleanup_free_ struct rec *recs = NULL;
	_cleanup_free_ struct rec **live = NULL;
	_cleanup_close_ int stamp = -1;
	struct pdk_trash_expired res = {0};
	size_t n = 0, cap = 0, n_live = 0;
	uint64_t total = 0;
	char *line, *save = NULL;
	int r;

	if (ret)
		*ret = res;
	if (!dir)
		return -ENOENT;
	if (access(dir, F_OK) < 0)
		return 0; /* paddock never trashed anything here */
	stamp = take_stamp(dir, now, force);
	if (stamp <= 0)
		return stamp;
	{
		_cleanup_close_ int lock = lock_records(dir);

		if (lock < 0)
			return lock;
		if ((r = read_records(dir, &text)) < 0)
			return r;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct rec one = {0};

		if (!parse_rec(line, &one))
			continue; /* not ours to read: stays as it is */
		if (n == cap) {
			struct rec *grown = realloc(recs, (cap = cap ? cap * 2 : 64) * sizeof(*recs));

			if (!grown) {
				rec_release(&one);
				r = -ENOMEM;
				goto release_recs;
			}
			recs = grown;
		}
		recs[n++] = one;
	}
	live = calloc(n ? n : 1, sizeof(*live));
	if (!live) {
		r = -ENOMEM;
		goto release_recs;
	}
	for (size_t i = 0; i < n; i++) {
		struct rec *e = &recs[i];
		int dfd = -1, ifd = -1;

		r = open_entry(e, &dfd, &ifd, &e->when);
		if (r == -ENOENT) {
			struct stat st;

			/* Gone (restored, emptied): the record goes; but a trash directory that
			 * is not there at all may be on a volume not mounted now. */
			if (lstat(e->trash, &st) == 0)
				e->drop = true;
			continue;
		}
		if (r < 0) {
			res.failed++;
			continue;
		}
		if (cfg->max_age_days &&
		    (double)now - (double)e->when >= (double)cfg->max_age_days * 86400.0) {
			uint64_t size = tree_size(dfd, e->name, e->dev, 0);

			if (remove_entry(e, dfd, ifd) == 0) {
				e->drop = true;
				res.removed++;
				res.bytes_removed += size;
			} else {
				res.failed++;
			}
		} else {
			e->size = tree_size(dfd, e->name, e->dev, 0);
			e->live = true;
			total += e->size;
			live[n_live++] = e;
		}
		if (dfd >= 0)
			close(dfd);
		if (ifd >= 0)
			close(ifd);
	}
	/* Over the size cap: the oldest go first, until the rest fits. */
	qsort(live, n_live, sizeof(*live), by_age);
	for (size_t i = 0; cfg->max_size && total > cfg->max_size && i < n_live; i++) {
		struct rec *e = live[i];
		int dfd = -1, ifd = -1;

		if (open_entry(e, &dfd, &ifd, &e->when) < 0)
			continue;
		if (remove_entry(e, dfd, ifd) == 0) {
			e->drop = true;
			e->live = false;
			res.removed++;
			res.bytes_removed += e->size;
			total -= e->size;
		} else {
			res.failed++;
		}
		if (dfd >= 0)
			close(dfd);
		if (ifd >= 0)
			close(ifd);
	}
	for (size_t i = 0; i < n_live; i++)
		if (live[i]->live) {
			res.kept++;
			res.bytes_kept += live[i]->size;
		}
	r = rewrite_records(dir, recs, n);
	if (r == 0)
		r = 1;
release_recs:
	for (size_t i = 0; i < n; i++)
		rec_release(&recs[i]);
	if (ret)
		*ret = res;
	return r;
}
