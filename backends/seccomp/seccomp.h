/* seccomp.h - the one seccomp filter both Linux backends load: built from one
 * rule table, precompiled for the native ABI at build time. */
#ifndef PDK_SECCOMP_H
#define PDK_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "confine/confine.h"

/* Which network a program is for. */
enum pdk_seccomp_net {
	PDK_SECCOMP_NET_OFF = 0,     /* no inet socket, nothing to connect */
	PDK_SECCOMP_NET_FULL = 1,    /* inet sockets as the host has them */
	PDK_SECCOMP_NET_PRIVATE = 2, /* inet in a network namespace of the run's own */
	/* inet with paddock's connect supervisor: connect, bind, listen and
	 * addressed sends go to seccomp user notification (src/net/supervise.c) */
	PDK_SECCOMP_NET_SUPERVISED = 3,
	/* The same three with unix sockets of every type: their calls that
	 * name an address go to the supervisor, which lets a path or an
	 * abstract name reach only a socket the run bound, or a path of
	 * commandPolicy.sandbox.allowUnixSockets. */
	PDK_SECCOMP_NET_FULL_UNIX = 4,
	PDK_SECCOMP_NET_PRIVATE_UNIX = 5,
	PDK_SECCOMP_NET_SUPERVISED_UNIX = 6,
	/* Not a whole filter: connect(), bind(), addressed sendto(), sendmsg()
	 * and sendmmsg() to user notification and nothing else (and no
	 * listener of the command's own), stacked on FULL_UNIX or PRIVATE_UNIX
	 * so that the supervisor sees every call that names a unix address. */
	PDK_SECCOMP_UNIX_NOTIFY = 7,
	/* SUPERVISED_UNIX and UNIX_NOTIFY for a run with no mount namespace to hold the
	 * existing protected paths read-only in: the calls that write or remove a name go
	 * to the supervisor too, which refuses one on a held path. */
	PDK_SECCOMP_NET_SUPERVISED_UNIX_HOLD = 8,
	PDK_SECCOMP_UNIX_NOTIFY_HOLD = 9,
	PDK_SECCOMP_NET_MODES
};

/* A BPF program (struct sock_filter array) for a policy. */
struct pdk_bpf {
	const void *filter; /* struct sock_filter[len] */
	unsigned short len;
	bool owned;         /* filter was allocated (compiled at run time) */
};

/*
 * The programs tools/seccomp-gen wrote at build time (seccomp-programs.c,
 * generated), for the one ABI libseccomp called native there, one per
 * enum pdk_seccomp_net.
 */
struct pdk_seccomp_programs {
	uint32_t arch; /* AUDIT_ARCH_* the programs check for */
	const char *libseccomp; /* version that compiled them */
	struct {
		const void *filter;
		unsigned short len;
	} net[PDK_SECCOMP_NET_MODES];
};
extern const struct pdk_seccomp_programs pdk_seccomp_programs;

/* The program for policy: the precompiled one when it was built for the ABI
 * this process runs (the usual case: no compile, no allocation), else
 * compiled by libseccomp now. */
int pdk_seccomp_compile(enum pdk_seccomp_net net, struct pdk_bpf *ret);
/* Always through libseccomp: what the generator writes, and the fallback. */
int pdk_seccomp_export(enum pdk_seccomp_net net, struct pdk_bpf *ret);
/* The precompiled program, or -ENOEXEC when it was built for another ABI. */
int pdk_seccomp_builtin(enum pdk_seccomp_net net, struct pdk_bpf *ret);
/* Write the program to a sealed memfd (for bwrap --seccomp FD). */
int pdk_seccomp_memfd(const struct pdk_bpf *bpf, int *ret_fd);
/* Child side, async-signal-safe: install it (no_new_privs must be set). */
int pdk_seccomp_load(const struct pdk_bpf *bpf);
void pdk_bpf_release(struct pdk_bpf *bpf);
/* The mode with unix sockets allowed (FULL, PRIVATE, SUPERVISED; OFF stays). */
enum pdk_seccomp_net pdk_seccomp_with_unix(enum pdk_seccomp_net net);
/* The mode whose supervisor holds the existing protected paths (SUPERVISED_UNIX and
 * UNIX_NOTIFY; the others stay). */
enum pdk_seccomp_net pdk_seccomp_with_hold(enum pdk_seccomp_net net);
/* The rules in words, for --print-profile and doctor. */
int pdk_seccomp_describe(enum pdk_seccomp_net net, FILE *out);

#endif
