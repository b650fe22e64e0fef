/* reap.c - the command's own reaper inside a wrapper's sandbox: it runs the
 * command as its child and tells the caller how it ended, signal included. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/self.h"
#include "reap.h"

int pdk_reap_main(int argc, char **argv)
{
	char *end, line[32];
	long fd;
	pid_t pid;
	int ws, n;

	if (argc < 4 || strcmp(argv[2], "--") != 0) {
		fprintf(stderr, "%s: this is paddock's, started by its bwrap backend: "
				"FD -- PROGRAM [ARG...]\n",
			PDK_REAP_NAME);
		return 125;
	}
	errno = 0;
	fd = strtol(argv[1], &end, 10);
	if (errno || *end || fd < 3 || fd > INT_MAX || fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0) {
		fprintf(stderr, "%s: bad descriptor '%s'\n", PDK_REAP_NAME, argv[1]);
		return 125;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "%s: fork: %s\n", PDK_REAP_NAME, strerror(errno));
		return 125;
	}
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		n = errno;
		fprintf(stderr, "%s: execvp %s: %s\n", PDK_REAP_NAME, argv[3], strerror(n));
		_exit(n == ENOENT || n == ENOTDIR ? 127 : 126);
	}
	/* The command's stop is the caller's to decide: a signal meant for the
	 * run reaches the command through its group or cgroup, and this
	 * process only reports. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return 125;
	if (WIFSIGNALED(ws)) {
		n = snprintf(line, sizeof(line), "signal %d\n", WTERMSIG(ws));
		if (write((int)fd, line, (size_t)n) < 0) {
			/* the caller is gone: nobody to tell */
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

#ifdef __linux__
char *pdk_reap_find(void)
{
	char self[PATH_MAX], *slash, *p = NULL;
	ssize_t n = pdk_self_path(self, sizeof(self));

	if (n > 0) {
		if ((slash = strrchr(self, '/')) &&
		    asprintf(&p, "%.*s/%s", (int)(slash - self), self, PDK_REAP_NAME) >= 0) {
			if (access(p, X_OK) == 0)
				return p;
			free(p);
		}
	}
#ifdef PDK_LIBEXECDIR
	if (asprintf(&p, "%s/%s", PDK_LIBEXECDIR, PDK_REAP_NAME) >= 0) {
		if (access(p, X_OK) == 0)
			return p;
		free(p);
	}
#endif
	return NULL;
}
#else
char *pdk_reap_find(void)
{
	return NULL;
}
#endif
