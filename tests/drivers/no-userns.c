/* no-userns.c - run a program as uid and gid 65534 in a user namespace that may make no other
 * (its max_user_namespaces set to 0): a host without user namespaces, for secrets.sh. Root only.
 * Usage: no-userns PROGRAM [ARG...] */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const char map[] = "0 0 1\n65534 65534 1\n";
	char path[64];
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: no-userns PROGRAM [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0)
		return 125;
	if (pid == 0) {
		if (unshare(CLONE_NEWUSER) < 0) {
			perror("no-userns: unshare");
			_exit(125);
		}
		/* The parent writes the maps, which only root outside can. */
		raise(SIGSTOP);
		if (put("/proc/sys/user/max_user_namespaces", "0") < 0 || setgroups(0, NULL) < 0 ||
		    setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0) {
			perror("no-userns");
			_exit(125);
		}
		execvp(argv[1], argv + 1);
		perror("no-userns: exec");
		_exit(127);
	}
	if (waitpid(pid, &status, WUNTRACED) != pid || !WIFSTOPPED(status))
		return 125;
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	if (put(path, map) < 0)
		perror("no-userns: uid_map");
	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
	if (put(path, map) < 0)
		perror("no-userns: gid_map");
	kill(pid, SIGCONT);
	if (waitpid(pid, &status, 0) != pid)
		return 125;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
