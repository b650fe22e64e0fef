/* trash.c - rm that moves files to the trash instead of deleting them, and only files inside
 * the writable roots; the freedesktop.org Trash specification on Linux, ~/.Trash on macOS. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "trash.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/sysmacros.h>
#endif
#include <time.h>
#include <unistd.h>

#include "core/fmt.h"
#include "core/path.h"
#include "core/util.h"

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

/* Give up looking for a free name after this many collisions rather than loop forever. */
#define TRASH_MAX_TRIES 10000

/* Split PATH into the directory holding it and its last component, ignoring trailing
 * slashes, so that "dir/" names the directory itself and "link/" the link. */
int pdk_trash_split_path(const char *path, char **ret_dir, char **ret_base)
{
	_cleanup_free_ char *copy = strdup(path);
	_cleanup_free_ char *dir = NULL;
	char *slash, *base;
	size_t len;

	if (!copy)
		return -ENOMEM;
	len = strlen(copy);
	while (len > 1 && copy[len - 1] == '/')
		copy[--len] = '\0';
	slash = strrchr(copy, '/');
	if (!slash) {
		dir = strdup(".");
		base = copy;
	} else {
		dir = slash == copy ? strdup("/") : strndup(copy, (size_t)(slash - copy));
		base = slash + 1;
	}
	if (!dir)
		return -ENOMEM;
	base = strdup(base);
	if (!base)
		return -ENOMEM;
	*ret_dir = steal_pointer(&dir);
	*ret_base = base;
	return 0;
}

/* Mount identity (see trash.h): what the trash and the rm shim use to stay on one mount. */
int pdk_trash_mount_ident_at(int dirfd, const char *name, struct pdk_mount_ident *ret)
{
#ifdef STATX_MNT_ID
	struct statx sx;

	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_MNT_ID, &sx) == 0) {
		ret->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
		ret->has_mnt_id = (sx.stx_mask & STATX_MNT_ID) != 0;
		ret->mnt_id = sx.stx_mnt_id;
		return 0;
	}
	if (errno != ENOSYS)
		return -errno;
#endif
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	ret->dev = st.st_dev;
	ret->has_mnt_id = false;
	ret->mnt_id = 0;
	return 0;
}

int pdk_trash_date(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!localtime_r(&t, &tm) || strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		return -EINVAL;
	return 0;
}

bool pdk_trash_same_mount(const struct pdk_mount_ident *a, const struct pdk_mount_ident *b)
{
	if (a->dev != b->dev)
		return false;
	return !(a->has_mnt_id && b->has_mnt_id) || a->mnt_id == b->mnt_id;
}

/* Walk up from the file's directory to the top of its mount: $topdir in the specification. */
int pdk_trash_mount_top(const char *dir, const struct pdk_mount_ident *want, const char *stop,
			char **ret)
{
	_cleanup_free_ char *cur = strdup(dir);

	if (!cur)
		return -ENOMEM;
	for (;;) {
		_cleanup_free_ char *up = NULL;
		struct pdk_mount_ident id;
		char *slash;
		int r;

		if (strcmp(cur, stop) == 0)
			break;
		slash = strrchr(cur, '/');
		up = slash == cur ? strdup("/") : strndup(cur, (size_t)(slash - cur));
		if (!up)
			return -ENOMEM;
		r = pdk_trash_mount_ident_at(AT_FDCWD, up, &id);
		if (r < 0)
			return r;
		if (!pdk_trash_same_mount(&id, want))
			break;
		free(cur);
		cur = steal_pointer(&up);
	}
	*ret = steal_pointer(&cur);
	return 0;
}

static bool in_roots(const char *real, const char *const *roots, size_t n_roots)
{
	for (size_t i = 0; i < n_roots; i++) {
		_cleanup_free_ char *rr = NULL;

		if (!roots[i] || roots[i][0] != '/')
			continue;
		/* Roots are meant to be real paths already; resolving again costs little and
		 * keeps a symlinked root from silently matching nothing. */
		rr = realpath(roots[i], NULL);
		if (pdk_path_under(real, rr ? rr : roots[i]))
			return true;
	}
	return false;
}

/* Cut NAME to at most MAX bytes without splitting a UTF-8 sequence. */
static size_t utf8_cut(const char *name, size_t max)
{
	size_t len = strlen(name);

	if (len <= max)
		return len;
	len = max;
	while (len > 0 && ((unsigned char)name[len] & 0xC0) == 0x80)
		len--;
	return len;
}

static char *home_dir(void)
{
	const char *home = getenv("HOME");
	struct passwd *pw;

	if (home && home[0] == '/')
		return strdup(home);
#if defined(__linux__) && defined(PDK_STATIC_LINK)
	/* The password file itself: getpwuid() would load the C library's
	 * NSS modules, which a static paddock cannot. */
	FILE *f = fopen("/etc/passwd", "re");
	char *dir = NULL;

	while (f && !dir && (pw = fgetpwent(f)))
		if (pw->pw_uid == getuid() && pw->pw_dir && pw->pw_dir[0] == '/')
			dir = strdup(pw->pw_dir);
	if (f)
		fclose(f);
	return dir;
#else
	pw = getpwuid(getuid());
	if (pw && pw->pw_dir && pw->pw_dir[0] == '/')
		return strdup(pw->pw_dir);
	return NULL;
#endif
}

#if defined(__APPLE__)

char *pdk_trash_home_dir(void)
{
	_cleanup_free_ char *home = home_dir();

	return home ? pdk_path_join(home, ".Trash") : NULL;
}

/* macOS keeps no per-file metadata we could write; Finder names collisions "name 2.ext". */
static char *mac_candidate(const char *base, unsigned n)
{
	const char *dot = strrchr(base, '.');
	size_t stem = (dot && dot != base) ? (size_t)(dot - base) : strlen(base);
	const char *ext = (dot && dot != base) ? dot : "";
	char *s;

	if (n == 1)
		return strdup(base);
	stem = utf8_cut(base, stem > NAME_MAX - 16 - strlen(ext) ? NAME_MAX - 16 - strlen(ext)
								 : stem);
	if (asprintf(&s, "%.*s %u%s", (int)stem, base, n, ext) < 0)
		return NULL;
	return s;
}

static int trash_into(int parent_fd, const char *parent, const char *base, const char *orig_as,
		      const char *date_as, char **ret_trashed_as, char *why, size_t why_len)
{
	_cleanup_free_ char *trash = pdk_trash_home_dir();
	_cleanup_close_ int tfd = -1;
	struct stat tst, st;

	(void)parent;
	(void)orig_as; /* Finder keeps no original path or date we could write */
	(void)date_as;
	if (fstatat(parent_fd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return pdk_why(why, why_len, -errno, "%s", strerror(errno));
	if (!trash)
		return pdk_why(why, why_len, -ENOENT, "cannot find the home directory for the trash");
	if (mkdir(trash, 0700) < 0 && errno != EEXIST)
		return pdk_why(why, why_len, -errno, "cannot create %s: %s", trash, strerror(errno));
	tfd = open(trash, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tfd < 0 || fstat(tfd, &tst) < 0)
		return pdk_why(why, why_len, -errno, "cannot open %s: %s", trash, strerror(errno));
	if (tst.st_dev != st.st_dev)
		return pdk_why(why, why_len, -EXDEV,
			    "on another volume than %s; not moved (files are never copied)",
			    trash);
	for (unsigned n = 1; n < TRASH_MAX_TRIES; n++) {
		_cleanup_free_ char *name = mac_candidate(base, n);
		_cleanup_free_ char *as = name ? pdk_path_join(trash, name) : NULL;

		if (!as)
			return pdk_why(why, why_len, -ENOMEM, "out of memory");
		if (renameatx_np(parent_fd, base, tfd, name, RENAME_EXCL) == 0) {
			/* Recorded, so that expiry knows it for paddock's own. */
			if (fstatat(tfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
				(void)pdk_trash_note_made(trash, name, &st, NULL);
			if (ret_trashed_as)
				*ret_trashed_as = steal_pointer(&as);
			return 0;
		}
		if (errno != EEXIST)
			return pdk_why(why, why_len, -errno, "cannot move to %s: %s", trash, strerror(errno));
	}
	return pdk_why(why, why_len, -EEXIST, "no free name left in %s", trash);
}

#else /* freedesktop.org */

/* $XDG_DATA_HOME/Trash, with the specification's default for XDG_DATA_HOME. */
char *pdk_trash_home_dir(void)
{
	const char *xdg = getenv("XDG_DATA_HOME");
	_cleanup_free_ char *home = NULL;
	_cleanup_free_ char *data = NULL;

	if (xdg && xdg[0] == '/')
		return pdk_path_join(xdg, "Trash");
	home = home_dir();
	if (!home)
		return NULL;
	data = pdk_path_join(home, ".local/share");
	return data ? pdk_path_join(data, "Trash") : NULL;
}

/* The mount of PATH, or of its nearest existing ancestor when it does not exist yet: the
 * home trash is only created once it is known to be the one to use. */
static int nearest_mount_ident(const char *path, struct pdk_mount_ident *ret)
{
	_cleanup_free_ char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	for (;;) {
		int r = pdk_trash_mount_ident_at(AT_FDCWD, p, ret);
		char *slash;

		if (r != -ENOENT)
			return r;
		slash = strrchr(p, '/');
		if (!slash)
			return -ENOENT;
		if (slash == p) {
			p[1] = '\0';
		} else {
			*slash = '\0';
		}
	}
}

/* $topdir/.Trash/$uid when an administrator prepared a sticky $topdir/.Trash, otherwise
 * $topdir/.Trash-$uid, created for this user alone. */
static int topdir_trash(const char *topdir, const struct pdk_mount_ident *want, char **ret,
			char *why, size_t why_len)
{
	_cleanup_free_ char *shared = pdk_path_join(topdir, ".Trash");
	_cleanup_free_ char *own = NULL;
	char uidname[32];
	struct pdk_mount_ident id;
	struct stat st;

	if (!shared)
		return -ENOMEM;
	snprintf(uidname, sizeof(uidname), "%u", (unsigned)getuid());
	if (lstat(shared, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX)) {
		_cleanup_free_ char *mine = pdk_path_join(shared, uidname);

		if (!mine)
			return -ENOMEM;
		if ((mkdir(mine, 0700) == 0 || errno == EEXIST) && pdk_own_dir(mine) &&
		    pdk_trash_mount_ident_at(AT_FDCWD, mine, &id) == 0 &&
		    pdk_trash_same_mount(&id, want)) {
			*ret = steal_pointer(&mine);
			return 0;
		}
	}
	snprintf(uidname, sizeof(uidname), ".Trash-%u", (unsigned)getuid());
	own = pdk_path_join(topdir, uidname);
	if (!own)
		return -ENOMEM;
	if (mkdir(own, 0700) < 0 && errno != EEXIST)
		return pdk_why(why, why_len, -errno,
			    "no trash can be made on its filesystem (mounted at %s): %s: %s; "
			    "not moved (files are never copied)",
			    topdir, own, strerror(errno));
	if (!pdk_own_dir(own))
		return pdk_why(why, why_len, -EPERM,
			    "%s is not a directory owned by this user; not moved (files are never "
			    "copied)",
			    own);
	if (pdk_trash_mount_ident_at(AT_FDCWD, own, &id) < 0 || !pdk_trash_same_mount(&id, want))
		return pdk_why(why, why_len, -EXDEV, "%s is not on the file's mount; not moved", own);
	*ret = steal_pointer(&own);
	return 0;
}

/* Path= is a URI-escaped byte string (RFC 2396): keep the unreserved characters and '/',
 * escape every other byte, UTF-8 included, so any reader decodes the exact bytes. */
static char *percent_encode(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = malloc(strlen(s) * 3 + 1), *o = out;

	if (!out)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-_.~/", *p)) {
			*o++ = (char)*p;
		} else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		}
	}
	*o = '\0';
	return out;
}

static char *fdo_candidate(const char *base, unsigned n)
{
	/* NAME.trashinfo must still fit in one directory entry. */
	size_t room = NAME_MAX - strlen(".trashinfo") - (n > 1 ? 12 : 0);
	size_t len = utf8_cut(base, room);
	char *s;

	if (n == 1)
		return strndup(base, len);
	if (asprintf(&s, "%.*s.%u", (int)len, base, n) < 0)
		return NULL;
	return s;
}

static int rename_noreplace(int ofd, const char *old, int nfd, const char *new)
{
	if (renameat2(ofd, old, nfd, new, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* Filesystems without RENAME_NOREPLACE: the name was checked free just before. */
	if (renameat(ofd, old, nfd, new) < 0)
		return -errno;
	return 0;
}

static int trash_into(int parent_fd, const char *parent, const char *base, const char *orig_as,
		      const char *date_as, char **ret_trashed_as, char *why, size_t why_len)
{
	_cleanup_free_ char *home_trash = pdk_trash_home_dir();
	_cleanup_free_ char *trash = NULL, *topdir = NULL, *orig = NULL, *enc = NULL;
	_cleanup_free_ char *files = NULL, *info = NULL;
	_cleanup_close_ int files_fd = -1;
	_cleanup_close_ int info_fd = -1;
	struct pdk_mount_ident fid = {0}, hid = {0};
	const char *rel;
	char date[64];
	int r;

	if (!home_trash)
		return pdk_why(why, why_len, -ENOENT, "cannot find the home directory for the trash");
	orig = orig_as ? strdup(orig_as) : pdk_path_join(parent, base);
	if (!orig)
		return -ENOMEM;
	r = pdk_trash_mount_ident_at(parent_fd, base, &fid);
	if (r < 0)
		return pdk_why(why, why_len, r, "%s", strerror(-r));
	r = nearest_mount_ident(home_trash, &hid);
	if (r < 0)
		return pdk_why(why, why_len, r, "cannot examine %s: %s", home_trash, strerror(-r));

	if (pdk_trash_same_mount(&fid, &hid)) {
		r = pdk_mkdir_p(home_trash, 0700);
		if (r < 0)
			return pdk_why(why, why_len, r, "cannot create %s: %s", home_trash, strerror(-r));
		trash = steal_pointer(&home_trash);
		rel = orig; /* the home trash records absolute paths */
	} else {
		r = pdk_trash_mount_top(parent, &fid, "/", &topdir);
		if (r < 0)
			return pdk_why(why, why_len, r, "cannot find the top of its mount: %s", strerror(-r));
		r = topdir_trash(topdir, &fid, &trash, why, why_len);
		if (r < 0)
			return r;
		/* Relative to $topdir, so the volume can be mounted elsewhere later; an original
		 * path on another volume stays absolute, as the specification allows. */
		rel = orig;
		if (pdk_path_under(orig, topdir)) {
			rel = orig + strlen(topdir);
			while (*rel == '/')
				rel++;
		}
	}

	files = pdk_path_join(trash, "files");
	info = pdk_path_join(trash, "info");
	if (!files || !info)
		return -ENOMEM;
	if ((mkdir(files, 0700) < 0 && errno != EEXIST) ||
	    (mkdir(info, 0700) < 0 && errno != EEXIST))
		return pdk_why(why, why_len, -errno, "cannot create %s: %s", trash, strerror(errno));
	files_fd = open(files, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (files_fd < 0)
		return pdk_why(why, why_len, -errno, "cannot open %s: %s", files, strerror(errno));
	info_fd = open(info, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (info_fd < 0)
		return pdk_why(why, why_len, -errno, "cannot open %s: %s", info, strerror(errno));

	enc = percent_encode(rel);
	if (!enc)
		return -ENOMEM;
	if (date_as)
		snprintf(date, sizeof(date), "%s", date_as);
	else if (pdk_trash_date(time(NULL), date, sizeof(date)) < 0)
		return pdk_why(why, why_len, -EINVAL, "cannot format the deletion date");

	for (unsigned n = 1; n < TRASH_MAX_TRIES; n++) {
		_cleanup_free_ char *name = fdo_candidate(base, n);
		_cleanup_free_ char *info_name = NULL, *content = NULL, *as = NULL;
		_cleanup_close_ int fd = -1;
		struct stat ignored;
		int len;

		if (!name)
			return -ENOMEM;
		/* files/ may hold an entry whose .trashinfo was lost: that name is taken too. */
		if (fstatat(files_fd, name, &ignored, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		if (errno != ENOENT)
			return pdk_why(why, why_len, -errno, "cannot examine %s: %s", files, strerror(errno));
		if (asprintf(&info_name, "%s.trashinfo", name) < 0)
			return -ENOMEM;
		/* The .trashinfo reserves the name (the specification's atomic step). */
		fd = openat(info_fd, info_name,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) {
			if (errno == EEXIST)
				continue;
			return pdk_why(why, why_len, -errno, "cannot create %s/%s: %s", info, info_name,
				    strerror(errno));
		}
		len = asprintf(&content, "[Trash Info]\nPath=%s\nDeletionDate=%s\n", enc, date);
		if (len < 0) {
			unlinkat(info_fd, info_name, 0);
			return -ENOMEM;
		}
		r = pdk_write_all(fd, content, (size_t)len);
		if (r == 0 && close(steal_fd(&fd)) < 0)
			r = -errno;
		if (r < 0) {
			unlinkat(info_fd, info_name, 0);
			return pdk_why(why, why_len, r, "cannot write %s/%s: %s", info, info_name,
				    strerror(-r));
		}
		/* Allocated before the move, so that success is never reported as a failure. */
		as = pdk_path_join(files, name);
		if (!as) {
			unlinkat(info_fd, info_name, 0);
			return -ENOMEM;
		}
		r = rename_noreplace(parent_fd, base, files_fd, name);
		if (r == -EEXIST || r == -ENOTEMPTY) {
			unlinkat(info_fd, info_name, 0);
			continue;
		}
		if (r < 0) {
			unlinkat(info_fd, info_name, 0);
			if (r == -EXDEV)
				return pdk_why(why, why_len, r,
					    "on another filesystem than %s; not moved (files are "
					    "never copied)",
					    trash);
			if (r == -EINVAL)
				return pdk_why(why, why_len, r, "it contains the trash (%s) itself", trash);
			return pdk_why(why, why_len, r, "cannot move it to %s: %s", files, strerror(-r));
		}
		/* Recorded, so that expiry knows it for paddock's own. */
		if (fstatat(files_fd, name, &ignored, AT_SYMLINK_NOFOLLOW) == 0)
			(void)pdk_trash_note_made(trash, name, &ignored, date);
		if (ret_trashed_as)
			*ret_trashed_as = steal_pointer(&as);
		return 0;
	}
	return pdk_why(why, why_len, -EEXIST, "no free name left in %s", files);
}

#endif

int pdk_trash_open_operand(const char *path, int *ret_fd, char **ret_real, char **ret_base,
			   char *why, size_t why_len)
{
	_cleanup_free_ char *dir = NULL, *base = NULL, *real = NULL, *opened = NULL;
	_cleanup_close_ int parent_fd = -1;
	int r;

	r = pdk_trash_split_path(path, &dir, &base);
	if (r < 0)
		return pdk_why(why, why_len, r, "%s", strerror(-r));
	if (!base[0] || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return pdk_why(why, why_len, -EINVAL, "'.', '..' and '/' cannot be moved to the trash");
	real = realpath(dir, NULL);
	if (!real)
		return pdk_why(why, why_len, -errno, "%s", strerror(errno));
#ifdef O_PATH
	parent_fd = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC);
#else
	parent_fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
#endif
	if (parent_fd < 0)
		return pdk_why(why, why_len, -errno, "%s", strerror(errno));
	opened = pdk_path_of_fd(parent_fd);
	if (opened && strcmp(opened, real) != 0) {
		/* A component moved between realpath() and open(): judge what was opened. */
		free(real);
		real = steal_pointer(&opened);
	}
	*ret_fd = steal_fd(&parent_fd);
	*ret_real = steal_pointer(&real);
	*ret_base = steal_pointer(&base);
	return 0;
}

int pdk_trash_refuse_mount_point(int dirfd, const char *name, char *why, size_t why_len)
{
	struct stat st, pst;

	PDK_ANALYZER_ASSUME(name); /* callers pass the base name their look-up returned */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return pdk_why(why, why_len, -errno, "%s", strerror(errno));
	if (fstat(dirfd, &pst) < 0)
		return pdk_why(why, why_len, -errno, "%s", strerror(errno));
	if (S_ISDIR(st.st_mode) && st.st_dev != pst.st_dev)
		return pdk_why(why, why_len, -EBUSY, "it is a mount point");
	return 0;
}

int pdk_trash_put(const char *path, const char *const *roots, size_t n_roots, char **ret_trashed_as,
		  char *why, size_t why_len)
{
	_cleanup_free_ char *base = NULL, *real = NULL;
	_cleanup_close_ int parent_fd = -1;
	int r;

	if (why_len)
		why[0] = '\0';
	if (!path || !path[0])
		return pdk_why(why, why_len, -ENOENT, "%s", strerror(ENOENT));
	if ((r = pdk_trash_open_operand(path, &parent_fd, &real, &base, why, why_len)) < 0)
		return r;
	if (!in_roots(real, roots, n_roots))
		return pdk_why(why, why_len, -EPERM,
			    "outside the writable roots (it lies in %s); left in place", real);
	if ((r = pdk_trash_refuse_mount_point(parent_fd, base, why, why_len)) < 0)
		return r;
	return trash_into(parent_fd, real, base, NULL, NULL, ret_trashed_as, why, why_len);
}

/* DeletionDate is local time as YYYY-MM-DDThh:mm:ss; anything else is not written. */
static bool date_valid(const char *d)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd";

	if (strlen(d) != sizeof(shape) - 1)
		return false;
	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? (d[i] < '0' || d[i] > '9') : d[i] != shape[i])
			return false;
	return true;
}

int pdk_trash_put_as(int dirfd, const char *name, const char *orig_path, const char *deletion_date,
		     char **ret_trashed_as, char *why, size_t why_len)
{
	_cleanup_free_ char *parent = NULL;

	if (why_len)
		why[0] = '\0';
	if (!name || !name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return pdk_why(why, why_len, -EINVAL, "not a name in a directory");
	if (!orig_path || orig_path[0] != '/')
		return pdk_why(why, why_len, -EINVAL, "the original path must be absolute");
	if (deletion_date && !date_valid(deletion_date))
		deletion_date = NULL;
	parent = pdk_path_of_fd(dirfd);
	if (!parent)
		return pdk_why(why, why_len, -EBADF, "cannot tell where the directory is");
	int r = pdk_trash_refuse_mount_point(dirfd, name, why, why_len);
	if (r < 0)
		return r;
	return trash_into(dirfd, parent, name, orig_path, deletion_date, ret_trashed_as, why, why_len);
}

char *pdk_trash_path_encode(const char *path)
{
#if defined(__APPLE__)
	return strdup(path);
#else
	return percent_encode(path);
#endif
}

/* ---- rm(1) ---- */

struct rm_opts {
	bool force, recursive, dir, verbose, preserve_root, interactive;
};

enum { OPT_FORCE, OPT_RECURSIVE, OPT_DIR, OPT_VERBOSE, OPT_PRESERVE, OPT_NO_PRESERVE,
       OPT_ONE_FS, OPT_INTERACTIVE, OPT_HELP, OPT_VERSION };

static const struct {
	const char *name;
	int id;
	bool takes_arg; /* optional "=WHEN" */
} long_opts[] = {
	{ "force", OPT_FORCE, false },
	{ "recursive", OPT_RECURSIVE, false },
	{ "dir", OPT_DIR, false },
	{ "verbose", OPT_VERBOSE, false },
	{ "preserve-root", OPT_PRESERVE, true },
	{ "no-preserve-root", OPT_NO_PRESERVE, false },
	{ "one-file-system", OPT_ONE_FS, false },
	{ "interactive", OPT_INTERACTIVE, true },
	{ "help", OPT_HELP, false },
	{ "version", OPT_VERSION, false },
};

static void usage_hint(FILE *out)
{
	fprintf(out, "Try 'rm --help' for more information.\n");
}

/* GNU getopt accepts any unambiguous prefix of a long option. */
static int match_long(const char *arg, const char **ret_value, FILE *out)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	int found = -1, n_found = 0;

	for (size_t i = 0; i < PDK_ARRAY_SIZE(long_opts); i++) {
		if (strncmp(long_opts[i].name, arg, len) != 0)
			continue;
		if (strlen(long_opts[i].name) == len) {
			found = (int)i;
			n_found = 1;
			break;
		}
		found = (int)i;
		n_found++;
	}
	if (n_found == 0) {
		fprintf(out, "rm: unrecognized option '--%s'\n", arg);
		return -EINVAL;
	}
	if (n_found > 1) {
		fprintf(out, "rm: option '--%.*s' is ambiguous\n", (int)len, arg);
		return -EINVAL;
	}
	if (eq && !long_opts[found].takes_arg) {
		fprintf(out, "rm: option '--%s' doesn't allow an argument\n",
			long_opts[found].name);
		return -EINVAL;
	}
	*ret_value = eq ? eq + 1 : NULL;
	return long_opts[found].id;
}

static int apply_long(struct rm_opts *o, int id, const char *value, FILE *out)
{
	switch (id) {
	case OPT_FORCE:
		o->force = true;
		o->interactive = false;
		return 0;
	case OPT_RECURSIVE:
		o->recursive = true;
		return 0;
	case OPT_DIR:
		o->dir = true;
		return 0;
	case OPT_VERBOSE:
		o->verbose = true;
		return 0;
	case OPT_PRESERVE:
		if (value && strcmp(value, "all") != 0) {
			fprintf(out, "rm: unrecognized --preserve-root argument: '%s'\n", value);
			return -EINVAL;
		}
		o->preserve_root = true;
		return 0;
	case OPT_NO_PRESERVE:
		o->preserve_root = false;
		return 0;
	case OPT_ONE_FS:
		/* A trashed directory moves in one rename: it never leaves its filesystem. */
		return 0;
	case OPT_INTERACTIVE:
		if (value && (!strcmp(value, "never") || !strcmp(value, "no") ||
			      !strcmp(value, "none"))) {
			o->interactive = false;
			return 0;
		}
		if (value && strcmp(value, "once") && strcmp(value, "always") &&
		    strcmp(value, "yes")) {
			fprintf(out, "rm: invalid argument '%s' for '--interactive'\n", value);
			return -EINVAL;
		}
		o->interactive = true;
		o->force = false;
		return 0;
	case OPT_HELP:
		return 1;
	case OPT_VERSION:
		return 2;
	}
	return -EINVAL;
}

static int apply_short(struct rm_opts *o, char c, FILE *out)
{
	switch (c) {
	case 'f':
		o->force = true;
		o->interactive = false;
		return 0;
	case 'r':
	case 'R':
		o->recursive = true;
		return 0;
	case 'd':
		o->dir = true;
		return 0;
	case 'v':
		o->verbose = true;
		return 0;
	case 'i':
	case 'I':
		o->interactive = true;
		o->force = false;
		return 0;
	}
	fprintf(out, "rm: invalid option -- '%c'\n", c);
	return -EINVAL;
}

static bool last_is_dot(const char *path)
{
	size_t len = strlen(path);
	const char *start;

	while (len > 1 && path[len - 1] == '/')
		len--;
	start = path + len;
	while (start > path && start[-1] != '/')
		start--;
	len -= (size_t)(start - path);
	return (len == 1 && start[0] == '.') || (len == 2 && start[0] == '.' && start[1] == '.');
}

static int dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int r = 1;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			r = 0;
			break;
		}
	}
	closedir(d);
	return r;
}

static void refuse_dot(const char *op, FILE *out)
{
	fprintf(out, "rm: refusing to remove '.' or '..' directory: skipping '%s'\n", op);
}

/* One operand; returns true when it was trashed (or silently skipped under -f). */
static bool rm_one(const char *op, const struct rm_opts *o, const struct stat *root_st,
		   const struct pdk_rm_mover *mover, FILE *out)
{
	_cleanup_free_ char *as = NULL;
	char why[256] = "";
	struct stat st;
	int r;

	if (lstat(op, &st) < 0) {
		if (o->force && (errno == ENOENT || errno == ENOTDIR))
			return true;
		fprintf(out, "rm: cannot remove '%s': %s\n", op, strerror(errno));
		return false;
	}
	if (S_ISDIR(st.st_mode) && o->recursive) {
		if (last_is_dot(op)) {
			refuse_dot(op, out);
			return false;
		}
		if (o->preserve_root && root_st && st.st_dev == root_st->st_dev &&
		    st.st_ino == root_st->st_ino) {
			fprintf(out, "rm: it is dangerous to operate recursively on '%s'\n", op);
			fprintf(out, "rm: use --no-preserve-root to override this failsafe\n");
			return false;
		}
	} else if (S_ISDIR(st.st_mode)) {
		if (!o->dir) {
			fprintf(out, "rm: cannot remove '%s': Is a directory\n", op);
			return false;
		}
		if (last_is_dot(op)) {
			refuse_dot(op, out);
			return false;
		}
		r = dir_is_empty(op);
		if (r <= 0) {
			fprintf(out, "rm: cannot remove '%s': %s\n", op,
				strerror(r == 0 ? ENOTEMPTY : -r));
			return false;
		}
	}

	r = mover->move(mover->ctx, op, &as, why, sizeof(why));
	if (r < 0) {
		fprintf(out, "rm: cannot remove '%s': %s\n", op,
			why[0] ? why : strerror(-r));
		return false;
	}
	if (o->verbose) {
		FILE *vout = mover->out ? mover->out : stdout;

		fprintf(vout, "removed %s'%s' (%s: %s)\n", S_ISDIR(st.st_mode) ? "directory " : "",
			op, mover->done, as ? as : "?");
		fflush(vout);
	}
	return true;
}

int pdk_rm_main_with(int argc, char *const *argv, const struct pdk_rm_mover *mover,
		     FILE *err_out)
{
	struct rm_opts o = { .preserve_root = true };
	_cleanup_free_ const char **ops = calloc((size_t)(argc > 0 ? argc : 1), sizeof(*ops));
	size_t n_ops = 0;
	bool opts_done = false, ok = true;
	struct stat root_st;
	int action = 0;

	if (!ops) {
		fprintf(err_out, "rm: %s\n", strerror(ENOMEM));
		return 1;
	}
	/* Options may follow operands, as with GNU getopt, until "--". */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int r;

		if (opts_done || a[0] != '-' || a[1] == '\0') {
			ops[n_ops++] = a;
		} else if (strcmp(a, "--") == 0) {
			opts_done = true;
		} else if (a[1] == '-') {
			const char *value = NULL;

			r = match_long(a + 2, &value, err_out);
			if (r >= 0)
				r = apply_long(&o, r, value, err_out);
			if (r < 0) {
				usage_hint(err_out);
				return 1;
			}
			if (r > 0 && !action)
				action = r;
		} else {
			for (const char *c = a + 1; *c; c++) {
				if (apply_short(&o, *c, err_out) < 0) {
					usage_hint(err_out);
					return 1;
				}
			}
		}
	}
	if (action == 1) {
		fprintf(err_out,
			"Usage: rm [OPTION]... [FILE]...\n"
			"Move each FILE to the trash; nothing is deleted.\n\n"
			"  -f, --force           ignore nonexistent files, never prompt\n"
			"  -i, -I, --interactive refused: nobody can be asked here\n"
			"  -r, -R, --recursive   move directories with their contents\n"
			"  -d, --dir             move empty directories\n"
			"  -v, --verbose         say what was moved and where\n"
			"      --no-preserve-root, --preserve-root[=all], --one-file-system\n"
			"                        accepted as by rm\n");
		return 0;
	}
	if (action == 2) {
		fprintf(err_out, "rm (paddock) moves files to the trash\n");
		return 0;
	}
	if (o.interactive) {
		fprintf(err_out,
			"rm: interactive removal (-i, -I, --interactive) needs a person to answer "
			"and none can be asked here; nothing was removed (drop the option: files "
			"go to the trash and can be restored)\n");
		return 1;
	}
	if (n_ops == 0) {
		if (o.force)
			return 0;
		fprintf(err_out, "rm: missing operand\n");
		usage_hint(err_out);
		return 1;
	}
	bool have_root = lstat("/", &root_st) == 0;

	for (size_t i = 0; i < n_ops; i++)
		ok &= rm_one(ops[i], &o, have_root ? &root_st : NULL, mover, err_out);
	return ok ? 0 : 1;
}

struct trash_mover {
	const char *const *roots;
	size_t n_roots;
};

static int move_to_trash(void *ctx, const char *path, char **ret_where, char *why, size_t why_len)
{
	const struct trash_mover *t = ctx;

	return pdk_trash_put(path, t->roots, t->n_roots, ret_where, why, why_len);
}

int pdk_rm_main_out(int argc, char *const *argv, const char *const *roots, size_t n_roots,
		    FILE *out, FILE *err_out)
{
	struct trash_mover t = { roots, n_roots };
	struct pdk_rm_mover m = {
	    .move = move_to_trash, .ctx = &t, .done = "moved to the trash", .out = out};

	return pdk_rm_main_with(argc, argv, &m, err_out);
}

int pdk_rm_main(int argc, char *const *argv, const char *const *roots, size_t n_roots,
		FILE *err_out)
{
	return pdk_rm_main_out(argc, argv, roots, n_roots, NULL, err_out);
}
