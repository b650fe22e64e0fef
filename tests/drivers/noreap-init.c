/* noreap-init.c - pid 1 of a pid namespace that reaps only its own child, as an agent's
 * Node or Python process does when a container starts it without an init, for zombies.sh. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * noreap-init PROGRAM [ARG...]: run PROGRAM as the only child and wait for it alone
 * (never waitpid(-1)), so every orphan reparented here stays a zombie; exit with its
 * status. Run it as `unshare --pid --fork --mount-proc noreap-init sh -c '...'`.
 */
int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: noreap-init PROGRAM [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("noreap-init: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		fprintf(stderr, "noreap-init: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("noreap-init: waitpid");
			return 2;
		}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
