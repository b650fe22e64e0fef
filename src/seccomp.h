/* seccomp.h - the one seccomp filter both Linux backends load. */
#ifndef PDK_SECCOMP_H
#define PDK_SECCOMP_H

#include <stddef.h>
#include "confine.h"

/* A compiled BPF program (struct sock_filter array) for the policy. */
struct pdk_bpf {
	void *filter;      /* struct sock_filter[len] */
	unsigned short len;
};

/* Compile the filter for policy (network off adds the socket rules). */
int pdk_seccomp_compile(const struct pdk_confine *policy, struct pdk_bpf *ret);
/* Write the program to a sealed memfd (for bwrap --seccomp FD). */
int pdk_seccomp_memfd(const struct pdk_bpf *bpf, int *ret_fd);
/* Child side, async-signal-safe: install it (no_new_privs must be set). */
int pdk_seccomp_load(const struct pdk_bpf *bpf);
void pdk_bpf_release(struct pdk_bpf *bpf);
/* The rules in words, for --print-profile and doctor. */
int pdk_seccomp_describe(const struct pdk_confine *policy, FILE *out);

#endif
