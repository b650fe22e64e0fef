/* bwrap_check.c - before the command starts: the sandbox bwrap made holds the
 * writable mounts paddock asked for and no other, each the directory paddock
 * opened. bwrap binds by path; another process renaming a directory in a
 * writable root at the wrong moment could have it bind one from elsewhere. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bwrap_check.h"
#include "../../src/path.h"
#include "../../src/util.h"

static long ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Has the sandbox process pid finished setting up? bwrap drops its last
 * capability right before it waits on --block-fd, so CapEff is 0 from
 * then on and never before. 1, 0, or -errno (-ENOENT: it is gone). */
static int set_up(pid_t pid)
{
	char path[64], buf[4096], *c;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (!(c = strstr(buf, "\nCapEff:")))
		return -ENODATA;
	c += strlen("\nCapEff:");
	c += strspn(c, " \t");
	return c[strspn(c, "0")] == '\n';
}

/* The whole of /proc/PID/FILE, NUL-terminated; NULL (errno) when unreadable. */
static char *slurp(pid_t pid, const char *file)
{
	char path[64];
	size_t len = 0, cap = 16384;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	if (!buf || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		free(buf);
		return NULL;
	}
	while ((n = read(fd, buf + len, cap - 1 - len)) > 0) {
		len += (size_t)n;
		if (len + 1 == cap) {
			char *more = realloc(buf, cap *= 2);
			if (!more) {
				n = -1;
				break;
			}
			buf = more;
		}
	}
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

static bool under_one(const char *p, char *const *dirs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (pdk_path_under(p, dirs[i]))
			return true;
	return false;
}

/* Every writable mount of the sandbox lies under one of dests, or is bwrap's
 * own /dev or /proc: a writable mount anywhere else came from a swap. */
static int only_asked(pid_t pid, char *const *dests, size_t n, char *what, size_t what_len)
{
	static char *const own[] = {"/dev", "/proc"};
	_cleanup_free_ char *info = slurp(pid, "mountinfo");
	char *save = NULL;

	if (!info)
		return -errno;
	for (char *line = strtok_r(info, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *field[6], *f = line;

		/* id parent major:minor root mount-point options ... */
		for (int i = 0; i < 6; i++) {
			field[i] = f;
			f = f ? strchr(f, ' ') : NULL;
			if (f)
				*f++ = '\0';
		}
		if (!field[5] || strncmp(field[5], "rw", 2) || (field[5][2] && field[5][2] != ','))
			continue;
		pdk_mountinfo_unescape(field[4]);
		if (under_one(field[4], own, PDK_ARRAY_SIZE(own)) || under_one(field[4], dests, n))
			continue;
		snprintf(what, what_len, "a writable mount at %s", field[4]);
		return -EXDEV;
	}
	return 0;
}

/* Each of dests, as the sandbox sees it, is the directory fds[i] holds. */
static int same_dirs(pid_t pid, char *const *dests, const int *fds, size_t n, char *what,
		     size_t what_len)
{
	char path[64];
	_cleanup_close_ int root = -1;

	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	if ((root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	for (size_t i = 0; i < n; i++) {
		_cleanup_close_ int fd = pdk_open_dir_nofollow_at(root, dests[i]);
		struct stat in, out;

		if (fd < 0 || fstat(fd, &in) < 0 || fstat(fds[i], &out) < 0 ||
		    in.st_dev != out.st_dev || in.st_ino != out.st_ino) {
			snprintf(what, what_len, "%s is not the directory paddock opened",
				 dests[i]);
			return -EXDEV;
		}
	}
	return 0;
}

int pdk_bwrap_check_mounts(pid_t pid, char *const *dests, const int *fds, size_t n, int timeout_ms,
			   char *what, size_t what_len)
{
	long until = ms_now() + timeout_ms;
	int r;

	what[0] = '\0';
	/* bwrap takes a few milliseconds to set up, its helpers busy on every
	 * processor, and each look costs the kernel some work: one nap of a
	 * millisecond, then a look every 0.2 ms (measured: 1.05x a run's time
	 * under bwrap, against looking every 0.05 ms or at each mount, 1.1x). */
	for (long nap = 1000 * 1000;; nap = 200 * 1000) {
		struct timespec ts = {0, nap};

		nanosleep(&ts, NULL);
		if ((r = set_up(pid)) != 0)
			break;
		if (ms_now() >= until) {
			snprintf(what, what_len, "bwrap did not finish setting up in %d ms",
				 timeout_ms);
			return -ETIMEDOUT;
		}
	}
	if (r < 0)
		return r;
	if ((r = only_asked(pid, dests, n, what, what_len)) < 0)
		return r;
	return same_dirs(pid, dests, fds, n, what, what_len);
}
