/* runner.c - run one program: its own session and process group, stdin from
 * /dev/null, both pipes read until exit, timeout, group kill, reap. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#ifdef __APPLE__
#include <sys/sysctl.h>
#endif
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sched.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>

#include "cgroup.h"
#endif

#include "guard.h"
#include "core/path.h"
#include "runner.h"
#include "core/util.h"

int pdk_find_program(const char *program, char **ret_path)
{
	const char *path = getenv("PATH");
	struct stat st;
	int seen = -ENOENT;

	if (!*program)
		return -ENOENT;
	if (strchr(program, '/')) {
		if (stat(program, &st) < 0)
			return -errno;
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (!S_ISREG(st.st_mode) || access(program, X_OK) < 0)
			return -EACCES;
		*ret_path = strdup(program);
		return *ret_path ? 0 : -ENOMEM;
	}
	if (!path || !*path)
		path = PDK_DEFAULT_PATH;
	for (const char *p = path;; p++) {
		const char *end = strchr(p, ':');
		size_t dlen = end ? (size_t)(end - p) : strlen(p);
		char *cand;

		/* An empty PATH element means the current directory. */
		if (asprintf(&cand, "%.*s/%s", (int)dlen, dlen ? p : ".", program) < 0)
			return -ENOMEM;
		if (stat(cand, &st) == 0) {
			if (S_ISREG(st.st_mode) && access(cand, X_OK) == 0) {
				*ret_path = cand;
				return 0;
			}
			seen = S_ISDIR(st.st_mode) ? (seen == -EACCES ? seen : -EISDIR) : -EACCES;
		}
		free(cand);
		if (!end)
			break;
		p = end;
	}
	/* Like a shell: a name found only as a directory is not found. */
	return seen == -EISDIR ? -ENOENT : seen;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define READ_CHUNK (1024 * 1024)
/* Static rather than allocated: a run then maps and unmaps nothing for it,
 * and only the pages a command's output reaches are ever touched. One run
 * at a time per process, as the signal pipe below already requires. */
static char read_buf[READ_CHUNK];

static int sig_pipe_w = -1;

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;
	if (write(sig_pipe_w, &b, 1) < 0) {
		/* full pipe: the signal is already pending there */
	}
	errno = saved;
}

static const int handled[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP};

struct child_report {
	int err;
	int stage;
};
static const char *stages[] = {"exec", "chdir", "sandbox", "setsid", "stdio", "cgroup"};

/* What the child applies for the process limit, worked out in the parent. */
struct procs_plan {
	const struct pdk_cgroup *cg; /* join this first, or */
	rlim_t nproc;		     /* set RLIMIT_NPROC to this; 0: neither */
	char *const *envp;	     /* spec->envp with the guardian's marker; NULL: none */
};

#ifdef __linux__
/* envp and one more entry, PADDOCK_RUN=TOKEN (a random token, written into
 * marker): what the guardian finds the run's processes by without a cgroup. */
static int mark_env(char *const *envp, char *marker, size_t len, char ***ret)
{
	uint64_t token;
	size_t n = 0, k = 0;
	char **v;

	if (getrandom(&token, sizeof(token), 0) != sizeof(token))
		return -EIO;
	snprintf(marker, len, PDK_GUARD_MARKER "=%016llx", (unsigned long long)token);
	while (envp && envp[n])
		n++;
	v = calloc(n + 2, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (strncmp(envp[i], PDK_GUARD_MARKER "=", sizeof(PDK_GUARD_MARKER)) != 0)
			v[k++] = envp[i];
	v[k] = marker;
	*ret = v;
	return 0;
}
#endif

/* Real uid 0 of the initial user namespace: the kernel never holds it to
 * RLIMIT_NPROC, capabilities or not. */
static bool nproc_exempt(void)
{
	char buf[128] = "";
	unsigned long a, b, c;
	int fd;

	if (getuid() != 0)
		return false;
	fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	return sscanf(buf, "%lu %lu %lu", &a, &b, &c) == 3 && a == 0 && b == 0 && c == 4294967295UL;
}

/* RLIMIT_NPROC counts every task of the user, so a bare max_procs could stop
 * a user who already has that many. Counting the user's own would cost a
 * scan of /proc (about 0.1 ms per 100 processes); the number of tasks on the
 * whole machine is one read of /proc/loadavg and bounds it from above: the
 * command can always start max_procs more, and no more than that plus what
 * the machine runs now. */
static rlim_t nproc_limit(unsigned long max_procs)
{
	rlim_t lim = max_procs;
	struct rlimit cur;
#ifdef __linux__
	char buf[128];
	unsigned long running, total;
	int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n > 0) {
		buf[n] = '\0';
		if (sscanf(buf, "%*s %*s %*s %lu/%lu", &running, &total) == 2)
			lim += total;
	}
#elif defined(__APPLE__)
	/* The limit counts the user's processes: start from how many there
	 * are (the kernel's estimate of the table's size errs high). */
	int mib[4] = {CTL_KERN, KERN_PROC, KERN_PROC_UID, (int)getuid()};
	size_t size = 0;

	if (sysctl(mib, 4, NULL, &size, NULL, 0) == 0)
		lim += size / sizeof(struct kinfo_proc);
#endif
	/* Never above what paddock itself may have. */
	if (getrlimit(RLIMIT_NPROC, &cur) == 0 && cur.rlim_max != RLIM_INFINITY &&
	    cur.rlim_max < lim)
		lim = cur.rlim_max;
	return lim;
}

enum pdk_procs_how pdk_run_procs_probe(const char **ret_why)
{
#ifdef __linux__
	struct pdk_cgroup *cg = NULL;

	if (pdk_cgroup_new(1, &cg, ret_why) == 0) {
		pdk_cgroup_free(cg);
		*ret_why = "";
		return PDK_PROCS_CGROUP;
	}
#else
	*ret_why = "no cgroups on this system";
#endif
	return nproc_exempt() ? PDK_PROCS_NONE : PDK_PROCS_RLIMIT;
}

int pdk_run_procs_note(const struct pdk_run_status *st, char *buf, size_t len)
{
	int n = 0;

	if (st->procs_how == PDK_PROCS_CGROUP && st->procs_limited)
		n = snprintf(buf, len,
			     "process limit: the command hit the limit of %lu processes "
			     "at once; the forks past it failed and what was left was killed; run "
			     "fewer processes in parallel (e.g. make -j4)",
			     st->procs_limit);
	else if (st->procs_how == PDK_PROCS_NONE)
		n = snprintf(buf, len,
			     "process limit: none could be set here (%s; RLIMIT_NPROC does "
			     "not bind root); see 'paddock doctor'",
			     st->procs_why && *st->procs_why ? st->procs_why : "no pids cgroup");
	if (n < 0 || len == 0)
		return 0;
	return (size_t)n < len ? n : (int)len - 1;
}

void pdk_cloexec_from(int first)
{
	struct rlimit rl;
	rlim_t max = 65536;

#if defined(__linux__) && defined(SYS_close_range)
	if (syscall(SYS_close_range, (unsigned)first, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */) == 0)
		return;
#endif
	/* One at a time, up to the limit (capped: it may be huge). */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < max)
		max = rl.rlim_cur;
	for (rlim_t fd = (rlim_t)first; fd < max; fd++)
		fcntl((int)fd, F_SETFD, FD_CLOEXEC);
}

void pdk_reset_signals(void)
{
	sigset_t none;

#ifdef __linux__
	/* Every signal to SIG_DFL with the raw call, one system call each:
	 * glibc's sigaction() refuses the signals it keeps for itself (32,
	 * 33), so one ignored by paddock's parent would reach the command; and
	 * SIGRTMIN is a libc call, not on the async-signal-safe list. All
	 * zeros is SIG_DFL, no flags, empty mask. */
	for (int s = 1; s < _NSIG; s++) {
		unsigned long k[8] = {0};
		if (s != SIGKILL && s != SIGSTOP)
			syscall(SYS_rt_sigaction, s, k, NULL, (size_t)(_NSIG - 1) / 8);
	}
#else
	struct sigaction dfl;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &dfl, NULL);
#endif
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Async-signal-safe from here to exec: no allocation, no stdio, no locks. */
static void __attribute__((noreturn))
child(const struct pdk_run_spec *spec, const struct procs_plan *plan, int devnull, int outw,
      int errw, int report, pid_t parent)
{
	struct child_report rep = {0, 0};

#ifdef __linux__
	/* Into the run's cgroup before anything can fork. */
	if (plan->cg && pdk_cgroup_enter(plan->cg) < 0) {
		rep = (struct child_report){errno, 5};
		goto fail;
	}
#endif
	if (setsid() < 0) {
		rep = (struct child_report){errno, 3};
		goto fail;
	}
#ifdef __linux__
	/* The command dies with paddock, even if paddock is SIGKILLed. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
#endif
	if (dup2(devnull, 0) < 0 || dup2(outw, 1) < 0 || dup2(errw, 2) < 0) {
		rep = (struct child_report){errno, 4};
		goto fail;
	}
	pdk_reset_signals();
	/* No descriptor above 2 survives the exec; a backend may clear the
	 * flag on the one it passes on. */
	pdk_cloexec_from(3);
	if (spec->cwd && chdir(spec->cwd) < 0) {
		rep = (struct child_report){errno, 1};
		goto fail;
	}
	/* Before the backend drops capabilities: lowering needs none. */
	if (plan->nproc) {
		struct rlimit rl = {plan->nproc, plan->nproc};
		setrlimit(RLIMIT_NPROC, &rl);
	}
	if (spec->backend && spec->backend->enter) {
		int r = spec->backend->enter(spec->backend_state);
		if (r < 0) {
			rep = (struct child_report){-r, 2};
			goto fail;
		}
	}
	execve(spec->path, spec->argv, plan->envp ? plan->envp : spec->envp);
	rep = (struct child_report){errno, 0};
fail:
	if (write(report, &rep, sizeof(rep)) < 0) {
		/* the parent sees EOF and a status of 127 */
	}
	_exit(127);
}

struct child_args {
	const struct pdk_run_spec *spec;
	const struct procs_plan *plan;
	int devnull, outw, errw, report;
	pid_t parent;
};

static int child_main(void *p)
{
	const struct child_args *a = p;

	child(a->spec, a->plan, a->devnull, a->outw, a->errw, a->report, a->parent);
}

#if defined(__SANITIZE_ADDRESS__)
#define PDK_SPAWN_FORK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PDK_SPAWN_FORK 1
#endif
#endif

/*
 * Start the child: its pid, or -errno. On Linux it shares paddock's memory
 * until it execs, with paddock stopped meanwhile (CLONE_VM|CLONE_VFORK, as
 * posix_spawn does): no page table is copied, which a fork of paddock pays
 * for every page it has touched. Every signal stays blocked until the child
 * has reset their handlers, so none of paddock's runs on the shared memory.
 * Under AddressSanitizer, whose shadow memory would keep the child's stack
 * frames poisoned, a plain fork.
 */
static pid_t __attribute__((noinline)) spawn(struct child_args *a, bool must_fork)
{
#if defined(__linux__) && !defined(PDK_SPAWN_FORK)
	char stack[64 * 1024] __attribute__((aligned(16)));
	sigset_t all, old;
	pid_t pid;
	int e;

	/* A child that waits for paddock before it execs needs paddock running. */
	if (must_fork) {
		pid = fork();
		if (pid < 0)
			return -errno;
		if (pid == 0)
			child_main(a);
		return pid;
	}
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = clone(child_main, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, a);
	e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return pid < 0 ? -e : pid;
#else
	pid_t pid = fork();

	(void)must_fork;
	if (pid < 0)
		return -errno;
	if (pid == 0)
		child_main(a);
	return pid;
#endif
}

#ifdef __linux__
/* SIGKILL every child paddock has: as a child subreaper it inherits every
 * orphan of the run, so a daemon that called setsid and double-forked is
 * still found here. */
static bool kill_children(pid_t spare)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	return pdk_kill_listed(path, spare) > 0;
}
#endif

/* SIGKILL the group, and every process the run left behind, until none is
 * left, for up to PDK_KILL_GRACE seconds; false if some are left then. spare
 * (the guardian) is no part of the run. */
static bool kill_group(pid_t pgid, pid_t spare)
{
	double until = now() + PDK_KILL_GRACE;
	long nap_ns = 20 * 1000;

	for (;;) {
		bool group = kill(-pgid, SIGKILL) == 0;
		bool children = false;
#ifdef __linux__
		bool signalled = kill_children(spare);
		pid_t w;
		while ((w = waitpid(-1, NULL, WNOHANG)) > 0)
			;
		children = !(w < 0 && errno == ECHILD);
		/* Only the guardian left: done. */
		if (children && spare && !signalled)
			children = kill_children(spare);
#endif
		if (!group && !children)
			return true;
		if (now() >= until)
			return false;
		/* A killed process is gone within microseconds, unless it is
		 * busy in the kernel: look again soon, then less often. */
		struct timespec ts = {0, nap_ns};
		nanosleep(&ts, NULL);
		if (nap_ns < 1000 * 1000)
			nap_ns *= 2;
	}
}

static int status_of(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return -WTERMSIG(wstatus);
	return 0;
}

int pdk_run(const struct pdk_run_spec *spec, struct pdk_capture *out, struct pdk_capture *err,
	    struct pdk_run_status *ret)
{
	struct pdk_run_status st = {0};
	struct sigaction sa, old[PDK_ARRAY_SIZE(handled)];
	int opipe[2] = {-1, -1}, epipe[2] = {-1, -1}, rpipe[2] = {-1, -1}, spipe[2] = {-1, -1};
	_cleanup_close_ int devnull = -1;
	struct child_report rep;
	double start, deadline, kill_at = 0, drain_until = 0;
	bool exited = false, term_sent = false, child_event = true;
	char *buf = read_buf;
	pid_t pid;
	int r, wstatus = 0;
	ssize_t n;
	struct procs_plan plan = {0};
	struct pdk_guard guard = {.fd = -1};
	bool cleared = true; /* nothing of the run was left after the last kill */
#ifdef __linux__
	_cleanup_free_ char **marked_envp = NULL;
	char marker[64];
#endif
	bool emptied = false; /* the cgroup was emptied, and its limit read, at the exit */
#ifdef __linux__
	struct pdk_cgroup *cg = NULL;
#endif

	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0)
		return -errno;
	if ((r = pdk_pipe_cloexec(opipe)) < 0 || (r = pdk_pipe_cloexec(epipe)) < 0 ||
	    (r = pdk_pipe_cloexec(rpipe)) < 0 || (r = pdk_pipe_cloexec(spipe)) < 0)
		goto close_pipes;
	fcntl(spipe[0], F_SETFL, O_NONBLOCK);
	fcntl(spipe[1], F_SETFL, O_NONBLOCK);
	fcntl(opipe[0], F_SETFL, O_NONBLOCK);
	fcntl(epipe[0], F_SETFL, O_NONBLOCK);
#if defined(__linux__) && defined(F_SETPIPE_SZ)
	/* Bigger pipes mean fewer wake-ups for a command that prints a lot. */
	fcntl(opipe[0], F_SETPIPE_SZ, READ_CHUNK);
	fcntl(epipe[0], F_SETPIPE_SZ, READ_CHUNK);
#endif
	if (spec->max_procs) {
#ifdef __linux__
		if (pdk_cgroup_new(spec->max_procs, &cg, &st.procs_why) == 0) {
			plan.cg = cg;
			st.procs_how = PDK_PROCS_CGROUP;
			st.procs_limit = spec->max_procs;
		}
		/* Nothing of the run may outlive paddock, even if it is
		 * SIGKILLed: the guardian then empties the cgroup or, without
		 * one, kills the processes that carry the run's marker. */
		if (!spec->tree_dies_with_parent || spec->finish_fd > 2) {
			if (!cg && (r = mark_env(spec->envp, marker, sizeof(marker),
						 &marked_envp)) < 0)
				goto close_pipes;
			plan.envp = marked_envp;
			if ((r = pdk_guard_start(&guard, cg, cg ? NULL : marker, devnull,
						 spec->finish_fd > 2 ? spec->finish_fd : -1)) < 0)
				goto close_pipes;
		}
#endif
		if (st.procs_how == PDK_PROCS_CGROUP) {
			/* set */
		} else if (nproc_exempt()) {
			st.procs_how = PDK_PROCS_NONE;
		} else {
			plan.nproc = nproc_limit(spec->max_procs);
			st.procs_how = PDK_PROCS_RLIMIT;
			st.procs_limit = (unsigned long)plan.nproc;
		}
	}

	sig_pipe_w = spipe[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < PDK_ARRAY_SIZE(handled); i++)
		sigaction(handled[i], &sa, &old[i]);

#ifdef __linux__
	/* Orphans of the run become paddock's children, so none escapes. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
	start = now();
	struct child_args ca = {spec, &plan, devnull, opipe[1], epipe[1], rpipe[1], getpid()};
	bool handover = false;
	if (spec->backend && spec->backend->before_fork) {
		r = spec->backend->before_fork(spec->backend_state);
		if (r < 0)
			goto restore;
		handover = r > 0;
	}
	pid = spawn(&ca, handover);
	if (pid < 0) {
		r = pid;
		goto restore;
	}
	if (handover && spec->backend->forked &&
	    (r = spec->backend->forked(spec->backend_state, pid)) < 0) {
		if (spec->why)
			snprintf(spec->why, spec->why_len, "backend %s could not start: %s",
				 spec->backend->name, strerror(-r));
		kill(pid, SIGKILL);
		while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
			;
		goto restore;
	}

	close(opipe[1]);
	close(epipe[1]);
	close(rpipe[1]);
	opipe[1] = epipe[1] = rpipe[1] = -1;
	do
		n = read(rpipe[0], &rep, sizeof(rep));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(rep)) {
		while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
			;
		st.exec_errno = rep.err;
		st.exec_stage = stages[rep.stage];
		st.exit_status = 127;
		r = 0;
		goto restore;
	}
	/* A wrapper that checks what its helper made before the command runs:
	 * nothing of the command has run when it says no. */
	if (spec->backend && spec->backend->spawned &&
	    (r = spec->backend->spawned(spec->backend_state, spec->why, spec->why_len)) < 0) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
			;
		goto restore;
	}

	deadline = start + spec->timeout;
	for (;;) {
		struct pollfd pfd[3] = {
		    {opipe[0], POLLIN, 0}, {epipe[0], POLLIN, 0}, {spipe[0], POLLIN, 0}};
		double t = now(), wake = 1e18;
		int timeout_ms;

		if (!exited && !term_sent && t >= deadline) {
			st.timed_out = true;
			kill(-pid, SIGTERM);
			term_sent = true;
			kill_at = t + PDK_KILL_GRACE;
		}
		if (!exited && kill_at && t >= kill_at) {
			kill(-pid, SIGKILL);
			kill_at = 0;
		}
		if (exited && (opipe[0] < 0 && epipe[0] < 0))
			break;
		if (exited && t >= drain_until)
			break;
		if (!exited && !term_sent)
			wake = deadline;
		if (kill_at)
			wake = kill_at < wake ? kill_at : wake;
		if (exited)
			wake = drain_until < wake ? drain_until : wake;
		timeout_ms = wake >= 1e17 ? -1 : (int)((wake - t) * 1000) + 1;
		if (poll(pfd, 3, timeout_ms) < 0 && errno != EINTR) {
			/* Blind to the run: nothing of it may go on unwatched. */
			r = -errno;
			if (spec->why)
				snprintf(spec->why, spec->why_len,
					 "waiting for the command: %s; it was killed", strerror(-r));
			if (!exited) {
				kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
				while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
					;
				cleared = kill_group(pid, pdk_guard_pid(&guard)) && cleared;
			}
			goto restore;
		}
		for (int i = 0; i < 2; i++) {
			int *fd = i == 0 ? &opipe[0] : &epipe[0];
			if (*fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			/* Drain what is there before polling again. */
			for (int k = 0; k < 16; k++) {
				n = read(*fd, buf, READ_CHUNK);
				if (n > 0) {
					pdk_capture_feed(i == 0 ? out : err, buf, (size_t)n);
					/* A short read emptied the pipe: poll, not
					 * one more read that finds nothing. */
					if (n < READ_CHUNK)
						break;
					continue;
				}
				if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
					close(*fd);
					*fd = -1;
				}
				break;
			}
		}
		if (pfd[2].revents & POLLIN) {
			unsigned char sigs[64];
			n = read(spipe[0], sigs, sizeof(sigs));
			for (ssize_t i = 0; i < n; i++) {
				if (sigs[i] == SIGCHLD)
					child_event = true;
				if (sigs[i] == SIGCHLD || exited || st.stopped)
					continue;
				st.stopped = true;
				st.stop_signal = sigs[i];
				if (!term_sent) {
					kill(-pid, SIGTERM);
					term_sent = true;
					kill_at = now() + PDK_KILL_GRACE;
				}
			}
		}
		if (!exited && child_event) {
			siginfo_t si;
			child_event = false;
			memset(&si, 0, sizeof(si));
			if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
			    si.si_pid == pid) {
				/* The main process is done: nothing of its group may
				 * outlive it, then read what is left for a while. */
				kill(-pid, SIGKILL);
				while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
					;
#ifdef __linux__
				/* What the limit saw, before the kill sets pids.max
				 * to 0 and counts refusals of its own. */
				if (cg) {
					st.procs_limited = pdk_cgroup_limit_hits(cg) > 0;
					emptied = true;
					cleared =
					    pdk_cgroup_kill(cg, (int)(PDK_KILL_GRACE * 1000)) == 0;
				}
#endif
				/* An emptied cgroup held every process the run
				 * started, none of which can leave it: only the dead
				 * are left to reap. */
				if (emptied && cleared)
					while (waitpid(-1, NULL, WNOHANG) > 0)
						;
				else
					cleared = kill_group(pid, pdk_guard_pid(&guard)) && cleared;
				exited = true;
				drain_until = now() + PDK_DRAIN_LIMIT;
			}
		}
	}
	st.exit_status = status_of(wstatus);
	r = 0;

restore:
	st.duration = now() - start;
	for (size_t i = 0; i < PDK_ARRAY_SIZE(handled); i++)
		sigaction(handled[i], &old[i], NULL);
	sig_pipe_w = -1;
close_pipes:
#ifdef __linux__
	/* Not emptied yet when the run ended before its main process did. */
	if (cg && !emptied) {
		st.procs_limited = pdk_cgroup_limit_hits(cg) > 0;
		cleared = pdk_cgroup_kill(cg, 1000) == 0;
	}
	/* "done" only once nothing is left; otherwise the guardian sees EOF
	 * and keeps at it for longer. */
	pdk_guard_stop(&guard, cleared);
	pdk_cgroup_free(cg);
#else
	(void)cleared;
#endif
	for (int i = 0; i < 2; i++) {
		int *all[] = {&opipe[i], &epipe[i], &rpipe[i], &spipe[i]};
		for (size_t j = 0; j < PDK_ARRAY_SIZE(all); j++)
			if (*all[j] >= 0)
				close(*all[j]);
	}
	if (r == 0)
		*ret = st;
	return r;
}
