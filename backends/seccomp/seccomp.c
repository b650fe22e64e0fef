/* seccomp.c - the one seccomp filter both Linux backends load: one rule table,
 * precompiled at build time, installed in the child with one async-signal-safe call. */
#include "seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/path.h"
#include "core/util.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef CLONE_NEWCGROUP
#define CLONE_NEWCGROUP 0x02000000
#endif
#ifndef TIOCSTI
#define TIOCSTI 0x5412
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

/* Which programs a rule belongs to; PERSONA is always, built by persona().
 * NET_OFF: no network namespace of the run's own, so no inet socket at all;
 * INET_ONLY: bwrap's private namespace, where inet reaches only the run's
 * own loopback, and the supervised mode; SUPERVISED: the calls paddock's
 * connect supervisor performs itself (src/net/supervise.c). */
enum when {
	ALWAYS = 0,
	NET_OFF,
	INET_ONLY,
	SUPERVISED,
	PERSONA,
	NO_UNIX,        /* unix sockets not allowed (no supervisor) */
	UNIX_NOTIFY_ONLY, /* the UNIX_NOTIFY program */
	NO_LISTENER,    /* wherever a supervisor listens */
	CREATE_NOTIFY,  /* calls that make a name, wherever a supervisor listens */
	HOLD_NOTIFY,    /* calls that write or remove a name, in the _HOLD programs */
};

struct rule {
	const char *syscall;
	int err;                  /* errno the caller sees */
	enum when when;
	unsigned n_args;          /* comparisons, AND'ed */
	struct scmp_arg_cmp arg[2];
	const char *why;          /* for describe */
	int nr;                   /* number where libseccomp may not know it */
	bool notify;              /* to the supervisor (err unused) */
};

#define ARG(i, o, a, b) { .arg = (i), .op = (o), .datum_a = (a), .datum_b = (b) }
/* The kernel reads ioctl's cmd as a 32-bit int: compare the low half only, so
 * 0xffffffff00005412 is TIOCSTI too. */
#define IOCTL_CMD(c) ARG(1, SCMP_CMP_MASKED_EQ, 0xffffffffULL, (c))
#define FLAG_AT(i, f) ARG(i, SCMP_CMP_MASKED_EQ, (f), (f))
#define FLAG_SET(f) FLAG_AT(0, f)
/* The same for a socket's domain, an int too: 0x100000001 is AF_UNIX. */
#define DOMAIN_IS(d) ARG(0, SCMP_CMP_MASKED_EQ, 0xffffffffULL, (d))
/* clone with a namespace flag: the rule names the flag (# does not expand it). */
/* A call paddock's connect supervisor performs itself. */
#define SUPERVISE(name, why_)                                                                      \
	{                                                                                          \
		.syscall = name, .when = SUPERVISED, .notify = true, .why = why_                   \
	}
/* A call that makes a directory, a node, a symbolic link or a name by rename: paddock
 * refuses one at a missing protected path and performs the others on the command's
 * behalf. */
#define MAKES(name)                                                                                \
	{                                                                                          \
		.syscall = name, .when = CREATE_NOTIFY, .notify = true,                            \
		.why = "a missing protected path refused, others made on its behalf"               \
	}
/* A call that writes or removes a name: refused on a held protected path. */
#define HOLD_WHY "refused on a held protected path, else made on its behalf"
#define HOLDS(name, flag)                                                                          \
	{                                                                                          \
		.syscall = name, .when = HOLD_NOTIFY, .notify = true, .n_args = 1, .arg = {flag},  \
		.why = HOLD_WHY                                                                    \
	}
#define CLONE_NS(f)                                                                                \
	{                                                                                          \
		.syscall = "clone", .err = EPERM, .n_args = 1, .arg = {FLAG_SET(f)},               \
		.why = "clone with " #f                                                            \
	}

/* socket() of a family (low 32 bits under mask equal to value) that is not
 * AF_UNIX, AF_INET or AF_INET6, in a private network namespace or supervised. */
#define NOT_INET(mask, value, names)                                                               \
	{                                                                                          \
		.syscall = "socket", .err = EAFNOSUPPORT, .when = INET_ONLY, .n_args = 1,        \
		.arg = {ARG(0, SCMP_CMP_MASKED_EQ, (mask), (value))},                              \
		.why = "socket() of families " names " (only IPv4, IPv6 and unix exist)"          \
	}

static const struct rule rules[] = {
    /* io_uring runs its own operations out of reach of this filter. */
    {.syscall = "io_uring_setup", .err = ENOSYS, .why = "io_uring (bypasses this filter)"},
    {.syscall = "io_uring_enter", .err = ENOSYS, .why = "io_uring"},
    {.syscall = "io_uring_register", .err = ENOSYS, .why = "io_uring"},
    /* The user's kernel keyring holds credentials. */
    {.syscall = "keyctl", .err = EPERM, .why = "kernel keyring"},
    {.syscall = "add_key", .err = EPERM, .why = "kernel keyring"},
    {.syscall = "request_key", .err = EPERM, .why = "kernel keyring"},
    /* Other processes' memory and execution. */
    {.syscall = "ptrace", .err = EPERM, .why = "tracing processes"},
    {.syscall = "process_vm_readv", .err = EPERM, .why = "reading other processes' memory"},
    {.syscall = "process_vm_writev", .err = EPERM, .why = "writing other processes' memory"},
    /* Another process's resource limits need only the same uid, and no
     * Landlock scope covers them: an RLIMIT_CPU of 1 kills a process outside,
     * an RLIMIT_NOFILE of 0 leaves paddock unable to clean up after the run.
     * Reading them, and setting the caller's own (pid 0, as setrlimit()
     * does), stay allowed. */
    {.syscall = "prlimit64",
     .err = EPERM,
     .n_args = 2,
     .arg = {ARG(0, SCMP_CMP_NE, 0, 0), ARG(2, SCMP_CMP_NE, 0, 0)},
     .why = "setting another process's resource limits (prlimit with a pid)"},
    /* Only the query and the default persona: personality flags such as
     * READ_IMPLIES_EXEC or ADDR_NO_RANDOMIZE weaken the process. */
    {.syscall = "personality",
     .err = EPERM,
     .when = PERSONA,
     .why = "personality changes (only the query 0xffffffff and PER_LINUX pass)"},
    /* Mount table and namespaces: a new user namespace hands out
     * capabilities inside it and a large kernel attack surface. */
    {.syscall = "mount", .err = EPERM, .why = "mounting"},
    {.syscall = "umount", .err = EPERM, .why = "unmounting"},
    {.syscall = "umount2", .err = EPERM, .why = "unmounting"},
    {.syscall = "pivot_root", .err = EPERM, .why = "changing the root"},
    {.syscall = "open_tree", .err = EPERM, .why = "new mount API"},
    {.syscall = "move_mount", .err = EPERM, .why = "new mount API"},
    {.syscall = "fsopen", .err = EPERM, .why = "new mount API"},
    {.syscall = "fsmount", .err = EPERM, .why = "new mount API"},
    {.syscall = "fsconfig", .err = EPERM, .why = "new mount API"},
    {.syscall = "fspick", .err = EPERM, .why = "new mount API"},
    {.syscall = "mount_setattr", .err = EPERM, .why = "new mount API"},
    {.syscall = "open_tree_attr", .err = EPERM, .why = "new mount API", .nr = 467},
    {.syscall = "unshare", .err = EPERM, .why = "namespaces"},
    {.syscall = "setns", .err = EPERM, .why = "namespaces"},
    CLONE_NS(CLONE_NEWNS),
    CLONE_NS(CLONE_NEWCGROUP),
    CLONE_NS(CLONE_NEWUTS),
    CLONE_NS(CLONE_NEWIPC),
    CLONE_NS(CLONE_NEWUSER),
    CLONE_NS(CLONE_NEWPID),
    CLONE_NS(CLONE_NEWNET),
    /* clone3 passes its flags in memory the filter cannot read; ENOSYS
     * makes libc fall back to clone, which the rules above see. */
    {.syscall = "clone3", .err = ENOSYS, .why = "clone3 (libc falls back to clone)"},
    /* Injecting input into a terminal outside the sandbox. */
    {.syscall = "ioctl",
     .err = EPERM,
     .n_args = 1,
     .arg = {IOCTL_CMD(TIOCSTI)},
     .why = "ioctl TIOCSTI (low 32 bits)"},
    {.syscall = "ioctl",
     .err = EPERM,
     .n_args = 1,
     .arg = {IOCTL_CMD(TIOCLINUX)},
     .why = "ioctl TIOCLINUX (low 32 bits)"},
    /* Extended attributes are metadata Landlock does not cover; a file
     * system without xattr support answers the same way. */
    {.syscall = "setxattr", .err = EOPNOTSUPP, .why = "xattr writes"},
    {.syscall = "lsetxattr", .err = EOPNOTSUPP, .why = "xattr writes"},
    {.syscall = "fsetxattr", .err = EOPNOTSUPP, .why = "xattr writes"},
    {.syscall = "setxattrat", .err = EOPNOTSUPP, .why = "xattr writes", .nr = 463},
    {.syscall = "removexattr", .err = EOPNOTSUPP, .why = "xattr removal"},
    {.syscall = "lremovexattr", .err = EOPNOTSUPP, .why = "xattr removal"},
    {.syscall = "fremovexattr", .err = EOPNOTSUPP, .why = "xattr removal"},
    {.syscall = "removexattrat", .err = EOPNOTSUPP, .why = "xattr removal", .nr = 466},
    /* Unix sockets where no supervisor sees their calls (an old kernel): a
     * path or an abstract name reaches a service of the host (Docker, an
     * ssh-agent, tmux, the session bus), and a filter cannot read the
     * address connect(), sendto() or sendmsg() is given. Only unnamed
     * socketpair()s of streams and sequenced packets are made then:
     * connected at birth, they ignore an address. */
    {.syscall = "socket",
     .err = EPERM,
     .when = NO_UNIX,
     .n_args = 1,
     .arg = {DOMAIN_IS(AF_UNIX)},
     .why = "unix sockets (a path or abstract name could reach a service of the host); "
	    "socketpair() stays usable"},
    /* With a supervisor (the *_UNIX modes) every unix socket is made: the
     * calls that name an address go to it (UNIX_NOTIFY, stacked, or the
     * supervised program), and it lets a path or an abstract name reach only
     * a socket this run bound, or one of allowUnixSockets. */
    {.syscall = "connect",
     .when = UNIX_NOTIFY_ONLY,
     .notify = true,
     .why = "a unix socket only to one the run bound or allowUnixSockets names; others "
	    "as given"},
    {.syscall = "bind",
     .when = UNIX_NOTIFY_ONLY,
     .notify = true,
     .why = "a unix path inside the writable roots, noted as the run's; others as given"},
    {.syscall = "sendto",
     .when = UNIX_NOTIFY_ONLY,
     .notify = true,
     .n_args = 1,
     .arg = {ARG(4, SCMP_CMP_NE, 0, 0)},
     .why = "with an address: a unix datagram as connect(); others as given"},
    {.syscall = "sendmsg",
     .when = UNIX_NOTIFY_ONLY,
     .notify = true,
     .why = "its address is in memory: checked as sendto()"},
    {.syscall = "sendmmsg",
     .when = UNIX_NOTIFY_ONLY,
     .notify = true,
     .why = "each message as sendmsg()"},
    /* A datagram pair's end can still sendmsg() to an address; SOCK_RAW
     * is a datagram socket for AF_UNIX. */
    {.syscall = "socketpair",
     .err = EPERM,
     .when = NO_UNIX,
     .n_args = 2,
     .arg = {DOMAIN_IS(AF_UNIX), ARG(1, SCMP_CMP_MASKED_EQ, 0xf, SOCK_DGRAM)},
     .why = "unix datagram socketpairs (an end can still sendmsg() to an address)"},
    {.syscall = "socketpair",
     .err = EPERM,
     .when = NO_UNIX,
     .n_args = 2,
     .arg = {DOMAIN_IS(AF_UNIX), ARG(1, SCMP_CMP_MASKED_EQ, 0xf, SOCK_RAW)},
     .why = "unix raw socketpairs"},
    {.syscall = "socketpair",
     .err = EAFNOSUPPORT,
     .n_args = 1,
     .arg = {ARG(0, SCMP_CMP_NE, AF_UNIX, 0)},
     .why = "socketpair() but for AF_UNIX"},
    /* Network off without a namespace of its own: no inet socket, and
     * nothing to connect (socket pairs are born connected). */
    {.syscall = "socket",
     .err = EAFNOSUPPORT,
     .when = NET_OFF,
     .n_args = 1,
     .arg = {ARG(0, SCMP_CMP_NE, AF_UNIX, 0)},
     .why = "socket() of any family (unix ones are denied above)"},
    {.syscall = "connect", .err = EPERM, .when = NET_OFF, .why = "connect() on any socket"},
    {.syscall = "sendto",
     .err = EPERM,
     .when = NET_OFF,
     .n_args = 1,
     .arg = {ARG(4, SCMP_CMP_NE, 0, 0)},
     .why = "sendto() to an address"},
    /* Network off in a private namespace: IPv4 and IPv6 reach its loopback
     * and nothing else; every other family (netlink, packet, vsock...) is
     * refused. The low 32 bits of the family, in blocks: 0, 3, 4-7, 8-9,
     * 11, 12-15, 16-31, 32-63 (the kernel knows none from 64 on). */
    NOT_INET(0xffffffffULL, 0, "0"),
    NOT_INET(0xffffffffULL, 3, "3"),
    NOT_INET(0xfffffffcULL, 4, "4-7"),
    NOT_INET(0xfffffffeULL, 8, "8-9"),
    NOT_INET(0xffffffffULL, 11, "11"),
    NOT_INET(0xfffffffcULL, 12, "12-15"),
    NOT_INET(0xfffffff0ULL, 16, "16-31"),
    NOT_INET(0xffffffe0ULL, 32, "32-63"),
    /* Supervised (Landlock, network off): loopback among the run's own
     * processes. paddock reads the address once, into memory of its own,
     * takes the socket with pidfd_getfd and makes the call itself, so a
     * thread of the command that rewrites the address after the check
     * changes nothing. A send without an address goes to the peer that a
     * supervised connect chose. */
    SUPERVISE("connect", "only to a loopback address the run bound"),
    SUPERVISE("bind", "loopback only, every address narrowed to it"),
    SUPERVISE("listen", "an unbound socket is bound to the loopback first"),
    {.syscall = "sendto",
     .when = SUPERVISED,
     .notify = true,
     .n_args = 1,
     .arg = {ARG(4, SCMP_CMP_NE, 0, 0)},
     .why = "with an address: only to a loopback address the run bound"},
    SUPERVISE("sendmsg", "its address is in memory: checked as sendto()"),
    SUPERVISE("sendmmsg", "each message as sendmsg()"),
    /* A filter of the command's own with a listener would take the
     * notifications first and could let the calls through unchecked. */
    {.syscall = "seccomp",
     .err = EPERM,
     .when = NO_LISTENER,
     .n_args = 1,
     .arg = {ARG(1, SCMP_CMP_MASKED_EQ, SECCOMP_FILTER_FLAG_NEW_LISTENER,
		 SECCOMP_FILTER_FLAG_NEW_LISTENER)},
     .why = "seccomp filters with a listener of their own (they would answer first)"},
    /* A protected path that is missing (an agent's configuration, a git hook
     * directory) may not be made while the run lasts: these go to the supervisor,
     * which reads the path, finds the directory as the command sees it, and makes
     * the name there itself. */
    MAKES("mkdir"),
    MAKES("mkdirat"),
    MAKES("mknod"),
    MAKES("mknodat"),
    MAKES("symlink"),
    MAKES("symlinkat"),
    MAKES("rename"),
    MAKES("renameat"),
    MAKES("renameat2"),
    /* A file too: an open that may create (O_CREAT), creat() and a hard link. The
     * supervisor opens the file itself and hands the command the descriptor. */
    {.syscall = "open", .when = CREATE_NOTIFY, .notify = true, .n_args = 1,
     .arg = {FLAG_AT(1, O_CREAT)}, .why = "open(O_CREAT): made on its behalf, or refused"},
    {.syscall = "openat", .when = CREATE_NOTIFY, .notify = true, .n_args = 1,
     .arg = {FLAG_AT(2, O_CREAT)}, .why = "openat(O_CREAT): made on its behalf, or refused"},
    MAKES("creat"),
    MAKES("link"),
    MAKES("linkat"),
    /* With no mount namespace to hold the existing protected paths read-only in (a
     * container without user namespaces), the calls that write or remove a name go to
     * the supervisor too: an open to write or truncate, truncate(), unlink() and rmdir(). */
    HOLDS("open", FLAG_AT(1, O_WRONLY)),
    HOLDS("open", FLAG_AT(1, O_RDWR)),
    HOLDS("open", FLAG_AT(1, O_TRUNC)),
    HOLDS("openat", FLAG_AT(2, O_WRONLY)),
    HOLDS("openat", FLAG_AT(2, O_RDWR)),
    HOLDS("openat", FLAG_AT(2, O_TRUNC)),
    {.syscall = "truncate", .when = HOLD_NOTIFY, .notify = true, .why = HOLD_WHY},
    {.syscall = "unlink", .when = HOLD_NOTIFY, .notify = true, .why = HOLD_WHY},
    {.syscall = "unlinkat", .when = HOLD_NOTIFY, .notify = true, .why = HOLD_WHY},
    {.syscall = "rmdir", .when = HOLD_NOTIFY, .notify = true, .why = HOLD_WHY},
    /* Its flags are behind a pointer, out of this filter's sight; callers fall back to
     * openat() on ENOSYS, as on a kernel before 5.6. */
    {.syscall = "openat2", .err = ENOSYS, .when = CREATE_NOTIFY, .nr = 437,
     .why = "openat2 (its flags are out of sight: openat instead)"},
    /* SCTP connects through setsockopt(), out of the supervisor's sight. */
    {.syscall = "socket",
     .err = EPROTONOSUPPORT,
     .when = SUPERVISED,
     .n_args = 1,
     .arg = {ARG(2, SCMP_CMP_MASKED_EQ, 0xffffffffULL, IPPROTO_SCTP)},
     .why = "SCTP sockets (they connect through setsockopt)"},
};

/* Syscalls from 424 on share one number on every architecture but alpha. */
static int resolve(const struct rule *rl)
{
	int nr = seccomp_syscall_resolve_name(rl->syscall);

	if (nr == __NR_SCMP_ERROR && rl->nr > 0) {
		uint32_t arch = seccomp_arch_native();

		if (arch == SCMP_ARCH_X86_64 || arch == SCMP_ARCH_AARCH64 ||
		    arch == SCMP_ARCH_RISCV64)
			nr = rl->nr;
	}
	/* Negative: unknown, or a pseudo syscall this architecture lacks. */
	return nr < 0 ? -ENOSYS : nr;
}

enum pdk_seccomp_net pdk_seccomp_with_hold(enum pdk_seccomp_net net)
{
	switch (net) {
	case PDK_SECCOMP_NET_SUPERVISED_UNIX: return PDK_SECCOMP_NET_SUPERVISED_UNIX_HOLD;
	case PDK_SECCOMP_UNIX_NOTIFY: return PDK_SECCOMP_UNIX_NOTIFY_HOLD;
	default: return net;
	}
}

/* The mode without its hold, and whether it has one. */
static enum pdk_seccomp_net unhold(enum pdk_seccomp_net net, bool *hold)
{
	*hold = true;
	switch (net) {
	case PDK_SECCOMP_NET_SUPERVISED_UNIX_HOLD: return PDK_SECCOMP_NET_SUPERVISED_UNIX;
	case PDK_SECCOMP_UNIX_NOTIFY_HOLD: return PDK_SECCOMP_UNIX_NOTIFY;
	default: *hold = false; return net;
	}
}

enum pdk_seccomp_net pdk_seccomp_with_unix(enum pdk_seccomp_net net)
{
	switch (net) {
	case PDK_SECCOMP_NET_FULL: return PDK_SECCOMP_NET_FULL_UNIX;
	case PDK_SECCOMP_NET_PRIVATE: return PDK_SECCOMP_NET_PRIVATE_UNIX;
	case PDK_SECCOMP_NET_SUPERVISED: return PDK_SECCOMP_NET_SUPERVISED_UNIX;
	default: return net;
	}
}

/* The mode without its unix allowance, and whether it has one. */
static enum pdk_seccomp_net base(enum pdk_seccomp_net net, bool *unix_ok)
{
	*unix_ok = true;
	switch (net) {
	case PDK_SECCOMP_NET_FULL_UNIX: return PDK_SECCOMP_NET_FULL;
	case PDK_SECCOMP_NET_PRIVATE_UNIX: return PDK_SECCOMP_NET_PRIVATE;
	case PDK_SECCOMP_NET_SUPERVISED_UNIX: return PDK_SECCOMP_NET_SUPERVISED;
	default: *unix_ok = false; return net;
	}
}

static bool applies(const struct rule *r, enum pdk_seccomp_net net)
{
	bool unix_ok, hold;

	net = unhold(net, &hold);
	if (r->when == HOLD_NOTIFY)
		return hold;
	/* The stacked program holds its own rules and no other. */
	if (net == PDK_SECCOMP_UNIX_NOTIFY)
		return r->when == UNIX_NOTIFY_ONLY || r->when == NO_LISTENER ||
		       r->when == CREATE_NOTIFY;
	net = base(net, &unix_ok);
	switch (r->when) {
	case NET_OFF: return net == PDK_SECCOMP_NET_OFF;
	case INET_ONLY: return net == PDK_SECCOMP_NET_PRIVATE || net == PDK_SECCOMP_NET_SUPERVISED;
	case SUPERVISED: return net == PDK_SECCOMP_NET_SUPERVISED;
	case NO_UNIX: return !unix_ok;
	case UNIX_NOTIFY_ONLY: return false;
	case NO_LISTENER: return net == PDK_SECCOMP_NET_SUPERVISED || unix_ok;
	/* The main program has the listener in the supervised mode only; the others
	 * stack UNIX_NOTIFY's. */
	case CREATE_NOTIFY: return net == PDK_SECCOMP_NET_SUPERVISED;
	default: return true;
	}
}

/*
 * personality(2): deny every value but 0 (PER_LINUX) and 0xffffffff (the
 * query). The kernel reads an unsigned int, so only the low 32 bits count,
 * and libseccomp 2.5 takes one comparison per argument and rule. A value
 * that is neither has, somewhere around its 32 bits taken as a ring, a set
 * bit followed by a clear one: one masked compare for each of the 32 pairs
 * (k, k+1 mod 32) covers exactly those values. Fewer rules make a shorter
 * program, and the kernel checks and compiles it at every run.
 */
static int persona(scmp_filter_ctx ctx, int nr, int err)
{
	for (unsigned k = 0; k < 32; k++) {
		uint64_t set = 1ULL << k, clear = 1ULL << ((k + 1) % 32);
		int r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), nr, 1,
					 SCMP_A0(SCMP_CMP_MASKED_EQ, set | clear, set));

		if (r < 0)
			return r;
	}
	return 0;
}

static void ctx_releasep(scmp_filter_ctx *ctx)
{
	if (*ctx)
		seccomp_release(*ctx);
}

static int build(enum pdk_seccomp_net net, scmp_filter_ctx *ret_ctx)
{
	__attribute__((cleanup(ctx_releasep))) scmp_filter_ctx ctx = NULL;
	int r;

	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return -ENOMEM;
	/* Only the native ABI is in the filter. A call from another one
	 * (ia32 through int 0x80, x32 numbers on x86_64) kills the process:
	 * the rules above would not apply to it. */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (r < 0)
		return r;
	/* Bail out of the filter early for the common, allowed calls. */
	(void)seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);

	for (size_t i = 0; i < PDK_ARRAY_SIZE(rules); i++) {
		const struct rule *rl = &rules[i];
		int nr;

		if (!applies(rl, net))
			continue;
		nr = resolve(rl);
		if (nr < 0)
			continue; /* not a system call here: nothing to filter */
		if (rl->when == PERSONA)
			r = persona(ctx, nr, rl->err);
		else
			r = seccomp_rule_add_array(ctx,
						   rl->notify ? SCMP_ACT_NOTIFY
							      : SCMP_ACT_ERRNO(rl->err),
						   nr, rl->n_args, rl->arg);
		if (r < 0)
			return r;
	}
	*ret_ctx = steal_pointer(&ctx);
	return 0;
}

#if SCMP_VER_MAJOR > 2 || (SCMP_VER_MAJOR == 2 && SCMP_VER_MINOR >= 6)
static int export_bpf(scmp_filter_ctx ctx, void **ret_buf, size_t *ret_len)
{
	size_t len = 0;
	_cleanup_free_ void *buf = NULL;
	int r;

	r = seccomp_export_bpf_mem(ctx, NULL, &len);
	if (r < 0)
		return r;
	buf = malloc(len ? len : 1);
	if (!buf)
		return -ENOMEM;
	r = seccomp_export_bpf_mem(ctx, buf, &len);
	if (r < 0)
		return r;
	*ret_buf = steal_pointer(&buf);
	*ret_len = len;
	return 0;
}
#else
/* libseccomp before 2.6 exports only to an fd: go through a memfd. */
static int export_bpf(scmp_filter_ctx ctx, void **ret_buf, size_t *ret_len)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ void *buf = NULL;
	struct stat st;
	size_t got = 0;
	int r;

	fd = memfd_create("paddock-bpf", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = seccomp_export_bpf(ctx, fd);
	if (r < 0)
		return r;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size <= 0 || st.st_size % sizeof(struct sock_filter) != 0)
		return -EIO;
	buf = malloc(st.st_size);
	if (!buf)
		return -ENOMEM;
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, (char *)buf + got, st.st_size - got, got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		got += n;
	}
	*ret_buf = steal_pointer(&buf);
	*ret_len = got;
	return 0;
}
#endif

int pdk_seccomp_export(enum pdk_seccomp_net net, struct pdk_bpf *ret)
{
	__attribute__((cleanup(ctx_releasep))) scmp_filter_ctx ctx = NULL;
	void *buf = NULL;
	size_t len = 0;
	int r;

	if ((unsigned)net >= PDK_SECCOMP_NET_MODES)
		return -EINVAL;
	r = build(net, &ctx);
	if (r < 0)
		return r;
	r = export_bpf(ctx, &buf, &len);
	if (r < 0)
		return r;
	if (len == 0 || len % sizeof(struct sock_filter) != 0 ||
	    len / sizeof(struct sock_filter) > BPF_MAXINSNS) {
		free(buf);
		return -E2BIG;
	}
	ret->filter = buf;
	ret->len = len / sizeof(struct sock_filter);
	ret->owned = true;
	return 0;
}

#ifndef PDK_SECCOMP_GEN
int pdk_seccomp_builtin(enum pdk_seccomp_net net, struct pdk_bpf *ret)
{
	const struct pdk_seccomp_programs *p = &pdk_seccomp_programs;

	/* The programs check the ABI they were built for and kill on any
	 * other: loaded into a process of another ABI (a 32-bit build of
	 * paddock next to a 64-bit generator), every call would die. */
	if ((unsigned)net >= PDK_SECCOMP_NET_MODES)
		return -EINVAL;
	if (p->arch != seccomp_arch_native() || !p->net[net].len)
		return -ENOEXEC;
	ret->filter = p->net[net].filter;
	ret->len = p->net[net].len;
	ret->owned = false;
	return 0;
}

int pdk_seccomp_compile(enum pdk_seccomp_net net, struct pdk_bpf *ret)
{
	/* Compiling costs about half a millisecond a run; the rules change
	 * only with the network mode, so the build compiled each. */
	if (pdk_seccomp_builtin(net, ret) == 0)
		return 0;
	return pdk_seccomp_export(net, ret);
}
#endif

int pdk_seccomp_memfd(const struct pdk_bpf *bpf, int *ret_fd)
{
	_cleanup_close_ int fd = -1;
	size_t size = (size_t)bpf->len * sizeof(struct sock_filter);
	int r;

	/* CLOEXEC: the backend that hands it to bwrap clears the flag in
	 * its child, so it reaches nothing else. */
	fd = memfd_create("paddock-seccomp", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if ((r = pdk_write_all(fd, bpf->filter, size)) < 0)
		return r;
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
		return -errno;
	/* bwrap reads from the current offset to the end. */
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	*ret_fd = steal_fd(&fd);
	return 0;
}

int pdk_seccomp_load(const struct pdk_bpf *bpf)
{
	struct sock_fprog prog = {
		.len = bpf->len,
		.filter = (struct sock_filter *)bpf->filter, /* the kernel only reads it */
	};

	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		return -errno;
	return 0;
}

void pdk_bpf_release(struct pdk_bpf *bpf)
{
	if (!bpf)
		return;
	if (bpf->owned)
		free((void *)bpf->filter);
	bpf->filter = NULL;
	bpf->len = 0;
	bpf->owned = false;
}

static const char *errname(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case ENOSYS: return "ENOSYS";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	default: return "an error";
	}
}

int pdk_seccomp_describe(enum pdk_seccomp_net net, FILE *out)
{
	const char *arch = seccomp_arch_resolve_name("x86_64") == seccomp_arch_native() ?
				   "x86_64" : "the native architecture";

	fprintf(out, "seccomp: everything not listed is allowed\n");
	fprintf(out, "seccomp: system calls through any ABI but %s (ia32 int 0x80, x32 numbers) "
		     "kill the process\n", arch);
	for (size_t i = 0; i < PDK_ARRAY_SIZE(rules); i++) {
		const struct rule *rl = &rules[i];

		if (!applies(rl, net))
			continue;
		if (resolve(rl) < 0)
			continue;
		if (rl->notify)
			fprintf(out, "seccomp: supervise %s: %s\n", rl->syscall, rl->why);
		else
			fprintf(out, "seccomp: deny %s with %s: %s\n", rl->syscall,
				errname(rl->err), rl->why);
	}
	if (net == PDK_SECCOMP_NET_FULL || net == PDK_SECCOMP_NET_FULL_UNIX)
		fprintf(out, "seccomp: network on: inet sockets and connect() are not filtered\n");
	else if (net == PDK_SECCOMP_NET_PRIVATE || net == PDK_SECCOMP_NET_PRIVATE_UNIX)
		fprintf(out, "seccomp: network off in a private network namespace: IPv4 and IPv6 "
			     "sockets reach its loopback only\n");
	else if (net == PDK_SECCOMP_NET_SUPERVISED || net == PDK_SECCOMP_NET_SUPERVISED_UNIX ||
		 net == PDK_SECCOMP_NET_SUPERVISED_UNIX_HOLD)
		fprintf(out, "seccomp: network off, supervised: paddock performs the calls above "
			     "on the command's socket with its own copy of the address; loopback "
			     "reaches the run's own servers only\n");
#ifndef PDK_SECCOMP_GEN
	{
		struct pdk_bpf bpf;

		if (pdk_seccomp_builtin(net, &bpf) == 0)
			fprintf(out, "seccomp: program: %u instructions, precompiled at build time "
				     "(libseccomp %s)\n", bpf.len, pdk_seccomp_programs.libseccomp);
		else
			fprintf(out, "seccomp: program: compiled at run time (the precompiled one is "
				     "for another ABI)\n");
	}
#endif
	if (ferror(out))
		return -EIO;
	return 0;
}
