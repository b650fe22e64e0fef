/* bwrap_probe.c - which bubblewrap binary the backend runs, and whether it can make a
 * sandbox here: found once per process, probed with a trivial command of its own. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bwrap.h"
#include "bwrap_int.h"
#include "core/util.h"

extern char **environ;

static char bwrap_path[PATH_MAX];
static char bwrap_configured[PATH_MAX];
static int bwrap_located; /* 0: not yet, 1: found, <0: -errno */

int pdk_bwrap_set_path(const char *path)
{
	if (path && (path[0] != '/' || strlen(path) >= sizeof(bwrap_configured)))
		return -EINVAL;
	if (strcmp(bwrap_configured, path ? path : "") == 0)
		return 0;
	snprintf(bwrap_configured, sizeof(bwrap_configured), "%s", path ? path : "");
	bwrap_located = 0;
	return 1;
}

static bool is_exec_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Found once per process, in the parent: the configured path (only that one
 * when there is one), then the built-in one, then PATH. The exec itself
 * never searches PATH. */
int pdk_bwrap_find(void)
{
	const char *path;

	if (bwrap_located)
		return bwrap_located < 0 ? bwrap_located : 0;
	bwrap_located = -ENOENT;
	if (bwrap_configured[0]) {
		if (!is_exec_file(bwrap_configured))
			return bwrap_located;
		snprintf(bwrap_path, sizeof(bwrap_path), "%s", bwrap_configured);
		bwrap_located = 1;
		return 0;
	}
#ifdef PDK_BWRAP_PATH
	if (is_exec_file(PDK_BWRAP_PATH)) {
		snprintf(bwrap_path, sizeof(bwrap_path), "%s", PDK_BWRAP_PATH);
		bwrap_located = 1;
		return 0;
	}
#endif
	if (is_exec_file("/usr/bin/bwrap")) {
		snprintf(bwrap_path, sizeof(bwrap_path), "%s", "/usr/bin/bwrap");
		bwrap_located = 1;
		return 0;
	}
	path = getenv("PATH");
	while (path && *path) {
		const char *end = strchrnul(path, ':');
		int n = (int)(end - path);

		/* Relative PATH entries would make the result depend on the
		 * working directory: only absolute ones count. */
		if (n > 0 && path[0] == '/' &&
		    snprintf(bwrap_path, sizeof(bwrap_path), "%.*s/bwrap", n, path) <
			(int)sizeof(bwrap_path) &&
		    is_exec_file(bwrap_path)) {
			bwrap_located = 1;
			return 0;
		}
		path = *end ? end + 1 : end;
	}
	bwrap_path[0] = '\0';
	return bwrap_located;
}

const char *pdk_bwrap_locate(void)
{
	return pdk_bwrap_find() == 0 ? bwrap_path : NULL;
}

static void not_found(char *why, size_t why_len)
{
	if (!why || !why_len)
		return;
	if (bwrap_configured[0])
		snprintf(why, why_len, "the configured bwrap %.200s is not an executable file",
			 bwrap_configured);
	else
		snprintf(why, why_len, "bwrap not found (not in /usr/bin nor on PATH)");
}

static void set_why(char *why, size_t why_len, const char *msg)
{
	if (why && why_len)
		snprintf(why, why_len, "%s", msg);
}

/* The first non-empty line of bwrap's complaint, or a generic one; cut to
 * fit, since the reason is one line for a person. */
static void first_line(char *buf, size_t len, char *out, size_t out_len, int status)
{
	char *p = buf, *nl;

	buf[len] = '\0';
	while (*p == '\n' || *p == ' ')
		p++;
	nl = strchr(p, '\n');
	if (nl)
		*nl = '\0';
	if (*p)
		snprintf(out, out_len, "%.400s", p);
	else if (WIFSIGNALED(status))
		snprintf(out, out_len, "%.200s killed by signal %d", bwrap_path, WTERMSIG(status));
	else
		snprintf(out, out_len, "%.200s exited with status %d", bwrap_path,
			 WEXITSTATUS(status));
}

int pdk_bwrap_probe(char *why, size_t why_len)
{
	/* The namespaces a run unshares and a fresh /proc, the steps that
	 * fail where bwrap cannot work (no user namespaces, an AppArmor
	 * userns restriction, a container whose /proc cannot be mounted
	 * again). --dev is left out: it costs about a third of the probe and
	 * fails only where those do. A bind by fd, as runs bind their roots,
	 * tells a bubblewrap too old to have --bind-fd (before 0.8). */
	char *const args[] = {
	    bwrap_path,
	    "--ro-bind",
	    "/",
	    "/",
	    "--ro-bind-fd",
	    "3",
	    "/",
	    "--proc",
	    "/proc",
	    "--unshare-all",
	    "--die-with-parent",
	    "--",
	    "/bin/true",
	    NULL,
	};
	posix_spawn_file_actions_t fa;
	int pipefd[2], status = 0, r;
	char buf[1024];
	size_t len = 0;
	pid_t pid;

	r = pdk_bwrap_find();
	if (r < 0) {
		not_found(why, why_len);
		return r;
	}
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	r = posix_spawn_file_actions_init(&fa);
	if (r == 0)
		r = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (r == 0)
		r = posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	if (r == 0)
		r = posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
	if (r == 0)
		r = posix_spawn_file_actions_addopen(&fa, 3, "/", O_PATH | O_DIRECTORY, 0);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
	if (r == 0)
		r = posix_spawn_file_actions_addclosefrom_np(&fa, 4);
#endif
	if (r == 0)
		r = posix_spawn(&pid, bwrap_path, &fa, NULL, args, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (r != 0) {
		close(pipefd[0]);
		if (why && why_len)
			snprintf(why, why_len, "cannot run %.200s: %.100s", bwrap_path,
				 strerror(r));
		return -r;
	}
	for (;;) {
		ssize_t n = read(pipefd[0], buf + len, sizeof(buf) - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == sizeof(buf) - 1) {
			/* Enough to say why; drain the rest. */
			char sink[256];

			while (read(pipefd[0], sink, sizeof(sink)) > 0)
				;
			break;
		}
	}
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;

	char line[512];

	first_line(buf, len, line, sizeof(line), status);
	set_why(why, why_len, line);
	if (strstr(line, "ermission") || strstr(line, "not permitted"))
		return -EPERM;
	return -ENOTSUP;
}

/* What a run checks: the binary is there. Whether bwrap can make its
 * namespaces here shows in the run itself (bwrap_started), so a call costs
 * one bwrap, not two. */
int pdk_bwrap_available(char *why, size_t why_len)
{
	int r = pdk_bwrap_find();

	if (r < 0)
		not_found(why, why_len);
	return r;
}
