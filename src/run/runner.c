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
#include "zygote.h"
#endif
#include "confine/confine.h"

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
/* Mapped at the first run and kept: later runs map and unmap nothing for
 * it, and only the pages a command's output reaches are ever touched. Not
 * static storage: that would be part of the program's image, which under a
 * tight address-space limit (ulimit -v) would then not even start, where
 * a failed allocation here is one line. One run at a time per process, as
 * the signal pipe below already requires. */
static char *read_buf;

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
static pid_t __attribute__((noinline)) spawn(struct child_args *a)
{
#if defined(__linux__) && !defined(PDK_SPAWN_FORK)
	char stack[64 * 1024] __attribute__((aligned(16)));
	sigset_t all, old;
	pid_t pid;
	int e;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = clone(child_main, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, a);
	e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return pid < 0 ? -e : pid;
#else
	pid_t pid = fork();

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

#ifdef __linux__
/* Wait for every child /proc lists but the guardians (g's and the last
 * run's): each was killed, so each wait ends soon. How many were reaped. */
static int reap_listed(const struct pdk_guard *g)
{
	pid_t spare = pdk_guard_pid(g), stale = pdk_guard_stale();
	char path[64];
	long pid;
	int reaped = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fscanf(f, "%ld", &pid) == 1) {
		if (pid <= 0 || pid == spare || pid == stale)
			continue;
		while (waitpid((pid_t)pid, NULL, 0) < 0 && errno == EINTR)
			;
		reaped++;
	}
	fclose(f);
	return reaped;
}

/* Reap what the emptied cgroup leaves: a process leaves cgroup.procs when it
 * exits, but the children it leaves come to paddock (the subreaper) a moment
 * later, and each of its own must be reaped, or they outlive paddock as
 * zombies that an init which never reaps keeps for good. Done once nothing is
 * charged to the cgroup, zombies included; false if that takes past until. */
static bool reap_settled(const struct pdk_cgroup *cg, const struct pdk_guard *g, double until)
{
	long nap_ns = 20 * 1000;

	while (!pdk_cgroup_settled(cg)) {
		if (reap_listed(g) > 0)
			continue;
		if (now() >= until)
			return false;
		struct timespec ts = {0, nap_ns};
		nanosleep(&ts, NULL);
		if (nap_ns < 1000 * 1000)
			nap_ns *= 2;
	}
	return true;
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

/* One run, from its pipes to its reaping: the state pdk_run's steps share. */
struct run {
	const struct pdk_run_spec *spec;
	struct pdk_capture *out, *err;
	struct pdk_run_status st;
	int opipe[2], epipe[2], rpipe[2], spipe[2];
	int devnull;
	struct procs_plan plan;
	struct pdk_guard guard;
	struct sigaction old[PDK_ARRAY_SIZE(handled)];
	bool caught; /* handled[] are paddock's until run_close */
	pid_t pid;
	int wstatus;
	double start, deadline, kill_at, drain_until;
	bool exited, term_sent, child_event;
	bool cleared; /* nothing of the run was left after the last kill */
	bool emptied; /* the cgroup was emptied, and its limit read, at the exit */
	bool guarded; /* the guardian starts the command and reaps the run */
	long guard_after; /* its kill_after_ms */
	int zreply;   /* spec->zygote_fd once it runs the command (borrowed); -1: not from one */
	bool zexited; /* it said how the command ended: wstatus holds it */
#ifdef __linux__
	char **marked_envp;
	char marker[64];
	struct pdk_cgroup *cg;
#endif
};

/* /dev/null for stdin, and the pipes: stdout, stderr, the child's report,
 * and the one signals are written to. */
static int run_open(struct run *x)
{
	int r;

	x->devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (x->devnull < 0)
		return -errno;
	if ((r = pdk_pipe_cloexec(x->opipe)) < 0 || (r = pdk_pipe_cloexec(x->epipe)) < 0 ||
	    (r = pdk_pipe_cloexec(x->rpipe)) < 0 || (r = pdk_pipe_cloexec(x->spipe)) < 0)
		return r;
	fcntl(x->spipe[0], F_SETFL, O_NONBLOCK);
	fcntl(x->spipe[1], F_SETFL, O_NONBLOCK);
	fcntl(x->opipe[0], F_SETFL, O_NONBLOCK);
	fcntl(x->epipe[0], F_SETFL, O_NONBLOCK);
#if defined(__linux__) && defined(F_SETPIPE_SZ)
	/* Bigger pipes mean fewer wake-ups for a command that prints a lot. */
	fcntl(x->opipe[0], F_SETPIPE_SZ, READ_CHUNK);
	fcntl(x->epipe[0], F_SETPIPE_SZ, READ_CHUNK);
#endif
	return 0;
}

/* The process limit spec->max_procs asks for: a cgroup, else RLIMIT_NPROC;
 * and the guardian that outlives paddock. */
static int run_limit_procs(struct run *x)
{
	const struct pdk_run_spec *spec = x->spec;
	struct pdk_run_status *st = &x->st;

	if (!spec->max_procs)
		return 0;
#ifdef __linux__
	int r;

	if (pdk_cgroup_new(spec->max_procs, &x->cg, &st->procs_why) == 0) {
		x->plan.cg = x->cg;
		st->procs_how = PDK_PROCS_CGROUP;
		st->procs_limit = spec->max_procs;
	}
	/* Nothing of the run may outlive paddock, even if it is SIGKILLed:
	 * the guardian then empties the cgroup or, without one, kills the
	 * processes that carry the run's marker. */
	if (!spec->tree_dies_with_parent || spec->finish_fd > 2) {
		if (!x->cg &&
		    (r = mark_env(spec->envp, x->marker, sizeof(x->marker), &x->marked_envp)) < 0)
			return r;
		x->plan.envp = x->marked_envp;
		/* Past the timeout and both graces, paddock's own kill is late:
		 * it is stopped or starved, and the guardian ends the run. */
		x->guard_after = spec->timeout > 0
				     ? (long)((spec->timeout + 2 * PDK_KILL_GRACE + 1) * 1000)
				     : 0;
		/* Started with the command, which it starts (run_start). */
		x->guarded = true;
	}
#endif
	if (st->procs_how == PDK_PROCS_CGROUP) {
		/* set */
	} else if (nproc_exempt()) {
		st->procs_how = PDK_PROCS_NONE;
	} else {
		x->plan.nproc = nproc_limit(spec->max_procs);
		st->procs_how = PDK_PROCS_RLIMIT;
		st->procs_limit = (unsigned long)x->plan.nproc;
	}
	return 0;
}

static void run_catch_signals(struct run *x)
{
	struct sigaction sa;

	sig_pipe_w = x->spipe[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < PDK_ARRAY_SIZE(handled); i++)
		sigaction(handled[i], &sa, &x->old[i]);
	x->caught = true;
#ifdef __linux__
	/* Orphans of the run become paddock's children, so none escapes. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
}

#ifdef __linux__
/* Has the zygote's command exited (wstatus then says how)? With block, wait until it has.
 * A zygote gone without a word leaves a command killed with it. */
static bool zygote_exited(struct run *x, bool block)
{
	int r;

	if (x->zexited)
		return true;
	r = pdk_zygote_wait(x->zreply, block, &x->wstatus);
	if (r == 0)
		return false;
	if (r < 0)
		x->wstatus = SIGKILL;
	x->zexited = true;
	return true;
}
#endif

/* Wait for the child: reaped here, or by the zygote or the guardian, which
 * say how it ended (the guardian also whether it cleared the rest of the run). */
static void run_wait_child(struct run *x)
{
#ifdef __linux__
	bool cleared;

	if (x->zreply >= 0) {
		zygote_exited(x, true);
		return;
	}
	if (x->guard.child) {
		if (!x->guard.exited &&
		    pdk_guard_child_status(&x->guard, true, &x->wstatus, &cleared) > 0)
			x->cleared = cleared && x->cleared;
		return;
	}
#endif
	while (waitpid(x->pid, &x->wstatus, 0) < 0 && errno == EINTR)
		;
}

/* sig to the command's process group. A zygote's command is signalled by the zygote, whose
 * pids may be of a namespace of its own (bwrap), and only while it runs. */
static void run_signal_group(struct run *x, int sig)
{
#ifdef __linux__
	if (x->zreply >= 0) {
		if (!x->zexited)
			(void)pdk_zygote_signal(x->zreply, sig);
		return;
	}
#endif
	kill(-x->pid, sig);
}

/* SIGKILL the child (and its group, when it has made one) and reap it. */
static void run_kill_child(struct run *x, bool group)
{
	if (group || x->zreply >= 0)
		run_signal_group(x, SIGKILL);
	/* Reaped by the zygote or the guardian already, its pid may be another's now. */
	if (!x->guard.exited && x->zreply < 0)
		kill(x->pid, SIGKILL);
	run_wait_child(x);
}

#ifdef __linux__
/* The run's guardian, with the command as its child when spawn is given (run_start), or
 * only to kill when the zygote is the command's parent (run_start_zygote). */
static int run_guard_start(struct run *x, pid_t (*spawn_fn)(void *), void *arg)
{
	return pdk_guard_start(&x->guard, x->cg, x->cg ? NULL : x->marker, x->devnull,
			       x->spec->finish_fd > 2 ? x->spec->finish_fd : -1, x->guard_after,
			       spawn_fn, arg);
}

/* The command as the guardian's child: spawn() there, the guardian its parent. */
static pid_t spawn_guarded(void *p)
{
	struct child_args *ca = p;

	ca->parent = getpid();
	return spawn(ca);
}

/* The command from the session's zygote, confined already: one fork there and the exec. */
static int run_start_zygote(struct run *x)
{
	const struct pdk_run_spec *spec = x->spec;
	struct pdk_zygote_call call = {
	    .path = spec->path,
	    .argv = spec->argv,
	    .envp = x->plan.envp ? x->plan.envp : spec->envp,
	    .cwd = spec->cwd,
	    .in = x->devnull,
	    .out = x->opipe[1],
	    .err = x->epipe[1],
	    .cgroup_procs = x->cg ? pdk_cgroup_procs_fd(x->cg) : -1,
	};
	char here[PATH_MAX];
	int e = 0, stage = 0, r;

	/* Where paddock is, not where the zygote was started. */
	if (!call.cwd)
		call.cwd = getcwd(here, sizeof(here));
	x->start = now();
	/* What a run leaves behind is found by its cgroup: the zygote, not paddock, is
	 * the parent of its processes. */
	if (call.cgroup_procs < 0) {
		if (spec->why)
			snprintf(spec->why, spec->why_len,
				 "the resident zygote needs a pids cgroup of the run's own, and "
				 "none could be made here (%s); start 'paddock mcp' with "
				 "--no-zygote",
				 x->st.procs_why ? x->st.procs_why : "no cgroup");
		return -EOPNOTSUPP;
	}
	/* The zygote is the command's parent and reaps it: the guardian only kills. */
	if (x->guarded && (r = run_guard_start(x, NULL, NULL)) < 0)
		return r;
	r = pdk_zygote_spawn(spec->zygote_fd, &call, &x->pid, &e, &stage);
	close(x->opipe[1]);
	close(x->epipe[1]);
	x->opipe[1] = x->epipe[1] = -1;
	if (r < 0) {
		if (spec->why)
			snprintf(spec->why, spec->why_len,
				 "the resident zygote could not start the command: %s; call again",
				 strerror(-r));
		return r;
	}
	if (r == 1) {
		x->st.exec_errno = e;
		x->st.exec_stage = stages[stage >= 0 && stage < 6 ? stage : 2];
		x->st.exit_status = 127;
		return 1;
	}
	x->zreply = spec->zygote_fd;
	x->deadline = x->start + spec->timeout;
	return 0;
}
#endif

/* Start the command: 0 once it runs, 1 when it never did (the exec or the
 * backend failed in the child: st says which), or -errno. */
static int run_start(struct run *x)
{
	const struct pdk_run_spec *spec = x->spec;
	struct child_args ca = {spec, &x->plan, x->devnull, x->opipe[1], x->epipe[1], x->rpipe[1],
				getpid()};
	struct child_report rep;
	ssize_t n;
	int r;

#ifdef __linux__
	if (spec->zygote_fd > 2)
		return run_start_zygote(x);
#endif
	x->start = now();
	if (spec->backend && spec->backend->before_fork &&
	    (r = spec->backend->before_fork(spec->backend_state)) < 0)
		return r;
	if (x->guarded) {
#ifdef __linux__
		r = run_guard_start(x, spawn_guarded, &ca);
		x->pid = r < 0 ? r : x->guard.child;
#endif
	} else {
		x->pid = spawn(&ca);
	}
	if (x->pid < 0)
		return x->pid;

	close(x->opipe[1]);
	close(x->epipe[1]);
	close(x->rpipe[1]);
	x->opipe[1] = x->epipe[1] = x->rpipe[1] = -1;
	do
		n = read(x->rpipe[0], &rep, sizeof(rep));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(rep)) {
		run_wait_child(x);
		x->st.exec_errno = rep.err;
		x->st.exec_stage = stages[rep.stage];
		x->st.exit_status = 127;
		return 1;
	}
	/* A wrapper that checks what its helper made before the command runs:
	 * nothing of the command has run when it says no. */
	if (spec->backend && spec->backend->spawned &&
	    (r = spec->backend->spawned(spec->backend_state, spec->why, spec->why_len)) < 0) {
		run_kill_child(x, true);
		return r;
	}
	x->deadline = x->start + spec->timeout;
	return 0;
}

/* SIGTERM to the group, once; SIGKILL follows a grace later. */
static void run_terminate(struct run *x, double t)
{
	if (x->term_sent)
		return;
	run_signal_group(x, SIGTERM);
	x->term_sent = true;
	x->kill_at = t + PDK_KILL_GRACE;
}

/* The timeout: SIGTERM to the group at the deadline, SIGKILL a grace later. */
static void run_timers(struct run *x, double t)
{
	if (!x->exited && !x->term_sent && t >= x->deadline) {
		x->st.timed_out = true;
		run_terminate(x, t);
	}
	if (!x->exited && x->kill_at && t >= x->kill_at) {
		run_signal_group(x, SIGKILL);
		x->kill_at = 0;
	}
}

/* What the command left, killed: its group and paddock's other children (kill_group). A
 * zygote's command has neither here: what it left is the run's cgroup's, already emptied or
 * not (cleared says which). */
static bool run_kill_rest(struct run *x)
{
	if (x->zreply >= 0)
		return true;
	return kill_group(x->pid, pdk_guard_pid(&x->guard));
}

/* When the watch must wake next, in ms for poll(); -1: on an event only. */
static int run_wake_ms(const struct run *x, double t)
{
	double wake = 1e18;

	if (!x->exited && !x->term_sent)
		wake = x->deadline;
	if (x->kill_at)
		wake = x->kill_at < wake ? x->kill_at : wake;
	if (x->exited)
		wake = x->drain_until < wake ? x->drain_until : wake;
	return wake >= 1e17 ? -1 : (int)((wake - t) * 1000) + 1;
}

/* Read what one stream has, up to 16 chunks; the pipe is closed at EOF. */
static void run_read(int *fd, struct pdk_capture *to)
{
	for (int k = 0; k < 16; k++) {
		ssize_t n = read(*fd, read_buf, READ_CHUNK);
		if (n > 0) {
			pdk_capture_feed(to, read_buf, (size_t)n);
			/* A short read emptied the pipe: poll, not one more
			 * read that finds nothing. */
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

/* The signals paddock caught: SIGCHLD marks a child event; any other stops
 * the run (SIGTERM to its group, SIGKILL a grace later). */
static void run_signalled(struct run *x)
{
	unsigned char sigs[64];
	ssize_t n = read(x->spipe[0], sigs, sizeof(sigs));

	for (ssize_t i = 0; i < n; i++) {
		if (sigs[i] == SIGCHLD)
			x->child_event = true;
		if (sigs[i] == SIGCHLD || x->exited || x->st.stopped)
			continue;
		x->st.stopped = true;
		x->st.stop_signal = sigs[i];
		run_terminate(x, now());
	}
}

/* Once the main process is done, nothing of its group may outlive it:
 * kill, reap, then read what is left for a while. */
static void run_reap(struct run *x)
{
	siginfo_t si;

	x->child_event = false;
	memset(&si, 0, sizeof(si));
#ifdef __linux__
	bool cleared;

	if (x->zreply >= 0) {
		if (!zygote_exited(x, false))
			return;
	} else if (x->guard.child) {
		if (pdk_guard_child_status(&x->guard, false, &x->wstatus, &cleared) <= 0)
			return;
		x->cleared = cleared;
	} else
#endif
	if (waitid(P_PID, (id_t)x->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 ||
	    si.si_pid != x->pid) {
		return;
	}
	run_kill_child(x, true);
#ifdef __linux__
	/* What the limit saw, before the kill sets pids.max to 0 and counts
	 * refusals of its own. */
	if (x->cg) {
		x->st.procs_limited = pdk_cgroup_limit_hits(x->cg) > 0;
		x->emptied = true;
		x->cleared = pdk_cgroup_kill(x->cg, (int)(PDK_KILL_GRACE * 1000)) == 0;
	}
#endif
	/* An emptied cgroup held every process the run started, none of
	 * which can leave it: only the dead are left to reap. */
#ifdef __linux__
	if (x->emptied && x->cleared)
		x->cleared = reap_settled(x->cg, &x->guard, now() + PDK_KILL_GRACE);
	else
#endif
		x->cleared = run_kill_rest(x) && x->cleared;
	x->exited = true;
	x->drain_until = now() + PDK_DRAIN_LIMIT;
}

/* Read both streams until the command is done and they are drained (or
 * drain_until passes), enforcing the timeout and paddock's own stop. */
static int run_watch(struct run *x)
{
	for (;;) {
		/* The word of the zygote or the guardian that the command ended, when it
		 * is its parent. */
		int cfd = x->zreply >= 0 ? x->zreply : x->guard.child ? x->guard.fd : -1;
		struct pollfd pfd[4] = {{x->opipe[0], POLLIN, 0},
					{x->epipe[0], POLLIN, 0},
					{x->spipe[0], POLLIN, 0},
					{x->exited ? -1 : cfd, POLLIN, 0}};
		double t = now();

		run_timers(x, t);
		if (x->exited && ((x->opipe[0] < 0 && x->epipe[0] < 0) || t >= x->drain_until))
			break;
		if (poll(pfd, 4, run_wake_ms(x, t)) < 0 && errno != EINTR) {
			/* Blind to the run: nothing of it may go on unwatched. */
			int r = -errno;
			if (x->spec->why)
				snprintf(x->spec->why, x->spec->why_len,
					 "waiting for the command: %s; it was killed", strerror(-r));
			if (!x->exited) {
				run_kill_child(x, true);
				x->cleared = run_kill_rest(x) && x->cleared;
			}
			return r;
		}
		/* Past the deadline before what woke paddock is read: a paddock
		 * stopped (SIGSTOP) past it finds its command killed by the
		 * guardian, and that is a timeout, not an exit of the command's. */
		run_timers(x, now());
		if (x->opipe[0] >= 0 && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
			run_read(&x->opipe[0], x->out);
		if (x->epipe[0] >= 0 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)))
			run_read(&x->epipe[0], x->err);
		if (pfd[2].revents & POLLIN)
			run_signalled(x);
		/* The word of the zygote or the guardian that the command ended. */
		if (pfd[3].revents)
			x->child_event = true;
		if (!x->exited && x->child_event)
			run_reap(x);
	}
	x->st.exit_status = status_of(x->wstatus);
	return 0;
}

/* Give back the signals, empty the cgroup if the run ended early, stop the
 * guardian, close every pipe. */
static void run_close(struct run *x)
{
	if (x->caught) {
		x->st.duration = now() - x->start;
		for (size_t i = 0; i < PDK_ARRAY_SIZE(handled); i++)
			sigaction(handled[i], &x->old[i], NULL);
		sig_pipe_w = -1;
	}
#ifdef __linux__
	/* Not emptied yet when the run ended before its main process did. */
	if (x->cg && !x->emptied) {
		x->st.procs_limited = pdk_cgroup_limit_hits(x->cg) > 0;
		x->cleared = pdk_cgroup_kill(x->cg, 1000) == 0 && reap_settled(x->cg, &x->guard, now() + 1);
	}
	/* "done" only once nothing is left; otherwise the guardian sees EOF
	 * and keeps at it for longer. */
	pdk_guard_stop(&x->guard, x->cleared);
	pdk_cgroup_free(x->cg);
	free(x->marked_envp);
#endif
	for (int i = 0; i < 2; i++) {
		int *all[] = {&x->opipe[i], &x->epipe[i], &x->rpipe[i], &x->spipe[i]};
		for (size_t j = 0; j < PDK_ARRAY_SIZE(all); j++)
			if (*all[j] >= 0)
				close(*all[j]);
	}
	if (x->devnull >= 0)
		close(x->devnull);
}

int pdk_run(const struct pdk_run_spec *spec, struct pdk_capture *out, struct pdk_capture *err,
	    struct pdk_run_status *ret)
{
	struct run x = {
	    .spec = spec,
	    .out = out,
	    .err = err,
	    .opipe = {-1, -1},
	    .epipe = {-1, -1},
	    .rpipe = {-1, -1},
	    .spipe = {-1, -1},
	    .devnull = -1,
	    .zreply = -1,
	    .guard = {.fd = -1},
	    .child_event = true,
	    .cleared = true,
	};
	int r;

	if (!read_buf && !(read_buf = malloc(READ_CHUNK))) {
		if (spec->why)
			snprintf(spec->why, spec->why_len,
				 "no memory for the command's output buffer (1 MiB); raise the "
				 "address-space limit (ulimit -v)");
		return -ENOMEM;
	}
	if ((r = run_open(&x)) == 0 && (r = run_limit_procs(&x)) == 0) {
		run_catch_signals(&x);
		r = run_start(&x);
		if (r == 0)
			r = run_watch(&x);
		else if (r > 0)
			r = 0;
	}
	run_close(&x);
	if (r == 0)
		*ret = x.st;
	return r;
}
