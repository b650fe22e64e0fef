/* refusal.h - when a confined command fails on a write (or a socket) the sandbox refused,
 * one sandbox: line naming the path, the writable roots, and how to ask. */
#ifndef PDK_REFUSAL_H
#define PDK_REFUSAL_H

#include <stdbool.h>
#include <stddef.h>

#define PDK_REFUSAL_MAX 3

struct pdk_secrets;

/* What the hints are judged against. */
struct pdk_refusal_scope {
	const char *cwd;		/* relative paths are resolved from here */
	const char *const *roots;	/* the writable roots */
	size_t n_roots;
	/* Paths never offered to --write: the protected paths, paddock's own
	 * directories, the sensitive paths. Paths with a component named like
	 * a protected or sensitive name (.git, .vscode, .ssh, ...) never are either. */
	const char *const *never;
	size_t n_never;
	bool outside_ok; /* --outside-sandbox is allowed here: offered beside --write */
	/* The protected paths the backend holds read-only (bwrap; none under Landlock): a
	 * path refused inside a root that is or lies in one is named as such, with why,
	 * instead of a guess. */
	const char *const *held;
	size_t n_held;
	/* The run's network: "off", "domains" or "on" (pdk_sandbox_network); a name that could
	 * not be reached gets the --allow-domain and -n that would reach it unless "on". */
	const char *network;
	/* The secrets the sandbox keeps unread (secrets.h), or NULL: a refused open of one is
	 * named a secret, with --read, never as a write. */
	const struct pdk_secrets *secrets;
};

/*
 * Scan text (command output) for refused writes ("Operation not permitted",
 * "Permission denied", "Read-only file system", "Device or resource busy" in any
 * case, Python's [Errno 1|13|16|30], Java's AccessDeniedException, "PATH is not writable.", and
 * a reason alone on a line below its path, as cargo prints it), resolve each
 * path against the scope's cwd, and write up to max lines into lines[i].
 * Returns how many. A path held (scope's held) is named as protected, with
 * why; of mv's two names the held one is taken. A path outside the roots gets
 * the --write that would allow it, unless it is one never offered: then the
 * line says so and that a person must make the change.
 *
 * A socket refused is told apart from a write: a unix socket's connect, bind or listen
 * refused (Node's "connect EACCES PATH", redis-cli's "Could not connect to Redis at PATH:
 * Permission denied", Python's PermissionError below a socket call in its traceback,
 * redis-server's "Failed opening Unix socket") gets the grants that open a host socket
 * instead of --write; a name not reached with the network off or limited to the domains
 * mode gets the --allow-domain that would reach it, and -n.
 */
size_t pdk_refusal_hints(const char *text, size_t text_len, const struct pdk_refusal_scope *scope,
			 char lines[][768], size_t max);

#endif
