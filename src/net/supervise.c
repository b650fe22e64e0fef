/* supervise.c - the connect supervisor (Linux): paddock performs the run's connect, bind,
 * listen and addressed sends on the run's own socket, with its own copy of every argument. */
#include "supervise_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core/path.h"
#include "core/util.h"

#ifndef SO_PROTOCOL
#define SO_PROTOCOL 38
#endif
#ifndef SO_DOMAIN
#define SO_DOMAIN 39
#endif

/* Copies are bounded: a datagram is at most 64 KiB, and a stream send may be
 * short (the caller sends the rest). */
#define MAX_DATA (256 * 1024)
#define MAX_IOV 1024
#define MAX_CONTROL 4096
#define MAX_BOUND 65536
/* Unix sockets the run bound, and of them to a path, each of which holds a
 * descriptor of paddock's (kept well below the usual limit of 1024). */
#define MAX_UNIX_BOUND 4096
#define MAX_UNIX_FILES 256
/* A thread that is done waits WORKER_IDLE_S for the next call before it ends: a
 * thread made for every call cost more than the call. */
#define WORKER_IDLE_S 2

/* An address the run bound: protocol, family (4 or 6, v4-mapped ones as 4),
 * address and port. */
struct key {
	int proto;
	int fam;
	unsigned char addr[16];
	uint16_t port;
};

/* A socket the run bound: its address, its inode (which a socket of the host
 * given the same port after the run's closed never has), and whether it was a
 * dual-stack socket bound to the unspecified address, kept to 127.0.0.1. */
struct bound {
	struct key k;
	ino_t ino;
	bool dual;
};

/* A unix socket the run bound: to a path, the socket file (whose inode number
 * paddock's descriptor keeps from going to another file), or to an abstract
 * name (len bytes), with the socket's inode, looked for in the kernel's table
 * at each use. */
struct ubound {
	dev_t dev;
	ino_t ino;
	int fd;
	ino_t sock;
	unsigned char len;
	char name[108];
};

static long sys_pidfd_open(pid_t pid, unsigned flags)
{
	return syscall(__NR_pidfd_open, pid, flags);
}

static long sys_pidfd_getfd(int pidfd, int fd)
{
	return syscall(__NR_pidfd_getfd, pidfd, fd, 0);
}

int pdk_netsup_probe(char *why, size_t why_len)
{
	struct seccomp_notif_sizes sizes;
	_cleanup_close_ int pidfd = -1, fd = -1;

	if (syscall(__NR_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0) {
		snprintf(why, why_len, "this kernel has no seccomp user notification (5.0)");
		return -EOPNOTSUPP;
	}
	pidfd = sys_pidfd_open(getpid(), 0);
	if (pidfd < 0) {
		snprintf(why, why_len, "this kernel has no pidfd_open (5.3)");
		return -EOPNOTSUPP;
	}
	fd = sys_pidfd_getfd(pidfd, pidfd);
	if (fd < 0) {
		snprintf(why, why_len, "pidfd_getfd fails here (5.6): %s", strerror(errno));
		return -EOPNOTSUPP;
	}
	snprintf(why, why_len, "seccomp user notification and pidfd_getfd");
	return 0;
}

int pdk_netsup_new(struct pdk_netsup **ret)
{
	struct pdk_netsup *ns = calloc(1, sizeof(*ns));
	int r;

	if (!ns)
		return -ENOMEM;
	ns->to_parent[0] = ns->to_parent[1] = ns->to_child[0] = ns->to_child[1] = -1;
	ns->stop[0] = ns->stop[1] = ns->listener = ns->bind_ruleset = ns->fs_ruleset = -1;
	/* The child waits for paddock's thread: with paddock killed meanwhile, it must not
	 * wait on, as the process that spawned it (the guardian, which holds the pipes too)
	 * waits for it. */
	ns->owner = (int)sys_pidfd_open(getpid(), 0);
	ns->fs_armed = true;
	pthread_mutex_init(&ns->lock, NULL);
	pthread_cond_init(&ns->idle, NULL);
	pthread_cond_init(&ns->work, NULL);
	if (syscall(__NR_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &ns->sizes) < 0) {
		r = -errno;
		goto fail;
	}
	if ((r = pdk_pipe_cloexec(ns->to_parent)) < 0 || (r = pdk_pipe_cloexec(ns->to_child)) < 0 ||
	    (r = pdk_pipe_cloexec(ns->stop)) < 0)
		goto fail;
	*ret = ns;
	return 0;
fail:
	pdk_netsup_free(ns);
	return r;
}

void pdk_netsup_allow_proxy(struct pdk_netsup *ns, unsigned port)
{
	ns->proxy_port = (uint16_t)port;
}

void pdk_netsup_pass_others(struct pdk_netsup *ns)
{
	ns->pass_others = true;
}

int pdk_netsup_allow_unix(struct pdk_netsup *ns, const char *const *paths, const int *fds,
			  size_t n)
{
	if (!n)
		return 0;
	ns->unix_paths = calloc(n, sizeof(*ns->unix_paths));
	ns->unix_fds = calloc(n, sizeof(*ns->unix_fds));
	ns->unix_st = calloc(n, sizeof(*ns->unix_st));
	if (!ns->unix_paths || !ns->unix_fds || !ns->unix_st)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		ns->unix_fds[i] = -1;
		ns->n_unix++;
		if (!(ns->unix_paths[i] = strdup(paths[i])))
			return -ENOMEM;
		if ((ns->unix_fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 3)) < 0 ||
		    fstat(ns->unix_fds[i], &ns->unix_st[i]) < 0)
			return -errno;
	}
	return 0;
}

int pdk_netsup_allow_bind(struct pdk_netsup *ns, const char *const *roots, size_t n)
{
	struct landlock_ruleset_attr attr = {.handled_access_fs = LANDLOCK_ACCESS_FS_MAKE_SOCK};
	long fd;

	fd = syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0)
		return 0; /* no Landlock: no bind to a path */
	for (size_t i = 0; i < n; i++) {
		struct landlock_path_beneath_attr pb = {.allowed_access =
								LANDLOCK_ACCESS_FS_MAKE_SOCK};
		int dir = open(roots[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
		long r;

		if (dir < 0)
			continue;
		pb.parent_fd = dir;
		r = syscall(__NR_landlock_add_rule, (int)fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
		close(dir);
		if (r < 0) {
			r = -errno;
			close((int)fd);
			return (int)r;
		}
	}
	if (ns->bind_ruleset >= 0)
		close(ns->bind_ruleset);
	ns->bind_ruleset = (int)fd;
	return 0;
}

/* Child side: async-signal-safe calls only. */
int pdk_netsup_child(struct pdk_netsup *ns, const void *filter, unsigned short len, bool hold)
{
	struct sock_fprog prog = {.len = len, .filter = (struct sock_filter *)filter};
	char ack = 0;
	int fd, msg[3];
	ssize_t n;

	close(ns->to_parent[0]);
	close(ns->to_child[1]);
	fd = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
		     &prog);
	if (fd < 0)
		return -errno;
	msg[0] = fd;
	msg[1] = hold;
	msg[2] = (int)syscall(SYS_getpid);
	do
		n = write(ns->to_parent[1], msg, sizeof(msg));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(msg))
		return -EPIPE;
	/* The word, or paddock's end. */
	struct pollfd p[2] = {{ns->to_child[0], POLLIN, 0}, {ns->owner, POLLIN, 0}};

	while (poll(p, ns->owner >= 0 ? 2 : 1, -1) < 0 && errno == EINTR)
		;
	n = -1;
	if (p[0].revents)
		do
			n = read(ns->to_child[0], &ack, 1);
		while (n < 0 && errno == EINTR);
	/* The command must never hold the listener: with it, it could answer
	 * its own calls. */
	close(fd);
	return n == 1 && ack == '1' ? 0 : -EPIPE;
}

/* ---- the bound set ---- */

static bool key_eq(const struct key *a, const struct key *b)
{
	return a->proto == b->proto && a->fam == b->fam && a->port == b->port &&
	       memcmp(a->addr, b->addr, a->fam == 4 ? 4 : 16) == 0;
}

static void add_bound(struct pdk_netsup *ns, const struct key *k, ino_t ino, bool dual)
{
	pthread_mutex_lock(&ns->lock);
	for (size_t i = 0; i < ns->n_bound; i++)
		if (ns->bound[i].ino == ino && key_eq(&ns->bound[i].k, k)) {
			ns->bound[i].dual |= dual;
			goto out;
		}
	if (ns->n_bound < MAX_BOUND) {
		struct bound *b = realloc(ns->bound, (ns->n_bound + 1) * sizeof(*b));

		if (b) {
			ns->bound = b;
			b[ns->n_bound++] = (struct bound){*k, ino, dual};
		}
	}
out:
	pthread_mutex_unlock(&ns->lock);
}

/* Is one of the n sockets of inodes inos still there, at port, in the kernel's
 * table at path (/proc/net/tcp and the like: the run has the host's network)? */
static bool in_table(const char *path, const ino_t *inos, size_t n, uint16_t port)
{
	FILE *f = fopen(path, "re");
	char line[512];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned lport;
		unsigned long long ino;

		/* sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode */
		if (sscanf(line, " %*s %*[0-9A-Fa-f]:%x %*s %*s %*s %*s %*s %*s %*s %llu", &lport,
			   &ino) != 2 || lport != port)
			continue;
		for (size_t i = 0; i < n && !found; i++)
			found = ino && (ino_t)ino == inos[i];
	}
	fclose(f);
	return found;
}

/* May the run reach k: a socket the run bound there is still open? A port the
 * run bound and closed may since be a host service's. With via_dual, k is ::1
 * and the socket looked for is a dual-stack one at 127.0.0.1 (as the kernel
 * would have it at ::), to be reached through k's v4-mapped form. */
static bool bound_live(struct pdk_netsup *ns, const struct key *k, bool via_dual)
{
	struct key want = *k;
	ino_t inos[16];
	size_t n = 0;

	if (via_dual)
		want = (struct key){.proto = k->proto, .fam = 4, .addr = {127, 0, 0, 1},
				    .port = k->port};
	pthread_mutex_lock(&ns->lock);
	for (size_t i = ns->n_bound; i-- > 0 && n < PDK_ARRAY_SIZE(inos);)
		if (key_eq(&ns->bound[i].k, &want) && (!via_dual || ns->bound[i].dual))
			inos[n++] = ns->bound[i].ino;
	pthread_mutex_unlock(&ns->lock);
	if (!n)
		return false;
	if (k->proto == IPPROTO_TCP)
		return in_table("/proc/net/tcp", inos, n, k->port) ||
		       in_table("/proc/net/tcp6", inos, n, k->port);
	return in_table("/proc/net/udp", inos, n, k->port) ||
	       in_table("/proc/net/udp6", inos, n, k->port);
}

/* ---- addresses ---- */

static const unsigned char v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

/* The key of an inet address (port and address; proto left to the caller);
 * v4-mapped IPv6 addresses as IPv4. */
static int key_of(const struct sockaddr_storage *ss, socklen_t len, struct key *k)
{
	memset(k, 0, sizeof(*k));
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)ss;

		if (len < sizeof(*in))
			return -EINVAL;
		k->fam = 4;
		memcpy(k->addr, &in->sin_addr, 4);
		k->port = ntohs(in->sin_port);
		return 0;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

		if (len < 24) /* SIN6_LEN_RFC2133, as the kernel takes it */
			return -EINVAL;
		k->port = ntohs(in6->sin6_port);
		if (memcmp(in6->sin6_addr.s6_addr, v4mapped, 12) == 0) {
			k->fam = 4;
			memcpy(k->addr, in6->sin6_addr.s6_addr + 12, 4);
		} else {
			k->fam = 6;
			memcpy(k->addr, in6->sin6_addr.s6_addr, 16);
		}
		return 0;
	}
	return -EAFNOSUPPORT;
}

static bool key_any(const struct key *k)
{
	static const unsigned char zero[16];

	return memcmp(k->addr, zero, k->fam == 4 ? 4 : 16) == 0;
}

static bool key_loopback(const struct key *k)
{
	static const unsigned char one[16] = {[15] = 1};

	return k->fam == 4 ? k->addr[0] == 127 : memcmp(k->addr, one, 16) == 0;
}

/* Write k's address into ss (of family ss->ss_family), keeping the port. */
static void set_addr(struct sockaddr_storage *ss, const struct key *k)
{
	if (ss->ss_family == AF_INET) {
		memcpy(&((struct sockaddr_in *)ss)->sin_addr, k->addr, 4);
	} else {
		unsigned char *a = ((struct sockaddr_in6 *)ss)->sin6_addr.s6_addr;

		if (k->fam == 4) {
			memcpy(a, v4mapped, 12);
			memcpy(a + 12, k->addr, 4);
		} else {
			memcpy(a, k->addr, 16);
		}
	}
}

/* ---- the command's memory and descriptors ---- */

int pdk_sup_peek(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = {buf, len}, remote = {(void *)(uintptr_t)addr, len};
	ssize_t n;

	if (!len)
		return 0;
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return errno == EFAULT || errno == ESRCH ? -errno : -EFAULT;
	return (size_t)n == len ? 0 : -EFAULT;
}

static int poke(pid_t pid, uint64_t addr, const void *buf, size_t len)
{
	struct iovec local = {(void *)buf, len}, remote = {(void *)(uintptr_t)addr, len};

	return process_vm_writev(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

/* A pidfd for the process whose descriptor table the thread pid uses. */
int pdk_sup_open_pidfd(pid_t pid)
{
	char path[64], line[128];
	FILE *f;
	long fd = sys_pidfd_open(pid, PIDFD_THREAD);
	pid_t tgid = 0;

	if (fd >= 0 || errno != EINVAL)
		return fd >= 0 ? (int)fd : -errno;
	/* Before 6.9 only a thread group leader has a pidfd. */
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	if (tgid <= 0)
		return -ESRCH;
	fd = sys_pidfd_open(tgid, 0);
	return fd >= 0 ? (int)fd : -errno;
}

int pdk_sup_grab(struct call *c, int tfd, int *ret)
{
	long fd = sys_pidfd_getfd(c->pidfd, tfd);

	if (fd < 0)
		return errno == EBADF ? -EBADF : -errno;
	*ret = (int)fd;
	return 0;
}

/* The command's socket tfd, with what it is. */
static int grab_socket(struct call *c, int tfd)
{
	socklen_t l = sizeof(int);
	struct stat st;
	int r;

	if ((r = pdk_sup_grab(c, tfd, &c->fd)) < 0)
		return r;
	if (fstat(c->fd, &st) < 0)
		return -errno;
	if (!S_ISSOCK(st.st_mode))
		return -ENOTSOCK;
	if (getsockopt(c->fd, SOL_SOCKET, SO_DOMAIN, &c->domain, &l) < 0)
		return -errno;
	l = sizeof(int);
	if (getsockopt(c->fd, SOL_SOCKET, SO_TYPE, &c->type, &l) < 0)
		return -errno;
	l = sizeof(int);
	if (getsockopt(c->fd, SOL_SOCKET, SO_PROTOCOL, &c->proto, &l) < 0)
		return -errno;
	return 0;
}

static bool inet(const struct call *c)
{
	return (c->domain == AF_INET || c->domain == AF_INET6) &&
	       (c->proto == IPPROTO_TCP || c->proto == IPPROTO_UDP);
}

/* Still the call the notification was about: the thread did not die, so its
 * number named the same process all along. */
int pdk_sup_still_valid(const struct call *c)
{
	uint64_t id = c->req->id;

	return ioctl(c->ns->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) < 0 ? -ENOENT : 0;
}

/* Bind a socket that has no address yet to the loopback: a listen() or a
 * send would bind it to every address of the host. */
/* The command's IPv6 socket reaches IPv6 only (1), or IPv4 too through v4-mapped
 * addresses (0, dual-stack); or -errno. */
static int v6only(const struct call *c)
{
	int on = 0;
	socklen_t l = sizeof(on);

	return getsockopt(c->fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, &l) < 0 ? -errno : !!on;
}

static int loopback_wildcard(const struct call *c, struct sockaddr_storage *ss, socklen_t *len)
{
	struct key k = {.fam = 4, .addr = {127, 0, 0, 1}};
	int only;

	memset(ss, 0, sizeof(*ss));
	ss->ss_family = (sa_family_t)c->domain;
	if (c->domain == AF_INET6) {
		/* One address only: a dual-stack socket keeps IPv4, which the
		 * tools that say 127.0.0.1 use. */
		if ((only = v6only(c)) < 0)
			return only;
		if (only)
			k = (struct key){.fam = 6, .addr = {[15] = 1}};
		*len = sizeof(struct sockaddr_in6);
	} else {
		*len = sizeof(struct sockaddr_in);
	}
	set_addr(ss, &k);
	return 0;
}

/* Note the address the socket now has as the run's; dual: it was bound to the
 * unspecified address of a dual-stack socket (kept to 127.0.0.1). */
static void record(struct call *c, bool dual)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct stat st;
	struct key k;

	if (fstat(c->fd, &st) == 0 && getsockname(c->fd, (struct sockaddr *)&ss, &len) == 0 &&
	    key_of(&ss, len, &k) == 0) {
		k.proto = c->proto;
		add_bound(c->ns, &k, st.st_ino, dual && c->domain == AF_INET6 && k.fam == 4);
	}
}

/* SO_REUSEPORT would let the run share a port a process of the host of the
 * same user holds; it is not honoured. */
static void no_reuseport(const struct call *c)
{
	int off = 0;

	setsockopt(c->fd, SOL_SOCKET, SO_REUSEPORT, &off, sizeof(off));
}

/* A datagram socket that sends before it binds gets every address: bind it
 * to the loopback first. */
static int bind_if_unbound(struct call *c)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct key k;

	if (getsockname(c->fd, (struct sockaddr *)&ss, &len) < 0)
		return -errno;
	if (key_of(&ss, len, &k) < 0 || k.port != 0)
		return 0;
	if (loopback_wildcard(c, &ss, &len) < 0)
		return -EINVAL;
	no_reuseport(c);
	if (bind(c->fd, (struct sockaddr *)&ss, len) < 0)
		return -errno;
	record(c, true);
	return 0;
}

/* May the run reach this address (rewritten in place from the unspecified
 * address to the loopback, which is where the kernel takes it)? 0 or the
 * errno the kernel gives in a network namespace holding only the run's own. */
static int check_dest(struct call *c, struct sockaddr_storage *ss, socklen_t len)
{
	struct key k;
	int r;

	if (ss->ss_family == AF_UNSPEC && len >= sizeof(sa_family_t))
		return 0; /* dissolves a datagram socket's association */
	if ((r = key_of(ss, len, &k)) < 0)
		return r;
	if (key_any(&k)) {
		struct key lo = k.fam == 4 ? (struct key){.fam = 4, .addr = {127, 0, 0, 1}}
					   : (struct key){.fam = 6, .addr = {[15] = 1}};

		lo.port = k.port;
		k = lo;
		set_addr(ss, &k);
	}
	k.proto = c->proto;
	/* The domains mode's proxy: that address and port exactly, TCP only,
	 * judged on paddock's copy, which is what connect() is given. */
	if (c->ns->proxy_port && k.proto == IPPROTO_TCP && k.fam == 4 &&
	    !memcmp(k.addr, "\177\0\0\1", 4) && k.port == c->ns->proxy_port)
		return 0;
	if (!key_loopback(&k))
		return -ENETUNREACH;
	if (bound_live(c->ns, &k, false))
		return 0;
	/* A server listening at :: (dual-stack, kept to 127.0.0.1) is at ::1 as well. */
	if (k.fam == 6 && c->domain == AF_INET6 && v6only(c) == 0 && bound_live(c->ns, &k, true)) {
		k = (struct key){.fam = 4, .addr = {127, 0, 0, 1}, .port = k.port};
		set_addr(ss, &k);
		return 0;
	}
	return -ECONNREFUSED;
}

static int read_addr(struct call *c, uint64_t addr, uint64_t len, struct sockaddr_storage *ss,
		     socklen_t *ret_len)
{
	memset(ss, 0, sizeof(*ss));
	if (len > sizeof(*ss) || (int64_t)len < 0)
		return -EINVAL;
	*ret_len = (socklen_t)len;
	return pdk_sup_peek(c->req->pid, addr, ss, len);
}

/* ---- the calls ---- */

/* ---- unix sockets ---- */

/* The address in a struct sockaddr_un of len bytes: a path (NUL-terminated
 * into path), an abstract name (path[0] == '\0', *ret_len bytes with it),
 * or none (autobind: *ret_len 0). */
static int unix_addr(const struct sockaddr_storage *ss, socklen_t len, char *path,
		     size_t *ret_len)
{
	const struct sockaddr_un *sun = (const struct sockaddr_un *)ss;
	size_t off = offsetof(struct sockaddr_un, sun_path), n;

	if (len < off || sun->sun_family != AF_UNIX)
		return -EINVAL;
	n = len - off;
	if (n > sizeof(sun->sun_path))
		n = sizeof(sun->sun_path);
	memcpy(path, sun->sun_path, n);
	path[n] = '\0';
	if (n && path[0])
		n = strnlen(path, n);
	*ret_len = n;
	return 0;
}

/* Open path as the thread tid would find it: from its root, or from its
 * working directory when relative (absolute symlinks met in the way are
 * taken from its root). O_PATH, following the last name. */
static int open_as(pid_t tid, const char *path)
{
	struct open_how how = {.flags = O_PATH | O_CLOEXEC,
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	char proc[64], full[PATH_MAX + sizeof(((struct sockaddr_un *)0)->sun_path) + 2];
	_cleanup_close_ int root = -1;
	long fd;

	snprintf(proc, sizeof(proc), "/proc/%d/root", (int)tid);
	root = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	if (path[0] != '/') {
		ssize_t n;

		snprintf(proc, sizeof(proc), "/proc/%d/cwd", (int)tid);
		n = readlink(proc, full, PATH_MAX);
		if (n <= 0 || full[0] != '/')
			return -ENOENT; /* its directory is gone or out of its root */
		snprintf(full + n, sizeof(full) - n, "/%s", path);
		path = full;
	}
	fd = syscall(__NR_openat2, root, path, &how, sizeof(how));
	return fd < 0 ? -errno : (int)fd;
}

/* Forget the socket files the run removed since: no path leads to them. */
static size_t sweep_ubound(struct pdk_netsup *ns)
{
	size_t k = 0, files = 0;

	for (size_t i = 0; i < ns->n_ubound; i++) {
		struct ubound *u = &ns->ubound[i];
		struct stat st;

		if (u->fd >= 0 && fstat(u->fd, &st) == 0 && st.st_nlink == 0) {
			close(u->fd);
			continue;
		}
		files += u->fd >= 0;
		ns->ubound[k++] = *u;
	}
	ns->n_ubound = k;
	return files;
}

static void add_ubound(struct pdk_netsup *ns, const struct ubound *u)
{
	size_t files = 0;

	pthread_mutex_lock(&ns->lock);
	for (size_t i = 0; u->fd >= 0 && i < ns->n_ubound; i++)
		files += ns->ubound[i].fd >= 0;
	if (ns->n_ubound >= MAX_UNIX_BOUND || (u->fd >= 0 && files >= MAX_UNIX_FILES))
		files = sweep_ubound(ns);
	if (ns->n_ubound < MAX_UNIX_BOUND && (u->fd < 0 || files < MAX_UNIX_FILES)) {
		struct ubound *v = realloc(ns->ubound, (ns->n_ubound + 1) * sizeof(*v));

		if (v) {
			ns->ubound = v;
			v[ns->n_ubound++] = *u;
			u = NULL;
		}
	}
	pthread_mutex_unlock(&ns->lock);
	if (u && u->fd >= 0)
		close(u->fd); /* not kept: the socket is out of the run's reach */
}

/* Is the abstract name (len bytes, the first one '\0') bound to one of the
 * run's sockets now? Looked for in the table of the network namespace of the
 * thread tid, which the name belongs to. */
static bool abstract_live(struct pdk_netsup *ns, pid_t tid, const char *name, size_t len)
{
	ino_t inos[16];
	size_t n = 0;
	char proc[64], line[512], want[110];
	bool found = false;
	FILE *f;

	pthread_mutex_lock(&ns->lock);
	for (size_t i = ns->n_ubound; i-- > 0 && n < PDK_ARRAY_SIZE(inos);)
		if (ns->ubound[i].fd < 0 && ns->ubound[i].len == len &&
		    !memcmp(ns->ubound[i].name, name, len))
			inos[n++] = ns->ubound[i].sock;
	pthread_mutex_unlock(&ns->lock);
	if (!n)
		return false;
	/* The kernel writes the name with '@' for every '\0'. */
	for (size_t i = 0; i < len; i++)
		want[i] = name[i] ? name[i] : '@';
	want[len] = '\0';
	snprintf(proc, sizeof(proc), "/proc/%d/net/unix", (int)tid);
	f = fopen(proc, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long ino;
		int at = 0;

		/* Num RefCount Protocol Flags Type St Inode Path */
		if (sscanf(line, "%*s %*s %*s %*s %*s %*s %llu %n", &ino, &at) != 1 || !at)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line + at, want) != 0)
			continue;
		for (size_t i = 0; i < n && !found; i++)
			found = (ino_t)ino == inos[i];
	}
	fclose(f);
	return found;
}

/* Note the abstract name the socket has now (an autobind too) as the run's. */
static void record_abstract(struct call *c)
{
	struct sockaddr_un sun = {0};
	socklen_t len = sizeof(sun);
	size_t off = offsetof(struct sockaddr_un, sun_path);
	struct ubound u = {.fd = -1};
	struct stat st;

	if (getsockname(c->fd, (struct sockaddr *)&sun, &len) < 0 || len <= off + 1 ||
	    sun.sun_path[0] || fstat(c->fd, &st) < 0)
		return;
	u.sock = st.st_ino;
	u.len = (unsigned char)(len - off);
	memcpy(u.name, sun.sun_path, u.len);
	add_ubound(c->ns, &u);
}

/*
 * Where a unix address given to connect() or sendto() may lead: to a socket
 * this run bound, or to one of allowUnixSockets, and nowhere else. A path is
 * opened as the command would, and the socket file found there is compared
 * by device and inode: *ret_fd is then a descriptor of it, which the call is
 * made through (/proc/self/fd/N), so that a path swapped since reaches
 * nothing else. An abstract name: *ret_fd -1, the address as given. 0 or
 * the errno the command sees (EACCES: a socket that is not the run's).
 */
static int unix_dest(struct call *c, const struct sockaddr_storage *ss, socklen_t len,
		     int *ret_fd)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
	_cleanup_close_ int fd = -1;
	struct stat st;
	size_t n;
	int r;

	*ret_fd = -1;
	if ((r = unix_addr(ss, len, path, &n)) < 0)
		return r;
	if (!n)
		return -EINVAL;
	if (!path[0])
		return abstract_live(c->ns, c->req->pid, path, n) ? 0 : -EACCES;
	if ((fd = open_as(c->req->pid, path)) < 0)
		return fd == -ELOOP || fd == -EXDEV ? -EACCES : fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISSOCK(st.st_mode))
		return -ECONNREFUSED;
	for (size_t i = 0; i < c->ns->n_unix; i++)
		if (c->ns->unix_st[i].st_dev == st.st_dev && c->ns->unix_st[i].st_ino == st.st_ino)
			goto ok;
	r = -EACCES;
	pthread_mutex_lock(&c->ns->lock);
	for (size_t i = 0; i < c->ns->n_ubound && r < 0; i++)
		if (c->ns->ubound[i].fd >= 0 && c->ns->ubound[i].dev == st.st_dev &&
		    c->ns->ubound[i].ino == st.st_ino)
			r = 0;
	pthread_mutex_unlock(&c->ns->lock);
	if (r < 0)
		return r;
ok:
	*ret_fd = steal_fd(&fd);
	return 0;
}

/* The address of the socket file behind fd. */
static socklen_t via_fd(int fd, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	snprintf(sun->sun_path, sizeof(sun->sun_path), "/proc/self/fd/%d", fd);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(sun->sun_path) + 1);
}

static long unix_connect(struct call *c, const struct sockaddr_storage *ss, socklen_t len)
{
	_cleanup_close_ int fd = -1;
	struct sockaddr_un sun;
	int r;

	if (ss->ss_family == AF_UNSPEC && len >= sizeof(sa_family_t)) {
		/* dissolves a datagram socket's association */
		if ((r = pdk_sup_still_valid(c)) < 0)
			return r;
		return connect(c->fd, (const struct sockaddr *)ss, len) < 0 ? -errno : 0;
	}
	if ((r = unix_dest(c, ss, len, &fd)) < 0)
		return r;
	if ((r = pdk_sup_still_valid(c)) < 0)
		return r;
	if (fd >= 0)
		return connect(c->fd, (struct sockaddr *)&sun, via_fd(fd, &sun)) < 0 ? -errno : 0;
	return connect(c->fd, (const struct sockaddr *)ss, len) < 0 ? -errno : 0;
}

/* A bind to a path, made by a thread of its own: in the command's working
 * directory, under a Landlock domain that lets it make sockets beneath the
 * writable roots only, so that a symlink swapped in on the way leads nowhere
 * else; the name is the command's, as getsockname() shows it after. */
struct bind_job {
	struct call *c;
	const struct sockaddr_storage *ss;
	socklen_t len;
	const char *path;
	long r;
};

static void *bind_main(void *p)
{
	struct bind_job *b = p;
	struct call *c = b->c;
	char proc[64];
	struct ubound u = {.fd = -1};
	struct stat st;
	int cwd;

	b->r = -EACCES;
	snprintf(proc, sizeof(proc), "/proc/%d/cwd", (int)c->req->pid);
	if (unshare(CLONE_FS) < 0 || (cwd = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return NULL;
	if (fchdir(cwd) < 0) {
		close(cwd);
		return NULL;
	}
	close(cwd);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(__NR_landlock_restrict_self, c->ns->bind_ruleset, 0) < 0)
		return NULL;
	if ((b->r = pdk_sup_still_valid(c)) < 0)
		return NULL;
	if (bind(c->fd, (const struct sockaddr *)b->ss, b->len) < 0) {
		b->r = -errno;
		return NULL;
	}
	b->r = 0;
	/* The file just made; one with another link is not only the run's. */
	u.fd = open(b->path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (u.fd >= 0 && fstat(u.fd, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_nlink == 1) {
		u.dev = st.st_dev;
		u.ino = st.st_ino;
		add_ubound(c->ns, &u);
	} else if (u.fd >= 0) {
		close(u.fd);
	}
	return NULL;
}

/* The directory a path to bind is in, as the command sees it: one its mount
 * makes read-only (bwrap's view of the host, a protected path) takes no
 * socket, though the thread that binds sees the host's mounts. */
static int dir_writable(pid_t tid, const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
	const char *slash = strrchr(path, '/');
	_cleanup_close_ int fd = -1;
	struct statvfs sv;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if ((fd = open_as(tid, dir)) < 0)
		return fd == -ELOOP ? -EACCES : fd;
	if (fstatvfs(fd, &sv) < 0)
		return -errno;
	return sv.f_flag & ST_RDONLY ? -EROFS : 0;
}

static long unix_bind(struct call *c, const struct sockaddr_storage *ss, socklen_t len)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
	struct bind_job b = {c, ss, len, path, -EACCES};
	pthread_t t;
	size_t n;
	int r;

	if ((r = unix_addr(ss, len, path, &n)) < 0)
		return r;
	if (!n || !path[0]) {
		/* An abstract name or an autobind: in the socket's own network
		 * namespace; noted, since it is the run's. */
		if ((r = pdk_sup_still_valid(c)) < 0)
			return r;
		if (bind(c->fd, (const struct sockaddr *)ss, len) < 0)
			return -errno;
		record_abstract(c);
		return 0;
	}
	if (c->ns->bind_ruleset < 0)
		return -EACCES;
	if ((r = dir_writable(c->req->pid, path)) < 0)
		return r;
	if ((r = pthread_create(&t, NULL, bind_main, &b)) != 0)
		return -r;
	pthread_join(t, NULL);
	return b.r;
}

static long do_connect(struct call *c)
{
	const __u64 *a = c->req->data.args;
	struct sockaddr_storage ss;
	socklen_t len;
	int r;

	if ((r = read_addr(c, a[1], a[2], &ss, &len)) < 0)
		return r;
	if ((r = grab_socket(c, (int)a[0])) < 0)
		return r;
	if (c->domain == AF_UNIX)
		return unix_connect(c, &ss, len);
	/* Performed on paddock's copies rather than let through: the command
	 * could put a unix socket at that number meanwhile. */
	if (c->ns->pass_others) {
		if ((r = pdk_sup_still_valid(c)) < 0)
			return r;
		return connect(c->fd, (struct sockaddr *)&ss, len) < 0 ? -errno : 0;
	}
	if (!inet(c))
		return -EPERM;
	if ((r = check_dest(c, &ss, len)) < 0)
		return r;
	if (c->proto == IPPROTO_UDP && (r = bind_if_unbound(c)) < 0)
		return r;
	if ((r = pdk_sup_still_valid(c)) < 0)
		return r;
	return connect(c->fd, (struct sockaddr *)&ss, len) < 0 ? -errno : 0;
}

static long do_bind(struct call *c)
{
	const __u64 *a = c->req->data.args;
	struct sockaddr_storage ss;
	socklen_t len;
	struct key k;
	int r;

	if ((r = read_addr(c, a[1], a[2], &ss, &len)) < 0)
		return r;
	if ((r = grab_socket(c, (int)a[0])) < 0)
		return r;
	if (c->domain == AF_UNIX)
		return unix_bind(c, &ss, len);
	if (c->ns->pass_others) {
		if ((r = pdk_sup_still_valid(c)) < 0)
			return r;
		return bind(c->fd, (struct sockaddr *)&ss, len) < 0 ? -errno : 0;
	}
	if (!inet(c))
		return -EPERM;
	if ((r = key_of(&ss, len, &k)) < 0)
		return r;
	if (key_any(&k)) {
		/* Every address of the host would let the world in: the
		 * loopback is where the run's own clients look. */
		struct sockaddr_storage lo;
		socklen_t lolen;

		if (ss.ss_family != c->domain)
			return -EINVAL;
		if ((r = loopback_wildcard(c, &lo, &lolen)) < 0)
			return r;
		((struct sockaddr_in *)&lo)->sin_port = ((struct sockaddr_in *)&ss)->sin_port;
		ss = lo;
		len = lolen;
	} else if (!key_loopback(&k)) {
		return -EADDRNOTAVAIL;
	}
	no_reuseport(c);
	if ((r = pdk_sup_still_valid(c)) < 0)
		return r;
	if (bind(c->fd, (struct sockaddr *)&ss, len) < 0)
		return -errno;
	record(c, key_any(&k));
	return 0;
}

static long do_listen(struct call *c)
{
	const __u64 *a = c->req->data.args;
	int r;

	if ((r = grab_socket(c, (int)a[0])) < 0)
		return r;
	if (c->domain == AF_UNIX) {
		/* Bound already (else EINVAL): its bind was noted. */
		if ((r = pdk_sup_still_valid(c)) < 0)
			return r;
		return listen(c->fd, (int)a[1]) < 0 ? -errno : 0;
	}
	if (!inet(c))
		return -EPERM;
	if ((r = pdk_sup_still_valid(c)) < 0)
		return r;
	if ((r = bind_if_unbound(c)) < 0)
		return r;
	no_reuseport(c);
	record(c, false);
	return listen(c->fd, (int)a[1]) < 0 ? -errno : 0;
}

/* SCM_RIGHTS carries the command's descriptor numbers: send paddock's copies
 * of those, never paddock's own descriptors of the same numbers. */
static int translate_rights(struct call *c, void *control, size_t len)
{
	struct msghdr m = {.msg_control = control, .msg_controllen = len};

	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
		size_t n;
		int *fds;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		if (cm->cmsg_len < CMSG_LEN(0))
			return -EINVAL;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		fds = (int *)CMSG_DATA(cm);
		for (size_t i = 0; i < n; i++) {
			int r, mine = -1;

			if (c->n_fds >= MAX_FDS)
				return -ETOOMANYREFS;
			if ((r = pdk_sup_grab(c, fds[i], &mine)) < 0)
				return r;
			c->fds[c->n_fds++] = mine;
			fds[i] = mine;
		}
	}
	return 0;
}

/* One struct msghdr of the command's, copied: name, data (bounded) and
 * control. buf holds the data; the caller frees it. */
static int copy_msg(struct call *c, const struct msghdr *theirs, struct msghdr *m,
		    struct sockaddr_storage *name, struct iovec *iov, char **buf,
		    char *control)
{
	struct iovec their_iov[MAX_IOV];
	size_t total = 0, got = 0;
	int r;

	memset(m, 0, sizeof(*m));
	*buf = NULL;
	if (theirs->msg_iovlen > MAX_IOV)
		return -EMSGSIZE;
	if (theirs->msg_name && theirs->msg_namelen) {
		socklen_t len;

		if ((r = read_addr(c, (uintptr_t)theirs->msg_name, theirs->msg_namelen, name,
				   &len)) < 0)
			return r;
		m->msg_name = name;
		m->msg_namelen = len;
	}
	if ((r = pdk_sup_peek(c->req->pid, (uintptr_t)theirs->msg_iov, their_iov,
		      theirs->msg_iovlen * sizeof(struct iovec))) < 0)
		return r;
	for (size_t i = 0; i < theirs->msg_iovlen && total < MAX_DATA; i++)
		total += their_iov[i].iov_len < MAX_DATA ? their_iov[i].iov_len : MAX_DATA;
	if (total > MAX_DATA)
		total = MAX_DATA;
	*buf = malloc(total ? total : 1);
	if (!*buf)
		return -ENOMEM;
	for (size_t i = 0; i < theirs->msg_iovlen && got < total; i++) {
		size_t n = their_iov[i].iov_len < total - got ? their_iov[i].iov_len : total - got;

		if ((r = pdk_sup_peek(c->req->pid, (uintptr_t)their_iov[i].iov_base, *buf + got, n)) < 0)
			return r;
		got += n;
	}
	iov->iov_base = *buf;
	iov->iov_len = got;
	m->msg_iov = iov;
	m->msg_iovlen = 1;
	if (theirs->msg_control && theirs->msg_controllen) {
		if (theirs->msg_controllen > MAX_CONTROL)
			return -ENOBUFS;
		if ((r = pdk_sup_peek(c->req->pid, (uintptr_t)theirs->msg_control, control,
			      theirs->msg_controllen)) < 0)
			return r;
		m->msg_control = control;
		m->msg_controllen = theirs->msg_controllen;
		if ((r = translate_rights(c, control, m->msg_controllen)) < 0)
			return r;
	}
	return 0;
}

/* A send with the command's message (already copied): the address checked
 * where there is one, on a socket of a family that uses it. */
static long send_copied(struct call *c, struct msghdr *theirs, int flags)
{
	_cleanup_close_ int via = -1;
	struct sockaddr_un sun;
	/* A copy: the address may be pointed at sun, which ends with this call. */
	struct msghdr copy = *theirs, *m = &copy;
	int r;

	if (m->msg_name && c->domain == AF_UNIX) {
		if (c->type == SOCK_STREAM || c->type == SOCK_SEQPACKET) {
			/* A stream or sequenced-packet socket ignores the
			 * name: no address reaches anything there. */
			m->msg_name = NULL;
			m->msg_namelen = 0;
		} else {
			/* A datagram goes where connect() could. */
			if ((r = unix_dest(c, m->msg_name, m->msg_namelen, &via)) < 0)
				return r;
			if (via >= 0) {
				m->msg_namelen = via_fd(via, &sun);
				m->msg_name = &sun;
			}
		}
	} else if (c->domain != AF_UNIX && c->ns->pass_others) {
		/* as given */
	} else if (m->msg_name) {
		if (!inet(c))
			return -EPERM;
		if ((r = check_dest(c, m->msg_name, m->msg_namelen)) < 0)
			return r;
	} else if (!inet(c) && c->domain != AF_UNIX) {
		return -EPERM;
	}
	if (inet(c) && !c->ns->pass_others && c->proto == IPPROTO_UDP &&
	    (r = bind_if_unbound(c)) < 0)
		return r;
	if ((r = pdk_sup_still_valid(c)) < 0)
		return r;
	ssize_t n = sendmsg(c->fd, m, flags | MSG_NOSIGNAL);
	if (n < 0) {
		/* The command's own SIGPIPE, as if it had sent itself. */
		if (errno == EPIPE && !(flags & MSG_NOSIGNAL))
			kill(c->req->pid, SIGPIPE);
		return -errno;
	}
	return n;
}

static long do_sendto(struct call *c)
{
	const __u64 *a = c->req->data.args;
	struct sockaddr_storage ss;
	struct msghdr m = {0};
	struct iovec iov;
	_cleanup_free_ char *buf = NULL;
	size_t len = a[2] < MAX_DATA ? a[2] : MAX_DATA;
	socklen_t alen;
	int r;

	if ((r = read_addr(c, a[4], a[5], &ss, &alen)) < 0)
		return r;
	buf = malloc(len ? len : 1);
	if (!buf)
		return -ENOMEM;
	if ((r = pdk_sup_peek(c->req->pid, a[1], buf, len)) < 0)
		return r;
	if ((r = grab_socket(c, (int)a[0])) < 0)
		return r;
	iov = (struct iovec){buf, len};
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_name = &ss;
	m.msg_namelen = alen;
	return send_copied(c, &m, (int)a[3]);
}

static void close_fds(struct call *c)
{
	for (size_t i = 0; i < c->n_fds; i++)
		close(c->fds[i]);
	c->n_fds = 0;
}

static long do_sendmsg(struct call *c)
{
	const __u64 *a = c->req->data.args;
	struct msghdr theirs, m;
	struct sockaddr_storage name;
	struct iovec iov;
	_cleanup_free_ char *buf = NULL;
	char control[MAX_CONTROL] __attribute__((aligned(8)));
	long r;

	if ((r = pdk_sup_peek(c->req->pid, a[1], &theirs, sizeof(theirs))) < 0)
		return r;
	if ((r = grab_socket(c, (int)a[0])) < 0)
		return r;
	r = copy_msg(c, &theirs, &m, &name, &iov, &buf, control);
	if (r == 0)
		r = send_copied(c, &m, (int)a[2]);
	close_fds(c);
	return r;
}

static long do_sendmmsg(struct call *c)
{
	const __u64 *a = c->req->data.args;
	unsigned vlen = a[2] < MAX_IOV ? (unsigned)a[2] : MAX_IOV;
	char control[MAX_CONTROL] __attribute__((aligned(8)));
	unsigned sent = 0;
	long r = 0;

	if ((r = grab_socket(c, (int)a[0])) < 0)
		return r;
	for (; sent < vlen; sent++) {
		uint64_t at = a[1] + sent * sizeof(struct mmsghdr);
		struct mmsghdr theirs;
		struct msghdr m;
		struct sockaddr_storage name;
		struct iovec iov;
		char *buf = NULL;
		unsigned got;

		if ((r = pdk_sup_peek(c->req->pid, at, &theirs, sizeof(theirs))) < 0)
			break;
		r = copy_msg(c, &theirs.msg_hdr, &m, &name, &iov, &buf, control);
		if (r == 0)
			r = send_copied(c, &m, (int)a[3]);
		free(buf);
		close_fds(c);
		if (r < 0)
			break;
		got = (unsigned)r;
		if ((r = poke(c->req->pid, at + offsetof(struct mmsghdr, msg_len), &got,
			      sizeof(got))) < 0)
			break;
	}
	return sent ? (long)sent : r;
}

/* The call req, fs (the call that makes a name it is) or a socket call (fs NULL). */
static long handle(struct pdk_netsup *ns, const struct seccomp_notif *req, const struct fsop *fs)
{
	struct call c = {.ns = ns, .req = req, .pidfd = -1, .fd = -1};
	long r;

	if (fs)
		return pdk_fs_do(&c, fs);
	r = pdk_sup_open_pidfd(req->pid);
	if (r < 0)
		return r;
	c.pidfd = (int)r;
	switch (req->data.nr) {
	case __NR_connect: r = do_connect(&c); break;
	case __NR_bind: r = do_bind(&c); break;
	case __NR_listen: r = do_listen(&c); break;
	case __NR_sendto: r = do_sendto(&c); break;
	case __NR_sendmsg: r = do_sendmsg(&c); break;
	case __NR_sendmmsg: r = do_sendmmsg(&c); break;
	default: r = -ENOSYS; break;
	}
	if (c.fd >= 0)
		close(c.fd);
	close(c.pidfd);
	return r;
}

/* The file an open made on the command's behalf, put in its descriptor table as the
 * call's result. true: that answered the call; false: *r is the answer to send. */
static bool hand_fd(struct pdk_netsup *ns, const struct seccomp_notif *req,
		    const struct fsop *fs, long *r)
{
	struct seccomp_notif_addfd add = {.id = req->id,
					  .flags = SECCOMP_ADDFD_FLAG_SEND,
					  .srcfd = (uint32_t)*r,
					  .newfd_flags = (uint32_t)(fs->flags & O_CLOEXEC)};
	long n = ioctl(ns->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);

	/* Before 5.14 the descriptor is added, then the answer sent. */
	if (n < 0 && errno == EINVAL) {
		add.flags = 0;
		n = ioctl(ns->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
	}
	*r = n < 0 ? -errno : n;
	close((int)add.srcfd);
	return n >= 0 && add.flags;
}

/* Answer req; false when it is a worker's to make (an open that may wait). */
static bool answer(struct pdk_netsup *ns, const struct seccomp_notif *req, const struct fsop *fs)
{
	struct seccomp_notif_resp *resp;
	size_t size = ns->sizes.seccomp_notif_resp > sizeof(*resp) ? ns->sizes.seccomp_notif_resp
								    : sizeof(*resp);
	long r = handle(ns, req, fs);
	bool sent = false;

	if (r == PDK_FS_TO_WORKER)
		return false;
	if (fs && fs->kind == FS_OPEN && r >= 0)
		sent = hand_fd(ns, req, fs, &r);
	pthread_mutex_lock(&ns->lock);
	/* A call that makes a name and fails as the kernel fails it was performed; its
	 * refusals are counted by refuse(). */
	if (fs)
		ns->performed += r != -EPERM;
	else if (r < 0 && r != -EINPROGRESS && r != -EAGAIN)
		ns->refused++;
	else
		ns->performed++;
	pthread_mutex_unlock(&ns->lock);
	if (sent || !(resp = calloc(1, size)))
		return true; /* unsent: the call waits until the run ends; it is killed then */
	resp->id = req->id;
	if (r < 0)
		resp->error = (int32_t)r;
	else
		resp->val = r;
	/* ENOENT: the caller died meanwhile. */
	(void)ioctl(ns->listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
	free(resp);
	return true;
}

static void answer_continue(struct pdk_netsup *ns, const struct seccomp_notif *req)
{
	struct seccomp_notif_resp resp[2]; /* room for a larger size the kernel names */

	memset(resp, 0, sizeof(resp));
	resp->id = req->id;
	resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	(void)ioctl(ns->listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
}

/* A worker: the calls the loop queues, one at a time, until none came for
 * WORKER_IDLE_S or the supervisor stops. */
static void *job_main(void *p)
{
	struct pdk_netsup *ns = p;
	struct fsop op;

	pdk_fs_may_block = true;

	pthread_mutex_lock(&ns->lock);
	for (;;) {
		struct seccomp_notif *req;

		while (!ns->q_len && !ns->stopping) {
			struct timespec until;
			int r;

			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += WORKER_IDLE_S;
			ns->waiting++;
			r = pthread_cond_timedwait(&ns->work, &ns->lock, &until);
			ns->waiting--;
			if (r == ETIMEDOUT && !ns->q_len)
				goto out;
		}
		if (!ns->q_len)
			break;
		req = ns->queue[ns->q_head];
		ns->q_head = (ns->q_head + 1) % MAX_JOBS;
		ns->q_len--;
		pthread_mutex_unlock(&ns->lock);
		answer(ns, req, pdk_fs_call(req, &op) ? &op : NULL);
		free(req);
		pthread_mutex_lock(&ns->lock);
	}
out:
	if (--ns->jobs == 0)
		pthread_cond_broadcast(&ns->idle);
	pthread_mutex_unlock(&ns->lock);
	pdk_fs_end();
	return NULL;
}

/* Hand req to a worker: one waiting, else a new one. false: none can take it
 * (all MAX_JOBS busy), the loop answers it itself. */
static bool dispatch(struct pdk_netsup *ns, struct seccomp_notif *req)
{
	pthread_attr_t attr;
	pthread_t t;
	bool ok = true;

	pthread_mutex_lock(&ns->lock);
	if (ns->waiting > ns->q_len) {
		ns->queue[(ns->q_head + ns->q_len++) % MAX_JOBS] = req;
		pthread_cond_signal(&ns->work);
	} else if (ns->jobs < MAX_JOBS && ns->q_len < MAX_JOBS) {
		ns->queue[(ns->q_head + ns->q_len++) % MAX_JOBS] = req;
		ns->jobs++;
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&attr, 256 * 1024);
		if (pthread_create(&t, &attr, job_main, ns) != 0) {
			ns->jobs--;
			ns->q_len--;
			ok = false;
		}
		pthread_attr_destroy(&attr);
	} else {
		ok = false;
	}
	pthread_mutex_unlock(&ns->lock);
	return ok;
}

/* The thread performs what the command may do and no more: it keeps no
 * capability, so that what it does on the command's behalf (a control
 * message, a port under 1024) is judged as the command's own would be. */
static void drop_capabilities(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	/* Only this thread: the raw call, not libc's broadcast to all. */
	(void)syscall(SYS_capset, &hdr, data);
}

/* The thread's first work, while the child waits in pdk_netsup_child(): the child's listener,
 * by the number and pid it writes, taken with pidfd_getfd; the held set made when it says
 * so. The child is told '1', or '0' to fail. false: no listener (the child failed first, or
 * the run ended). */
static bool take_listener(struct pdk_netsup *ns)
{
	int msg[3];
	char ok = '0';
	ssize_t n = -1;

	for (;;) {
		struct pollfd pfd[2] = {{ns->to_parent[0], POLLIN, 0}, {ns->stop[0], POLLIN, 0}};

		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			return false;
		if (pfd[1].revents)
			return false;
		if (pfd[0].revents)
			break;
	}
	do
		n = read(ns->to_parent[0], msg, sizeof(msg));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(msg) && (!msg[1] || pdk_fs_hold(ns) == 0)) {
		_cleanup_close_ int pidfd = sys_pidfd_open(msg[2], 0);
		long fd = pidfd < 0 ? -1 : sys_pidfd_getfd(pidfd, msg[0]);

		if (fd >= 0) {
			ns->listener = (int)fd;
			ok = '1';
		}
	}
	(void)pdk_write_all(ns->to_child[1], &ok, 1);
	return ok == '1';
}

static void *sup_main(void *p)
{
	struct pdk_netsup *ns = p;
	size_t size = ns->sizes.seccomp_notif > sizeof(struct seccomp_notif)
			      ? ns->sizes.seccomp_notif
			      : sizeof(struct seccomp_notif);

	/* Before the capabilities go: taking a descriptor of a child that has them needs them. */
	if (!take_listener(ns))
		return NULL;
	drop_capabilities();
	/* The calls made here take the command's umask, set on each. */
	pdk_fs_private = unshare(CLONE_FS) == 0;
	for (;;) {
		struct pollfd pfd[2] = {{ns->listener, POLLIN, 0}, {ns->stop[0], POLLIN, 0}};
		struct seccomp_notif *req;
		struct fsop op;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			break;
		if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL))
			break;
		if (!(pfd[0].revents & POLLIN))
			continue;
		req = calloc(1, size);
		if (!req)
			continue;
		if (ioctl(ns->listener, SECCOMP_IOCTL_NOTIF_RECV, req) < 0) {
			free(req); /* ENOENT: its caller died; EINTR */
			continue;
		}
		if (pdk_fs_call(req, &op)) {
			/* Nothing missing to be made or held, or bwrap still setting up: it goes on as
			 * made, on no reading of the command's memory. Else it is made here: a
			 * worker's turn costs more than the call. */
			if ((!ns->n_missing && !ns->n_held) ||
			    !__atomic_load_n(&ns->fs_armed, __ATOMIC_ACQUIRE))
				answer_continue(ns, req);
			else if (!answer(ns, req, &op)) {
				if (dispatch(ns, req))
					continue; /* the worker frees it */
				/* No worker to take it: made here, waiting. */
				pdk_fs_may_block = true;
				answer(ns, req, &op);
				pdk_fs_may_block = false;
			}
			free(req);
			continue;
		}
		if (!dispatch(ns, req)) {
			answer(ns, req, NULL);
			free(req);
		}
	}
	pdk_fs_end();
	return NULL;
}

int pdk_netsup_listen(struct pdk_netsup *ns)
{
	sigset_t all, old;
	int r;

	/* Signals stay with paddock's main thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&ns->thread, NULL, sup_main, ns);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0)
		return -r;
	ns->running = true;
	return 0;
}

void pdk_netsup_counts(const struct pdk_netsup *ns, unsigned long *performed,
		       unsigned long *refused)
{
	pthread_mutex_lock((pthread_mutex_t *)&ns->lock);
	*performed = ns->performed;
	*refused = ns->refused;
	pthread_mutex_unlock((pthread_mutex_t *)&ns->lock);
}

void pdk_netsup_free(struct pdk_netsup *ns)
{
	if (!ns)
		return;
	if (ns->running) {
		(void)pdk_write_all(ns->stop[1], "x", 1);
		pthread_join(ns->thread, NULL);
		pthread_mutex_lock(&ns->lock);
		ns->stopping = true;
		pthread_cond_broadcast(&ns->work);
		pthread_mutex_unlock(&ns->lock);
		pdk_fs_release(ns);
		/* The calls in flight end with the run's processes, which are
		 * gone by now; they use the state until then. */
		struct timespec until;
		bool left;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 5;
		pthread_mutex_lock(&ns->lock);
		while (ns->jobs && pthread_cond_timedwait(&ns->idle, &ns->lock, &until) == 0)
			;
		left = ns->jobs > 0;
		pthread_mutex_unlock(&ns->lock);
		/* A call still blocked: its thread keeps the state, which is
		 * left to the end of the process rather than freed under it. */
		if (left)
			return;
	}
	for (int i = 0; i < 2; i++) {
		if (ns->to_parent[i] >= 0)
			close(ns->to_parent[i]);
		if (ns->to_child[i] >= 0)
			close(ns->to_child[i]);
		if (ns->stop[i] >= 0)
			close(ns->stop[i]);
	}
	if (ns->listener >= 0)
		close(ns->listener);
	if (ns->owner >= 0)
		close(ns->owner);
	for (size_t i = 0; i < ns->n_unix; i++) {
		free(ns->unix_paths[i]);
		if (ns->unix_fds[i] >= 0)
			close(ns->unix_fds[i]);
	}
	free(ns->unix_paths);
	free(ns->unix_fds);
	free(ns->unix_st);
	for (size_t i = 0; i < ns->n_ubound; i++)
		if (ns->ubound[i].fd >= 0)
			close(ns->ubound[i].fd);
	free(ns->ubound);
	if (ns->bind_ruleset >= 0)
		close(ns->bind_ruleset);
	if (ns->fs_ruleset >= 0)
		close(ns->fs_ruleset);
	for (size_t i = 0; i < ns->n_missing; i++) {
		free(ns->missing[i].name);
		free(ns->missing[i].path);
	}
	free(ns->missing);
	free(ns->held);
	for (size_t i = 0; i < ns->n_hold_paths; i++)
		free(ns->hold_paths[i]);
	free(ns->hold_paths);
	free(ns->hold_pin);
	free(ns->git);
	free(ns->bound);
	pthread_mutex_destroy(&ns->lock);
	pthread_cond_destroy(&ns->idle);
	pthread_cond_destroy(&ns->work);
	free(ns);
}
