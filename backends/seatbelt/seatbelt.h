/* seatbelt.h - the macOS Seatbelt backend: the policy as an SBPL profile run
 * through /usr/bin/sandbox-exec, with every path passed as a -D parameter. */
#ifndef PDK_SEATBELT_H
#define PDK_SEATBELT_H

#include <stdbool.h>
#include <stddef.h>

#include "confine/confine.h"

/* Always this path, never a PATH lookup: a sandbox-exec planted earlier on
 * PATH would otherwise decide what confines the command. */
#define PDK_SEATBELT_EXEC "/usr/bin/sandbox-exec"

/* What one run adds to the policy's profile. */
struct pdk_seatbelt_run {
	/* The domains mode (network off, domains listed): the loopback port of
	 * paddock's proxy, passed as -D PROXY_PORT. Required in that mode,
	 * ignored in the others. */
	unsigned proxy_port;
	/* macOS's per-user cache directory, DARWIN_USER_CACHE_DIR (clang's
	 * and swiftc's module caches): writable, passed as -D
	 * DARWIN_USER_CACHE_DIR. NULL: none. */
	const char *user_cache;
	/* The run's own temporary directory, the command's TMPDIR: writable,
	 * and unix sockets may be bound there and connected to in every
	 * network mode; passed as -D RUN_TMPDIR. NULL: none. */
	const char *run_tmpdir;
};

/*
 * Builds the SBPL profile for policy, with run's additions (run may be NULL
 * outside the domains mode); /private/tmp is always writable. Each root,
 * protected path and unix socket of allowUnixSockets (as given and as its
 * real path, in every network mode: network-outbound to that path exactly,
 * under the words of what opened it, policy->unix_from) is
 * referenced as (param "NAME") and its value comes back in ret_params as
 * "NAME=VALUE" strings (NULL-terminated), to be given to sandbox-exec as
 * -D NAME=VALUE; only the case-insensitive regex of each protected path
 * carries the path in the text, escaped for SBPL (a path with a control
 * character has none, and keeps the exact rules alone). Paths must be absolute and
 * canonical (no empty, "." or ".." component); trailing slashes are dropped,
 * since Seatbelt's subpath does not match them. Returns 0, -EINVAL for a
 * path that is not or for the domains mode without a port, or -ENOMEM. The
 * first policy->n_socket_roots roots and the run's TMPDIR take the command's
 * own unix sockets by path (bind, accept, connect); policy->gpu adds Metal. On
 * success the caller frees *ret_profile with free() and *ret_params with
 * each string and the array; on failure neither is touched.
 */
int pdk_seatbelt_profile(const struct pdk_confine *policy, const struct pdk_seatbelt_run *run,
			 char **ret_profile, char ***ret_params);

/*
 * What prepare() does, for a given sandbox-exec and with nested saying
 * whether paddock runs inside another sandbox: the profile, and, when not
 * nested, exe applying it to /usr/bin/true, so that a profile this macOS
 * rejects is an error here (-EPERM, with sandbox-exec's reason in the
 * backend's prepare_why) and not the command's exit status. Nested, no
 * profile is applied: wrap_argv() gives the command as it is, and note()
 * the sandbox: line saying so. Exposed for tests.
 */
int pdk_seatbelt_prepare_exe(const struct pdk_confine *policy, const char *exe, bool nested,
			     void **ret_state);

/*
 * What available() does (cheap, runs nothing): 0 when nested (commands run
 * under the outer sandbox) or when exe is executable, else -errno; a
 * one-line reason in why.
 */
int pdk_seatbelt_available_exe(const char *exe, bool nested, char *why, size_t why_len);

/*
 * What probe() does, for a given sandbox-exec: as available(), and then
 * exe applies the profile of a small policy with each kind of rule to
 * /usr/bin/true; -EPERM when it refuses, with its reason in why. Exposed
 * for tests and `paddock doctor`.
 */
int pdk_seatbelt_probe_exe(const char *exe, bool nested, char *why, size_t why_len);

extern const struct pdk_backend pdk_backend_seatbelt;

#endif
