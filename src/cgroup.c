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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <linux/magic.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "path.h"
#include "util.h"

/* What pdk_cgroup_where() found, once per process. */
static struct {
	bool done;
	int result;
	int version;
	char base[PATH_MAX];
	char why[PATH_MAX + 200];
} where;

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

static int read_file(const char *path, char *buf, size_t len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	buf[got] = '\0';
	return (int)got;
}

/* Async-signal-safe: open, write, close. */
static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(s);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
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

/* The usual mount points, each taken as a mount of its hierarchy's root:
 * reading mountinfo makes the kernel format every mount, which costs each
 * run more than all the rest of finding its cgroup. */
static void usual_mounts(char *v2, char *v2root, char *v1, char *v1root, size_t len)
{
	struct statfs sf;

	v2[0] = v1[0] = '\0';
	if (statfs("/sys/fs/cgroup", &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC)
		pathf(v2, len, "/sys/fs/cgroup");
	else if (statfs("/sys/fs/cgroup/unified", &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC)
		pathf(v2, len, "/sys/fs/cgroup/unified");
	if (statfs("/sys/fs/cgroup/pids", &sf) == 0 && sf.f_type == CGROUP_SUPER_MAGIC)
		pathf(v1, len, "/sys/fs/cgroup/pids");
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
	FILE *f = fopen("/proc/self/cgroup", "re");
	char *line = NULL;
	size_t cap = 0;
	bool found = false;

	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		char *path;

		if (!c2)
			continue;
		*c2 = '\0';
		path = c2 + 1;
		path[strcspn(path, "\n")] = '\0';
		if (v2 ? strcmp(line, "0:") != 0 : !has_token(c1 + 1, "pids", ","))
			continue;
		/* A mount of a subtree (a container) shows paths from its root. */
		size_t rl = strlen(mroot);
		if (strcmp(mroot, "/") != 0 && strncmp(path, mroot, rl) == 0 &&
		    (path[rl] == '/' || !path[rl]))
			path += rl;
		pathf(out, len, "%s", *path ? path : "/");
		found = true;
	}
	free(line);
	fclose(f);
	return found;
}

static bool only_me(const char *cgdir)
{
	char path[PATH_MAX + 16], buf[256];
	char *end;
	long pid;

	pathf(path, sizeof(path), "%s/cgroup.procs", cgdir);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return false;
	pid = strtol(buf, &end, 10);
	return pid == (long)getpid() && (*end == '\0' || (*end == '\n' && end[1] == '\0'));
}

/* cgroup v2: runs' cgroups go beside paddock's own. When paddock's cgroup
 * already hands pids down (the root), directly under it; when paddock is
 * alone in a delegated cgroup, paddock first moves into a leaf of its own. */
static int where_v2(const char *own)
{
	char path[PATH_MAX + 64], buf[512];

	pathf(path, sizeof(path), "%s/cgroup.subtree_control", own);
	if (read_file(path, buf, sizeof(buf)) >= 0 && has_token(buf, "pids", " \n") &&
	    access(own, W_OK) == 0) {
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
		r = write_file(path, "0");
	}
	if (r == 0) {
		pathf(path, sizeof(path), "%s/cgroup.subtree_control", own);
		r = write_file(path, "+pids");
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
	char own[PATH_MAX], cpath[PATH_MAX], buf[512];

	/* The usual mount points first; mountinfo when they do not lead to
	 * this process's own cgroup (a container that mounts a subtree). */
	for (int pass = 0; !where.done && pass < 2; pass++) {
		where.version = 0;
		where.result = -ENOENT;
		if (pass == 0)
			usual_mounts(v2, v2root, v1, v1root, PATH_MAX);
		else
			find_mounts(v2, v2root, v1, v1root, PATH_MAX);
		pathf(where.why, sizeof(where.why),
		      "no pids controller: neither cgroup v2 with "
		      "pids nor a cgroup v1 pids hierarchy is mounted");
		if (v2[0] && own_path(true, v2root, rel, sizeof(rel))) {
			if (pathf(own, sizeof(own), "%s%s", v2, strcmp(rel, "/") ? rel : "") == 0 &&
			    pathf(cpath, sizeof(cpath), "%s/cgroup.controllers", own) == 0 &&
			    read_file(cpath, buf, sizeof(buf)) >= 0 &&
			    has_token(buf, "pids", " \n")) {
				where.version = 2;
				where.result = where_v2(own);
			}
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

static int take_slot(struct pdk_cgroup *cg, const char *base)
{
	int r = -EAGAIN;

	for (int k = 0; k < SLOTS; k++) {
		if (pathf(cg->dir, sizeof(cg->dir), "%s/paddock-%ld-%d", base, (long)getuid(),
			  k) < 0)
			return -ENAMETOOLONG;
		if (mkdir(cg->dir, 0755) < 0 && errno != EEXIST)
			return -errno;
		int fd = open(cg->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
			cg->lock_fd = fd;
			return 0;
		}
		r = -errno;
		close(fd);
		if (r != -EWOULDBLOCK)
			return r;
	}
	return r;
}

int pdk_cgroup_new(unsigned long limit, struct pdk_cgroup **ret, const char **ret_why)
{
	static char why[PATH_MAX + 200];
	const char *base;
	char num[32];
	int version, r;
	long hits;

	r = pdk_cgroup_where(&version, &base, ret_why);
	if (r < 0)
		return r;
	_cleanup_free_ struct pdk_cgroup *cg = calloc(1, sizeof(*cg));
	if (!cg)
		return -ENOMEM;
	cg->procs_fd = cg->lock_fd = -1;
	r = take_slot(cg, base);
	if (r < 0) {
		pathf(why, sizeof(why), "cannot make or take a cgroup in %s: %s", base,
		      strerror(-r));
		*ret_why = why;
		return r;
	}
	if (pathf(cg->procs, sizeof(cg->procs), "%s/cgroup.procs", cg->dir) < 0 ||
	    pathf(cg->pids_max, sizeof(cg->pids_max), "%s/pids.max", cg->dir) < 0 ||
	    (version == 2 && pathf(cg->kill, sizeof(cg->kill), "%s/cgroup.kill", cg->dir) < 0)) {
		close(cg->lock_fd);
		return -ENAMETOOLONG;
	}
	/* cgroup.kill came with Linux 5.14. */
	if (version == 2 && access(cg->kill, W_OK) < 0)
		cg->kill[0] = '\0';
	/* A slot is empty between runs; make sure, before the limit is set. */
	pdk_cgroup_kill(cg, 1000);
	pathf(num, sizeof(num), "%lu", limit);
	r = write_file(cg->pids_max, num);
	if (r == 0) {
		/* The child enters by writing "0". On v1, into tasks: a thread
		 * moving itself skips the global lock a whole process's move
		 * takes, which can wait an RCU grace period (about 10 ms); the
		 * child is single-threaded, so the thread is the process. */
		char enter[PATH_MAX + 16];
		if (pathf(enter, sizeof(enter), "%s/%s", cg->dir,
			  version == 1 ? "tasks" : "cgroup.procs") < 0)
			r = -ENAMETOOLONG;
		else if ((cg->procs_fd = open(enter, O_WRONLY | O_CLOEXEC)) < 0)
			r = -errno;
	}
	if (r < 0) {
		pathf(why, sizeof(why), "cannot set up the cgroup %s: %s", cg->dir, strerror(-r));
		*ret_why = why;
		close(cg->lock_fd);
		return r;
	}
	/* pids.events counts since the cgroup was made: this run's hits are
	 * what it adds. */
	hits = pdk_cgroup_limit_hits(cg);
	cg->hits_before = hits > 0 ? hits : 0;
	*ret = steal_pointer(&cg);
	return 0;
}

int pdk_cgroup_enter(const struct pdk_cgroup *cg)
{
	return write(cg->procs_fd, "0", 1) == 1 ? 0 : -errno;
}

long pdk_cgroup_limit_hits(const struct pdk_cgroup *cg)
{
	char path[PATH_MAX + 16], buf[256];
	int r;

	pathf(path, sizeof(path), "%s/pids.events", cg->dir);
	r = read_file(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	for (char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, "max ", 4) == 0)
			return strtol(p + 4, NULL, 10) - cg->hits_before;
	return -ENODATA;
}

static long ms_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void nap(long ns)
{
	struct timespec ts = {0, ns};
	nanosleep(&ts, NULL);
}

int pdk_kill_listed(const char *path, pid_t spare)
{
	char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC), count = 0;
	long pid = -1;
	ssize_t n;

	if (fd < 0)
		return -errno;
	/* A pid at a time across reads: one cut at the end of a read must not
	 * be taken for another process's. */
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] >= '0' && buf[i] <= '9') {
				pid = (pid < 0 ? 0 : pid * 10) + (buf[i] - '0');
				continue;
			}
			if (pid > 0 && pid != spare) {
				kill((pid_t)pid, SIGKILL);
				count++;
			}
			pid = -1;
		}
	}
	if (pid > 0 && pid != spare) {
		kill((pid_t)pid, SIGKILL);
		count++;
	}
	close(fd);
	return count;
}

int pdk_cgroup_kill(const struct pdk_cgroup *cg, int timeout_ms)
{
	long until = ms_now() + timeout_ms;
	bool killed = false;
	int n = pdk_kill_listed(cg->procs, 0);

	if (n == 0 || n == -ENOENT)
		return 0;
	/* cgroup.kill takes the whole tree at once, forks in flight too.
	 * Without it, pids.max 0 first: nothing in the cgroup can fork any
	 * more, so one sweep after another empties it. */
	if (cg->kill[0])
		killed = write_file(cg->kill, "1") == 0;
	if (!killed)
		write_file(cg->pids_max, "0");
	for (long ns = 20 * 1000;; ns = ns < 1000 * 1000 ? ns * 2 : ns) {
		n = pdk_kill_listed(cg->procs, 0);
		if (n == 0 || n == -ENOENT)
			return 0;
		if (ms_now() >= until)
			return -ETIMEDOUT;
		nap(ns);
	}
}

void pdk_cgroup_free(struct pdk_cgroup *cg)
{
	if (!cg)
		return;
	if (cg->procs_fd >= 0)
		close(cg->procs_fd);
	close(cg->lock_fd);
	free(cg);
}
