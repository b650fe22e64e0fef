/* seccomp.h - the one seccomp filter both Linux backends load: built from one
 * rule table, precompiled for the native ABI at build time. */
#ifndef PDK_SECCOMP_H
#define PDK_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "confine/confine.h"

/* A BPF program (struct sock_filter array) for a policy. */
struct pdk_bpf {
	const void *filter; /* struct sock_filter[len] */
	unsigned short len;
	bool owned;         /* filter was allocated (compiled at run time) */
};

/*
 * The programs tools/seccomp-gen wrote at build time (seccomp-programs.c,
 * generated), for the one ABI libseccomp called native there: index 0 is
 * network off, 1 network on.
 */
struct pdk_seccomp_programs {
	uint32_t arch; /* AUDIT_ARCH_* the programs check for */
	const char *libseccomp; /* version that compiled them */
	struct {
		const void *filter;
		unsigned short len;
	} net[2];
};
extern const struct pdk_seccomp_programs pdk_seccomp_programs;

/* The program for policy: the precompiled one when it was built for the ABI
 * this process runs (the usual case: no compile, no allocation), else
 * compiled by libseccomp now. */
int pdk_seccomp_compile(const struct pdk_confine *policy, struct pdk_bpf *ret);
/* Always through libseccomp: what the generator writes, and the fallback. */
int pdk_seccomp_export(bool network, struct pdk_bpf *ret);
/* The precompiled program, or -ENOEXEC when it was built for another ABI. */
int pdk_seccomp_builtin(bool network, struct pdk_bpf *ret);
/* Write the program to a sealed memfd (for bwrap --seccomp FD). */
int pdk_seccomp_memfd(const struct pdk_bpf *bpf, int *ret_fd);
/* Child side, async-signal-safe: install it (no_new_privs must be set). */
int pdk_seccomp_load(const struct pdk_bpf *bpf);
void pdk_bpf_release(struct pdk_bpf *bpf);
/* The rules in words, for --print-profile and doctor. */
int pdk_seccomp_describe(bool network, FILE *out);

#endif
