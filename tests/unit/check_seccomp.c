/* check_seccomp.c - unit tests of the compiled seccomp filter: each test loads
 * it in a forked child, makes the call and checks what the kernel answered. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "backends/seccomp/seccomp.h"
#include "ck_util.h"

#ifndef __NR_clone3
#define __NR_clone3 435
#endif

/* Calls fn in a child under the filter; returns the child's wait status. The
 * child exits with the errno fn saw (0: the call succeeded). */
static int under_filter(enum pdk_seccomp_net net, int (*fn)(void))
{
	struct pdk_bpf bpf;
	int status;
	pid_t pid;

	ck_assert_int_eq(pdk_seccomp_compile(net, &bpf), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* a fault must end the child as a fault, not in a sanitizer's report */
		signal(SIGSEGV, SIG_DFL);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || pdk_seccomp_load(&bpf) < 0)
			_exit(200);
		_exit(fn());
	}
	pdk_bpf_release(&bpf);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

static int errno_of(long r)
{
	return r < 0 ? errno : 0;
}

#define ASSERT_ERRNO(net, fn, want)                                                     \
	do {                                                                            \
		int st_ = under_filter(net, fn);                                        \
		ck_assert_msg(WIFEXITED(st_), "child killed by signal %d", WTERMSIG(st_)); \
		ck_assert_int_eq(WEXITSTATUS(st_), want);                               \
	} while (0)

static int do_io_uring(void)
{
	char params[120] = { 0 };

	return errno_of(syscall(__NR_io_uring_setup, 1, params));
}

static int do_keyctl(void)
{
	/* KEYCTL_GET_KEYRING_ID of the session keyring */
	return errno_of(syscall(__NR_keyctl, 0, -3, 0));
}

static int do_add_key(void)
{
	return errno_of(syscall(__NR_add_key, "user", "pdk", "x", 1, -3));
}

static int do_ptrace(void)
{
	return errno_of(syscall(__NR_ptrace, 0 /* PTRACE_TRACEME */, 0, 0, 0));
}

static int do_process_vm_readv(void)
{
	return errno_of(syscall(__NR_process_vm_readv, getppid(), NULL, 0, NULL, 0, 0));
}

static int do_personality_query(void)
{
	return errno_of(syscall(__NR_personality, 0xffffffffUL));
}

static int do_personality_linux(void)
{
	return errno_of(syscall(__NR_personality, PER_LINUX));
}

static int do_personality_linux32(void)
{
	return errno_of(syscall(__NR_personality, PER_LINUX32));
}

static int do_personality_norandom(void)
{
	return errno_of(syscall(__NR_personality, ADDR_NO_RANDOMIZE));
}

static int do_personality_fffffffe(void)
{
	return errno_of(syscall(__NR_personality, 0xfffffffeUL));
}

/* Values next to the two allowed ones, one bit at each end. */
static int do_personality_top_bit(void)
{
	return errno_of(syscall(__NR_personality, 0x80000000UL));
}

static int do_personality_7fffffff(void)
{
	return errno_of(syscall(__NR_personality, 0x7fffffffUL));
}

/* The kernel reads only the low 32 bits: high bits neither hide a change
 * nor spoil the query. */
static int do_personality_high_bits_change(void)
{
	return errno_of(syscall(__NR_personality, 0xffffffff00000008UL));
}

static int do_personality_high_bits_query(void)
{
	return errno_of(syscall(__NR_personality, ~0UL));
}

static int do_unshare_user(void)
{
	return errno_of(unshare(CLONE_NEWUSER));
}

static int do_clone_newuser(void)
{
	long r = syscall(__NR_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);

	if (r == 0)
		_exit(0);
	return errno_of(r);
}

static int do_clone3(void)
{
	struct clone_args ca = { .exit_signal = SIGCHLD };
	long r = syscall(__NR_clone3, &ca, sizeof(ca));

	if (r == 0)
		_exit(0);
	return errno_of(r);
}

static int do_fork(void)
{
	int st;
	pid_t p = fork();

	if (p == 0)
		_exit(7);
	if (p < 0)
		return errno;
	waitpid(p, &st, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) == 7 ? 0 : 99;
}

static int do_mount(void)
{
	return errno_of(syscall(__NR_mount, "none", "/mnt", "tmpfs", 0, NULL));
}

static int do_tiocsti(void)
{
	char c = 'x';
	int fd = open("/dev/null", O_RDONLY);

	return errno_of(syscall(__NR_ioctl, fd, TIOCSTI, &c));
}

static int do_tiocsti_high(void)
{
	char c = 'x';
	int fd = open("/dev/null", O_RDONLY);

	/* The kernel truncates cmd to 32 bits: this is TIOCSTI. */
	return errno_of(syscall(__NR_ioctl, fd, 0xffffffff00005412ULL, &c));
}

static int do_tioclinux(void)
{
	char c = 6;
	int fd = open("/dev/null", O_RDONLY);

	return errno_of(syscall(__NR_ioctl, fd, 0xdead0000541cULL, &c));
}

static int do_fionread(void)
{
	int p[2], n = -1;

	if (pipe(p) < 0 || write(p[1], "ab", 2) != 2)
		return 99;
	if (ioctl(p[0], FIONREAD, &n) < 0)
		return errno;
	return n == 2 ? 0 : 98;
}

static int do_setxattr(void)
{
	char path[] = "/tmp/pdk-xattr-XXXXXX";
	int fd = mkstemp(path);
	int r = errno_of(fsetxattr(fd, "user.pdk", "1", 1, 0));

	unlink(path);
	return r;
}

static int do_socket_inet(void)
{
	return errno_of(socket(AF_INET, SOCK_STREAM, 0));
}

static int do_socket_inet6_dgram(void)
{
	return errno_of(socket(AF_INET6, SOCK_DGRAM, 0));
}

static int do_socket_netlink(void)
{
	return errno_of(socket(AF_NETLINK, SOCK_RAW, 0));
}

static int do_socket_unix(void)
{
	return errno_of(socket(AF_UNIX, SOCK_STREAM, 0));
}

static int do_socket_unix_high_bits(void)
{
	return errno_of(syscall(SYS_socket, 0xffffffff00000001UL, SOCK_STREAM, 0));
}

static int do_socket_packet(void)
{
	return errno_of(socket(AF_PACKET, SOCK_DGRAM, 0));
}

static int do_socket_vsock(void)
{
	return errno_of(socket(40 /* AF_VSOCK */, SOCK_STREAM, 0));
}

/* AF_NETLINK (16) with high bits the kernel ignores: still netlink. */
static int do_socket_netlink_high_bits(void)
{
	return errno_of(syscall(SYS_socket, 0x100000010UL, SOCK_RAW, 0));
}

/* AF_INET with high bits: the kernel makes an inet socket. */
static int do_socket_inet_high_bits(void)
{
	return errno_of(syscall(SYS_socket, 0x100000002UL, SOCK_STREAM, 0));
}

/* A connect() the filter lets through: nothing listens on port 1 of this
 * loopback, so the kernel refuses. */
static int do_connect_inet_loopback(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(1),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return 90;
	return errno_of(connect(fd, (struct sockaddr *)&a, sizeof(a)));
}

static int do_socketpair(void)
{
	int sv[2];
	char c = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return errno;
	if (write(sv[0], "z", 1) != 1 || read(sv[1], &c, 1) != 1)
		return 99;
	return c == 'z' ? 0 : 98;
}

static int do_connect_unix(void)
{
	struct sockaddr_un { sa_family_t f; char p[108]; } a = { AF_UNIX, "/run/nothing" };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	return errno_of(connect(fd, (struct sockaddr *)&a, sizeof(a)));
}

static int do_sendto_unix(void)
{
	struct sockaddr_un { sa_family_t f; char p[108]; } a = { AF_UNIX, "/dev/log" };
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

	return errno_of(sendto(fd, "x", 1, 0, (struct sockaddr *)&a, sizeof(a)));
}

/* Datagrams between the two ends of a socketpair: send() and sendto() with
 * no address are what a filter that denies addressed sends must keep. */
static int do_socketpair_dgram(void)
{
	int sv[2];
	char c[2] = { 0 };

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
		return errno;
	if (send(sv[0], "a", 1, 0) != 1 || sendto(sv[0], "b", 1, 0, NULL, 0) != 1)
		return errno;
	if (recv(sv[1], &c[0], 1, 0) != 1 || recv(sv[1], &c[1], 1, 0) != 1)
		return 99;
	return c[0] == 'a' && c[1] == 'b' ? 0 : 98;
}

/* The kernel reads the domain as an int: bits above 32 must not hide AF_UNIX. */
static int do_socketpair_dgram_high_bits(void)
{
	int sv[2];

	if (syscall(SYS_socketpair, 0x100000001UL, SOCK_DGRAM, 0, sv) < 0)
		return errno;
	close(sv[0]);
	close(sv[1]);
	return 0;
}

static int do_socketpair_raw_high_bits(void)
{
	int sv[2];

	if (syscall(SYS_socketpair, 0xffffffff00000001UL, SOCK_RAW, 0, sv) < 0)
		return errno;
	close(sv[0]);
	close(sv[1]);
	return 0;
}

/* Resource limits: another process's (here the parent's) may be read, not
 * set; the caller's own, by pid 0, may be set. */
static int do_prlimit_other_set(void)
{
	struct rlimit cur;

	if (prlimit(getppid(), RLIMIT_CORE, NULL, &cur) < 0)
		return 90;
	return errno_of(prlimit(getppid(), RLIMIT_CORE, &cur, NULL));
}

static int do_prlimit_other_read(void)
{
	struct rlimit cur;

	return errno_of(prlimit(getppid(), RLIMIT_NOFILE, NULL, &cur));
}

static int do_setrlimit_self(void)
{
	struct rlimit rl = {0, 0};

	return errno_of(setrlimit(RLIMIT_CORE, &rl));
}

static int do_socket_unix_raw(void)
{
	int fd = socket(AF_UNIX, SOCK_RAW | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int do_socketpair_seqpacket(void)
{
	int sv[2];
	char c = 0;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0)
		return errno;
	if (send(sv[0], "q", 1, 0) != 1 || recv(sv[1], &c, 1, 0) != 1)
		return 99;
	return c == 'q' ? 0 : 98;
}

/* sendto() with no address on a connected stream socket. */
static int do_sendto_connected(void)
{
	int sv[2];
	char c = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return errno;
	if (sendto(sv[0], "z", 1, MSG_NOSIGNAL, NULL, 0) != 1)
		return errno;
	return read(sv[1], &c, 1) == 1 && c == 'z' ? 0 : 98;
}

/* A datagram socket bound by the test (a listener the filter knows nothing
 * about), then an addressed sendto() to it from under the filter. */
static struct sockaddr_un dgram_addr;
static int dgram_fd = -1;

/* Made before the filter: the sendto rule itself is what must stop it. */
static int dgram_client = -1;

static int do_sendto_bound(void)
{
	if (dgram_client < 0)
		return 97;
	return errno_of(sendto(dgram_client, "x", 1, 0, (struct sockaddr *)&dgram_addr,
			       sizeof(dgram_addr)));
}

/* sendmsg's address is out of the filter's sight: no such socket is made. */
static int do_socket_unix_dgram(void)
{
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int do_x32(void)
{
	/* getpid with the x32 bit: must never run as if native */
	syscall(0x40000000 | __NR_getpid);
	return 0;
}

#if defined(__x86_64__)
static int do_ia32(void)
{
	long r;

	/* ia32 getpid (20) through int 0x80 */
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(20) : "memory");
	return 0;
}
#endif

START_TEST(test_denied_always)
{
	for (int net = 0; net < PDK_SECCOMP_UNIX_NOTIFY; net++) {
		ASSERT_ERRNO(net, do_io_uring, ENOSYS);
		ASSERT_ERRNO(net, do_keyctl, EPERM);
		ASSERT_ERRNO(net, do_add_key, EPERM);
		ASSERT_ERRNO(net, do_ptrace, EPERM);
		ASSERT_ERRNO(net, do_process_vm_readv, EPERM);
		ASSERT_ERRNO(net, do_mount, EPERM);
		ASSERT_ERRNO(net, do_unshare_user, EPERM);
		ASSERT_ERRNO(net, do_clone_newuser, EPERM);
		ASSERT_ERRNO(net, do_clone3, ENOSYS);
		ASSERT_ERRNO(net, do_setxattr, EOPNOTSUPP);
		ASSERT_ERRNO(net, do_prlimit_other_set, EPERM);
		ASSERT_ERRNO(net, do_prlimit_other_read, 0);
		ASSERT_ERRNO(net, do_setrlimit_self, 0);
	}
}
END_TEST

START_TEST(test_fork_works)
{
	ASSERT_ERRNO(false, do_fork, 0);
}
END_TEST

START_TEST(test_personality)
{
	ASSERT_ERRNO(false, do_personality_query, 0);
	ASSERT_ERRNO(false, do_personality_linux, 0);
	ASSERT_ERRNO(false, do_personality_linux32, EPERM);
	ASSERT_ERRNO(false, do_personality_norandom, EPERM);
	ASSERT_ERRNO(false, do_personality_fffffffe, EPERM);
	ASSERT_ERRNO(false, do_personality_top_bit, EPERM);
	ASSERT_ERRNO(false, do_personality_7fffffff, EPERM);
	ASSERT_ERRNO(false, do_personality_high_bits_change, EPERM);
	ASSERT_ERRNO(false, do_personality_high_bits_query, 0);
}
END_TEST

START_TEST(test_ioctl_low_32_bits)
{
	ASSERT_ERRNO(false, do_tiocsti, EPERM);
	ASSERT_ERRNO(false, do_tiocsti_high, EPERM);
	ASSERT_ERRNO(false, do_tioclinux, EPERM);
	ASSERT_ERRNO(false, do_fionread, 0);
}
END_TEST

START_TEST(test_network_off)
{
	ASSERT_ERRNO(false, do_socket_inet, EAFNOSUPPORT);
	ASSERT_ERRNO(false, do_socket_inet6_dgram, EAFNOSUPPORT);
	ASSERT_ERRNO(false, do_socket_netlink, EAFNOSUPPORT);
	ASSERT_ERRNO(false, do_connect_unix, EPERM);
	ASSERT_ERRNO(false, do_sendto_unix, EPERM);
	ASSERT_ERRNO(false, do_connect_inet_loopback, 90);
	ASSERT_ERRNO(false, do_sendto_connected, 0);
}
END_TEST

/* Without a supervisor (the modes without _UNIX) the host's unix sockets, by
 * path or abstract name, stay closed by making none but unnamed stream and
 * seqpacket pairs; with one (the *_UNIX modes) every type is made, pairs of
 * every type too, since the calls that name an address go to it. */
START_TEST(test_unix_every_mode)
{
	for (int net = 0; net < PDK_SECCOMP_UNIX_NOTIFY; net++) {
		bool allowed = (int)pdk_seccomp_with_unix(net) == net && net != PDK_SECCOMP_NET_OFF;

		ASSERT_ERRNO(net, do_socket_unix, allowed ? 0 : EPERM);
		ASSERT_ERRNO(net, do_socket_unix_high_bits, allowed ? 0 : EPERM);
		ASSERT_ERRNO(net, do_socket_unix_dgram, allowed ? 0 : EPERM);
		ASSERT_ERRNO(net, do_socket_unix_raw, allowed ? 0 : EPERM);
		ASSERT_ERRNO(net, do_socketpair, 0);
		ASSERT_ERRNO(net, do_socketpair_seqpacket, 0);
		/* An end of a datagram pair can sendmsg() to any named socket:
		 * only where the supervisor sees it. */
		ASSERT_ERRNO(net, do_socketpair_dgram, allowed ? 0 : EPERM);
		/* High bits in the family: refused either way (the rule for
		 * families but AF_UNIX compares all 64 bits). */
		ASSERT_ERRNO(net, do_socketpair_dgram_high_bits, allowed ? EAFNOSUPPORT : EPERM);
		ASSERT_ERRNO(net, do_socketpair_raw_high_bits, allowed ? EAFNOSUPPORT : EPERM);
		ASSERT_ERRNO(net, do_sendto_connected, 0);
	}
}
END_TEST

/* The supervised modes: unix sockets are made; in the stacked program the
 * calls that name an address go to the supervisor (no listener here:
 * ENOSYS), and a command cannot put a listener of its own before it. */
START_TEST(test_unix_allowed)
{
	const int c = PDK_SECCOMP_UNIX_NOTIFY;

	ck_assert_int_eq(pdk_seccomp_with_unix(PDK_SECCOMP_NET_OFF), PDK_SECCOMP_NET_OFF);
	ck_assert_int_eq(pdk_seccomp_with_unix(PDK_SECCOMP_NET_FULL), PDK_SECCOMP_NET_FULL_UNIX);
	ASSERT_ERRNO(PDK_SECCOMP_NET_FULL_UNIX, do_socket_unix, 0);
	ASSERT_ERRNO(PDK_SECCOMP_NET_PRIVATE_UNIX, do_socket_unix, 0);
	ASSERT_ERRNO(PDK_SECCOMP_NET_SUPERVISED_UNIX, do_socket_unix, 0);
	ASSERT_ERRNO(c, do_connect_unix, ENOSYS);
	ASSERT_ERRNO(c, do_connect_inet_loopback, ENOSYS);
	ASSERT_ERRNO(c, do_sendto_unix, ENOSYS);
	ASSERT_ERRNO(c, do_socket_unix, 0);
	ASSERT_ERRNO(c, do_socketpair, 0);
	ASSERT_ERRNO(c, do_sendto_connected, 0);
	ASSERT_ERRNO(c, do_fork, 0);
}
END_TEST

/* Network off in a private namespace (bwrap's): IPv4 and IPv6 are made and
 * connect; no other family is. */
START_TEST(test_network_private)
{
	const int p = PDK_SECCOMP_NET_PRIVATE;

	ASSERT_ERRNO(p, do_socket_inet, 0);
	ASSERT_ERRNO(p, do_socket_inet6_dgram, 0);
	ASSERT_ERRNO(p, do_socket_inet_high_bits, 0);
	ASSERT_ERRNO(p, do_connect_inet_loopback, ECONNREFUSED);
	ASSERT_ERRNO(p, do_socket_netlink, EAFNOSUPPORT);
	ASSERT_ERRNO(p, do_socket_netlink_high_bits, EAFNOSUPPORT);
	ASSERT_ERRNO(p, do_socket_packet, EAFNOSUPPORT);
	ASSERT_ERRNO(p, do_socket_vsock, EAFNOSUPPORT);
	ASSERT_ERRNO(p, do_socket_unix, EPERM);
	/* Off without a namespace: none of them. */
	ASSERT_ERRNO(false, do_socket_inet_high_bits, EAFNOSUPPORT);
}
END_TEST

/* An addressed datagram to a socket outside: denied with network off (and
 * nothing arrives), delivered with it on. */
START_TEST(test_sendto_address)
{
	char dir[] = "/tmp/pdk-dgram-XXXXXX", c;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	dgram_addr.sun_family = AF_UNIX;
	snprintf(dgram_addr.sun_path, sizeof(dgram_addr.sun_path), "%s/s", dir);
	dgram_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	ck_assert_int_ge(dgram_fd, 0);
	ck_assert_int_eq(bind(dgram_fd, (struct sockaddr *)&dgram_addr, sizeof(dgram_addr)), 0);
	dgram_client = socket(AF_UNIX, SOCK_DGRAM, 0);
	ck_assert_int_ge(dgram_client, 0);

	ASSERT_ERRNO(false, do_sendto_bound, EPERM);
	ck_assert_int_eq(recv(dgram_fd, &c, 1, 0), -1);
	ck_assert_int_eq(errno, EAGAIN);

	ASSERT_ERRNO(true, do_sendto_bound, 0);
	ck_assert_int_eq(recv(dgram_fd, &c, 1, 0), 1);
	ck_assert_int_eq(c, 'x');

	close(dgram_client);
	close(dgram_fd);
	unlink(dgram_addr.sun_path);
	rmdir(dir);
}
END_TEST

/* What the build precompiled is, byte for byte, what libseccomp makes of the
 * same rules now; and a run uses it without compiling. */
START_TEST(test_precompiled_matches_libseccomp)
{
	struct pdk_bpf pre[PDK_SECCOMP_NET_MODES];

	for (int net = 0; net < PDK_SECCOMP_NET_MODES; net++) {
		struct pdk_bpf lib, used;

		ck_assert_int_eq(pdk_seccomp_builtin(net, &pre[net]), 0);
		ck_assert(!pre[net].owned);
		ck_assert_int_eq(pdk_seccomp_export(net, &lib), 0);
		ck_assert(lib.owned);
		ck_assert_int_eq(pre[net].len, lib.len);
		ck_assert_int_eq(memcmp(pre[net].filter, lib.filter,
					(size_t)lib.len * sizeof(struct sock_filter)), 0);
		pdk_bpf_release(&lib);
		ck_assert_int_eq(pdk_seccomp_compile(net, &used), 0);
		ck_assert_ptr_eq(used.filter, pre[net].filter);
		pdk_bpf_release(&used);
	}
	/* The network rules are in one and not in the other. */
	ck_assert_int_gt(pre[0].len, pre[1].len);
}
END_TEST

START_TEST(test_network_on)
{
	ASSERT_ERRNO(true, do_socket_inet, 0);
	ASSERT_ERRNO(true, do_socket_inet6_dgram, 0);
	ASSERT_ERRNO(true, do_socket_netlink, 0);
	ASSERT_ERRNO(true, do_connect_inet_loopback, ECONNREFUSED);
	ASSERT_ERRNO(true, do_socketpair, 0);
}
END_TEST

START_TEST(test_other_abis_killed)
{
	int st = under_filter(false, do_x32);

	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "x32 call: status %#x", st);
#if defined(__x86_64__)
	st = under_filter(false, do_ia32);
	/* SIGSYS from the filter; SIGSEGV where the kernel has no ia32 at all */
	ck_assert_msg(WIFSIGNALED(st) && (WTERMSIG(st) == SIGSYS || WTERMSIG(st) == SIGSEGV),
		      "int 0x80: status %#x", st);
#endif
}
END_TEST

START_TEST(test_memfd_sealed)
{
	struct pdk_bpf bpf;
	char *buf;
	size_t size;
	int fd, seals;

	ck_assert_int_eq(pdk_seccomp_compile(PDK_SECCOMP_NET_OFF, &bpf), 0);
	ck_assert_int_gt(bpf.len, 10);
	ck_assert_int_eq(pdk_seccomp_memfd(&bpf, &fd), 0);
	seals = fcntl(fd, F_GET_SEALS);
	ck_assert(seals & F_SEAL_WRITE);
	ck_assert(seals & F_SEAL_SEAL);
	ck_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	ck_assert_int_eq(write(fd, "x", 1), -1);
	ck_assert_int_eq(errno, EPERM);
	size = (size_t)bpf.len * 8;
	buf = malloc(size + 1);
	ck_assert_int_eq(read(fd, buf, size + 1), (ssize_t)size);
	ck_assert_int_eq(memcmp(buf, bpf.filter, size), 0);
	free(buf);
	close(fd);
	pdk_bpf_release(&bpf);
	ck_assert_ptr_null(bpf.filter);
}
END_TEST

START_TEST(test_describe)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&text, &len);
	ck_assert_int_eq(pdk_seccomp_describe(PDK_SECCOMP_NET_OFF, f), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "deny connect"));
	ck_assert_ptr_nonnull(strstr(text, "deny io_uring_setup"));
	ck_assert_ptr_nonnull(strstr(text, "TIOCSTI"));
	ck_assert_ptr_nonnull(strstr(text, "deny sendto"));
	ck_assert_ptr_nonnull(strstr(text, "deny socket with EPERM: unix sockets"));
	ck_assert_ptr_nonnull(strstr(text, "precompiled at build time"));
	free(text);

	f = open_memstream(&text, &len);
	ck_assert_int_eq(pdk_seccomp_describe(PDK_SECCOMP_NET_FULL, f), 0);
	fclose(f);
	ck_assert_ptr_null(strstr(text, "deny connect"));
	ck_assert_ptr_nonnull(strstr(text, "deny ptrace"));
	ck_assert_ptr_nonnull(strstr(text, "deny socket with EPERM: unix sockets"));
	free(text);

	f = open_memstream(&text, &len);
	ck_assert_int_eq(pdk_seccomp_describe(PDK_SECCOMP_NET_PRIVATE, f), 0);
	fclose(f);
	ck_assert_ptr_null(strstr(text, "deny connect"));
	ck_assert_ptr_nonnull(strstr(text, "families 16-31"));
	ck_assert_ptr_nonnull(strstr(text, "private network namespace"));
	free(text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("seccomp");
	TCase *tc = tcase_create("filter");

	tcase_add_test(tc, test_denied_always);
	tcase_add_test(tc, test_fork_works);
	tcase_add_test(tc, test_personality);
	tcase_add_test(tc, test_ioctl_low_32_bits);
	tcase_add_test(tc, test_network_off);
	tcase_add_test(tc, test_network_on);
	tcase_add_test(tc, test_unix_every_mode);
	tcase_add_test(tc, test_unix_allowed);
	tcase_add_test(tc, test_network_private);
	tcase_add_test(tc, test_sendto_address);
	tcase_add_test(tc, test_precompiled_matches_libseccomp);
	tcase_add_test(tc, test_other_abis_killed);
	tcase_add_test(tc, test_memfd_sealed);
	tcase_add_test(tc, test_describe);
	suite_add_tcase(s, tc);
	return pdk_ck_run(s);
}
