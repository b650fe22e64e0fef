/* main.c - paddock's entry point: pick the verb, hand it the arguments,
 * exit with what it returns. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/auxv.h>
#endif

#include "cli/cli.h"
#include "net/proxy.h"
#include "run/zygote.h"
#include "trash/rmshim.h"

static const char usage[] =
	"usage: paddock VERB [OPTIONS] ...\n"
	"  run [OPTIONS] -- PROGRAM [ARG...]   run one command, confined, with a bounded result\n"
	"  recall ID [OPTIONS]                 page, filter or summarise a kept output\n"
	"  check [OPTIONS] -- PROGRAM [ARG...] show what run would decide, run nothing\n"
	"  log [OPTIONS]                       what was decided, approved and run (audit log)\n"
	"  doctor                              say which confinement works here\n"
	"  mcp [OPTIONS]                       serve the Model Context Protocol on stdio\n"
	"  approvals [approve|deny ID]         list or answer calls waiting for a person\n"
	"  pkg ACTION [PACKAGE]                the system's package manager, outside the sandbox\n"
	"See paddock(1).\n";

int main(int argc, char **argv)
{
	/* Started as `rm` from the shim directory on a command's PATH: told by
	 * the file executed, which `exec -a NAME` cannot change, else argv[0]. */
	const char *file = argc > 0 ? argv[0] : "";
#ifdef __linux__
	const char *execfn = (const char *)getauxval(AT_EXECFN);
	if (execfn)
		file = execfn;
#endif
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	if (strcmp(base, "rm") == 0) {
		/* Out through _exit: inside a sandbox ptrace is denied, and exit
		 * handlers such as a leak checker's may need it. */
		int code = pdk_rmshim_main(argc, argv);
		fflush(NULL);
		_exit(code);
	}
#ifdef __linux__
	/* In a domains-mode sandbox, before the command (paddock(1), bwrap):
	 * nothing of paddock's own is set yet, so the command inherits none of it. */
	if (argc >= 5 && strcmp(argv[1], "__proxy-listen") == 0 && strcmp(argv[3], "--") == 0) {
		int r = pdk_proxy_listen_exec(atoi(argv[2]), argv + 4);

		fprintf(stderr, "paddock: %s: %s\n", argv[4], strerror(-r));
		_exit(r == -ENOENT ? 127 : 126);
	}
	/* A resident session's zygote in bwrap's sandbox (run/zygote.h). */
	if (argc == 3 && strcmp(argv[1], "__zygote") == 0)
		pdk_zygote_serve(atoi(argv[2]));
#endif
	/* A reader that went away must not kill paddock mid-cleanup. */
	signal(SIGPIPE, SIG_IGN);
	/* Started with stdin, stdout or stderr closed: /dev/null there, so that
	 * no descriptor paddock opens (a pipe, a Landlock ruleset, the guardian's
	 * socket) takes fd 0-2, where a child's own stdio would replace it. */
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			return PDK_EXIT_FAILURE;
	if (argc < 2) {
		fputs(usage, stderr);
		return PDK_EXIT_FAILURE;
	}
	if (strcmp(argv[1], "run") == 0)
		return pdk_cli_run_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "__finish") == 0)
		return pdk_cli_finish_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "recall") == 0)
		return pdk_cli_recall_main(argc - 1, argv + 1, NULL);
	if (strcmp(argv[1], "check") == 0)
		return pdk_cli_check_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "approvals") == 0)
		return pdk_cli_approvals_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "log") == 0)
		return pdk_cli_log_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "mcp") == 0)
		return pdk_cli_mcp_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "pkg") == 0)
		return pdk_cli_pkg_main(argc - 1, argv + 1, NULL);
	if (strcmp(argv[1], "doctor") == 0)
		return pdk_cli_doctor_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		puts(PACKAGE_STRING);
		return 0;
	}
	pdk_cli_error("unknown verb '%s'; the verbs are run, check, recall, log, doctor, mcp, approvals and pkg", argv[1]);
	return PDK_EXIT_FAILURE;
}
