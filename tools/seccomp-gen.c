/* seccomp-gen.c - build tool: compiles paddock's seccomp rules (backends/seccomp/seccomp.c) with
 * libseccomp for the native ABI and writes the BPF programs out as C source. */
#include <errno.h>
#include <linux/filter.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>

#include "backends/seccomp/seccomp.h"

static int put_program(FILE *out, const char *name, const struct pdk_bpf *bpf)
{
	const struct sock_filter *f = bpf->filter;

	fprintf(out, "static const struct sock_filter %s[%u] = {\n", name, bpf->len);
	for (unsigned i = 0; i < bpf->len; i++)
		fprintf(out, "\t{ 0x%04x, %u, %u, 0x%08x },\n", f[i].code, f[i].jt, f[i].jf,
			f[i].k);
	fputs("};\n\n", out);
	return ferror(out) ? -EIO : 0;
}

int main(int argc, char **argv)
{
	static const char *const names[PDK_SECCOMP_NET_MODES] = {
	    "net_off",		"net_full",	       "net_private",	 "net_supervised",
	    "net_full_unix", "net_private_unix", "net_supervised_unix", "connect_notify",
	    "net_supervised_unix_hold", "connect_notify_hold"};
	const struct scmp_version *v = seccomp_version();
	struct pdk_bpf prog[PDK_SECCOMP_NET_MODES] = {{0}};
	FILE *out = stdout;
	int r = 0;

	if (argc > 2 || (argc == 2 && !(out = fopen(argv[1], "we")))) {
		fprintf(stderr, "usage: seccomp-gen [OUTPUT.c]%s%s\n", argc == 2 ? ": " : "",
			argc == 2 ? strerror(errno) : "");
		return 1;
	}
	for (int m = 0; m < PDK_SECCOMP_NET_MODES && r == 0; m++)
		r = pdk_seccomp_export((enum pdk_seccomp_net)m, &prog[m]);
	if (r < 0) {
		fprintf(stderr, "seccomp-gen: libseccomp cannot compile the filter: %s\n",
			strerror(-r));
		return 1;
	}
	fputs("/* seccomp-programs.c - generated at build time by tools/seccomp-gen from the rules\n"
	      " * in backends/seccomp/seccomp.c; do not edit. */\n"
	      "#include <linux/filter.h>\n\n"
	      "#include \"backends/seccomp/seccomp.h\"\n\n", out);
	for (int m = 0; m < PDK_SECCOMP_NET_MODES && r == 0; m++)
		r = put_program(out, names[m], &prog[m]);
	fprintf(out, "const struct pdk_seccomp_programs pdk_seccomp_programs = {\n"
		     "\t.arch = 0x%08xU,\n"
		     "\t.libseccomp = \"%u.%u.%u\",\n"
		     "\t.net = {",
		seccomp_arch_native(), v ? v->major : 0, v ? v->minor : 0, v ? v->micro : 0);
	for (int m = 0; m < PDK_SECCOMP_NET_MODES; m++)
		fprintf(out, "%s{ %s, %u }", m ? ", " : " ", names[m], prog[m].len);
	fputs(" },\n};\n", out);
	for (int m = 0; m < PDK_SECCOMP_NET_MODES; m++)
		pdk_bpf_release(&prog[m]);
	if (r < 0 || fflush(out) == EOF || ferror(out) || (out != stdout && fclose(out) == EOF)) {
		fprintf(stderr, "seccomp-gen: writing the programs: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
