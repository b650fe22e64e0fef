/* zygote.h - a resident session's confined zygotes (Linux: Landlock, bwrap): one process a
 * policy shape, already confined, from which each call's command is one fork and exec. */
#ifndef PDK_ZYGOTE_H
#define PDK_ZYGOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct pdk_backend;
struct pdk_confine;

/* The most the command's path, directory, argv and environment may take together. */
#define PDK_ZYGOTE_MAX_BODY (128 * 1024)

/*
 * Lifecycle. A resident session (paddock mcp) starts one host with
 * pdk_zygote_host_start(): a child of the session, unconfined, that dies with it. A call
 * whose confinement may come from a zygote (Landlock or bwrap; no domains, granted sockets
 * or devices) asks the host with pdk_zygote_get() for a zygote of its backend and policy's
 * shape (the key of pdk_zygote_key()): the host hands it a connection of its own to an idle
 * one, which it makes the first time or when all of that shape are busy. It prepares the
 * backend and forks; under Landlock the child confines itself and waits, under bwrap the
 * child executes bwrap, whose command is this program's `__zygote FD`
 * (pdk_zygote_serve()), after the host has checked bwrap's mounts as for a run. The connect
 * supervisor of each zygote runs in the host. pdk_zygote_spawn() has the zygote fork and
 * exec the command, pdk_zygote_signal() signals its process group, pdk_zygote_wait() reads
 * how it ended. Closing the connection ends the call: the zygote kills what is left of the
 * command, empties the run's /dev/shm and is idle again. A zygote serves one call at a time;
 * calls at once get one each, up to 32 zygotes in all (past that a call is set up as
 * without one).
 */

/* Fork the host; *ret_fd is the session's end of its socket (close-on-exec), *ret_pid the
 * host's, for the session to reap. The host exits when the session does, or when every holder
 * of that end has closed it, having ended its zygotes. 0 or -errno. */
int pdk_zygote_host_start(int *ret_fd, pid_t *ret_pid);

/* Can this policy's confinement under backend b come from a zygote: a backend one can be
 * made with, and no proxy, granted unix sockets or device nodes, whose descriptors and
 * listeners are a run's own. */
bool pdk_zygote_fits(const struct pdk_backend *b, const struct pdk_confine *policy);

/* The shape's key, 16 hex digits: a hash of the policy as the backend reads it (roots,
 * protected paths and what each is now, secrets and what each is now, network, process
 * limit), so that a protected path or a secret that appeared, or a changed configuration,
 * makes another key. */
void pdk_zygote_key(const struct pdk_confine *policy, const char *backend, char key[17]);

/* A connection to an idle zygote of key from the host on host_fd, made from policy when there
 * is none: *ret_fd (close-on-exec; closing it ends the call). 0, or -errno (the call runs
 * without). */
int pdk_zygote_get(int host_fd, const char *backend, const char *key,
		   const struct pdk_confine *policy, int *ret_fd);

/* What a call asks of the zygote: the command, and the descriptors its child takes. */
struct pdk_zygote_call {
	const char *path;
	char *const *argv;
	char *const *envp;
	const char *cwd;	/* NULL: the zygote's own */
	int in, out, err;	/* the command's stdin, stdout, stderr */
	int cgroup_procs;	/* the run's cgroup.procs, which the child joins first */
};

/*
 * Fork and exec the command in the zygote on conn: the child joins the cgroup, makes a
 * session and process group of its own, takes the descriptors, resets its signals, closes
 * every other descriptor at the exec, changes directory and execs; *ret_pid is its pid (its
 * process group). Returns 0 once it runs; 1 when it never did, with *ret_errno and
 * *ret_stage (0 exec, 1 chdir, 3 setsid, 4 stdio, 5 cgroup); -errno when the zygote could
 * not be asked (it is gone: the call fails, saying to call again). Once a call.
 */
int pdk_zygote_spawn(int conn, const struct pdk_zygote_call *call, pid_t *ret_pid,
		     int *ret_errno, int *ret_stage);

/* Signal sig to the process group of the command the zygote on conn runs (the zygote's pids
 * may be of another namespace, so the caller never signals them itself): 0 or -errno. Once it
 * has exited, nothing (the run's cgroup holds what it left). */
int pdk_zygote_signal(int conn, int sig);

/* In a wrapper's sandbox (paddock __zygote FD): the zygote, on the host's socket ctl. Never
 * returns. */
void pdk_zygote_serve(int ctl) __attribute__((noreturn));

/* The command's wait status from conn, once the zygote has reaped it: 1 with it, 0 when it
 * has not exited yet (only without block), -EPIPE when the zygote went away without saying. */
int pdk_zygote_wait(int conn, bool block, int *ret_wstatus);

#endif
