/* zygote.c - a resident session's confined zygotes (Linux: Landlock, bwrap): the host that
 * makes one a policy shape, the zygote's loop of fork and exec, and a call's requests to them. */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "confine/backend.h"
#include "confine/confine.h"
#include "core/self.h"
#include "core/strv.h"
#include "core/util.h"
#include "runner.h"
#include "zygote.h"

#define MAGIC_GET 0x7a796701U
#define MAGIC_SPAWN 0x7a796702U
#define MAGIC_SIGNAL 0x7a796703U
#define MAX_POLICY (192 * 1024)
#define MAX_ZYGOTES 32
#define SPAWN_FDS 4 /* in, out, err, cgroup.procs */

struct get_hdr {
	uint32_t magic;
	char key[17];
	char backend[16];
};

/* A signal for the command's process group, once it runs. */
struct signal_msg {
	uint32_t magic;
	int32_t sig;
};

struct spawn_hdr {
	uint32_t magic;
	uint32_t n_argv, n_envp;
};

/* What the zygote says on a call's reply socket: STARTED once, then EXITED. */
struct report {
	int32_t what; /* 1 started, 2 exited */
	int32_t pid;
	int32_t err, stage; /* started: the exec failed in the child */
	int32_t wstatus;    /* exited */
};

/* --- the policy as bytes: what the host prepares a zygote from ----------------------------- */

struct buf {
	char *p;
	size_t len, cap;
	bool bad;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->bad)
		return;
	if (b->len + n > MAX_POLICY) {
		b->bad = true;
		return;
	}
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		char *p;

		while (cap < b->len + n)
			cap *= 2;
		if (!(p = realloc(b->p, cap))) {
			b->bad = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void put_u32(struct buf *b, uint32_t v)
{
	put(b, &v, sizeof(v));
}

/* A flag byte (0: NULL), then the string and its NUL. */
static void put_str(struct buf *b, const char *s)
{
	put(b, s ? "\1" : "\0", 1);
	if (s)
		put(b, s, strlen(s) + 1);
}

static void put_strv(struct buf *b, const char *const *v, size_t n)
{
	put_u32(b, (uint32_t)n);
	for (size_t i = 0; i < n; i++)
		put_str(b, v[i]);
}

static void policy_blob(const struct pdk_confine *p, struct buf *b)
{
	uint64_t procs = p->max_procs;

	put_strv(b, p->roots, p->n_roots);
	put_strv(b, p->protect, p->n_protect);
	put_strv(b, p->hide, p->n_hide);
	put_str(b, p->blank);
	put_str(b, p->blank_dir);
	put_u32(b, p->network);
	put(b, &procs, sizeof(procs));
}

struct rd {
	const char *p;
	size_t left;
	bool bad;
};

static uint32_t get_u32(struct rd *r)
{
	uint32_t v = 0;

	if (r->left < sizeof(v)) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p, sizeof(v));
	r->p += sizeof(v);
	r->left -= sizeof(v);
	return v;
}

static const char *get_str(struct rd *r)
{
	const char *s, *nul;

	if (r->bad || r->left < 1) {
		r->bad = true;
		return NULL;
	}
	r->left--;
	if (*r->p++ == 0)
		return NULL;
	s = r->p;
	nul = memchr(s, '\0', r->left);
	if (!nul) {
		r->bad = true;
		return NULL;
	}
	r->left -= (size_t)(nul + 1 - s);
	r->p = nul + 1;
	return s;
}

/* An array of pointers into the bytes (owned; the strings are the reader's). */
static const char **get_strv(struct rd *r, size_t *n)
{
	uint32_t k = get_u32(r);
	const char **v;

	if (r->bad || k > r->left)
		return r->bad = true, NULL;
	v = calloc(k + 1, sizeof(*v));
	if (!v)
		return r->bad = true, NULL;
	for (uint32_t i = 0; i < k && !r->bad; i++)
		if (!(v[i] = get_str(r)))
			r->bad = true;
	*n = k;
	return v;
}

/* A backend a zygote can be made with: one it prepares and enters (Landlock), or whose
 * helper it executes (bwrap). */
static bool backend_fits(const struct pdk_backend *b)
{
	return b && b->prepare && b->enter;
}

bool pdk_zygote_fits(const struct pdk_backend *b, const struct pdk_confine *policy)
{
	return backend_fits(b) && !policy->n_domains && !policy->n_unix && !policy->n_devices &&
	       !policy->gpu && policy->max_procs;
}

/* FNV-1a, 64 bits. */
static uint64_t fnv(uint64_t h, const void *d, size_t n)
{
	const unsigned char *p = d;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/* What a path is now: the backend holds or covers what exists, by its kind. */
static uint64_t fnv_kinds(uint64_t h, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		uint32_t kind = lstat(v[i], &st) == 0 ? (uint32_t)(st.st_mode & S_IFMT) : 1;

		h = fnv(h, &kind, sizeof(kind));
	}
	return h;
}

void pdk_zygote_key(const struct pdk_confine *policy, const char *backend, char key[17])
{
	struct buf b = {0};
	uint64_t h = 0xcbf29ce484222325ULL;

	policy_blob(policy, &b);
	h = fnv(h, backend, strlen(backend) + 1);
	h = fnv(h, b.p ? b.p : "", b.bad ? 0 : b.len);
	h = fnv_kinds(h, policy->protect, policy->n_protect);
	h = fnv_kinds(h, policy->hide, policy->n_hide);
	/* A policy too big to send gets a key no zygote has. */
	if (b.bad)
		h = 0;
	free(b.p);
	snprintf(key, 17, "%016llx", (unsigned long long)h);
}

/* --- descriptors over the sockets ---------------------------------------------------------- */

static int send_fds(int sock, const void *d, size_t n, const int *fds, size_t n_fds)
{
	char ctl[CMSG_SPACE(sizeof(int) * SPAWN_FDS)] = {0};
	struct iovec iov = {(void *)d, n};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t k;

	if (n_fds) {
		struct cmsghdr *c;

		m.msg_control = ctl;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * n_fds);
	}
	do
		k = sendmsg(sock, &m, MSG_NOSIGNAL);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return -errno;
	return (size_t)k == n ? 0 : -EMSGSIZE;
}

/* One message, and up to max_fds descriptors (the rest, -1): its length, 0 at EOF, or -errno.
 * A message that came with another number of descriptors than want has them closed and
 * is -EBADMSG. */
static ssize_t recv_fds(int sock, void *d, size_t n, int *fds, size_t want, int flags)
{
	char ctl[CMSG_SPACE(sizeof(int) * SPAWN_FDS)];
	struct iovec iov = {d, n};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			   .msg_controllen = sizeof(ctl)};
	size_t got = 0;
	ssize_t k;

	for (size_t i = 0; i < want; i++)
		fds[i] = -1;
	do
		k = recvmsg(sock, &m, MSG_CMSG_CLOEXEC | flags);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		size_t nf;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		nf = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nf; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (got < want)
				fds[got] = fd;
			else
				close(fd);
			got++;
		}
	}
	if (got != want || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		for (size_t i = 0; i < want; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		for (size_t i = 0; i < want; i++)
			fds[i] = -1;
		return k == 0 && !got ? 0 : -EBADMSG;
	}
	return k;
}

static void close_all_from(int first, int keep)
{
	for (int lo = first;;) {
		int hi = keep >= lo ? keep - 1 : -1;

		if (hi >= lo) {
			if (syscall(SYS_close_range, (unsigned)lo, (unsigned)hi, 0U) < 0)
				for (int fd = lo; fd <= hi; fd++)
					close(fd);
			lo = keep + 1;
			continue;
		}
		if (syscall(SYS_close_range, (unsigned)lo, ~0U, 0U) < 0)
			for (int fd = lo; fd < 4096; fd++)
				close(fd);
		return;
	}
}

/* --- the zygote: confined, it forks and execs each call's command -------------------------- */

/*
 * A zygote serves one call at a time, on a connection of that call's own that the host
 * hands it: the spawn request comes on it, the zygote's reports go back on it, and its end
 * (the call done, or its paddock killed) kills what is left of the command and empties the
 * private /dev/shm, so that the next call finds it as a fresh run would. Then the zygote
 * tells the host it is idle. What it cannot empty, it does not hand on: it exits.
 */

static int chld_w = -1;

static void on_chld(int sig)
{
	int e = errno;

	(void)sig;
	if (write(chld_w, "c", 1) < 0) {
		/* full: a wake-up is pending already */
	}
	errno = e;
}

static void say(int conn, const struct report *rep)
{
	if (conn >= 0)
		(void)send(conn, rep, sizeof(*rep), MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Everything below the directory dfd (taken), however the command left its modes. */
static int empty_dir(int dfd, int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	int r = 0;

	if (!d) {
		close(dfd);
		return -1;
	}
	while (r == 0 && (e = readdir(d))) {
		int sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			continue;
		if ((errno != EISDIR && errno != EPERM) || depth > 64) {
			r = -1;
			break;
		}
		if (fchmodat(dirfd(d), e->d_name, 0700, 0) < 0) {
			/* the open below says whether it matters */
		}
		sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 || empty_dir(sub, depth + 1) < 0 ||
		    unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) < 0)
			r = -1;
		else
			rewinddir(d);
	}
	closedir(d);
	return r;
}

/* Async-signal-safe from the fork to the exec, as the runner's child. */
static void __attribute__((noreturn))
kid_main(const char *path, char *const *argv, char *const *envp, const char *cwd,
	 const int *fds, int report, pid_t zygote)
{
	struct child_rep {
		int err, stage;
	} rep = {0, 0};

	if (write(fds[3], "0", 1) != 1) {
		rep = (struct child_rep){errno, 5};
		goto fail;
	}
	if (setsid() < 0) {
		rep = (struct child_rep){errno, 3};
		goto fail;
	}
	/* The command dies with the zygote. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != zygote)
		_exit(127);
	if (dup2(fds[0], 0) < 0 || dup2(fds[1], 1) < 0 || dup2(fds[2], 2) < 0) {
		rep = (struct child_rep){errno, 4};
		goto fail;
	}
	/* The zygote set every signal to its default when it started, and has a handler of
	 * its own for SIGCHLD only: that one goes back, not the other 63. */
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	sigset_t none;

	sigaction(SIGCHLD, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	pdk_cloexec_from(3);
	if (cwd && chdir(cwd) < 0) {
		rep = (struct child_rep){errno, 1};
		goto fail;
	}
	execve(path, argv, envp);
	rep = (struct child_rep){errno, 0};
fail:
	if (write(report, &rep, sizeof(rep)) < 0) {
		/* the zygote sees EOF: exit 127 */
	}
	_exit(127);
}

/* The call's command from the message and its descriptors in fds (closed here): its pid
 * once it runs, else 0 (STARTED says why). */
static pid_t spawn_one(int conn, const char *msg, size_t n, int *fds)
{
	struct spawn_hdr h;
	struct report rep = {.what = 1, .err = EINVAL};
	struct rd r = {msg + sizeof(h), n - sizeof(h), false};
	_cleanup_free_ const char **argv = NULL, **envp = NULL;
	const char *path, *cwd;
	int ep[2] = {-1, -1};
	struct {
		int err, stage;
	} crep;
	pid_t pid = 0;
	ssize_t k;

	memcpy(&h, msg, sizeof(h));
	if (h.magic != MAGIC_SPAWN || h.n_argv < 1 || h.n_argv > r.left || h.n_envp > r.left)
		goto out;
	path = get_str(&r);
	cwd = get_str(&r);
	argv = calloc(h.n_argv + 1, sizeof(*argv));
	envp = calloc(h.n_envp + 1, sizeof(*envp));
	if (!argv || !envp) {
		rep.err = ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < h.n_argv && !r.bad; i++)
		if (!(argv[i] = get_str(&r)))
			r.bad = true;
	for (uint32_t i = 0; i < h.n_envp && !r.bad; i++)
		if (!(envp[i] = get_str(&r)))
			r.bad = true;
	if (!path || r.bad || r.left)
		goto out;
	if (pipe2(ep, O_CLOEXEC) < 0) {
		rep.err = errno;
		goto out;
	}
	pid_t self = getpid();
	pid = fork();
	if (pid == 0)
		kid_main(path, (char *const *)argv, (char *const *)envp, cwd, fds, ep[1], self);
	if (pid < 0) {
		rep.err = errno;
		pid = 0;
		goto out;
	}
	close(ep[1]);
	ep[1] = -1;
	do
		k = read(ep[0], &crep, sizeof(crep));
	while (k < 0 && errno == EINTR);
	rep.pid = pid;
	if (k == (ssize_t)sizeof(crep)) {
		/* Never ran: reaped with the others, nothing more to report. */
		rep.err = crep.err;
		rep.stage = crep.stage;
		pid = 0;
	} else {
		rep.err = 0;
	}
out:
	say(conn, &rep);
	for (int i = 0; i < SPAWN_FDS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	for (int i = 0; i < 2; i++)
		if (ep[i] >= 0)
			close(ep[i]);
	return pid;
}

static void __attribute__((noreturn)) zygote_main(int ctl, int shm)
{
	static char msg[sizeof(struct spawn_hdr) + PDK_ZYGOTE_MAX_BODY];
	struct sigaction sa = {.sa_handler = on_chld, .sa_flags = SA_RESTART | SA_NOCLDSTOP};
	int sp[2], conn = -1;
	pid_t kid = 0;
	bool spawned = false;

	if (pipe2(sp, O_CLOEXEC | O_NONBLOCK) < 0)
		_exit(1);
	chld_w = sp[1];
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	for (;;) {
		struct pollfd pfd[3] = {{conn < 0 ? ctl : -1, POLLIN, 0},
					{sp[0], POLLIN, 0},
					{conn, POLLIN, 0}};
		int fds[SPAWN_FDS];
		char drain[64];
		ssize_t k;

		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents & POLLIN) {
			int ws;
			pid_t pid;

			while (read(sp[0], drain, sizeof(drain)) > 0)
				;
			/* The call's command is reported; an orphan of a run (the zygote is
			 * their subreaper) is only reaped. */
			while ((pid = waitpid(-1, &ws, WNOHANG)) > 0)
				if (pid == kid) {
					struct report rep = {.what = 2, .pid = pid, .wstatus = ws};

					say(conn, &rep);
					kid = 0;
				}
		}
		if (pfd[0].revents) {
			k = recv_fds(ctl, drain, sizeof(drain), &conn, 1, 0);
			if (k == -EBADMSG)
				continue;
			if (k <= 0)
				break;
			spawned = false;
			continue;
		}
		if (conn < 0 || !pfd[2].revents)
			continue;
		/* The spawn comes with the command's descriptors; after it, only signals. */
		k = recv_fds(conn, msg, sizeof(msg), fds, spawned ? 0 : SPAWN_FDS, MSG_DONTWAIT);
		if (k == -EAGAIN)
			continue;
		if (k > 0 && (size_t)k >= sizeof(struct spawn_hdr) && !spawned) {
			spawned = true;
			kid = spawn_one(conn, msg, (size_t)k, fds);
			continue;
		}
		if (k == (ssize_t)sizeof(struct signal_msg) && spawned) {
			struct signal_msg sm;

			memcpy(&sm, msg, sizeof(sm));
			/* Its group while it runs; what it leaves, the run's cgroup holds. */
			if (sm.magic == MAGIC_SIGNAL && kid && sm.sig > 0 && sm.sig < 65) {
				kill(-kid, sm.sig);
				kill(kid, sm.sig);
			}
			continue;
		}
		if (k > 0) {
			/* One command a call. */
			for (int i = 0; i < SPAWN_FDS && !spawned; i++)
				close(fds[i]);
			say(conn, &(struct report){.what = 1, .err = EBUSY});
			continue;
		}
		if (k == -EBADMSG)
			continue;
		/* The call is over (or its paddock is gone): nothing of it goes on, and
		 * nothing it left in /dev/shm reaches the next. */
		if (kid) {
			kill(-kid, SIGKILL);
			kill(kid, SIGKILL);
			kid = 0;
		}
		close(conn);
		conn = -1;
		if (shm >= 0) {
			/* A description of its own: a dup would share the last read's end. */
			int dup = openat(shm, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

			if (dup < 0 || empty_dir(dup, 0) < 0)
				_exit(1);
		}
		if (send(ctl, "i", 1, MSG_NOSIGNAL) != 1)
			break;
	}
	/* The session is gone: so is the command it started here. */
	if (kid) {
		kill(-kid, SIGKILL);
		kill(kid, SIGKILL);
	}
	_exit(0);
}

/* --- the host: unconfined, it makes and keeps the zygotes ---------------------------------- */

struct zygote {
	char key[17];
	const struct pdk_backend *b;
	pid_t pid;
	int fd;		/* the host's end of its socket */
	bool busy;	/* handed to a call that has not ended yet */
	bool ready;	/* it said it was: it exits of itself when its socket closes and no
			 * call holds it */
	void *state;	/* the backend's, with the connect supervisor of its listener */
	char *blob;	/* the policy's bytes, which policy points into */
	struct pdk_confine policy;
};

static struct zygote zygotes[MAX_ZYGOTES];
static size_t n_zygotes;

static void zygote_drop(struct zygote *z)
{
	const struct pdk_backend *b = z->b;

	/* One that is ready is let go, and ends once its call (if any) has: bwrap's own
	 * processes, killed, would be left to pid 1 to reap. */
	if (z->fd >= 0 && z->ready) {
		close(z->fd);
		z->fd = -1;
	} else if (z->pid > 0) {
		kill(z->pid, SIGKILL);
	}
	if (z->pid > 0)
		while (waitpid(z->pid, NULL, 0) < 0 && errno == EINTR)
			;
	if (z->fd >= 0)
		close(z->fd);
	if (b->release)
		b->release(z->state);
	free((void *)z->policy.roots);
	free((void *)z->policy.protect);
	free((void *)z->policy.hide);
	free(z->blob);
	*z = zygotes[--n_zygotes];
}

/* A child at the other end of a socket pair (sv[0] the parent's end, sv[1] the child's): its
 * pid, 0 in the child, or -errno with neither end left open. */
static pid_t fork_paired(int sv[2])
{
	pid_t pid;
	int e;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	if ((pid = fork()) >= 0)
		return pid;
	e = errno;
	close(sv[0]);
	close(sv[1]);
	return -e;
}

/* In the zygote, confined, before it serves: nothing of the host's but ctl (and 0-2), not
 * dumpable (a command cannot reach its memory through /proc, as it can its own processes'),
 * the subreaper of what the commands leave, and the run's own /dev/shm when shm_own says the
 * one here is (another device than the host's): that one is emptied after each call; the
 * host's stays read-only and as it is. 0 or -errno, said to the host on ctl. */
static int zygote_ready(int ctl, bool shm_own, int *ret_shm)
{
	int ready = 0;

	close_all_from(3, ctl);
	if (prctl(PR_SET_DUMPABLE, 0) < 0 || prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		ready = -errno;
	*ret_shm = shm_own ? open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	(void)send(ctl, &ready, sizeof(ready), MSG_NOSIGNAL);
	return ready;
}

void pdk_zygote_serve(int ctl)
{
	int shm;

	if (fcntl(ctl, F_SETFD, FD_CLOEXEC) < 0)
		_exit(1);
	/* A wrapper's sandbox has a /dev of its own (bwrap's --dev), /dev/shm in it. */
	if (zygote_ready(ctl, true, &shm) < 0)
		_exit(1);
	zygote_main(ctl, shm);
}

/* A wrapper (bwrap) runs the zygote as its command: paddock __zygote FD, with its end of the
 * host's socket at FD. */
static int zygote_argv(const struct pdk_backend *b, void *state, int fd, char ***ret)
{
	char self[4096], num[16];
	ssize_t n = pdk_self_path(self, sizeof(self));

	if (n < 0)
		return (int)n;
	snprintf(num, sizeof(num), "%d", fd);
	return b->wrap_argv(state, (char *const[]){self, "__zygote", num, NULL}, ret);
}

static int zygote_make(const struct pdk_backend *b, struct zygote *z)
{
	_cleanup_strv_ char **wrapped = NULL;
	int sv[2], ready = -EIO, r = 0, shm = -1;
	pid_t pid = -1, host = getpid();
	struct stat host_shm, own_shm;
	char why[512];

	if ((r = b->prepare(&z->policy, &z->state)) < 0)
		return r;
	if (b->before_fork && (r = b->before_fork(z->state)) < 0)
		return r;
	if (stat("/dev/shm", &host_shm) < 0)
		host_shm.st_dev = 0;
	/* The host has its supervisors' threads: the child only calls the kernel. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	if ((!b->wrap_argv || (r = zygote_argv(b, z->state, sv[1], &wrapped)) == 0) &&
	    (pid = fork()) < 0)
		r = -errno;
	if (r < 0) {
		close(sv[0]);
		close(sv[1]);
		return r;
	}
	if (pid == 0) {
		close(sv[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != host)
			_exit(1);
		pdk_reset_signals();
		if (wrapped) {
			/* The wrapper confines; the zygote in it says it is ready. */
			pdk_cloexec_from(3);
			ready = b->enter(z->state);
			if (ready == 0 && fcntl(sv[1], F_SETFD, 0) == 0)
				execv(wrapped[0], wrapped);
			(void)send(sv[1], &(int){ready ? ready : -errno}, sizeof(int), MSG_NOSIGNAL);
			_exit(1);
		}
		ready = b->enter(z->state);
		if (ready == 0)
			ready = zygote_ready(sv[1],
					     stat("/dev/shm", &own_shm) == 0 &&
						 own_shm.st_dev != host_shm.st_dev,
					     &shm);
		else
			(void)send(sv[1], &ready, sizeof(ready), MSG_NOSIGNAL);
		if (ready < 0)
			_exit(1);
		zygote_main(sv[1], shm);
	}
	close(sv[1]);
	z->pid = pid;
	z->fd = sv[0];
	/* A wrapper's sandbox is looked at before the zygote in it may start. */
	if (b->spawned && (r = b->spawned(z->state, why, sizeof(why))) < 0)
		return r;
	if (recv(sv[0], &ready, sizeof(ready), 0) != sizeof(ready))
		return -EIO;
	z->ready = ready == 0;
	return ready;
}

/* A new zygote for key, from the policy's bytes (taken); NULL with *err. */
static struct zygote *zygote_new(const struct pdk_backend *b, const char *key, char *blob,
				 size_t len, int *err)
{
	struct rd r = {blob, len, false};
	struct zygote *z;
	uint64_t procs = 0;

	if (n_zygotes == MAX_ZYGOTES) {
		/* Room: an idle one of another shape goes, the first found. */
		size_t i = 0;

		while (i < n_zygotes && zygotes[i].busy)
			i++;
		if (i == n_zygotes) {
			free(blob);
			*err = -EBUSY;
			return NULL;
		}
		zygote_drop(&zygotes[i]);
	}
	z = &zygotes[n_zygotes++];
	*z = (struct zygote){.fd = -1, .blob = blob, .b = b};
	snprintf(z->key, sizeof(z->key), "%s", key);
	z->policy.roots = get_strv(&r, &z->policy.n_roots);
	z->policy.protect = get_strv(&r, &z->policy.n_protect);
	z->policy.hide = get_strv(&r, &z->policy.n_hide);
	z->policy.blank = get_str(&r);
	z->policy.blank_dir = get_str(&r);
	z->policy.network = get_u32(&r) != 0;
	if (r.left == sizeof(procs))
		memcpy(&procs, r.p, sizeof(procs));
	else
		r.bad = true;
	z->policy.max_procs = (unsigned long)procs;
	z->policy.proxy_fd = -1;
	*err = r.bad ? -EINVAL : zygote_make(b, z);
	if (*err < 0) {
		zygote_drop(z);
		return NULL;
	}
	return z;
}

/* A call asks for the zygote of its key: a connection to an idle one, made when none. */
static void host_get(const char *msg, size_t k, int reply)
{
	const struct pdk_backend *b = NULL;
	struct get_hdr h;
	struct zygote *z = NULL;
	int err = 0, cp[2] = {-1, -1};

	if (k < sizeof(h)) {
		err = -EINVAL;
	} else {
		memcpy(&h, msg, sizeof(h));
		h.key[16] = '\0';
		h.backend[sizeof(h.backend) - 1] = '\0';
		b = pdk_backend_find(h.backend);
		if (h.magic != MAGIC_GET || !backend_fits(b))
			err = -EINVAL;
	}
	for (size_t i = 0; !err && i < n_zygotes; i++)
		if (!zygotes[i].busy && !strcmp(zygotes[i].key, h.key)) {
			z = &zygotes[i];
			break;
		}
	if (!err && !z) {
		char *blob = malloc(k - sizeof(h) + 1);

		if (!blob)
			err = -ENOMEM;
		else
			memcpy(blob, msg + sizeof(h), k - sizeof(h));
		if (blob)
			z = zygote_new(b, h.key, blob, k - sizeof(h), &err);
		if (!z && !err)
			err = -ENOMEM;
	}
	if (z && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, cp) < 0)
		err = -errno;
	if (z && !err && (err = send_fds(z->fd, "c", 1, &cp[0], 1)) < 0)
		zygote_drop(z);
	if (!err)
		z->busy = true;
	(void)send_fds(reply, &err, sizeof(err), err ? NULL : &cp[1], err ? 0 : 1);
	for (int i = 0; i < 2; i++)
		if (cp[i] >= 0)
			close(cp[i]);
}

/* The host's children that are gone: a zygote's (it is dropped when its socket says so), and
 * the orphans its wrapper leaves (bwrap's pid 1, which outlives bwrap's exit), of which the
 * host is the subreaper. */
static void host_reap(int flags)
{
	pid_t pid;

	while ((pid = waitpid(-1, NULL, flags)) > 0 || (pid < 0 && errno == EINTR))
		for (size_t i = 0; i < n_zygotes; i++)
			if (zygotes[i].pid == pid)
				zygotes[i].pid = 0;
}

static void __attribute__((noreturn)) host_main(int sock, pid_t session)
{
	static char msg[sizeof(struct get_hdr) + MAX_POLICY];

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != session || prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		_exit(1);
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		struct pollfd pfd[1 + MAX_ZYGOTES];
		size_t n = 0;
		int reply;
		ssize_t k;

		host_reap(WNOHANG);

		pfd[n++] = (struct pollfd){sock, POLLIN, 0};
		for (size_t i = 0; i < n_zygotes; i++)
			pfd[n++] = (struct pollfd){zygotes[i].fd, POLLIN, 0};
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		/* The zygotes' word first: one idle again serves the call waiting. Walked
		 * from the end, as a drop moves the last one into the place it leaves. */
		for (size_t i = n - 1; i >= 1; i--) {
			struct zygote *z = &zygotes[i - 1];
			char c;

			if (!pfd[i].revents || z->fd != pfd[i].fd)
				continue;
			ssize_t got = recv(z->fd, &c, 1, MSG_DONTWAIT);

			if (got == 1)
				z->busy = false;
			else if (got == 0 || errno != EAGAIN)
				zygote_drop(z); /* gone: made again when asked for */
		}
		if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		k = recv_fds(sock, msg, sizeof(msg), &reply, 1, 0);
		if (k == -EBADMSG)
			continue;
		if (k <= 0)
			break;
		host_get(msg, (size_t)k, reply);
		close(reply);
	}
	while (n_zygotes)
		zygote_drop(&zygotes[n_zygotes - 1]);
	host_reap(0);
	_exit(0);
}

int pdk_zygote_host_start(int *ret_fd, pid_t *ret_pid)
{
	int sv[2];
	pid_t session = getpid(), pid;

	if ((pid = fork_paired(sv)) < 0)
		return (int)pid;
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);

		/* The session's stdio is its client's: none of it here. */
		if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(devnull, 1) < 0 ||
		    dup2(devnull, 2) < 0)
			_exit(1);
		close_all_from(3, sv[1]);
		host_main(sv[1], session);
	}
	close(sv[1]);
	*ret_fd = sv[0];
	*ret_pid = pid;
	return 0;
}

/* --- a call's side ------------------------------------------------------------------------- */

int pdk_zygote_get(int host_fd, const char *backend, const char *key,
		   const struct pdk_confine *policy, int *ret_fd)
{
	struct buf b = {0};
	struct get_hdr h = {.magic = MAGIC_GET};
	int rp[2], err = -EIO, fd, r;
	ssize_t k;

	snprintf(h.key, sizeof(h.key), "%s", key);
	if (snprintf(h.backend, sizeof(h.backend), "%s", backend) >= (int)sizeof(h.backend))
		return -EINVAL;
	put(&b, &h, sizeof(h));
	policy_blob(policy, &b);
	if (b.bad) {
		free(b.p);
		return -E2BIG;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, rp) < 0) {
		free(b.p);
		return -errno;
	}
	r = send_fds(host_fd, b.p, b.len, &rp[1], 1);
	free(b.p);
	close(rp[1]);
	if (r < 0) {
		close(rp[0]);
		return r;
	}
	k = recv_fds(rp[0], &err, sizeof(err), &fd, 1, 0);
	close(rp[0]);
	if (k == -EBADMSG || k == 0) {
		/* No descriptor: the host said why, or went away. */
		return err < 0 ? err : -EIO;
	}
	if (k < 0)
		return (int)k;
	*ret_fd = fd;
	return 0;
}

int pdk_zygote_spawn(int conn, const struct pdk_zygote_call *call, pid_t *ret_pid,
		     int *ret_errno, int *ret_stage)
{
	struct buf b = {0};
	struct spawn_hdr h = {.magic = MAGIC_SPAWN};
	struct report rep;
	int fds[SPAWN_FDS], r;
	ssize_t k;

	while (call->argv[h.n_argv])
		h.n_argv++;
	while (call->envp && call->envp[h.n_envp])
		h.n_envp++;
	put(&b, &h, sizeof(h));
	put_str(&b, call->path);
	put_str(&b, call->cwd);
	for (uint32_t i = 0; i < h.n_argv; i++)
		put_str(&b, call->argv[i]);
	for (uint32_t i = 0; i < h.n_envp; i++)
		put_str(&b, call->envp[i]);
	if (b.bad || b.len > sizeof(h) + PDK_ZYGOTE_MAX_BODY) {
		free(b.p);
		return -E2BIG;
	}
	fds[0] = call->in;
	fds[1] = call->out;
	fds[2] = call->err;
	fds[3] = call->cgroup_procs;
	r = send_fds(conn, b.p, b.len, fds, SPAWN_FDS);
	free(b.p);
	if (r < 0)
		return r == -ECONNREFUSED || r == -ENOTCONN ? -EPIPE : r;
	do
		k = recv(conn, &rep, sizeof(rep), 0);
	while (k < 0 && errno == EINTR);
	if (k != (ssize_t)sizeof(rep) || rep.what != 1)
		return -EPIPE;
	*ret_pid = rep.pid;
	if (rep.err) {
		if (!rep.pid)
			return -rep.err;
		*ret_errno = rep.err;
		*ret_stage = rep.stage;
		return 1;
	}
	return 0;
}

int pdk_zygote_wait(int conn, bool block, int *ret_wstatus)
{
	struct report rep;
	ssize_t k;

	do
		k = recv(conn, &rep, sizeof(rep), block ? 0 : MSG_DONTWAIT);
	while (k < 0 && errno == EINTR);
	if (k < 0 && errno == EAGAIN)
		return 0;
	if (k != (ssize_t)sizeof(rep) || rep.what != 2)
		return -EPIPE;
	*ret_wstatus = rep.wstatus;
	return 1;
}

int pdk_zygote_signal(int conn, int sig)
{
	struct signal_msg sm = {MAGIC_SIGNAL, sig};

	return send_fds(conn, &sm, sizeof(sm), NULL, 0);
}
