/* guard.c - the guardian of a confined run: when paddock dies without saying
 * the run is done, it kills the run's cgroup, or the processes marked as the run's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/self.h"
#include "cgroup.h"
#include "guard.h"
#include "core/rawsys.h"
#include "core/util.h"

extern char **environ;

static const int ignored[] = {SIGHUP,  SIGINT,	SIGQUIT, SIGTERM, SIGPIPE, SIGUSR1,
			      SIGUSR2, SIGALRM, SIGTSTP, SIGTTIN, SIGTTOU};

/* A dismissed guardian not yet reaped: waiting for its exit would cost each
 * run a context switch, so it is reaped one run later, or when paddock exits:
 * never left to an init that may not reap (pid 1 of a container is often the
 * agent itself, which waits for its own children only). */
static pid_t stale_guardian;

static bool exit_hook; /* reap_stale runs at exit */

static void reap_stale(void)
{
	while (stale_guardian > 0 && waitpid(stale_guardian, NULL, 0) < 0 && errno == EINTR)
		;
	stale_guardian = 0;
}

/* What a guardian needs: paddock's cgroup and descriptors as the guardian
 * holds them once it has renumbered its fds. */
struct orders {
	int sock; /* its end of the socket */
	int lock; /* the cgroup slot's lock, or -1 */
	int devnull;
	bool has_cg;
	struct pdk_cgroup cg; /* a copy, with the fds renumbered for the guardian */
	size_t mlen;	      /* 0: no marker */
	char marker[256];
	int finish;	      /* a run journal to finish (confine/vet.h), or -1 */
	int exe;	      /* paddock's own executable, to finish it with, or -1 */
	char *const *envp;    /* paddock's environment, for that */
};

/* Everything from here to guardian() runs in the guardian: raw system calls
 * only (rawsys.h), nothing of paddock's but its orders. */

/* Does the environment of the process /proc/NAME hold marker, a whole
 * "NAME=VALUE" entry? Matched as the bytes stream by, so an entry across
 * two reads is found. */
static bool marked(int procfd, const char *name, const char *marker, size_t mlen, char *buf,
		   size_t len)
{
	static const char tail[] = "/environ";
	char path[64];
	size_t plen = 0;
	long n, pos = 0; /* marker bytes matched in this entry; -1: not this entry */
	int fd;

	for (const char *p = name; *p && plen < sizeof(path) - sizeof(tail); p++)
		path[plen++] = *p;
	for (size_t i = 0; i < sizeof(tail); i++)
		path[plen++] = tail[i];
	fd = pdk_raw_openat(procfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	while ((n = pdk_raw_read(fd, buf, len)) > 0) {
		for (long i = 0; i < n; i++) {
			char c = buf[i];

			if (c == '\0' && pos == (long)mlen) {
				pdk_raw_close(fd);
				return true;
			}
			if (c == '\0')
				pos = 0;
			else if (pos >= 0 && pos < (long)mlen && c == marker[pos])
				pos++;
			else
				pos = -1;
		}
	}
	pdk_raw_close(fd);
	return false;
}

/* SIGKILL every process carrying the marker, until a pass over /proc finds
 * none or the time is up. */
static void kill_marked(const struct orders *o, int timeout_ms)
{
	char dents[8192], env[16384];
	pid_t self = pdk_raw_getpid();

	for (int waited = 0; waited <= timeout_ms; waited += 10) {
		int dfd = pdk_raw_openat(AT_FDCWD, "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		int hits = 0;
		long n;

		if (dfd < 0)
			return;
		while ((n = pdk_raw_getdents64(dfd, dents, sizeof(dents))) > 0) {
			for (long off = 0; off < n;) {
				struct dirent64 *d = (struct dirent64 *)(dents + off);
				const char *name = d->d_name;
				pid_t pid = 0;

				off += d->d_reclen;
				for (const char *p = name; *p >= '0' && *p <= '9'; p++)
					pid = pid * 10 + (*p - '0');
				if (pid <= 1 || pid == self ||
				    !marked(dfd, name, o->marker, o->mlen, env, sizeof(env)))
					continue;
				pdk_raw_kill(pid, SIGKILL);
				hits++;
			}
		}
		pdk_raw_close(dfd);
		if (!hits)
			return;
		pdk_raw_nap(10 * 1000 * 1000);
	}
}

/* The guardian; its exit status is what it returns. */
static int guardian(struct orders *o)
{
	char b = 0;
	long n;
	int s_hi, l_hi = -1, f_hi = -1, e_hi = -1, rc = 0;

	/* Its own process group: a kill of paddock's group, or the terminal's
	 * ^C (sent to the foreground group), does not take the guardian along;
	 * and the signals a person or a supervisor sends to stop things,
	 * SIGHUP of a hung-up terminal among them, leave it be. Not a session:
	 * with scheduler autogroups each new session costs a run 0.1 ms. Every
	 * other signal stays blocked, as paddock blocked them for the start:
	 * no handler of paddock's ever runs in the guardian. */
	pdk_raw_setpgid();
	for (size_t i = 0; i < PDK_ARRAY_SIZE(ignored); i++)
		pdk_raw_ignore(ignored[i]);
	/* Hold nothing of paddock's (its output pipes, its stdout) but the
	 * socket and the cgroup slot's lock, which keeps the slot from the
	 * next run until the guardian is done. Both are moved out of the way
	 * first: with paddock's own stdio closed, either could be fd 0-2. */
	s_hi = pdk_raw_fcntl(o->sock, F_DUPFD, 10);
	if (o->lock >= 0)
		l_hi = pdk_raw_fcntl(o->lock, F_DUPFD, 10);
	if (o->finish >= 0) {
		f_hi = pdk_raw_fcntl(o->finish, F_DUPFD, 10);
		e_hi = pdk_raw_fcntl(o->exe, F_DUPFD, 10);
	}
	for (int fd = 0; fd < 3; fd++)
		if (o->devnull != fd)
			pdk_raw_dup3(o->devnull, fd);
	if (s_hi < 0 || (o->lock >= 0 && l_hi < 0) || pdk_raw_dup3(s_hi, 3) < 0 ||
	    (l_hi >= 0 && pdk_raw_dup3(l_hi, 4) < 0))
		return 1;
	/* The journal as fd 5, paddock's executable as fd 6, both kept across the exec. */
	if (f_hi < 0 || e_hi < 0 || pdk_raw_dup3(f_hi, 5) < 0 || pdk_raw_dup3(e_hi, 6) < 0)
		f_hi = -1;
	if (l_hi < 0)
		pdk_raw_close(4);
	if (f_hi < 0) {
		pdk_raw_close(5);
		pdk_raw_close(6);
	}
	pdk_raw_close_from(7);
	do
		n = pdk_raw_read(3, &b, 1);
	while (n == -EINTR);
	if (n == 1 && b == 'd')
		return 0;
	/* paddock is gone and did not clean up: the run must not outlive it. */
	if (o->has_cg)
		rc = pdk_cgroup_kill(&o->cg, 10000) == 0 ? 0 : 1;
	else if (o->mlen)
		kill_marked(o, 10000);
	/* Then what the command made at protected names is undone, by paddock itself: the
	 * journal's lock goes along, so no other run takes it meanwhile. */
	if (f_hi >= 0) {
		static char a0[] = "paddock", a1[] = "__finish", a2[] = "5";
		char *const argv[] = {a0, a1, a2, NULL};

		pdk_raw_close(3);
		pdk_raw_execveat(6, argv, o->envp);
	}
	return rc;
}

/* The end of the guardian's code. */

int pdk_guard_start(struct pdk_guard *g, const struct pdk_cgroup *cg, const char *marker,
		    int devnull, int finish)
{
	struct orders o = {.lock = -1, .devnull = devnull, .finish = -1, .exe = -1};
	sigset_t all, old;
	pid_t pid;
	int sv[2];

	g->fd = -1;
	o.mlen = marker ? strlen(marker) : 0;
	if (o.mlen >= sizeof(o.marker))
		return -ENAMETOOLONG;
	if (o.mlen)
		memcpy(o.marker, marker, o.mlen + 1);
	if (cg) {
		/* The guardian holds the slot's directory as fd 4 and opens
		 * what it needs under it. */
		o.has_cg = true;
		o.lock = cg->lock_fd;
		o.cg = *cg;
		o.cg.lock_fd = 4;
		o.cg.procs_fd = o.cg.current_fd = o.cg.events_fd = -1;
	}
	/* Without its own executable the guardian still kills; the next run then finishes. */
	if (finish >= 0 && (o.exe = pdk_self_open()) >= 0) {
		o.finish = finish;
		o.envp = environ;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		if (o.exe >= 0)
			close(o.exe);
		return -errno;
	}
	o.sock = sv[1];
	/* No signal handler of paddock's may run in the guardian before it
	 * has set its own dispositions; it keeps this mask. A fork, with its
	 * own memory: a process sharing paddock's would share its fate too,
	 * and the kernel's out-of-memory killer takes every process of a
	 * memory it picks. */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0) {
		pdk_raw_exit(guardian(&o));
	}
	if (pid < 0)
		pid = -errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(sv[1]);
	if (o.exe >= 0)
		close(o.exe);
	if (pid < 0) {
		close(sv[0]);
		return pid;
	}
	g->fd = sv[0];
	g->pid = pid;
	if (!exit_hook)
		exit_hook = atexit(reap_stale) == 0;
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

pid_t pdk_guard_stale(void)
{
	return stale_guardian;
}
