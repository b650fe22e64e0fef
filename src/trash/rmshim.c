/* rmshim.c - rm inside a confined command, what paddock does before the command runs and
 * after it ends: install the shim, register the run, build its environment, release it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rmshim.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/random.h>
#endif

#include "config/config.h"
#include "core/path.h"
#include "rmshim_int.h"
#include "run/runner.h"
#include "confine/sandbox.h"
#include "core/self.h"
#include "core/state.h"
#include "core/util.h"

/* The program's real path, resolved component by component: what the shim's link must name. */
static char *self_exe(void)
{
	char buf[PATH_MAX];
	ssize_t n = pdk_self_path(buf, sizeof(buf));

	if (n < 0) {
		errno = (int)-n;
		return NULL;
	}
	return realpath(buf, NULL);
}

/* The program's name in one look (realpath walks every component): enough to see that the
 * shim's link, which names what self_exe() resolved, is still right. False where it cannot
 * be had, or the binary was replaced or removed since it started. */
static bool self_exe_fast(char *buf, size_t len)
{
	return pdk_self_path(buf, len) > 0 && buf[0] == '/';
}

static int random_hex(char *buf, size_t n_bytes)
{
	unsigned char raw[32];

	if (n_bytes > sizeof(raw))
		return -EINVAL;
#ifdef __linux__
	if (getrandom(raw, n_bytes, 0) != (ssize_t)n_bytes)
		return -errno;
#else
	arc4random_buf(raw, n_bytes);
#endif
	for (size_t i = 0; i < n_bytes; i++)
		snprintf(buf + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

/* Does LINK name EXE? */
static bool link_names(const char *link, const char *exe)
{
	char cur[PATH_MAX];
	ssize_t n = readlink(link, cur, sizeof(cur) - 1);

	if (n <= 0)
		return false;
	cur[n] = '\0';
	return strcmp(cur, exe) == 0;
}

/* DIR/rm -> EXE, replaced in one rename when it points anywhere else, so a run never finds
 * the shim missing while another paddock refreshes it. */
static int ensure_link(const char *dir, const char *exe)
{
	_cleanup_free_ char *link = pdk_path_join(dir, "rm");
	_cleanup_free_ char *tmp = NULL;
	char rnd[17];
	int r;

	if (!link)
		return -ENOMEM;
	if (link_names(link, exe))
		return 0;
	if ((r = random_hex(rnd, 8)) < 0)
		return r;
	if (asprintf(&tmp, "%s/.rm.%s", dir, rnd) < 0)
		return -ENOMEM;
	if (symlink(exe, tmp) < 0)
		return -errno;
	if (rename(tmp, link) < 0) {
		r = -errno;
		unlink(tmp);
		return r;
	}
	return 0;
}

/* Everything in place as a previous run left it: DIR is this user's directory and DIR/rm
 * already names this binary. Three syscalls, where making sure costs a dozen. */
static bool installed_already(const char *dir)
{
	char exe[PATH_MAX];
	_cleanup_free_ char *link = NULL;

	return self_exe_fast(exe, sizeof(exe)) && (link = pdk_path_join(dir, "rm")) &&
	       link_names(link, exe) && pdk_own_dir(dir);
}

/* Make DIR (in STATE), its runs/ and DIR/rm. Returns 1 when STATE itself had to be made. */
static int install(const char *state, const char *dir)
{
	_cleanup_free_ char *exe = self_exe();
	_cleanup_free_ char *runs = NULL;
	struct stat st;
	bool made_state;
	int r;

	if (!exe)
		return errno ? -errno : -ENOENT;
	made_state = lstat(state, &st) < 0;
	runs = pdk_path_join(dir, PDK_RMSHIM_RUNS);
	if (!runs)
		return -ENOMEM;
	if ((r = pdk_mkdir_p(runs, 0700)) < 0)
		return r;
	if (!pdk_own_dir(dir))
		return -EPERM;
	if ((r = ensure_link(dir, exe)) < 0)
		return r;
	return made_state ? 1 : 0;
}

int pdk_rmshim_install(char **ret_dir)
{
	/* Once per process: a second call finds it all in place. */
	static char *installed;
	if (installed) {
		if (ret_dir && !(*ret_dir = strdup(installed)))
			return -ENOMEM;
		return 0;
	}
	_cleanup_free_ char *state = pdk_state_dir();
	_cleanup_free_ char *dir = NULL;
	int r = 0;

	if (!state)
		return -ENOENT;
	dir = pdk_path_join(state, PDK_RMSHIM_DIR);
	if (!dir)
		return -ENOMEM;
	/* The usual case. runs/ is not looked at: prepare makes it again should it be gone. */
	if (!installed_already(dir) && (r = install(state, dir)) < 0)
		return r;
	if (!(installed = strdup(dir)))
		return -ENOMEM;
	if (ret_dir)
		*ret_dir = steal_pointer(&dir);
	return r;
}

static int prepare(const char *const *roots, size_t n_roots, struct pdk_rmshim *ret)
{
	_cleanup_free_ char *runs = NULL, *joined = NULL;
	struct pdk_strv kept = {.v = ret->roots, .n = ret->n_roots};
	char id[PDK_RMSHIM_RUN_ID_LEN + 1];
	size_t jlen = 0;
	int r = 0;

	ret->lock_fd = -1;
	if ((r = pdk_rmshim_install(&ret->dir)) < 0)
		return r;
	ret->made_state = r == 1;
	runs = pdk_path_join(ret->dir, PDK_RMSHIM_RUNS);
	if (!runs)
		return -ENOMEM;

	for (size_t i = 0; i < n_roots; i++) {
		if (!roots[i] || roots[i][0] != '/' || strchr(roots[i], '\n'))
			continue; /* the shim reads the roots one per line */
		if (pdk_strv_contains(kept.v, kept.n, roots[i]))
			continue;
		if ((r = pdk_strv_push(&kept, roots[i])) < 0)
			break;
		jlen += strlen(roots[i]) + 1;
	}
	ret->roots = kept.v;
	ret->n_roots = kept.n;
	if (r < 0)
		return r;
	joined = calloc(jlen + 1, 1);
	if (!joined)
		return -ENOMEM;
	for (size_t i = 0; i < ret->n_roots; i++) {
		strcat(joined, ret->roots[i]);
		strcat(joined, "\n");
	}

	if ((r = random_hex(id, PDK_RMSHIM_RUN_ID_LEN / 2)) < 0)
		return r;
	ret->run_id = strdup(id);
	ret->stage_name = pdk_rmshim_stage_name();
	if (!ret->stage_name)
		return -ENOMEM;
	ret->registry = pdk_path_join(runs, id);
	if (!ret->run_id || !ret->registry)
		return -ENOMEM;
	/* The registry names the roots to sweep should this process die before its sweep; its
	 * lock tells other paddocks that the run is still going. runs/ is made again when
	 * something removed it. */
	if ((r = pdk_create_locked(runs, ret->registry)) < 0)
		return r;
	ret->lock_fd = r;
	if ((r = pdk_write_all(ret->lock_fd, joined, strlen(joined))) < 0)
		return r;

	/* The third entry takes out a PADDOCK_RM_DIRECT the caller's environment had: a confined
	 * rm stages. */
	ret->env = calloc(4, sizeof(char *));
	if (!ret->env)
		return -ENOMEM;
	if (asprintf(&ret->env[0], PDK_RMSHIM_ENV_STAGE "=%s/%s", ret->stage_name, id) < 0) {
		ret->env[0] = NULL;
		return -ENOMEM;
	}
	joined[jlen ? jlen - 1 : 0] = '\0';
	if (asprintf(&ret->env[1], PDK_RMSHIM_ENV_ROOTS "=%s", joined) < 0) {
		ret->env[1] = NULL;
		return -ENOMEM;
	}
	if (!(ret->env[2] = strdup(PDK_RMSHIM_ENV_DIRECT)))
		return -ENOMEM;
	ret->prepared = 1;
	return 0;
}

int pdk_rmshim_prepare_roots(const char *const *roots, size_t n_roots, struct pdk_rmshim *ret)
{
	int r = prepare(roots, n_roots, ret);

	if (r < 0 && ret->lock_fd >= 0) {
		/* The run never started: nothing to sweep on its behalf later. */
		unlink(ret->registry);
		close(ret->lock_fd);
		ret->lock_fd = -1;
	}
	return r;
}

char *pdk_rmshim_path_env(const char *dir, const char *path)
{
	char *s;

	/* A PATH that is missing or empty means the default search path to execvp(3). */
	if (asprintf(&s, "PATH=%s:%s", dir, path && path[0] ? path : PDK_DEFAULT_PATH) < 0)
		return NULL;
	return s;
}

int pdk_rmshim_prepare(const struct pdk_sandbox *sb, struct pdk_rmshim *ret)
{
	int r;

	r = pdk_rmshim_prepare_roots(sb->policy.roots, sb->policy.n_roots, ret);
	if (r < 0)
		return r;
	/* A state directory that was missing when the sandbox was set up is held there by an
	 * empty placeholder when it lies in a root: the command would not see the shim, and its
	 * rm would be the real one. */
	for (size_t i = 0; ret->made_state && i < sb->policy.n_roots; i++)
		if (pdk_path_under(ret->dir, sb->policy.roots[i]))
			return -EAGAIN;
	return 0;
}

void pdk_rmshim_release(struct pdk_rmshim *shim)
{
	if (!shim)
		return;
	if (shim->prepared && shim->lock_fd >= 0)
		close(shim->lock_fd);
	free(shim->dir);
	free(shim->run_id);
	free(shim->stage_name);
	pdk_strv_freep(&shim->env);
	pdk_strv_freep(&shim->roots);
	free(shim->registry);
	memset(shim, 0, sizeof(*shim));
	shim->lock_fd = -1;
}
