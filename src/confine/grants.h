/* grants.h - the host's sockets a person may open to one call by name (--ssh-agent,
 * --docker): where each is, whether this host can give it, and what the question says. */
#ifndef PDK_GRANTS_H
#define PDK_GRANTS_H

#include <stddef.h>

enum pdk_grant {
	PDK_GRANT_SSH_AGENT = 0, /* $SSH_AUTH_SOCK */
	PDK_GRANT_DOCKER,        /* $DOCKER_HOST's unix path, Docker's or Podman's socket */
	PDK_GRANT_N
};

/* The option that asks for it ("--ssh-agent"). */
const char *pdk_grant_flag(enum pdk_grant g);
/* The path of the socket g opens on this host, in path[len]: 0, or -EINVAL with
 * one line in why (what is missing and what to do) when there is none or the
 * kernel cannot carry the connect supervisor that opens it. */
int pdk_grant_socket(enum pdk_grant g, char *path, size_t len, char *why, size_t why_len);
/* The question's words for it, with its path: a new string, or NULL. */
char *pdk_grant_question(enum pdk_grant g, const char *path);
/* --gpu: the GPU device nodes of this host ($PADDOCK_GPU_DEVICES, a list
 * separated by ':', or /dev/nvidia*, /dev/dri, /dev/kfd), those that exist,
 * appended to *ret (n entries). 0, or -EINVAL with one line in why when
 * there is none. On macOS: PDK_GRANT_GPU_METAL alone. */
int pdk_grant_gpu(char ***ret, size_t *n, char *why, size_t why_len);
/* On macOS, which has no GPU device nodes, pdk_grant_gpu's one entry instead:
 * what the Seatbelt profile opens. */
#define PDK_GRANT_GPU_METAL "Metal (the GPU's IOKit user clients, MTLCompilerService)"

#endif
