/* supervise.h - the connect supervisor (Linux): paddock performs the run's connect, bind,
 * listen and addressed sends itself, on the run's socket, so that loopback and unix sockets
 * among the run's own processes work while every other address stays out of reach. */
#ifndef PDK_SUPERVISE_H
#define PDK_SUPERVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct pdk_netsup;

/* 0 when this kernel can carry the supervisor (seccomp user notification with
 * a listener, pidfd_open, pidfd_getfd), else -errno with a one-line reason. */
int pdk_netsup_probe(char *why, size_t why_len);
/* Parent, before the fork: the pipes the child hands its listener over. */
int pdk_netsup_new(struct pdk_netsup **ret);
/* Parent, before the fork: the domains mode's proxy listens on the host's
 * 127.0.0.1:port, which TCP connections of the run may reach too. */
void pdk_netsup_allow_proxy(struct pdk_netsup *ns, unsigned port);
/* Parent, before the fork: only the calls that name an address are
 * supervised (the stacked UNIX_NOTIFY program); on a socket that is not a
 * unix one they are performed as asked, on paddock's copies. */
void pdk_netsup_pass_others(struct pdk_netsup *ns);
/* Parent, before the fork: a unix socket's connect() or addressed send
 * reaches the sockets of fds[i] (O_PATH descriptors of the sockets at
 * paths[i], duplicated), found by whatever path names the same socket file,
 * and the sockets the run bound; nothing else. 0 or -errno. */
int pdk_netsup_allow_unix(struct pdk_netsup *ns, const char *const *paths, const int *fds,
			  size_t n);
/* Parent, before the fork: the run may bind unix sockets to paths beneath
 * roots[n] (made under a Landlock domain that allows nothing else; without
 * Landlock, to no path). Abstract names are always the run's to bind. */
int pdk_netsup_allow_bind(struct pdk_netsup *ns, const char *const *roots, size_t n);
/* Parent, before the fork: of the protected paths (absolute, real), those inside roots
 * that are missing while their directory is there may not be made while the run lasts:
 * a call that would make one (a directory, node, symlink or file, a rename or a link onto
 * it) fails with EPERM; the others are performed on the command's behalf, in its view of
 * the tree, under ruleset (the command's Landlock ruleset; -1: none). 0 or -errno. */
int pdk_netsup_hold_missing(struct pdk_netsup *ns, const char *const *paths, size_t n,
			    const char *const *roots, size_t n_roots, int ruleset);
/* Parent, before the fork, for a run that may have no mount namespace to hold them
 * read-only in (its child says, see pdk_netsup_child): of paths[n] (existing protected
 * paths with ro[i], else the directories between a root and one, pins), a call that
 * writes, truncates or removes a protected file or anything in a protected directory,
 * makes a name there, or renames one or a pin, fails with EPERM (the _HOLD seccomp
 * programs send those calls); the others are performed on the command's behalf, under
 * ruleset. 0 or -errno. */
int pdk_netsup_hold_existing(struct pdk_netsup *ns, const char *const *paths, const bool *ro,
			     size_t n, int ruleset);
/* Parent: those calls go on as made until pdk_netsup_arm_fs() (a wrapper that makes
 * its sandbox under the filter first: bwrap). */
void pdk_netsup_defer_fs(struct pdk_netsup *ns);
void pdk_netsup_arm_fs(struct pdk_netsup *ns);
/* Parent, last before the fork: start the supervising thread, which first waits for the
 * child's listener (pdk_netsup_child) and takes it, so that the child may share paddock's
 * memory until it execs (only the thread that forks waits for it). 0 or -errno. */
int pdk_netsup_listen(struct pdk_netsup *ns);
/*
 * Child, after fork, async-signal-safe: load the filter (struct sock_filter
 * filter[len], which sends the supervised calls to user notification) with a
 * listener, say its number and the child's pid to the supervising thread, wait until
 * it holds it, and close it, so that the command never holds it. hold: the filter is
 * a _HOLD one (the child has no mount namespace), and the paths of
 * pdk_netsup_hold_existing() are the supervisor's to hold; else they are let go.
 * Returns 0 or -errno (-EPIPE: the thread could not take it).
 */
int pdk_netsup_child(struct pdk_netsup *ns, const void *filter, unsigned short len, bool hold);
/* Stop the thread, close everything; NULL is fine. */
void pdk_netsup_free(struct pdk_netsup *ns);
/* How many calls the supervisor performed and refused so far. */
void pdk_netsup_counts(const struct pdk_netsup *ns, unsigned long *performed,
		       unsigned long *refused);

#endif
