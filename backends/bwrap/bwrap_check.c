/* bwrap_check.c - before the command starts: the sandbox bwrap made holds the
 * mounts paddock asked for, each the file or directory paddock opened, and no
 * other writable one. bwrap binds by path; another process renaming a directory in a
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
#include "core/path.h"
#include "core/util.h"

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

/* One line of a mountinfo, its fields cut in place. */
struct mount {
	long id, parent;
	char *root, *point, *fstype;
	bool rw;
};

/* mountinfo's lines: "ID PARENT MAJ:MIN ROOT POINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPER". */
static size_t parse(char *info, struct mount *m, size_t max)
{
	size_t n = 0;
	char *save = NULL;

	for (char *line = strtok_r(info, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[6], *p = line, *dash = strstr(line, " - ");

		if (!dash)
			continue;
		*dash = '\0';
		for (int i = 0; i < 6; i++) {
			f[i] = p;
			p = p ? strchr(p, ' ') : NULL;
			if (p)
				*p++ = '\0';
		}
		if (!f[5])
			continue;
		m[n].id = strtol(f[0], NULL, 10);
		m[n].parent = strtol(f[1], NULL, 10);
		m[n].root = f[3];
		m[n].point = f[4];
		m[n].rw = !strncmp(f[5], "rw", 2) && (!f[5][2] || f[5][2] == ',');
		m[n].fstype = dash + 3;
		*strchrnul(m[n].fstype, ' ') = '\0';
		pdk_mountinfo_unescape(m[n].root);
		pdk_mountinfo_unescape(m[n].point);
		n++;
	}
	return n;
}

/* Another mount sits on m at the same place: m cannot be reached. */
static bool covered(const struct mount *all, size_t n, const struct mount *m)
{
	for (size_t i = 0; i < n; i++)
		if (all[i].parent == m->id && !strcmp(all[i].point, m->point))
			return true;
	return false;
}

/* bwrap's own writable mounts: the fresh /dev (a tmpfs, its devpts, the device nodes it binds
 * from the host's /dev) and /proc. */
static bool bwraps_own(const struct mount *m)
{
	static const char *const nodes[] = {"null",    "zero", "full",	 "random",
					    "urandom", "tty",  "console"};

	if (!strcmp(m->point, "/dev"))
		return !strcmp(m->fstype, "tmpfs") && !strcmp(m->root, "/");
	if (!strcmp(m->point, "/dev/pts"))
		return !strcmp(m->fstype, "devpts");
	if (!strncmp(m->point, "/dev/", 5)) {
		for (size_t i = 0; i < PDK_ARRAY_SIZE(nodes); i++)
			if (!strcmp(m->point + 5, nodes[i]))
				return true;
		return false;
	}
	return pdk_path_under(m->point, "/proc") && !strcmp(m->fstype, "proc");
}

/* The sandbox's mount table against what was asked: see bwrap_check.h. */
static int look(pid_t pid, const struct pdk_bwrap_bind *binds, size_t n, char *what,
		size_t what_len)
{
	_cleanup_free_ char *info = slurp(pid, "mountinfo");
	_cleanup_free_ struct mount *m = NULL;
	_cleanup_close_ int root = -1;
	char path[64];
	size_t nm, max;

	if (!info)
		return -errno;
	max = strlen(info) / 16 + 1; /* no line is shorter */
	if (!(m = calloc(max, sizeof(*m))))
		return -ENOMEM;
	nm = parse(info, m, max);
	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	if ((root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	for (size_t i = 0; i < nm; i++) {
		bool ok = !m[i].rw || covered(m, nm, &m[i]) || bwraps_own(&m[i]);

		for (size_t k = 0; !ok && k < n; k++)
			ok = !binds[k].ro && pdk_path_under(m[i].point, binds[k].dest);
		/* A host mount below a directory the user cannot search (Docker's, another
		 * user's): bwrap cannot make it read-only, nor can the command reach it. */
		if (!ok) {
			_cleanup_close_ int fd = pdk_open_dir_nofollow_at(root, m[i].point);
			ok = fd == -EACCES;
		}
		if (!ok) {
			snprintf(what, what_len, "a writable mount at %s", m[i].point);
			return -EXDEV;
		}
	}

	for (size_t k = 0; k < n; k++) {
		const struct mount *top = NULL;
		struct stat in, out;
		_cleanup_close_ int fd = -1;

		for (size_t i = 0; i < nm; i++)
			if (!strcmp(m[i].point, binds[k].dest) && !covered(m, nm, &m[i]))
				top = &m[i];
		/* A writable bind of a read-only file system is read-only: no matter. */
		if (!top || (binds[k].ro && top->rw)) {
			snprintf(what, what_len, "%s is not a%s mount point", binds[k].dest,
				 binds[k].ro ? " read-only" : "");
			return -EXDEV;
		}
		if (binds[k].fd < 0)
			continue;
		fd = pdk_open_nofollow_at(root, binds[k].dest);
		if (fd < 0 || fstat(fd, &in) < 0 || fstat(binds[k].fd, &out) < 0 ||
		    in.st_dev != out.st_dev || in.st_ino != out.st_ino) {
			snprintf(what, what_len, "%s is not what paddock opened", binds[k].dest);
			return -EXDEV;
		}
	}
	return 0;
}

int pdk_bwrap_check_mounts(pid_t pid, const struct pdk_bwrap_bind *binds, size_t n, int timeout_ms,
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
	return r < 0 ? r : look(pid, binds, n, what, what_len);
}
