/* reap.c - the command's own reaper inside a wrapper's sandbox: it runs the
 * command as its child and tells paddock how it ended, signal included. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reap.h"

int pdk_reap_main(int argc, char **argv)
{
	char *end, line[32];
	long fd;
	pid_t pid;
	int ws, n;

	if (argc < 4 || strcmp(argv[2], "--") != 0) {
		fprintf(stderr, "paddock: %s is paddock's own: FD -- PATH [ARG...]\n", PDK_REAP_VERB);
		return 125;
	}
	errno = 0;
	fd = strtol(argv[1], &end, 10);
	if (errno || *end || fd < 3 || fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0) {
		fprintf(stderr, "paddock: %s: bad descriptor '%s'\n", PDK_REAP_VERB, argv[1]);
		return 125;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "paddock: fork: %s\n", strerror(errno));
		return 125;
	}
	if (pid == 0) {
		execv(argv[3], argv + 3);
		n = errno;
		fprintf(stderr, "paddock: execvp %s: %s\n", argv[3], strerror(n));
		_exit(n == ENOENT || n == ENOTDIR ? 127 : 126);
	}
	/* The command's stop is paddock's to decide: a signal meant for the
	 * run reaches the command through its group, and this process only
	 * reports. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return 125;
	if (WIFSIGNALED(ws)) {
		n = snprintf(line, sizeof(line), "signal %d\n", WTERMSIG(ws));
		if (write((int)fd, line, (size_t)n) < 0) {
			/* paddock is gone: nobody to tell */
		}
		return 128 + WTERMSIG(ws);
	}
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : 125;
}

int pdk_reap_status(const char *report, int status)
{
	const char *p = strstr(report, "signal ");
	long sig;

	if (!p)
		return status;
	sig = strtol(p + 7, NULL, 10);
	/* Only a report that agrees with the number the wrapper passed on. */
	if (sig < 1 || sig > 64 || status != 128 + sig)
		return status;
	return -(int)sig;
}
