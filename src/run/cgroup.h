/* cgroup.h - a pids cgroup for each confined run: where paddock can make
 * one, the limit, joining it before exec, killing all of it. */
#ifndef PDK_CGROUP_H
#define PDK_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

/*
 * One run's cgroup. Everything the child and the guardian (guard.h) touch is
 * in this struct as fds and flags, so that they need no allocation; the
 * cgroup's files are opened relative to its directory, lock_fd. A copy
 * whose fds but lock_fd are -1 (the guardian's) works for pdk_cgroup_kill().
 *
 * Lifecycle: pdk_cgroup_new() in the parent (takes a free slot, sets
 * pids.max, opens cgroup.procs); fork; the child calls pdk_cgroup_enter()
 * before anything else; after the run the parent reads
 * pdk_cgroup_limit_hits(), empties it with pdk_cgroup_kill() and calls
 * pdk_cgroup_free(), which frees the slot for the next run (the directory
 * stays: entering a cgroup is cheap only after the first time).
 */
struct pdk_cgroup {
	int procs_fd;	  /* the child writes "0" here: tasks (v1) or cgroup.procs (v2) */
	int lock_fd;	  /* the slot's directory, flock'ed while the run holds it */
	int current_fd;	  /* pids.current, kept open: read at the start and the end; or -1 */
	int events_fd;	  /* pids.events, kept open likewise; or -1 */
	bool has_kill;	  /* cgroup.kill works here (v2, Linux 5.14) */
	long hits_before; /* pids.events "max" when the run took the slot */
};

/*
 * Where this process can make per-run pids cgroups: 0 with the version (1 or
 * 2) and the parent directory, or -errno with a one-line reason. The answer
 * is worked out once per process; on cgroup v2 this may move paddock into a
 * leaf cgroup of its own, beside which the runs' cgroups are made (the "no
 * internal processes" rule). Strings are static.
 */
int pdk_cgroup_where(int *ret_version, const char **ret_base, const char **ret_why);

/* A free slot under the base (made when missing), emptied, with pids.max =
 * limit. On failure, ret_why says why in one line (static). */
int pdk_cgroup_new(unsigned long limit, struct pdk_cgroup **ret, const char **ret_why);

/* Child side, async-signal-safe: move the calling process into cg. */
int pdk_cgroup_enter(const struct pdk_cgroup *cg);
/* Its cgroup.procs, open for writing: a child that another process forks writes "0" there. */
int pdk_cgroup_procs_fd(const struct pdk_cgroup *cg);

/* How often a fork was refused at the limit in this run (pids.events "max N"
 * since pdk_cgroup_new), or -errno. */
long pdk_cgroup_limit_hits(const struct pdk_cgroup *cg);

/* SIGKILL every pid listed in the file at path (cgroup.procs, a /proc
 * children list) but spare; how many, or -errno. Async-signal-safe: bare
 * system calls (rawsys.h). */
int pdk_kill_listed(const char *path, pid_t spare);

/* SIGKILL everything in cg until it is empty, for up to timeout_ms; 0 once
 * empty, -ETIMEDOUT if not. Async-signal-safe like pdk_kill_listed(): the
 * guardian calls it. */
int pdk_cgroup_kill(const struct pdk_cgroup *cg, int timeout_ms);

/* Is nothing charged to cg any more: every task that was in it exited and
 * was reaped? A task leaves cgroup.procs when it exits, before the children
 * it leaves are handed to a subreaper; this counts until its parent reaps it. */
bool pdk_cgroup_settled(const struct pdk_cgroup *cg);

/* Free the slot for the next run, which the caller has emptied with
 * pdk_cgroup_kill(). Accepts NULL. */
void pdk_cgroup_free(struct pdk_cgroup *cg);

#endif
