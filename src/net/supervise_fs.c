/* supervise_fs.c - the calls that make a name (Linux): paddock's supervisor refuses one at a
 * missing protected path and makes the others itself, on the command's behalf, in its view. */
#include "supervise_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/path.h"
#include "core/util.h"

/* The command's Landlock ruleset, kept for the calls made on its behalf. */
static int keep_ruleset(struct pdk_netsup *ns, int ruleset)
{
	if (ruleset >= 0 && ns->fs_ruleset < 0 &&
	    (ns->fs_ruleset = fcntl(ruleset, F_DUPFD_CLOEXEC, 3)) < 0)
		return -errno;
	return 0;
}

static int find_git(struct pdk_netsup *ns)
{
	const char *env = getenv("PATH");
	_cleanup_free_ char *path = strdup(env && *env ? env : "/usr/bin:/bin");
	char *save = NULL, file[PATH_MAX];

	if (!path)
		return -ENOMEM;
	for (char *d = strtok_r(path, ":", &save);; d = strtok_r(NULL, ":", &save)) {
		struct stat st, *g;

		if (d)
			snprintf(file, sizeof(file), "%s/git", d);
		else
			snprintf(file, sizeof(file), "/usr/lib/git-core/git");
		if (d && d[0] != '/')
			continue;
		if (stat(file, &st) == 0 && S_ISREG(st.st_mode)) {
			if (!(g = realloc(ns->git, (ns->n_git + 1) * sizeof(*g))))
				return -ENOMEM;
			ns->git = g;
			g[ns->n_git++] = st;
		}
		if (!d)
			return 0;
	}
}

int pdk_netsup_hold_missing(struct pdk_netsup *ns, const char *const *paths, size_t n,
			    const char *const *roots, size_t n_roots, int ruleset)
{
	struct utsname u;
	unsigned major = 0, minor = 0;
	int r;

	/* Before 5.9 no descriptor can be handed to the command: its opens could not be
	 * made for it, and the missing paths are left to the vetting after the run. */
	if (uname(&u) < 0 || sscanf(u.release, "%u.%u", &major, &minor) != 2 ||
	    major * 1000 + minor < 5009)
		return 0;
	/* Most share a directory (the project's): it is looked at once. */
	_cleanup_free_ char *dir = NULL;
	struct stat dir_st;
	bool dir_ok = false;

	for (size_t i = 0; i < n; i++) {
		const char *p = paths[i], *slash = strrchr(p, '/');
		size_t dlen = slash == p ? 1 : (size_t)(slash - p);
		struct missing *m;
		struct stat st;
		bool inside = false;

		for (size_t k = 0; k < n_roots && !inside; k++)
			inside = pdk_path_under(p, roots[k]) && strcmp(p, roots[k]) != 0;
		if (!inside || !slash || !slash[1] || lstat(p, &st) == 0 || errno != ENOENT)
			continue;
		/* One whose directory is missing too is left to the vetting after the run:
		 * `git init` makes .git/hooks and .git/config of its own. */
		if (!dir || strlen(dir) != dlen || strncmp(dir, p, dlen) != 0) {
			free(dir);
			if (!(dir = strndup(p, dlen)))
				return -ENOMEM;
			dir_ok = stat(dir, &dir_st) == 0 && S_ISDIR(dir_st.st_mode);
		}
		if (!dir_ok)
			continue;
		st = dir_st;
		m = realloc(ns->missing, (ns->n_missing + 1) * sizeof(*m));
		if (!m)
			return -ENOMEM;
		ns->missing = m;
		m += ns->n_missing;
		*m = (struct missing){.dev = st.st_dev, .ino = st.st_ino};
		if (!(m->name = strdup(slash + 1)) || !(m->path = strdup(p))) {
			free(m->name);
			return -ENOMEM;
		}
		ns->n_missing++;
	}
	if (ns->n_missing && (r = find_git(ns)) < 0)
		return r;
	return ns->n_missing ? keep_ruleset(ns, ruleset) : 0;
}

/* At most this many names held, a protected directory's contents with it. */
#define MAX_HELD 4096

static int add_held(struct pdk_netsup *ns, const struct stat *st, enum held_kind kind)
{
	struct held *h;

	if (ns->n_held >= MAX_HELD)
		return 0;
	if (!(h = realloc(ns->held, (ns->n_held + 1) * sizeof(*h))))
		return -ENOMEM;
	ns->held = h;
	ns->held[ns->n_held++] = (struct held){.dev = st->st_dev, .ino = st->st_ino, .kind = kind};
	return 0;
}

/* What is in the directory fd (taken), held with it, to a few levels. */
static int add_held_in(struct pdk_netsup *ns, int fd, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	int r = 0;

	if (!d) {
		close(fd);
		return 0;
	}
	while (r == 0 && (e = readdir(d))) {
		struct stat st;
		int sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if ((r = add_held(ns, &st, S_ISDIR(st.st_mode) ? HELD_DIR : HELD_FILE)) < 0)
			break;
		if (S_ISDIR(st.st_mode) && depth < 8 &&
		    (sub = openat(dirfd(d), e->d_name,
				  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0)
			r = add_held_in(ns, sub, depth + 1);
	}
	closedir(d);
	return r;
}

static int cmp_held(const void *a, const void *b)
{
	const struct held *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

int pdk_netsup_hold_existing(struct pdk_netsup *ns, const char *const *paths, const bool *ro,
			     size_t n, int ruleset)
{
	if (!n)
		return 0;
	if (!(ns->hold_paths = calloc(n, sizeof(*ns->hold_paths))) ||
	    !(ns->hold_pin = calloc(n, sizeof(*ns->hold_pin))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (!(ns->hold_paths[i] = strdup(paths[i])))
			return -ENOMEM;
		ns->hold_pin[i] = !ro[i];
		ns->n_hold_paths++;
	}
	return keep_ruleset(ns, ruleset);
}

int pdk_fs_hold(struct pdk_netsup *ns)
{
	int r;

	for (size_t i = 0; i < ns->n_hold_paths; i++) {
		const char *p = ns->hold_paths[i];
		bool pin = ns->hold_pin[i];
		struct stat st;
		int fd;

		if (lstat(p, &st) < 0 || S_ISLNK(st.st_mode))
			continue;
		if ((r = add_held(ns, &st, pin ? HELD_PIN : S_ISDIR(st.st_mode) ? HELD_DIR
										 : HELD_FILE)) < 0)
			return r;
		if (!pin && S_ISDIR(st.st_mode) &&
		    (fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0 &&
		    (r = add_held_in(ns, fd, 0)) < 0)
			return r;
	}
	qsort(ns->held, ns->n_held, sizeof(*ns->held), cmp_held);
	return 0;
}

static const struct held *held_of(const struct pdk_netsup *ns, const struct stat *st)
{
	struct held key = {.dev = st->st_dev, .ino = st->st_ino};

	return ns->n_held ? bsearch(&key, ns->held, ns->n_held, sizeof(key), cmp_held) : NULL;
}

void pdk_netsup_defer_fs(struct pdk_netsup *ns)
{
	ns->fs_armed = false;
}

void pdk_netsup_arm_fs(struct pdk_netsup *ns)
{
	__atomic_store_n(&ns->fs_armed, true, __ATOMIC_RELEASE);
}

#define OP(k, fa, a_, f, p, t, fl, m, d)                                                          \
	(struct fsop)                                                                              \
	{                                                                                          \
		.kind = (k), .from_at = (fa), .at = (a_), .from = (f), .path = (p), .target = (t), \
		.flags = (fl), .mode = (mode_t)(m), .dev = (dev_t)(d)                              \
	}

bool pdk_fs_call(const struct seccomp_notif *req, struct fsop *op)
{
	const __u64 *a = req->data.args;

	*op = (struct fsop){.at = AT_FDCWD, .from_at = AT_FDCWD};
	switch (req->data.nr) {
#ifdef __NR_mkdir
	case __NR_mkdir: *op = OP(FS_MKDIR, 0, AT_FDCWD, 0, a[0], 0, 0, a[1], 0); break;
#endif
	case __NR_mkdirat: *op = OP(FS_MKDIR, 0, (int)a[0], 0, a[1], 0, 0, a[2], 0); break;
#ifdef __NR_mknod
	case __NR_mknod: *op = OP(FS_MKNOD, 0, AT_FDCWD, 0, a[0], 0, 0, a[1], a[2]); break;
#endif
	case __NR_mknodat:
		*op = OP(FS_MKNOD, 0, (int)a[0], 0, a[1], 0, 0, a[2], a[3]);
		break;
#ifdef __NR_symlink
	case __NR_symlink: *op = OP(FS_SYMLINK, 0, AT_FDCWD, 0, a[1], a[0], 0, 0, 0); break;
#endif
	case __NR_symlinkat: *op = OP(FS_SYMLINK, 0, (int)a[1], 0, a[2], a[0], 0, 0, 0); break;
#ifdef __NR_rename
	case __NR_rename: *op = OP(FS_RENAME, AT_FDCWD, AT_FDCWD, a[0], a[1], 0, 0, 0, 0); break;
#endif
	case __NR_renameat:
		*op = OP(FS_RENAME, (int)a[0], (int)a[2], a[1], a[3], 0, 0, 0, 0);
		break;
	case __NR_renameat2:
		*op = OP(FS_RENAME, (int)a[0], (int)a[2], a[1], a[3], 0, a[4], 0, 0);
		break;
#ifdef __NR_open
	case __NR_open:
		*op = OP(FS_OPEN, 0, AT_FDCWD, 0, a[0], 0, (unsigned)a[1], a[2], 0);
		break;
#endif
	case __NR_openat:
		*op = OP(FS_OPEN, 0, (int)a[0], 0, a[1], 0, (unsigned)a[2], a[3], 0);
		break;
#ifdef __NR_creat
	case __NR_creat:
		*op = OP(FS_OPEN, 0, AT_FDCWD, 0, a[0], 0, O_CREAT | O_WRONLY | O_TRUNC, a[1], 0);
		break;
#endif
#ifdef __NR_link
	case __NR_link: *op = OP(FS_LINK, AT_FDCWD, AT_FDCWD, a[0], a[1], 0, 0, 0, 0); break;
#endif
	case __NR_linkat:
		*op = OP(FS_LINK, (int)a[0], (int)a[2], a[1], a[3], 0, (unsigned)a[4], 0, 0);
		break;
	case __NR_truncate:
		*op = OP(FS_TRUNCATE, 0, AT_FDCWD, 0, a[0], 0, O_WRONLY, 0, 0);
		op->length = (off_t)a[1];
		break;
#ifdef __NR_unlink
	case __NR_unlink: *op = OP(FS_UNLINK, 0, AT_FDCWD, 0, a[0], 0, 0, 0, 0); break;
	case __NR_rmdir: *op = OP(FS_UNLINK, 0, AT_FDCWD, 0, a[0], 0, AT_REMOVEDIR, 0, 0); break;
#endif
	case __NR_unlinkat:
		*op = OP(FS_UNLINK, 0, (int)a[0], 0, a[1], 0, (unsigned)a[2], 0, 0);
		break;
	default: return false;
	}
	return true;
}

/* A NUL-terminated string of the command's at addr, read a page at a time (the
 * next page may not be mapped). */
static int peek_str(pid_t pid, uint64_t addr, char *buf, size_t size)
{
	const size_t page = 4096;
	size_t got = 0;
	int r;

	while (got < size) {
		size_t chunk = page - (size_t)((addr + got) % page);

		if (chunk > size - got)
			chunk = size - got;
		if ((r = pdk_sup_peek(pid, addr + got, buf + got, chunk)) < 0)
			return r;
		if (memchr(buf + got, '\0', chunk))
			return 0;
		got += chunk;
	}
	return -ENAMETOOLONG;
}

/* The directory a relative path of the thread tid starts from (its working
 * directory, or its descriptor at), as it sees it, into base (PATH_MAX). */
static int base_of(pid_t tid, int at, char *base)
{
	char proc[64];
	ssize_t n;

	if (at == AT_FDCWD)
		snprintf(proc, sizeof(proc), "/proc/%d/cwd", (int)tid);
	else if (at >= 0)
		snprintf(proc, sizeof(proc), "/proc/%d/fd/%d", (int)tid, at);
	else
		return -EBADF;
	n = readlink(proc, base, PATH_MAX - 1);
	if (n < 0)
		return errno == ENOENT && at != AT_FDCWD ? -EBADF : -errno;
	base[n] = '\0';
	/* A socket, a pipe, a directory out of its root: nothing to start from. */
	return n && base[0] == '/' ? 0 : -ENOTDIR;
}

/* Is fd, on the device dev, in a /proc? The answer for the last few devices is kept
 * (a call that makes a name looks at each directory it makes one in). */
static bool on_procfs(int fd, dev_t dev)
{
	static __thread struct {
		dev_t dev;
		bool proc, known;
	} seen[8];
	static __thread unsigned next;
	struct statfs sf;
	bool proc;

	for (unsigned i = 0; i < PDK_ARRAY_SIZE(seen) && seen[i].known; i++)
		if (seen[i].dev == dev)
			return seen[i].proc;
	if (fstatfs(fd, &sf) < 0)
		return false;
	proc = sf.f_type == PROC_SUPER_MAGIC;
	seen[next].dev = dev;
	seen[next].proc = proc;
	seen[next].known = true;
	next = (next + 1) % PDK_ARRAY_SIZE(seen);
	return proc;
}

static bool fd_on_procfs(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && on_procfs(fd, st.st_dev);
}

/* /proc/tid/status, NUL-terminated in buf: its length, or <= 0. The file of the last
 * thread asked about stays open: a build makes its files from a few. */
static __thread int status_fd = -1;
static __thread pid_t status_of;

static ssize_t read_status(pid_t tid, char *buf, size_t size)
{
	char proc[64];
	ssize_t n = -1;

	/* A thread gone reads as ESRCH, even when its number went to another. */
	if (status_fd >= 0 && status_of == tid)
		n = pread(status_fd, buf, size - 1, 0);
	if (n <= 0) {
		if (status_fd >= 0)
			close(status_fd);
		snprintf(proc, sizeof(proc), "/proc/%d/status", (int)tid);
		if ((status_fd = open(proc, O_RDONLY | O_CLOEXEC)) < 0)
			return -1;
		status_of = tid;
		n = pread(status_fd, buf, size - 1, 0);
	}
	if (n > 0)
		buf[n] = '\0';
	return n;
}

/* The last number on the line that starts with key in /proc/tid/status. */
static long status_last(const char *status, const char *key)
{
	const char *at = strstr(status, key);
	long v = -1;

	if (!at)
		return -1;
	for (at += strlen(key); *at && *at != '\n';) {
		char *end;
		long n = strtol(at, &end, 10);

		if (end == at)
			break;
		v = n;
		at = end;
	}
	return v;
}

/* What /proc's "self" (or "thread-self") names for the thread tid in its own /proc: its
 * process's number there, and its thread's after "/task/". */
static int self_in_ns(pid_t tid, bool thread, char *buf, size_t size)
{
	char status[4096];
	long pid, t;

	if (read_status(tid, status, sizeof(status)) <= 0)
		return -ESRCH;
	pid = status_last(status, "\nNStgid:");
	t = status_last(status, "\nNSpid:");
	if (pid <= 0 || t <= 0)
		return -ESRCH;
	if (thread)
		snprintf(buf, size, "%ld/task/%ld", pid, t);
	else
		snprintf(buf, size, "%ld", pid);
	return 0;
}

/* Put head before what is left of buf from off on: the path to go on with. */
static int put_before(char *buf, size_t size, size_t off, const char *head)
{
	char rest[2 * PATH_MAX + 2];

	snprintf(rest, sizeof(rest), "%s", buf + off);
	return snprintf(buf, size, "%s%s%s", head, rest[0] && rest[0] != '/' ? "/" : "", rest) <
			       (int)size
		       ? 0
		       : -ENAMETOOLONG;
}

/*
 * The directory path (absolute, in the command's view) names, reached as the command
 * reaches it from root: a part at a time, symbolic links followed (40 at most, an
 * absolute one from root), ".." never above root, no magic link (a descriptor's, a
 * working directory's) on the way, and /proc's "self" and "thread-self" as the command's
 * own. openat2() does all that in one call but reads "self" as paddock: this is for a
 * path through /proc.
 */
static int walk(int root, const char *path, pid_t tid, int *ret)
{
	char buf[2 * PATH_MAX + 2], name[NAME_MAX + 1], link[PATH_MAX];
	struct stat rst, st;
	int cur, next, links = 0, r = 0;
	size_t off = 0;

	if (fstat(root, &rst) < 0)
		return -errno;
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	if ((cur = fcntl(root, F_DUPFD_CLOEXEC, 3)) < 0)
		return -errno;
	for (;;) {
		const char *p = buf + off;
		size_t n;
		ssize_t l;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		if ((n = strcspn(p, "/")) > NAME_MAX) {
			r = -ENAMETOOLONG;
			break;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		off = (size_t)(p - buf) + n;
		if (!strcmp(name, "."))
			continue;
		if (!strcmp(name, "..") && fstat(cur, &st) == 0 && st.st_dev == rst.st_dev &&
		    st.st_ino == rst.st_ino)
			continue;
		if ((!strcmp(name, "self") || !strcmp(name, "thread-self")) && fd_on_procfs(cur)) {
			if ((r = self_in_ns(tid, name[0] == 't', link, sizeof(link))) < 0 ||
			    (r = put_before(buf, sizeof(buf), off, link)) < 0)
				break;
			off = 0;
			continue;
		}
		if ((next = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
		    fstat(next, &st) < 0) {
			r = -errno;
			if (next >= 0)
				close(next);
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			l = ++links > 40 || fd_on_procfs(cur)
				    ? -1
				    : readlinkat(next, "", link, sizeof(link) - 1);
			close(next);
			if (l <= 0) {
				r = links > 40 || l == -1 ? -ELOOP : -ENOENT;
				break;
			}
			link[l] = '\0';
			if ((r = put_before(buf, sizeof(buf), off, link)) < 0)
				break;
			off = 0;
			if (link[0] == '/') {
				close(cur);
				if ((cur = fcntl(root, F_DUPFD_CLOEXEC, 3)) < 0)
					return -errno;
			}
			continue;
		}
		close(cur);
		cur = next;
		if (!S_ISDIR(st.st_mode)) {
			r = -ENOTDIR;
			break;
		}
	}
	if (r < 0) {
		close(cur);
		return r;
	}
	*ret = cur;
	return 0;
}

/* Where a call makes a name: the directory (an O_PATH descriptor of it, reached as the
 * command would from its root, with its path) and the last name in it; or, for a file
 * reached through /proc (a descriptor of the command's), paddock's own link to it (via,
 * with dir AT_FDCWD). */
struct place {
	int dir, via;
	struct stat st;
	bool slash; /* the path ended in '/' */
	char name[NAME_MAX + 1];
	char path[2 * PATH_MAX + 2];
};

static int place_of(int root, pid_t tid, const char *base, const char *path, struct place *pl)
{
	struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	char *full = pl->path, *slash;
	size_t len;
	long fd;
	int r;

	pl->dir = pl->via = -1;
	if (!path[0])
		return -ENOENT;
	if (path[0] == '/')
		snprintf(full, sizeof(pl->path), "%s", path);
	else
		snprintf(full, sizeof(pl->path), "%s/%s", base, path);
	len = strlen(full);
	pl->slash = len > 1 && full[len - 1] == '/';
	while (len > 1 && full[len - 1] == '/')
		full[--len] = '\0';
	slash = strrchr(full, '/');
	if (!slash[1] || !strcmp(slash + 1, ".") || !strcmp(slash + 1, "..")) {
		/* No new name: the call fails on the directory itself, as it would. */
		snprintf(pl->name, sizeof(pl->name), ".");
	} else {
		if (strlen(slash + 1) > NAME_MAX)
			return -ENAMETOOLONG;
		snprintf(pl->name, sizeof(pl->name), "%s", slash + 1);
		if (slash == full)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	fd = syscall(__NR_openat2, root, full, &how, sizeof(how));
	if (fd < 0 && errno != ENOENT)
		return errno == EXDEV ? -ELOOP : -errno;
	if (fd >= 0 && fstat((int)fd, &pl->st) < 0) {
		r = -errno;
		close((int)fd);
		return r;
	}
	/* In /proc, or missing where "self" was paddock's (outside the command's /proc):
	 * walked again as the command. */
	if (fd < 0 || on_procfs((int)fd, pl->st.st_dev)) {
		int dir = -1;

		if (fd >= 0)
			close((int)fd);
		if ((r = walk(root, full, tid, &dir)) < 0 || dir < 0)
			return r < 0 ? r : -EIO;
		fd = dir;
		if (fstat((int)fd, &pl->st) < 0) {
			r = -errno;
			close((int)fd);
			return r;
		}
	}
	pl->dir = (int)fd;
	return 0;
}

/* The name at pl, when it is a link of /proc's to a file the command holds (its
 * /proc/self/fd/N): that file, as paddock's own link to it in pl. 1 when it was. */
static int through_proc(struct place *pl)
{
	struct stat st;
	int fd;

	if (pl->dir < 0 || !on_procfs(pl->dir, pl->st.st_dev) ||
	    fstatat(pl->dir, pl->name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode))
		return 0;
	if ((fd = openat(pl->dir, pl->name, O_PATH | O_CLOEXEC)) < 0)
		return -errno;
	close(pl->dir);
	pl->dir = AT_FDCWD;
	pl->via = fd;
	snprintf(pl->name, sizeof(pl->name), "/proc/self/fd/%d", fd);
	return 1;
}

static void place_close(struct place *pl)
{
	if (pl->dir >= 0)
		close(pl->dir);
	if (pl->via >= 0)
		close(pl->via);
	pl->dir = pl->via = -1;
}

/* The missing protected path a name at pl would make, or NULL. */
static const struct missing *held_missing(const struct pdk_netsup *ns, const struct place *pl)
{
	if (pl->name[0] == '.' && !pl->name[1])
		return NULL;
	for (size_t i = 0; i < ns->n_missing; i++) {
		const struct missing *m = &ns->missing[i];

		if (m->dev == pl->st.st_dev && m->ino == pl->st.st_ino &&
		    !strcmp(m->name, pl->name))
			return m;
	}
	return NULL;
}

/* A name with a mount on it in the command's view (bwrap's and Landlock's pins of the
 * directories above a held path): the kernel refuses to move it for a caller in that mount
 * namespace only, which paddock is not. */
static int mounted_on(const struct place *pl)
{
	struct statx dir, it;

	if (statx(pl->dir, "", AT_EMPTY_PATH, STATX_MNT_ID, &dir) < 0 ||
	    statx(pl->dir, pl->name, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &it) < 0)
		return 0;
	return (dir.stx_mask & it.stx_mask & STATX_MNT_ID) && dir.stx_mnt_id != it.stx_mnt_id
		       ? -EBUSY
		       : 0;
}

/* Is the thread tid running git itself (the host's git, by inode)? A checkout of a branch
 * that tracks .vscode makes it; what git makes is vetted after the run as before. */
static bool is_git(const struct pdk_netsup *ns, pid_t tid)
{
	char proc[64];
	struct stat st;

	snprintf(proc, sizeof(proc), "/proc/%d/exe", (int)tid);
	if (stat(proc, &st) < 0)
		return false;
	for (size_t i = 0; i < ns->n_git; i++)
		if (ns->git[i].st_dev == st.st_dev && ns->git[i].st_ino == st.st_ino)
			return true;
	return false;
}

/* The command's umask (its files are made with it), 022 if it cannot be read. */
static mode_t umask_of(pid_t tid)
{
	char buf[1024];
	const char *at;

	if (read_status(tid, buf, sizeof(buf)) <= 0 || !(at = strstr(buf, "\nUmask:")))
		return 022;
	return (mode_t)(strtoul(at + 7, NULL, 8) & 0777);
}

/* The call made on the command's behalf, by a thread of its own: with the command's
 * umask, under the command's Landlock ruleset where it has one (so that it writes
 * only where the command may and reads no secret), in directories reached through the
 * command's root (its mount namespace: what it holds read-only stays so), by the last
 * name only, so that a path or a directory swapped since the check reaches nothing
 * else. */
struct act {
	const struct fsop *op;
	mode_t umask;
	struct place *from, *to;
	const char *target; /* symlink's */
	int flags;          /* open's or linkat's, as made */
	long r;
};

/* The call itself, in the actor's thread. */
static long act_do(struct act *a)
{
	const struct fsop *op = a->op;
	long r = -1;

	umask(a->umask);
	switch (op->kind) {
	case FS_MKDIR: r = mkdirat(a->to->dir, a->to->name, op->mode); break;
	case FS_MKNOD: r = mknodat(a->to->dir, a->to->name, op->mode, op->dev); break;
	case FS_SYMLINK: r = symlinkat(a->target, a->to->dir, a->to->name); break;
	case FS_RENAME:
		r = syscall(SYS_renameat2, a->from->dir, a->from->name, a->to->dir, a->to->name,
			    (unsigned)op->flags);
		break;
	case FS_OPEN: r = openat(a->to->dir, a->to->name, a->flags, op->mode); break;
	case FS_LINK:
		r = linkat(a->from->dir, a->from->name, a->to->dir, a->to->name, a->flags);
		break;
	case FS_TRUNCATE:
		if ((r = openat(a->to->dir, a->to->name, a->flags)) >= 0) {
			int fd = (int)r;

			r = ftruncate(fd, op->length);
			close(fd);
		}
		break;
	case FS_UNLINK: r = unlinkat(a->to->dir, a->to->name, a->flags); break;
	}
	return r < 0 ? -errno : r;
}

/* A thread that makes the calls for one worker, restricted once: its own umask, and
 * the command's Landlock ruleset, which it keeps for good (so it can no longer read the
 * command's memory: the worker does that). */
struct actor {
	sem_t go, done;
	struct act *job; /* NULL: end */
	pthread_t thread;
	int ruleset;
};
static __thread struct actor *my_actor;
/* This thread's umask is its own (the loop's: it makes the calls itself). */
__thread bool pdk_fs_private;

static void *actor_main(void *p)
{
	struct actor *ac = p;
	bool ok = unshare(CLONE_FS) == 0 &&
		  (ac->ruleset < 0 || (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
				       syscall(__NR_landlock_restrict_self, ac->ruleset, 0) == 0));

	for (;;) {
		struct act *a;

		while (sem_wait(&ac->go) < 0)
			;
		if (!(a = ac->job))
			break;
		a->r = ok ? act_do(a) : -EACCES;
		sem_post(&ac->done);
	}
	return NULL;
}

/* The end of a thread that made calls for the command: its actor, its status file. */
void pdk_fs_end(void)
{
	struct actor *ac = my_actor;

	if (status_fd >= 0)
		close(status_fd);
	status_fd = -1;

	if (!ac)
		return;
	my_actor = NULL;
	ac->job = NULL;
	sem_post(&ac->go);
	pthread_join(ac->thread, NULL);
	sem_destroy(&ac->go);
	sem_destroy(&ac->done);
	free(ac);
}

static long act(struct call *c, struct act *a)
{
	struct actor *ac = my_actor;
	int r;

	a->umask = umask_of(c->req->pid);
	/* No ruleset to keep (bwrap: the mount namespace holds what the command may not
	 * write), and a working directory and umask of this thread's own: made here. */
	if (c->ns->fs_ruleset < 0 && pdk_fs_private) {
		if ((r = pdk_sup_still_valid(c)) < 0)
			return r;
		return act_do(a);
	}
	if (!ac) {
		pthread_attr_t attr;

		if (!(ac = calloc(1, sizeof(*ac))))
			return -ENOMEM;
		ac->ruleset = c->ns->fs_ruleset;
		sem_init(&ac->go, 0, 0);
		sem_init(&ac->done, 0, 0);
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 128 * 1024);
		r = pthread_create(&ac->thread, &attr, actor_main, ac);
		pthread_attr_destroy(&attr);
		if (r != 0) {
			free(ac);
			return -r;
		}
		my_actor = ac;
	}
	if ((r = pdk_sup_still_valid(c)) < 0)
		return r;
	ac->job = a;
	sem_post(&ac->go);
	while (sem_wait(&ac->done) < 0)
		;
	return a->r;
}

static long refuse(struct call *c)
{
	pthread_mutex_lock(&c->ns->lock);
	c->ns->refused++;
	pthread_mutex_unlock(&c->ns->lock);
	return -EPERM;
}

__thread bool pdk_fs_may_block;

/* Would a call at pl touch a held path: anything in a held directory, or the name there,
 * st (its lstat; st_mode 0 when missing), held; a pin only when it is moved (moved). */
static bool touches_held(const struct pdk_netsup *ns, const struct place *pl,
			 const struct stat *st, bool moved)
{
	const struct held *h;

	if (!ns->n_held)
		return false;
	if (pl->dir >= 0 && (h = held_of(ns, &pl->st)) && h->kind == HELD_DIR)
		return true;
	if (!st->st_mode || !(h = held_of(ns, st)))
		return false;
	return h->kind != HELD_PIN || moved;
}

/* The same for a call that makes, moves or removes the name at pl. */
static bool touches_held_at(const struct pdk_netsup *ns, const struct place *pl)
{
	struct stat st = {0};

	if (!ns->n_held)
		return false;
	if (pl->dir >= 0 && fstatat(pl->dir, pl->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		st.st_mode = 0;
	return touches_held(ns, pl, &st, true);
}

/* A worker about to wait in the open of the fifo at pl, for a peer (acc: its mode): -1
 * when the run is stopping (it would wait for good), else the fifo, for fifo_wait_end(). */
static int fifo_wait_begin(struct pdk_netsup *ns, const struct place *pl, int acc)
{
	int fd = pl->via >= 0 ? fcntl(pl->via, F_DUPFD_CLOEXEC, 3)
			      : openat(pl->dir, pl->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -1;
	pthread_mutex_lock(&ns->lock);
	if (ns->stopping || ns->n_fifo_waits >= MAX_JOBS) {
		pthread_mutex_unlock(&ns->lock);
		close(fd);
		return -1;
	}
	ns->fifo_waits[ns->n_fifo_waits++] = (struct fifo_wait){.fd = fd, .acc = acc, .peer = -1};
	pthread_mutex_unlock(&ns->lock);
	return fd;
}

static void fifo_wait_end(struct pdk_netsup *ns, int fd)
{
	pthread_mutex_lock(&ns->lock);
	for (size_t i = 0; i < ns->n_fifo_waits; i++) {
		struct fifo_wait *w = &ns->fifo_waits[i];

		if (w->fd != fd)
			continue;
		if (w->peer >= 0)
			close(w->peer);
		*w = ns->fifo_waits[--ns->n_fifo_waits];
		break;
	}
	pthread_mutex_unlock(&ns->lock);
	close(fd);
}

void pdk_fs_release(struct pdk_netsup *ns)
{
	char self[64];

	pthread_mutex_lock(&ns->lock);
	for (size_t i = 0; i < ns->n_fifo_waits; i++) {
		struct fifo_wait *w = &ns->fifo_waits[i];

		/* Kept open until the worker ends: one not waiting yet finds it there. */
		snprintf(self, sizeof(self), "/proc/self/fd/%d", w->fd);
		if (w->peer < 0)
			w->peer = open(self, (w->acc == O_WRONLY ? O_RDONLY : O_WRONLY) | O_NONBLOCK |
						     O_CLOEXEC);
	}
	pthread_mutex_unlock(&ns->lock);
}

/* An open that waits for its peer: a fifo's, but to read and write, or without waiting. */
static bool waits_for_peer(const struct stat *st, uint64_t flags)
{
	return S_ISFIFO(st->st_mode) && (flags & O_ACCMODE) != O_RDWR && !(flags & O_NONBLOCK);
}

/* Where an open that may create reaches: the place at to, after the symbolic links
 * there (the kernel would follow them), as the command sees it; so a link the
 * command made to a missing protected name makes nothing there. 1: a file the command
 * holds, reached through /proc (to->via). */
static long open_place(struct call *c, int root, const struct fsop *op, struct place *to,
		       struct stat *st)
{
	char target[PATH_MAX], base[sizeof(to->path)];
	long r;

	for (int hops = 0;; hops++) {
		if (held_missing(c->ns, to) && !is_git(c->ns, c->req->pid))
			return refuse(c);
		if (fstatat(to->dir, to->name, st, AT_SYMLINK_NOFOLLOW) < 0) {
			st->st_mode = 0;
			if (errno != ENOENT)
				return -errno;
			/* "name/" names a directory, which open does not make. */
			return to->slash ? -EISDIR : 0;
		}
		if (to->slash)
			return S_ISDIR(st->st_mode) ? -EISDIR : -ENOTDIR;
		if (!S_ISLNK(st->st_mode) || (op->flags & (O_NOFOLLOW | O_EXCL)))
			break;
		if ((r = through_proc(to)) != 0) {
			if (r < 0 || fstat(to->via, st) < 0)
				return r < 0 ? r : -errno;
			break;
		}
		if (hops == 40)
			return -ELOOP;
		if ((r = readlinkat(to->dir, to->name, target, sizeof(target) - 1)) < 0)
			return -errno;
		target[r] = '\0';
		snprintf(base, sizeof(base), "%s", to->path);
		place_close(to);
		if ((r = place_of(root, c->req->pid, base, target, to)) < 0)
			return r;
	}
	/* A fifo's open waits for its peer; /dev/tty is the opener's terminal, and the
	 * command, in a session of its own, has none. */
	if (op->kind == FS_OPEN && waits_for_peer(st, op->flags) && !pdk_fs_may_block)
		return PDK_FS_TO_WORKER;
	if (S_ISCHR(st->st_mode) && st->st_rdev == makedev(5, 0))
		return -ENXIO;
	return to->via >= 0;
}

long pdk_fs_do(struct call *c, const struct fsop *op)
{
	pid_t tid = c->req->pid;
	char base[PATH_MAX], path[PATH_MAX], from[PATH_MAX], target[PATH_MAX];
	struct place to = {.dir = -1, .via = -1}, src = {.dir = -1, .via = -1};
	struct act a = {.op = op, .to = &to, .from = &src, .target = target};
	bool two = op->kind == FS_RENAME || op->kind == FS_LINK;
	_cleanup_close_ int root = -1, pidfd = -1;
	struct stat st;
	char proc[64];
	long r;

	if ((r = peek_str(tid, op->path, path, sizeof(path))) < 0)
		return r;
	if (op->kind == FS_SYMLINK && (r = peek_str(tid, op->target, target, sizeof(target))) < 0)
		return r;
	if (two && (r = peek_str(tid, op->from, from, sizeof(from))) < 0)
		return r;
	snprintf(proc, sizeof(proc), "/proc/%d/root", (int)tid);
	if ((root = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	if ((path[0] != '/' && (r = base_of(tid, op->at, base)) < 0) ||
	    (r = place_of(root, tid, base, path, &to)) < 0)
		goto out;
	if (op->kind == FS_OPEN || op->kind == FS_TRUNCATE) {
		int flags = (int)op->flags;

		if ((r = open_place(c, root, op, &to, &st)) < 0)
			goto out;
		/* What writes a held file, or makes one in a held directory: refused. */
		if (touches_held(c->ns, &to, &st, false) &&
		    (!st.st_mode || (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC))) {
			r = refuse(c);
			goto out;
		}
		if (op->kind == FS_TRUNCATE && !S_ISREG(st.st_mode)) {
			r = S_ISDIR(st.st_mode) ? -EISDIR : st.st_mode ? -EINVAL : -ENOENT;
			goto out;
		}
		/* The links are followed above: one swapped in since fails. */
		a.flags = flags | O_NOCTTY | O_CLOEXEC | (r ? 0 : O_NOFOLLOW);
		if (waits_for_peer(&st, op->flags)) {
			int wait = fifo_wait_begin(c->ns, &to, flags & O_ACCMODE);

			if (wait < 0) {
				r = -EINTR;
				goto out;
			}
			r = act(c, &a);
			fifo_wait_end(c->ns, wait);
			goto out;
		}
		r = act(c, &a);
		goto out;
	}
	if ((held_missing(c->ns, &to) && !is_git(c->ns, tid)) || touches_held_at(c->ns, &to)) {
		r = refuse(c);
		goto out;
	}
	if (op->kind == FS_LINK && (op->flags & AT_EMPTY_PATH) && !from[0]) {
		/* The command's descriptor itself (an O_TMPFILE file given a name): linked
		 * through this process's link to it. */
		if ((pidfd = pdk_sup_open_pidfd(tid)) < 0) {
			r = pidfd;
			goto out;
		}
		c->pidfd = pidfd;
		if ((r = pdk_sup_grab(c, op->from_at, &src.via)) < 0)
			goto out;
		snprintf(src.name, sizeof(src.name), "/proc/self/fd/%d", src.via);
		src.dir = AT_FDCWD;
		a.flags = AT_SYMLINK_FOLLOW;
	} else if (two && ((from[0] != '/' && (r = base_of(tid, op->from_at, base)) < 0) ||
			   (r = place_of(root, tid, base, from, &src)) < 0)) {
		goto out;
	} else {
		a.flags = (int)(op->flags & AT_SYMLINK_FOLLOW);
		/* A file the command holds, named through /proc (an O_TMPFILE's). */
		if (op->kind == FS_LINK && (a.flags & AT_SYMLINK_FOLLOW) &&
		    (r = through_proc(&src)) < 0)
			goto out;
	}
	/* An exchange makes the name at from too; a rename takes it away. */
	if (op->kind == FS_RENAME && (((op->flags & RENAME_EXCHANGE) && held_missing(c->ns, &src) &&
				       !is_git(c->ns, tid)) ||
				      touches_held_at(c->ns, &src))) {
		r = refuse(c);
		goto out;
	}
	if (op->kind == FS_UNLINK)
		a.flags = (int)(op->flags & AT_REMOVEDIR);
	if (op->kind == FS_RENAME && ((r = mounted_on(&src)) < 0 || (r = mounted_on(&to)) < 0))
		goto out;
	r = act(c, &a);
out:
	place_close(&to);
	place_close(&src);
	return r;
}

