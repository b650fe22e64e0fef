/* cgroup.c - a pids cgroup for each confined run: where paddock can make
 * one, the limit, joining it before exec, killing all of it. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "core/path.h"
#include "core/rawsys.h"
#include "core/util.h"

/* What pdk_cgroup_where() found, once per process. */
static struct {
	bool done;
	int result;
	int version;
	int has_kill; /* cgroup.kill writable in a slot: -1 not looked at yet */
	uid_t uid;
	char base[PATH_MAX];
	char why[PATH_MAX + 200];
} where = {.has_kill = -1};

/* snprintf that says when the result was cut: a cut path must never be
 * used. Also keeps paths out of the compiler's truncation warnings. */
static int __attribute__((format(printf, 3, 4))) pathf(char *buf, size_t len, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, len, f, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The whole of a small file the kernel makes in one piece (cgroup and /proc
 * files): a read that returns less than it asked for has all there is, so
 * the read that would return 0 is not made. Its length, or -errno. */
static int read_file(int dfd, const char *path, char *buf, size_t len)
{
	_cleanup_close_ int fd = openat(dfd, path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return -errno;
	while (got < len - 1) {
		size_t want = len - 1 - got;

		n = read(fd, buf + got, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		got += (size_t)n;
		if ((size_t)n < want)
			break;
	}
	buf[got] = '\0';
	return (int)got;
}

/* Open, write, close: 0 or -errno, in bare system calls (the guardian calls it). */
static int write_at(int dfd, const char *path, const char *s, size_t len)
{
	int fd = pdk_raw_openat(dfd, path, O_WRONLY | O_CLOEXEC);
	long n;

	if (fd < 0)
		return fd;
	n = pdk_raw_write(fd, s, len);
	pdk_raw_close(fd);
	return n < 0 ? (int)n : n == (long)len ? 0 : -EIO;
}

/* Is word one of the separated tokens of list? */
static bool has_token(const char *list, const char *word, const char *seps)
{
	size_t wl = strlen(word);

	for (const char *p = list; *p;) {
		size_t n = strcspn(p, seps);
		if (n == wl && strncmp(p, word, wl) == 0)
			return true;
		p += n;
		p += strspn(p, seps);
	}
	return false;
}

/* This process's cgroups, /proc/self/cgroup: read once per process, since
 * the kernel formats every hierarchy's path for it. */
static char self_cgroup[4096];

static bool own_path(bool v2, const char *mroot, char *out, size_t len);

/* The usual mount points, each taken as a mount of its hierarchy's root:
 * reading mountinfo makes the kernel format every mount, which costs each
 * run more than all the rest of finding its cgroup. Only the hierarchy that
 * can hold pids is looked at: a controller is bound to one hierarchy, so a
 * v1 line with pids in /proc/self/cgroup means cgroup v2 has none. */
static void usual_mounts(char *v2, char *v2root, char *v1, char *v1root, size_t len)
{
	char scratch[PATH_MAX];
	bool v1pids = own_path(false, "/", scratch, sizeof(scratch));
	struct statfs sf;

	v2[0] = v1[0] = '\0';
	if (v1pids) {
		if (statfs("/sys/fs/cgroup/pids", &sf) == 0 && sf.f_type == CGROUP_SUPER_MAGIC)
			pathf(v1, len, "/sys/fs/cgroup/pids");
	} else if (statfs("/sys/fs/cgroup", &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC) {
		pathf(v2, len, "/sys/fs/cgroup");
	} else if (statfs("/sys/fs/cgroup/unified", &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC) {
		pathf(v2, len, "/sys/fs/cgroup/unified");
	}
	pathf(v2root, len, "/");
	pathf(v1root, len, "/");
}

/* The cgroup2 mount and the cgroup v1 mount carrying pids, with their roots. */
static void find_mounts(char *v2, char *v2root, char *v1, char *v1root, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;

	v2[0] = v1[0] = '\0';
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		char *sep = strstr(line, " - "), *fields[6] = {0}, *save = NULL, *rest[3] = {0};
		size_t i = 0;

		if (!sep)
			continue;
		*sep = '\0';
		for (char *t = strtok_r(line, " ", &save); t && i < 6;
		     t = strtok_r(NULL, " ", &save))
			fields[i++] = t;
		i = 0;
		for (char *t = strtok_r(sep + 3, " \n", &save); t && i < 3;
		     t = strtok_r(NULL, " \n", &save))
			rest[i++] = t;
		if (!fields[4] || !rest[2])
			continue;
		pdk_mountinfo_unescape(fields[3]);
		pdk_mountinfo_unescape(fields[4]);
		if (!strcmp(rest[0], "cgroup2") && !v2[0]) {
			pathf(v2, len, "%s", fields[4]);
			pathf(v2root, len, "%s", fields[3]);
		} else if (!strcmp(rest[0], "cgroup") && has_token(rest[2], "pids", ",") &&
			   !v1[0]) {
			pathf(v1, len, "%s", fields[4]);
			pathf(v1root, len, "%s", fields[3]);
		}
	}
	free(line);
	fclose(f);
}

/* This process's cgroup path in the v2 hierarchy ("0::/x") or in the v1
 * hierarchy holding pids ("8:pids:/x"), relative to the mount's root. */
static bool own_path(bool v2, const char *mroot, char *out, size_t len)
{
	for (const char *l = self_cgroup; *l; l = strchr(l, '\n'), l = l ? l + 1 : "") {
		const char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		size_t plen = strcspn(c2 ? c2 + 1 : "", "\n"), rl = strlen(mroot);
		char ctl[256];
		const char *path;

		if (!c2 || (size_t)(c2 - c1) > sizeof(ctl))
			continue;
		memcpy(ctl, c1 + 1, (size_t)(c2 - c1 - 1));
		ctl[c2 - c1 - 1] = '\0';
		if (v2 ? !(c1 == l + 1 && l[0] == '0' && !ctl[0]) : !has_token(ctl, "pids", ","))
			continue;
		path = c2 + 1;
		/* A mount of a subtree (a container) shows paths from its root. */
		if (strcmp(mroot, "/") != 0 && rl <= plen && strncmp(path, mroot, rl) == 0 &&
		    (path[rl] == '/' || rl == plen)) {
			path += rl;
			plen -= rl;
		}
		return (plen ? pathf(out, len, "%.*s", (int)plen, path) : pathf(out, len, "/")) ==
		       0;
	}
	return false;
}

static bool only_me(const char *cgdir)
{
	char path[PATH_MAX + 16], buf[256];
	char *end;
	long pid;

	pathf(path, sizeof(path), "%s/cgroup.procs", cgdir);
	if (read_file(AT_FDCWD, path, buf, sizeof(buf)) <= 0)
		return false;
	pid = strtol(buf, &end, 10);
	return pid == (long)getpid() && (*end == '\0' || (*end == '\n' && end[1] == '\0'));
}

/* cgroup v2: runs' cgroups go beside paddock's own. When paddock's cgroup
 * already hands pids down (the root), directly under it; when paddock is
 * alone in a delegated cgroup, paddock first moves into a leaf of its own.
 * -ENOENT, version left at 0, when paddock's cgroup has no pids controller. */
static int where_v2(const char *own)
{
	char path[PATH_MAX + 64], buf[512];
	bool handed;

	/* Only a controller the cgroup has can be handed down: when
	 * subtree_control names pids, cgroup.controllers need not be read. */
	pathf(path, sizeof(path), "%s/cgroup.subtree_control", own);
	handed = read_file(AT_FDCWD, path, buf, sizeof(buf)) >= 0 && has_token(buf, "pids", " \n");
	if (!handed) {
		char cpath[PATH_MAX + 64];

		if (pathf(cpath, sizeof(cpath), "%s/cgroup.controllers", own) < 0 ||
		    read_file(AT_FDCWD, cpath, buf, sizeof(buf)) < 0 ||
		    !has_token(buf, "pids", " \n"))
			return -ENOENT;
	}
	where.version = 2;
	if (handed && access(own, W_OK) == 0) {
		pathf(where.base, sizeof(where.base), "%s", own);
		return 0;
	}
	if (access(own, W_OK) < 0 || access(path, W_OK) < 0) {
		pathf(where.why, sizeof(where.why),
		      "cgroup v2: paddock's cgroup %s is not "
		      "delegated to this user (not writable)",
		      own);
		return -EACCES;
	}
	if (!only_me(own)) {
		pathf(where.why, sizeof(where.why),
		      "cgroup v2: paddock's cgroup %s holds other "
		      "processes; start paddock in a delegated cgroup of its own (systemd-run "
		      "--user --scope -p Delegate=yes)",
		      own);
		return -EBUSY;
	}
	char leaf[PATH_MAX + 64];
	int r;

	pathf(leaf, sizeof(leaf), "%s/paddock.self", own);
	r = mkdir(leaf, 0755) < 0 && errno != EEXIST ? -errno : 0;
	if (r == 0) {
		pathf(path, sizeof(path), "%s/cgroup.procs", leaf);
		r = write_at(AT_FDCWD, path, "0", 1);
	}
	if (r == 0) {
		pathf(path, sizeof(path), "%s/cgroup.subtree_control", own);
		r = write_at(AT_FDCWD, path, "+pids", 5);
	}
	if (r < 0) {
		pathf(where.why, sizeof(where.why),
		      "cgroup v2: cannot move paddock into a leaf "
		      "of %s to hand the pids controller down: %s",
		      own, strerror(-r));
		return r;
	}
	pathf(where.base, sizeof(where.base), "%s", own);
	return 0;
}

int pdk_cgroup_where(int *ret_version, const char **ret_base, const char **ret_why)
{
	char v2[PATH_MAX], v2root[PATH_MAX], v1[PATH_MAX], v1root[PATH_MAX], rel[PATH_MAX];
	char own[PATH_MAX];

	/* The usual mount points first; mountinfo when they do not lead to
	 * this process's own cgroup (a container that mounts a subtree). */
	for (int pass = 0; !where.done && pass < 2; pass++) {
		where.version = 0;
		where.result = -ENOENT;
		if (pass == 0) {
			where.uid = getuid();
			if (read_file(AT_FDCWD, "/proc/self/cgroup", self_cgroup,
				      sizeof(self_cgroup)) < 0)
				self_cgroup[0] = '\0';
			usual_mounts(v2, v2root, v1, v1root, PATH_MAX);
		} else {
			find_mounts(v2, v2root, v1, v1root, PATH_MAX);
		}
		pathf(where.why, sizeof(where.why),
		      "no pids controller: neither cgroup v2 with "
		      "pids nor a cgroup v1 pids hierarchy is mounted");
		if (v2[0] && own_path(true, v2root, rel, sizeof(rel)) &&
		    pathf(own, sizeof(own), "%s%s", v2, strcmp(rel, "/") ? rel : "") == 0) {
			int r = where_v2(own);

			if (where.version == 2)
				where.result = r;
		}
		if (where.version == 0 && v1[0] && own_path(false, v1root, rel, sizeof(rel)) &&
		    pathf(own, sizeof(own), "%s%s", v1, strcmp(rel, "/") ? rel : "") == 0) {
			where.version = 1;
			if (access(own, W_OK) == 0) {
				pathf(where.base, sizeof(where.base), "%s", own);
				where.result = 0;
			} else {
				pathf(where.why, sizeof(where.why),
				      "cgroup v1: the pids cgroup %s is "
				      "not writable by this user",
				      own);
				where.result = -EACCES;
			}
		}
		if (where.result == 0)
			where.why[0] = '\0';
		where.done = where.result == 0 || pass == 1;
	}
	if (ret_version)
		*ret_version = where.version;
	if (ret_base)
		*ret_base = where.result == 0 ? where.base : NULL;
	if (ret_why)
		*ret_why = where.why;
	return where.result;
}

/* The first process to enter a newly made cgroup pays for the kernel's
 * bookkeeping (about 10 ms on cgroup v1); later ones do not. So the runs
 * of a user reuse a few slots, paddock-UID-K, each held with flock(2) on its
 * directory while a run (and its guardian) uses it. */
#define SLOTS 64

/* Take the first free slot: its directory (in dir) open and locked in
 * cg->lock_fd. */
/* The first free slot from slot from on, locked: its number, or -errno. */
static int take_slot(struct pdk_cgroup *cg, const char *base, char *dir, size_t len, int from)
{
	int r = -EAGAIN;

	for (int k = from; k < SLOTS; k++) {
		if (pathf(dir, len, "%s/paddock-%ld-%d", base, (long)where.uid, k) < 0)
			return -ENAMETOOLONG;
		/* Made once, then only opened: a slot that exists is the rule. */
		int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			if (mkdir(dir, 0755) < 0 && errno != EEXIST)
				return -errno;
			fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		}
		if (fd < 0)
			return -errno;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
			cg->lock_fd = fd;
			return k;
		}
		r = -errno;
		close(fd);
		if (r != -EWOULDBLOCK)
			return r;
	}
	return r;
}

static void free_fds(struct pdk_cgroup *cg)
{
	int *fds[] = {&cg->procs_fd, &cg->lock_fd, &cg->current_fd, &cg->events_fd};

	for (size_t i = 0; i < PDK_ARRAY_SIZE(fds); i++)
		if (*fds[i] >= 0)
			close(steal_fd(fds[i]));
}

int pdk_cgroup_new(unsigned long limit, struct pdk_cgroup **ret, const char **ret_why)
{
	static char why[PATH_MAX + 200];
	char dir[PATH_MAX], num[32];
	const char *base;
	int version, r, len;
	long hits;

	r = pdk_cgroup_where(&version, &base, ret_why);
	if (r < 0)
		return r;
	_cleanup_free_ struct pdk_cgroup *cg = calloc(1, sizeof(*cg));
	if (!cg)
		return -ENOMEM;
	cg->procs_fd = cg->lock_fd = cg->current_fd = cg->events_fd = -1;
	for (int from = 0;; from = r + 1) {
		r = take_slot(cg, base, dir, sizeof(dir), from);
		if (r < 0) {
			pathf(why, sizeof(why), "cannot make or take a cgroup in %s: %s", base,
			      strerror(-r));
			*ret_why = why;
			return r;
		}
		/* cgroup.kill came with Linux 5.14: looked at once per process. */
		if (version == 2 && where.has_kill < 0)
			where.has_kill = faccessat(cg->lock_fd, "cgroup.kill", W_OK, 0) == 0;
		cg->has_kill = version == 2 && where.has_kill > 0;
		/* Kept open, for the emptiness checks here and after the run;
		 * without it (it came with the pids controller) they read
		 * cgroup.procs. */
		cg->current_fd = openat(cg->lock_fd, "pids.current", O_RDONLY | O_CLOEXEC);
		/* A slot is empty between runs; make sure, before the limit is
		 * set. One whose leftovers do not die (frozen, stuck in the
		 * kernel) is passed over: they would count against this run. */
		if (pdk_cgroup_kill(cg, 1000) == 0)
			break;
		free_fds(cg);
	}
	len = snprintf(num, sizeof(num), "%lu", limit);
	r = write_at(cg->lock_fd, "pids.max", num, (size_t)len);
	/* The child enters by writing "0". On v1, into tasks: a thread
	 * moving itself skips the global lock a whole process's move takes,
	 * which can wait an RCU grace period (about 10 ms); the child is
	 * single-threaded, so the thread is the process. */
	if (r == 0 && (cg->procs_fd = openat(cg->lock_fd, version == 1 ? "tasks" : "cgroup.procs",
					     O_WRONLY | O_CLOEXEC)) < 0)
		r = -errno;
	if (r < 0) {
		pathf(why, sizeof(why), "cannot set up the cgroup %s: %s", dir, strerror(-r));
		*ret_why = why;
		free_fds(cg);
		return r;
	}
	/* pids.events counts since the cgroup was made: this run's hits are
	 * what it adds. */
	cg->events_fd = openat(cg->lock_fd, "pids.events", O_RDONLY | O_CLOEXEC);
	hits = pdk_cgroup_limit_hits(cg);
	cg->hits_before = hits > 0 ? hits : 0;
	*ret = steal_pointer(&cg);
	return 0;
}

int pdk_cgroup_enter(const struct pdk_cgroup *cg)
{
	return write(cg->procs_fd, "0", 1) == 1 ? 0 : -errno;
}

int pdk_cgroup_procs_fd(const struct pdk_cgroup *cg)
{
	return cg->procs_fd;
}

/* A small file of the cgroup's, from the start: through fd when it is kept
 * open (the kernel makes it afresh at offset 0), else opened under the
 * cgroup's directory. Its length or -errno. Bare system calls. */
static long read_cg(const struct pdk_cgroup *cg, int fd, const char *name, char *buf, size_t len)
{
	long n;

	if (fd >= 0) {
		n = pdk_raw_pread(fd, buf, len - 1, 0);
	} else {
		fd = pdk_raw_openat(cg->lock_fd, name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fd;
		n = pdk_raw_read(fd, buf, len - 1);
		pdk_raw_close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

long pdk_cgroup_limit_hits(const struct pdk_cgroup *cg)
{
	char buf[256];
	long r = read_cg(cg, cg->events_fd, "pids.events", buf, sizeof(buf));

	if (r < 0)
		return r;
	for (char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, "max ", 4) == 0)
			return strtol(p + 4, NULL, 10) - cg->hits_before;
	return -ENODATA;
}

/* Is nothing charged to the cgroup (pids.current is 0)? It counts every
 * task, forks in flight and unreaped zombies too, so 0 is a sure "empty";
 * and it costs a fraction of reading cgroup.procs, for which the kernel
 * makes and sorts a list (v1). Bare system calls. */
static bool none_charged(const struct pdk_cgroup *cg)
{
	char buf[32];
	long n = read_cg(cg, cg->current_fd, "pids.current", buf, sizeof(buf));

	return n == 2 && buf[0] == '0' && buf[1] == '\n';
}

/* Kill every pid listed in dfd/path but spare, as pdk_kill_listed().
 * Bare system calls: the guardian calls it. */
static int kill_listed_at(int dfd, const char *path, pid_t spare)
{
	char buf[4096];
	int fd = pdk_raw_openat(dfd, path, O_RDONLY | O_CLOEXEC), count = 0;
	long pid = -1, n;

	if (fd < 0)
		return fd;
	/* A pid at a time across reads: one cut at the end of a read must not
	 * be taken for another process's. */
	while ((n = pdk_raw_read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (n == -EINTR)
				continue;
			break;
		}
		for (long i = 0; i < n; i++) {
			if (buf[i] >= '0' && buf[i] <= '9') {
				pid = (pid < 0 ? 0 : pid * 10) + (buf[i] - '0');
				continue;
			}
			if (pid > 0 && pid != spare) {
				pdk_raw_kill((pid_t)pid, SIGKILL);
				count++;
			}
			pid = -1;
		}
	}
	if (pid > 0 && pid != spare) {
		pdk_raw_kill((pid_t)pid, SIGKILL);
		count++;
	}
	pdk_raw_close(fd);
	return count;
}

bool pdk_cgroup_settled(const struct pdk_cgroup *cg)
{
	return none_charged(cg);
}

int pdk_kill_listed(const char *path, pid_t spare)
{
	return kill_listed_at(AT_FDCWD, path, spare);
}

int pdk_cgroup_kill(const struct pdk_cgroup *cg, int timeout_ms)
{
	long until;
	bool killed = false;
	int n;

	if (none_charged(cg))
		return 0;
	n = kill_listed_at(cg->lock_fd, "cgroup.procs", 0);
	if (n == 0 || n == -ENOENT)
		return 0;
	until = pdk_raw_ms_now() + timeout_ms;
	/* cgroup.kill takes the whole tree at once, forks in flight too.
	 * Without it, pids.max 0 first: nothing in the cgroup can fork any
	 * more, so one sweep after another empties it. */
	if (cg->has_kill)
		killed = write_at(cg->lock_fd, "cgroup.kill", "1", 1) == 0;
	if (!killed)
		write_at(cg->lock_fd, "pids.max", "0", 1);
	for (long ns = 20 * 1000;; ns = ns < 1000 * 1000 ? ns * 2 : ns) {
		n = kill_listed_at(cg->lock_fd, "cgroup.procs", 0);
		if (n == 0 || n == -ENOENT)
			return 0;
		if (pdk_raw_ms_now() >= until)
			return -ETIMEDOUT;
		pdk_raw_nap(ns);
	}
}

void pdk_cgroup_free(struct pdk_cgroup *cg)
{
	if (!cg)
		return;
	free_fds(cg);
	free(cg);
}
