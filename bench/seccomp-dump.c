/* seccomp-dump.c - writes paddock's own seccomp program (bwrap's, network off) to a file, so that the
 * bare bwrap call in `make bench` loads the filter paddock passes with --seccomp. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "backends/seccomp/seccomp.h"

int main(int argc, char **argv)
{
	struct pdk_bpf bpf;
	FILE *f;
	int r;

	if (argc != 2) {
		fputs("usage: seccomp-dump FILE\n", stderr);
		return 1;
	}
	r = pdk_seccomp_compile(PDK_SECCOMP_NET_PRIVATE, &bpf);
	if (r < 0) {
		fprintf(stderr, "seccomp-dump: compile: %s\n", strerror(-r));
		return 1;
	}
	f = fopen(argv[1], "we");
	/* struct sock_filter is 8 bytes: u16 code, u8 jt, u8 jf, u32 k. */
	r = f && fwrite(bpf.filter, 8, bpf.len, f) == bpf.len;
	if (f && fclose(f) != 0)
		r = 0;
	pdk_bpf_release(&bpf);
	if (!r) {
		fprintf(stderr, "seccomp-dump: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return 0;
}
