/* zygote.c - a resident session's confined zygotes (Linux, Landlock): the host that makes one
 * a policy shape, the zygote's loop of fork and exec, and a call's requests to them. */
#include <errno.h>
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
#include "core/util.h"
#include "runner.h"
#include "zygote.h"

#define MAGIC_GET 0x7a796701U
#define MAGIC_SPAWN 0x7a796702U
#define MAX_POLICY (192 * 1024)
#define MAX_KIDS 256
#define MAX_ZYGOTES 16
#define SPAWN_FDS 5 /* reply, in, out, err, cgroup.procs */

struct get_hdr {
	uint32_t magic;
	char key[17];
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

bool pdk_zygote_fits(const struct pdk_confine *policy)
{
	return !policy->n_domains && !policy->n_unix && !policy->n_devices && !policy->gpu &&
	       policy->max_procs;
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

struct kid {
	pid_t pid;
	int reply; /* -1: the call is gone; the kid was killed and waits to be reaped */
};

static struct kid kids[MAX_KIDS];
static size_t n_kids;
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

static void kill_kid(const struct kid *k)
{
	kill(-k->pid, SIGKILL);
	kill(k->pid, SIGKILL);
}

static void say(int reply, const struct report *rep)
{
	if (reply >= 0)
		(void)send(reply, rep, sizeof(*rep), MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Reap whatever exited: a call's command is reported; an orphan of a run (the zygote is
 * their subreaper) is only reaped. */
static void reap(void)
{
	int ws;
	pid_t pid;

	while ((pid = waitpid(-1, &ws, WNOHANG)) > 0)
		for (size_t i = 0; i < n_kids; i++) {
			if (kids[i].pid != pid)
				continue;
			say(kids[i].reply, &(struct report){.what = 2, .pid = pid, .wstatus = ws});
			if (kids[i].reply >= 0)
				close(kids[i].reply);
			kids[i] = kids[--n_kids];
			break;
		}
}

/* Async-signal-safe from the fork to the exec, as the runner's child. */
static void __attribute__((noreturn))
kid_main(const char *path, char *const *argv, char *const *envp, const char *cwd,
	 const int *fds, int report, pid_t zygote)
{
	struct child_rep {
		int err, stage;
	} rep = {0, 0};

	if (write(fds[4], "0", 1) != 1) {
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
	if (dup2(fds[1], 0) < 0 || dup2(fds[2], 1) < 0 || dup2(fds[3], 2) < 0) {
		rep = (struct child_rep){errno, 4};
		goto fail;
	}
	pdk_reset_signals();
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

/* One call: the command's strings from the message, its descriptors in fds. */
static void spawn_one(const char *msg, size_t n, int *fds)
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
	ssize_t k;

	memcpy(&h, msg, sizeof(h));
	if (h.n_argv < 1 || h.n_argv > r.left || h.n_envp > r.left || n_kids == MAX_KIDS)
		goto out;
	path = get_str(&r);
	cwd = get_str(&r);
	argv = calloc(h.n_argv + 1, sizeof(*argv));
	envp = calloc(h.n_envp + 1, sizeof(*envp));
	if (!argv || !envp || !path) {
		rep.err = ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < h.n_argv && !r.bad; i++)
		if (!(argv[i] = get_str(&r)))
			r.bad = true;
	for (uint32_t i = 0; i < h.n_envp && !r.bad; i++)
		if (!(envp[i] = get_str(&r)))
			r.bad = true;
	if (r.bad || r.left)
		goto out;
	if (pipe2(ep, O_CLOEXEC) < 0) {
		rep.err = errno;
		goto out;
	}
	pid_t self = getpid(), pid = fork();
	if (pid == 0)
		kid_main(path, (char *const *)argv, (char *const *)envp, cwd, fds, ep[1], self);
	if (pid < 0) {
		rep.err = errno;
		goto out;
	}
	close(ep[1]);
	ep[1] = -1;
	do
		k = read(ep[0], &crep, sizeof(crep));
	while (k < 0 && errno == EINTR);
	rep.pid = pid;
	if (k == (ssize_t)sizeof(crep)) {
		/* Never ran: reaped with the others, nothing to report of its exit. */
		rep.err = crep.err;
		rep.stage = crep.stage;
		say(fds[0], &rep);
		goto out;
	}
	rep.err = 0;
	kids[n_kids++] = (struct kid){pid, fds[0]};
	fds[0] = -1;
	say(kids[n_kids - 1].reply, &rep);
	for (int i = 1; i < SPAWN_FDS; i++)
		close(fds[i]);
	close(ep[0]);
	return;
out:
	if (rep.err)
		say(fds[0], &rep);
	for (int i = 0; i < SPAWN_FDS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	for (int i = 0; i < 2; i++)
		if (ep[i] >= 0)
			close(ep[i]);
}

static void __attribute__((noreturn)) zygote_main(int ctl)
{
	static char msg[sizeof(struct spawn_hdr) + PDK_ZYGOTE_MAX_BODY];
	struct sigaction sa = {.sa_handler = on_chld, .sa_flags = SA_RESTART | SA_NOCLDSTOP};
	int sp[2];

	if (pipe2(sp, O_CLOEXEC | O_NONBLOCK) < 0)
		_exit(1);
	chld_w = sp[1];
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	for (;;) {
		struct pollfd pfd[2 + MAX_KIDS];
		size_t n = 0;
		int fds[SPAWN_FDS];
		char drain[64];
		ssize_t k;

		pfd[n++] = (struct pollfd){n_kids < MAX_KIDS ? ctl : -1, POLLIN, 0};
		pfd[n++] = (struct pollfd){sp[0], POLLIN, 0};
		for (size_t i = 0; i < n_kids; i++)
			pfd[n++] = (struct pollfd){kids[i].reply, POLLIN, 0};
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents & POLLIN) {
			while (read(sp[0], drain, sizeof(drain)) > 0)
				;
			reap();
		}
		/* A call that went away (its paddock killed) takes its command with it. */
		for (size_t i = 0; i < n_kids && 2 + i < n; i++)
			if (kids[i].reply >= 0 && pfd[2 + i].fd == kids[i].reply &&
			    pfd[2 + i].revents) {
				kill_kid(&kids[i]);
				close(kids[i].reply);
				kids[i].reply = -1;
			}
		if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		k = recv_fds(ctl, msg, sizeof(msg), fds, SPAWN_FDS, MSG_DONTWAIT);
		if (k == -EAGAIN || k == -EBADMSG)
			continue;
		if (k <= 0)
			break;
		if ((size_t)k < sizeof(struct spawn_hdr) ||
		    ((const struct spawn_hdr *)(const void *)msg)->magic != MAGIC_SPAWN) {
			for (int i = 0; i < SPAWN_FDS; i++)
				close(fds[i]);
			continue;
		}
		spawn_one(msg, (size_t)k, fds);
	}
	/* The session is gone: so is every command it started here. */
	for (size_t i = 0; i < n_kids; i++)
		kill_kid(&kids[i]);
	_exit(0);
}

/* --- the host: unconfined, it makes and keeps the zygotes ---------------------------------- */

struct zygote {
	char key[17];
	pid_t pid;
	int fd;		/* the host's end of its socket: calls send on dups of it */
	void *state;	/* the backend's, with the connect supervisor of its listener */
	char *blob;	/* the policy's bytes, which policy points into */
	struct pdk_confine policy;
};

static struct zygote zygotes[MAX_ZYGOTES];
static size_t n_zygotes;

static void zygote_drop(const struct pdk_backend *b, struct zygote *z)
{
	if (z->pid > 0) {
		kill(z->pid, SIGKILL);
		while (waitpid(z->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
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

static int zygote_make(const struct pdk_backend *b, struct zygote *z)
{
	int sv[2], ready = -EIO, r, handover = 0;
	pid_t pid, host = getpid();

	if ((r = b->prepare(&z->policy, &z->state)) < 0)
		return r;
	if (b->before_fork && (handover = b->before_fork(z->state)) < 0)
		return handover;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		r = -errno;
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
		ready = b->enter(z->state);
		if (ready == 0) {
			/* Nothing of the host's: only the socket calls come on, and 0-2. */
			close_all_from(3, sv[1]);
			/* Not dumpable: a command cannot read or write the zygote's memory
			 * through /proc, as it could a process of its own. */
			if (prctl(PR_SET_DUMPABLE, 0) < 0 || prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
				ready = -errno;
		}
		(void)send(sv[1], &ready, sizeof(ready), MSG_NOSIGNAL);
		if (ready < 0)
			_exit(1);
		zygote_main(sv[1]);
	}
	close(sv[1]);
	z->pid = pid;
	z->fd = sv[0];
	if (handover && b->forked && (r = b->forked(z->state, pid)) < 0)
		return r;
	if (recv(sv[0], &ready, sizeof(ready), 0) != sizeof(ready))
		return -EIO;
	return ready;
}

static struct zygote *zygote_find(const struct pdk_backend *b, const char *key)
{
	for (size_t i = 0; i < n_zygotes; i++) {
		struct zygote *z = &zygotes[i];

		if (strcmp(z->key, key) != 0)
			continue;
		/* One that died (killed, out of memory) is made again. */
		if (waitpid(z->pid, NULL, WNOHANG) == z->pid) {
			z->pid = 0;
			zygote_drop(b, z);
			return NULL;
		}
		return z;
	}
	return NULL;
}

/* A new zygote for key, from the policy's bytes (taken); NULL with *err. */
static struct zygote *zygote_new(const struct pdk_backend *b, const char *key, char *blob,
				 size_t len, int *err)
{
	struct rd r = {blob, len, false};
	struct zygote *z;
	uint64_t procs = 0;

	if (n_zygotes == MAX_ZYGOTES)
		zygote_drop(b, &zygotes[0]);
	z = &zygotes[n_zygotes++];
	*z = (struct zygote){.fd = -1, .blob = blob};
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
		zygote_drop(b, z);
		return NULL;
	}
	return z;
}

static void __attribute__((noreturn)) host_main(int sock, pid_t session)
{
	const struct pdk_backend *b = pdk_backend_find("landlock");
	static char msg[sizeof(struct get_hdr) + MAX_POLICY];

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != session)
		_exit(1);
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		struct get_hdr h;
		struct zygote *z;
		int reply, err = 0;
		ssize_t k = recv_fds(sock, msg, sizeof(msg), &reply, 1, 0);

		if (k == -EBADMSG)
			continue;
		if (k <= 0)
			break;
		if ((size_t)k < sizeof(h) || !b || !b->prepare || !b->enter) {
			err = -EINVAL;
		} else {
			memcpy(&h, msg, sizeof(h));
			h.key[16] = '\0';
			if (h.magic != MAGIC_GET)
				err = -EINVAL;
		}
		z = err ? NULL : zygote_find(b, h.key);
		if (!err && !z) {
			char *blob = malloc((size_t)k - sizeof(h) + 1);

			if (!blob) {
				err = -ENOMEM;
			} else {
				memcpy(blob, msg + sizeof(h), (size_t)k - sizeof(h));
				z = zygote_new(b, h.key, blob, (size_t)k - sizeof(h), &err);
			}
		}
		(void)send_fds(reply, &err, sizeof(err), z ? &z->fd : NULL, z ? 1 : 0);
		close(reply);
	}
	while (n_zygotes)
		zygote_drop(b, &zygotes[n_zygotes - 1]);
	_exit(0);
}

int pdk_zygote_host_start(int *ret_fd)
{
	int sv[2], r;
	pid_t session = getpid(), pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(sv[0]);
		close(sv[1]);
		return r;
	}
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
	return 0;
}

/* --- a call's side ------------------------------------------------------------------------- */

int pdk_zygote_get(int host_fd, const char *key, const struct pdk_confine *policy,
		   int *ret_fd)
{
	struct buf b = {0};
	struct get_hdr h = {.magic = MAGIC_GET};
	int rp[2], err = -EIO, fd, r;
	ssize_t k;

	snprintf(h.key, sizeof(h.key), "%s", key);
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

int pdk_zygote_spawn(int zfd, const struct pdk_zygote_call *call, int *ret_reply,
		     pid_t *ret_pid, int *ret_errno, int *ret_stage)
{
	struct buf b = {0};
	struct spawn_hdr h = {.magic = MAGIC_SPAWN};
	struct report rep;
	int rp[2], fds[SPAWN_FDS], r;
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
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, rp) < 0) {
		free(b.p);
		return -errno;
	}
	fds[0] = rp[1];
	fds[1] = call->in;
	fds[2] = call->out;
	fds[3] = call->err;
	fds[4] = call->cgroup_procs;
	r = send_fds(zfd, b.p, b.len, fds, SPAWN_FDS);
	free(b.p);
	close(rp[1]);
	if (r < 0) {
		close(rp[0]);
		return r == -ECONNREFUSED || r == -ENOTCONN ? -EPIPE : r;
	}
	do
		k = recv(rp[0], &rep, sizeof(rep), 0);
	while (k < 0 && errno == EINTR);
	if (k != (ssize_t)sizeof(rep) || rep.what != 1) {
		close(rp[0]);
		return -EPIPE;
	}
	*ret_pid = rep.pid;
	if (rep.err) {
		close(rp[0]);
		if (!rep.pid)
			return -rep.err;
		*ret_errno = rep.err;
		*ret_stage = rep.stage;
		return 1;
	}
	*ret_reply = rp[0];
	return 0;
}

int pdk_zygote_wait(int reply, bool block, int *ret_wstatus)
{
	struct report rep;
	ssize_t k;

	do
		k = recv(reply, &rep, sizeof(rep), block ? 0 : MSG_DONTWAIT);
	while (k < 0 && errno == EINTR);
	if (k < 0 && errno == EAGAIN)
		return 0;
	if (k != (ssize_t)sizeof(rep) || rep.what != 2)
		return -EPIPE;
	*ret_wstatus = rep.wstatus;
	return 1;
}
