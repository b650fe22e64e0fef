/* guard.c - the guardian of a confined run: when paddock dies without saying
 * the run is done, it kills the run's cgroup, or the processes marked as the run's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
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

/* A guardian dismissed while still at work (paddock could not clear the run,
 * so it kills on for up to 10 s): reaped one run later, or when paddock exits;
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
	long kill_at;	      /* pdk_raw_ms_now() past which the run dies anyway; 0: never */
	char *const *envp;    /* paddock's environment, for that */
	pid_t (*spawn)(void *arg); /* starts the command as the guardian's child; NULL: none */
	void *spawn_arg;
	pid_t child;		   /* the command, once started */
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

/* Reap every child that has ended; the command's status into *ws, and
 * *done set, when it is among them. */
static void reap_children(const struct orders *o, int *ws, bool *done)
{
	int status;
	long w;

	while ((w = pdk_raw_syscall(SYS_wait4, -1, (long)&status, WNOHANG | __WALL, 0, 0)) > 0) {
		if (o->child > 0 && w == o->child) {
			*ws = status;
			*done = true;
		}
	}
}

/* SIGKILL every child the guardian has: as a subreaper it inherits every
 * orphan of the run. How many were signalled. */
static int kill_children(void)
{
	char buf[4096];
	long n, pid = 0;
	int fd, hits = 0;

	fd = pdk_raw_openat(AT_FDCWD, "/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while ((n = pdk_raw_read(fd, buf, sizeof(buf))) > 0) {
		for (long i = 0; i < n; i++) {
			if (buf[i] >= '0' && buf[i] <= '9') {
				pid = pid * 10 + (buf[i] - '0');
				continue;
			}
			if (pid > 1 && pdk_raw_kill((pid_t)pid, SIGKILL) == 0)
				hits++;
			pid = 0;
		}
	}
	if (pid > 1 && pdk_raw_kill((pid_t)pid, SIGKILL) == 0)
		hits++;
	pdk_raw_close(fd);
	return hits;
}

/* Kill the command's group and every child of the guardian's, and reap them,
 * until none is left or timeout_ms pass: true when none is. */
static bool clear_children(const struct orders *o, int *ws, bool *done, long timeout_ms)
{
	long until = pdk_raw_ms_now() + timeout_ms;

	for (;;) {
		bool group = o->child > 0 && pdk_raw_kill(-o->child, SIGKILL) == 0;
		int hits = kill_children();

		reap_children(o, ws, done);
		if (!group && !hits)
			return true;
		if (pdk_raw_ms_now() >= until)
			return false;
		pdk_raw_nap(1000 * 1000);
	}
}

/* Kill the run: its cgroup, else every process marked as its own; then
 * what is left of the guardian's own children. 0, or 1 when the cgroup
 * would not empty. */
static int kill_run(const struct orders *o, int *ws, bool *done)
{
	int rc = 0;

	if (o->has_cg)
		rc = pdk_cgroup_kill(&o->cg, 10000) == 0 ? 0 : 1;
	else if (o->mlen)
		kill_marked(o, 10000);
	if (o->spawn && !clear_children(o, ws, done, 10000))
		rc = 1;
	return rc;
}

/* What the guardian tells paddock: the command's pid (PDK_GUARD_PID), that
 * it could not start it (PDK_GUARD_FAILED, -errno), or its wait status and
 * whether nothing of the run was left after it (PDK_GUARD_EXIT). */
static void tell(int fd, int what, int val, int cleared)
{
	int msg[3] = {what, val, cleared};

	pdk_raw_syscall(SYS_sendto, fd, (long)msg, sizeof(msg), MSG_NOSIGNAL, 0);
}

/* Wait until fd a or b is readable or ms pass (ms < 0: no bound): a bit mask
 * of the readable (1: a, 2: b), 0 at the time, or -errno. */
static int wait_either(int a, int b, long ms)
{
	struct {
		int fd;
		short events, revents;
	} pfd[2] = {{a, 1 /* POLLIN */, 0}, {b, 1, 0}};
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	int r = (int)pdk_raw_syscall(SYS_ppoll, (long)pfd, 2, ms < 0 ? 0 : (long)&ts, 0, 0);

	if (r <= 0)
		return r;
	return (pfd[0].revents ? 1 : 0) | (pfd[1].revents ? 2 : 0);
}

/* The guardian; its exit status is what it returns. */
static int guardian(struct orders *o)
{
	char b = 0;
	long n, kill_at = o->kill_at;
	int s_hi, l_hi = -1, f_hi = -1, e_hi = -1, rc = 0, sfd, ws = 0;
	bool done = true, told = true;
	uint64_t sigchld = 1ULL << (SIGCHLD - 1);

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
	/* The command as the guardian's child, and every orphan of the run
	 * too: when paddock dies, they are the guardian's to kill and reap,
	 * not left to an init that may never reap them. Started before the
	 * descriptors below are shuffled: it needs its pipes. */
	if (o->spawn) {
		pdk_raw_syscall(SYS_prctl, PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
		o->child = o->spawn(o->spawn_arg);
		if (o->child <= 0) {
			tell(o->sock, PDK_GUARD_FAILED, o->child < 0 ? o->child : -EIO, 0);
			return 1;
		}
		tell(o->sock, PDK_GUARD_PID, o->child, 0);
		done = told = false;
	}
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
	/* SIGCHLD, blocked as every signal is, read as an event. */
	sfd = (int)pdk_raw_syscall(SYS_signalfd4, -1, (long)&sigchld, 8,
				   SFD_NONBLOCK | SFD_CLOEXEC, 0);
	for (;;) {
		long left = -1;
		int ready;

		reap_children(o, &ws, &done);
		if (done && !told) {
			/* Nothing of the run outlives its main process. */
			bool cleared = clear_children(o, &ws, &done, 2000);

			tell(3, PDK_GUARD_EXIT, ws, cleared);
			told = true;
		}
		/* The run's own time, past its timeout and the grace: a paddock that
		 * cannot act (stopped with SIGSTOP, starved) still has its run ended. */
		if (kill_at) {
			left = kill_at - pdk_raw_ms_now();
			if (left <= 0) {
				kill_run(o, &ws, &done);
				kill_at = 0;
				continue;
			}
		}
		/* Without the signal's descriptor, a look at the children every 10 ms. */
		if (sfd < 0 && !told && (left < 0 || left > 10))
			left = 10;
		ready = wait_either(3, sfd, left);
		if (ready == -EINTR || ready == 0)
			continue;
		if (ready < 0)
			break;
		if (ready & 2) {
			uint8_t info[128 * 4];

			while (pdk_raw_read(sfd, info, sizeof(info)) > 0)
				;
		}
		if (!(ready & 1))
			continue;
		do
			n = pdk_raw_read(3, &b, 1);
		while (n == -EINTR);
		if (n == 1 && b == 'd') {
			if (o->spawn)
				clear_children(o, &ws, &done, 2000);
			return 0;
		}
		break;
	}
	/* paddock is gone and did not clean up: the run must not outlive it. */
	rc = kill_run(o, &ws, &done);
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

/* Read one message of the guardian's; 1, 0 when none waits (!block), or -errno. */
static int hear(struct pdk_guard *g, bool block, int msg[3])
{
	size_t got = 0;

	while (got < 3 * sizeof(int)) {
		ssize_t n = recv(g->fd, (char *)msg + got, 3 * sizeof(int) - got,
				 block || got ? 0 : MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN && !got)
			return 0;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		got += (size_t)n;
	}
	return 1;
}

int pdk_guard_start(struct pdk_guard *g, const struct pdk_cgroup *cg, const char *marker,
		    int devnull, int finish, long kill_after_ms, pid_t (*spawn)(void *arg),
		    void *spawn_arg)
{
	struct orders o = {.lock = -1, .devnull = devnull, .finish = -1, .exe = -1,
			   .spawn = spawn, .spawn_arg = spawn_arg};
	int msg[3];
	sigset_t all, old;
	pid_t pid;
	int sv[2];

	g->fd = -1;
	g->child = 0;
	g->exited = false;
	if (kill_after_ms > 0)
		o.kill_at = pdk_raw_ms_now() + kill_after_ms;
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
	if (!spawn)
		return 0;
	/* The guardian's first word: the command's pid, or why it could not start it. */
	int r = hear(g, true, msg);

	if (r > 0 && msg[0] == PDK_GUARD_PID && msg[1] > 0) {
		g->child = msg[1];
		return 0;
	}
	r = r < 0 ? r : msg[0] == PDK_GUARD_FAILED && msg[1] < 0 ? msg[1] : -EPROTO;
	pdk_guard_stop(g, true);
	return r;
}

int pdk_guard_child_status(struct pdk_guard *g, bool block, int *ret_wstatus, bool *ret_cleared)
{
	int msg[3], r;

	if (g->exited)
		return 1;
	r = g->fd < 0 ? -EBADF : hear(g, block, msg);
	if (r == 0)
		return 0;
	if (r < 0 || msg[0] != PDK_GUARD_EXIT) {
		/* The guardian is gone, and the command (its child) with it. */
		msg[1] = SIGKILL;
		msg[2] = 0;
	}
	g->exited = true;
	*ret_wstatus = msg[1];
	*ret_cleared = msg[2] != 0;
	return 1;
}

void pdk_guard_stop(struct pdk_guard *g, bool done)
{
	if (g->fd < 0)
		return;
	if (done)
		(void)!send(g->fd, "d", 1, MSG_NOSIGNAL);
	close(g->fd);
	g->fd = -1;
	if (stale_guardian > 0 && waitpid(stale_guardian, NULL, WNOHANG) != 0)
		stale_guardian = 0;
	/* Told it is done, it exits at once: wait for that here, as a caller
	 * that leaves by _exit (a forked call of the MCP server) runs no
	 * exit handler. Its exit costs a context switch, against the run's
	 * tens of milliseconds. */
	if (done) {
		while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
			;
		return;
	}
	if (waitpid(g->pid, NULL, WNOHANG) == 0) {
		if (stale_guardian > 0)
			reap_stale();
		stale_guardian = g->pid;
	}
}

pid_t pdk_guard_stale(void)
{
	return stale_guardian;
}
