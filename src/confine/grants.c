/* grants.c - the host's sockets a person may open to one call by name (--ssh-agent,
 * --docker): where each is, whether this host can give it, and what the question says. */
#include "grants.h"

#include <errno.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fmt.h"
#include "core/strv.h"
#include "core/util.h"
#ifdef __linux__
#include "net/supervise.h"
#endif

const char *pdk_grant_flag(enum pdk_grant g)
{
	return g == PDK_GRANT_SSH_AGENT ? "--ssh-agent" : "--docker";
}

static bool is_socket(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

static int ssh_agent(char *path, size_t len, char *why, size_t why_len)
{
	const char *p = getenv("SSH_AUTH_SOCK");

	if (!p || !*p)
		return pdk_why(why, why_len, -EINVAL,
			       "--ssh-agent: SSH_AUTH_SOCK is not set, so there is no ssh-agent to "
			       "open: start one (eval \"$(ssh-agent)\" and ssh-add) before "
			       "paddock, or drop --ssh-agent");
	if (p[0] != '/' || strlen(p) >= len)
		return pdk_why(why, why_len, -EINVAL,
			       "--ssh-agent: SSH_AUTH_SOCK=%s is not an absolute path: set it to "
			       "the agent's socket, or drop --ssh-agent", p);
	if (!is_socket(p))
		return pdk_why(why, why_len, -EINVAL,
			       "--ssh-agent: SSH_AUTH_SOCK=%s is not a socket (%s): start the "
			       "agent again, or drop --ssh-agent", p,
			       errno ? strerror(errno) : "another kind of file");
	snprintf(path, len, "%s", p);
	return 0;
}

static int docker(char *path, size_t len, char *why, size_t why_len)
{
	const char *host = getenv("DOCKER_HOST"), *rt = getenv("XDG_RUNTIME_DIR");
	char podman[4096];

	if (host && *host) {
		if (strncmp(host, "unix://", 7) != 0 || host[7] != '/')
			return pdk_why(why, why_len, -EINVAL,
				       "--docker: DOCKER_HOST=%s is not a unix socket: reach that "
				       "address with -n instead, or unset DOCKER_HOST", host);
		if (strlen(host + 7) >= len || !is_socket(host + 7))
			return pdk_why(why, why_len, -EINVAL,
				       "--docker: DOCKER_HOST=%s names no socket: start the "
				       "daemon, or drop --docker", host);
		snprintf(path, len, "%s", host + 7);
		return 0;
	}
	const char *cand[] = {"/var/run/docker.sock", NULL, "/run/podman/podman.sock"};

	if (rt && rt[0] == '/' &&
	    snprintf(podman, sizeof(podman), "%s/podman/podman.sock", rt) < (int)sizeof(podman))
		cand[1] = podman;
	for (size_t i = 0; i < PDK_ARRAY_SIZE(cand); i++)
		if (cand[i] && strlen(cand[i]) < len && is_socket(cand[i])) {
			snprintf(path, len, "%s", cand[i]);
			return 0;
		}
	return pdk_why(why, why_len, -EINVAL,
		       "--docker: no Docker or Podman socket here (/var/run/docker.sock, "
		       "$XDG_RUNTIME_DIR/podman/podman.sock, /run/podman/podman.sock): start the "
		       "daemon or set DOCKER_HOST=unix://PATH, or drop --docker");
}

int pdk_grant_socket(enum pdk_grant g, char *path, size_t len, char *why, size_t why_len)
{
	int r;

	errno = 0;
	r = g == PDK_GRANT_SSH_AGENT ? ssh_agent(path, len, why, why_len)
				     : docker(path, len, why, why_len);
	if (r < 0)
		return r;
#ifdef __linux__
	/* Both Linux backends open a host socket through the supervisor only. */
	char sup[128];

	if (pdk_netsup_probe(sup, sizeof(sup)) < 0)
		return pdk_why(why, why_len, -EINVAL,
			       "%s: this kernel cannot carry paddock's connect supervisor (%s), "
			       "which alone opens a host socket to a run: drop %s, or ask for "
			       "--outside-sandbox", pdk_grant_flag(g), sup, pdk_grant_flag(g));
#endif
	return 0;
}

#ifdef __APPLE__
/* Seatbelt opens Metal, not device nodes: what the question and doctor name. */
int pdk_grant_gpu(char ***ret, size_t *n, char *why, size_t why_len)
{
	(void)why;
	(void)why_len;
	return pdk_strv_append(ret, n, strdup(PDK_GRANT_GPU_METAL));
}
#else
int pdk_grant_gpu(char ***ret, size_t *n, char *why, size_t why_len)
{
	const char *list = getenv("PADDOCK_GPU_DEVICES");
	_cleanup_free_ char *copy = NULL;
	glob_t g = {0};
	int r = 0;

	if (list && *list) {
		char *save = NULL;

		if (!(copy = strdup(list)))
			return -ENOMEM;
		for (char *p = strtok_r(copy, ":", &save); p && r == 0;
		     p = strtok_r(NULL, ":", &save))
			if (p[0] == '/' && access(p, F_OK) == 0)
				r = pdk_strv_append(ret, n, strdup(p));
	} else {
		(void)glob("/dev/nvidia*", 0, NULL, &g);
		for (size_t i = 0; i < g.gl_pathc && r == 0; i++)
			r = pdk_strv_append(ret, n, strdup(g.gl_pathv[i]));
		globfree(&g);
		for (const char *const *p = (const char *const[]){"/dev/dri", "/dev/kfd", NULL};
		     *p && r == 0; p++)
			if (access(*p, F_OK) == 0)
				r = pdk_strv_append(ret, n, strdup(*p));
	}
	if (r < 0)
		return r;
	if (!*n)
		return pdk_why(why, why_len, -EINVAL,
			       "--gpu: no GPU device node here (%s): drop --gpu, or run where the "
			       "GPU's driver is loaded", list && *list ? list
			       : "/dev/nvidia*, /dev/dri, /dev/kfd");
	return 0;
}
#endif

char *pdk_grant_question(enum pdk_grant g, const char *path)
{
	if (g == PDK_GRANT_SSH_AGENT)
		return pdk_asprintf("reaches your ssh-agent at %s: it can sign with your keys as "
				    "you, for as long as it runs (--ssh-agent)", path);
	return pdk_asprintf("reaches the container engine's socket %s: that gives the command "
			    "the host's root (--docker)", path);
}
