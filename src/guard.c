/* guard.c - the guardian of a confined run: when paddock dies without saying
 * the run is done, it kills the run's cgroup, or the processes marked as the run's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "guard.h"
#include "util.h"

static const int ignored[] = {SIGHUP,  SIGINT,	SIGQUIT, SIGTERM, SIGPIPE, SIGUSR1,
			      SIGUSR2, SIGALRM, SIGTSTP, SIGTTIN, SIGTTOU};

/* A dismissed guardian not yet reaped: waiting for its exit would cost each
 * run a context switch, so it is reaped one run later (or by init). */
static pid_t stale_guardian;

#ifdef __linux__
/* Does the environment of pid hold marker ("NAME=VALUE", a whole entry)?
 * Read in chunks; the last mlen + 1 bytes of one are looked at again with
 * the next, so an entry across the two is found. */
static bool marked(const char *pid, const char *marker, size_t mlen)
{
	static char buf[65536];
	char path[64] = "/proc/";
	size_t keep, plen = 6;
	bool found = false;
	ssize_t n;
	int fd;

	for (const char *p = pid; *p && plen < sizeof(path) - 9; p++)
		path[plen++] = *p;
	memcpy(path + plen, "/environ", 9);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* A NUL in front: the first entry starts like every other. */
	buf[0] = '\0';
	keep = 1;
	while (!found && (n = read(fd, buf + keep, sizeof(buf) - keep)) > 0) {
		size_t len = keep + (size_t)n;

		for (size_t i = 0; i + 1 + mlen < len && !found; i++)
			found = buf[i] == '\0' && buf[i + 1 + mlen] == '\0' &&
				memcmp(buf + i + 1, marker, mlen) == 0;
		keep = len < mlen + 1 ? len : mlen + 1;
		memmove(buf, buf + len - keep, keep);
	}
	close(fd);
	return found;
}

/* SIGKILL every process carrying marker, until a pass over /proc finds none
 * or the time is up. Async-signal-safe: raw getdents64, no stdio. */
static void kill_marked(const char *marker, int timeout_ms)
{
	char dents[8192];
	size_t mlen = strlen(marker);

	for (int waited = 0; waited <= timeout_ms; waited += 10) {
		int dfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC), hits = 0;
		long n;

		if (dfd < 0)
			return;
		while ((n = syscall(SYS_getdents64, dfd, dents, sizeof(dents))) > 0) {
			for (long off = 0; off < n;) {
				struct dirent64 *d = (struct dirent64 *)(dents + off);
				const char *name = d->d_name;
				pid_t pid = 0;

				off += d->d_reclen;
				for (const char *p = name; *p >= '0' && *p <= '9'; p++)
					pid = pid * 10 + (*p - '0');
				if (pid <= 1 || pid == getpid() || !marked(name, marker, mlen))
					continue;
				kill(pid, SIGKILL);
				hits++;
			}
		}
		close(dfd);
		if (!hits)
			return;
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}
#endif

/* The guardian: async-signal-safe calls only, as between fork and exec. */
static void __attribute__((noreturn))
guardian(const struct pdk_cgroup *cg, const char *marker, int sock, int devnull)
{
	struct sigaction ign;
	sigset_t none;
	char b = 0;
	ssize_t n;

	/* Its own session: a kill of paddock's process group, or the
	 * terminal's ^C, does not take the guardian along; and the signals a
	 * person or a supervisor sends to stop things leave it be. */
	setsid();
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	for (size_t i = 0; i < PDK_ARRAY_SIZE(ignored); i++)
		sigaction(ignored[i], &ign, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	dup2(devnull, 0);
	dup2(devnull, 1);
	dup2(devnull, 2);
	/* Hold nothing of paddock's (its output pipes, its stdout) but the
	 * socket and the cgroup slot's lock, which keeps the slot from the
	 * next run until the guardian is done. */
	int s_hi = fcntl(sock, F_DUPFD, 10);
	int l_hi = cg ? fcntl(cg->lock_fd, F_DUPFD, 10) : -1;
	if (s_hi < 0 || (cg && l_hi < 0) || dup2(s_hi, 3) < 0 || (cg && dup2(l_hi, 4) < 0))
		_exit(1);
#ifdef SYS_close_range
	syscall(SYS_close_range, cg ? 5U : 4U, ~0U, 0U);
#endif
	sock = 3;
	do
		n = read(sock, &b, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1 && b == 'd')
		_exit(0);
	/* paddock is gone and did not clean up: the run must not outlive it. */
	if (cg)
		_exit(pdk_cgroup_kill(cg, 10000) == 0 ? 0 : 1);
#ifdef __linux__
	if (marker)
		kill_marked(marker, 10000);
#endif
	_exit(0);
}

int pdk_guard_start(struct pdk_guard *g, const struct pdk_cgroup *cg, const char *marker,
		    int devnull)
{
	int sv[2];
	pid_t pid;

	g->fd = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int e = errno;
		close(sv[0]);
		close(sv[1]);
		return -e;
	}
	if (pid == 0) {
		close(sv[0]);
		guardian(cg, marker, sv[1], devnull);
	}
	close(sv[1]);
	g->fd = sv[0];
	g->pid = pid;
	return 0;
}

void pdk_guard_stop(struct pdk_guard *g, bool done)
{
	if (g->fd < 0)
		return;
	if (done)
		(void)!send(g->fd, "d", 1, MSG_NOSIGNAL);
	close(g->fd);
	g->fd = -1;
	if (stale_guardian > 0)
		waitpid(stale_guardian, NULL, WNOHANG);
	stale_guardian = waitpid(g->pid, NULL, WNOHANG) == 0 ? g->pid : 0;
}
