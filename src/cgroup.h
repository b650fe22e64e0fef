/* cgroup.h - a fresh pids cgroup for each confined run: where paddock can
 * make one, the limit, joining it before exec, killing all of it, a guardian. */
#ifndef PDK_CGROUP_H
#define PDK_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

/*
 * One run's cgroup. Everything the child and the guardian touch is in this
 * struct as plain paths and fds, so that they need no allocation.
 *
 * Lifecycle: pdk_cgroup_new() in the parent (mkdir, pids.max, cgroup.procs
 * opened); optionally pdk_cgroup_guard(); fork; the child calls
 * pdk_cgroup_enter() before anything else; after the run the parent reads
 * pdk_cgroup_limit_hits() and calls pdk_cgroup_free(), which kills what is
 * left, removes the directory and dismisses the guardian.
 */
struct pdk_cgroup {
	int version;	     /* 1 or 2 */
	unsigned long limit; /* pids.max */
	int procs_fd;	     /* cgroup.procs, O_WRONLY|O_CLOEXEC: the child writes "0" */
	int guard_fd;	     /* paddock's end of the guardian's socket, -1: none */
	pid_t guard_pid;
	char dir[PATH_MAX];	 /* the run's cgroup directory */
	char procs[PATH_MAX];	 /* dir/cgroup.procs */
	char kill[PATH_MAX];	 /* dir/cgroup.kill (v2) */
	char pids_max[PATH_MAX]; /* dir/pids.max */
};

/*
 * Where this process can make per-run pids cgroups: 0 with the version (1 or
 * 2) and the parent directory, or -errno with a one-line reason. The answer
 * is worked out once per process; on cgroup v2 this may move paddock into a
 * leaf cgroup of its own, beside which the runs' cgroups are made (the "no
 * internal processes" rule). Strings are static.
 */
int pdk_cgroup_where(int *ret_version, const char **ret_base, const char **ret_why);

/* A fresh cgroup under the base with pids.max = limit. On failure, ret_why
 * says why in one line (static). */
int pdk_cgroup_new(unsigned long limit, struct pdk_cgroup **ret, const char **ret_why);

/* Child side, async-signal-safe: move the calling process into cg. */
int pdk_cgroup_enter(const struct pdk_cgroup *cg);

/* How often a fork was refused at the limit (pids.events "max N"), or -errno. */
long pdk_cgroup_limit_hits(const struct pdk_cgroup *cg);

/* SIGKILL everything in cg until it is empty, for up to timeout_ms; 0 once
 * empty, -ETIMEDOUT if not. Async-signal-safe. */
int pdk_cgroup_kill(const struct pdk_cgroup *cg, int timeout_ms);

/*
 * Fork a guardian: a small process, outside cg and in a session of its own,
 * that waits on a socket only paddock holds (close-on-exec). When paddock
 * dies without saying the run is done, it kills everything in cg and removes
 * it. devnull becomes its stdin, stdout and stderr.
 */
int pdk_cgroup_guard(struct pdk_cgroup *cg, int devnull);

/* The guardian's pid, or 0: paddock's own reaping must leave it alone. */
static inline pid_t pdk_cgroup_guardian(const struct pdk_cgroup *cg)
{
	return cg && cg->guard_fd >= 0 ? cg->guard_pid : 0;
}

/* Kill what is left, remove the directory, dismiss and reap the guardian
 * (which takes the removal over if the directory is still busy), free.
 * Accepts NULL. */
void pdk_cgroup_free(struct pdk_cgroup *cg);

#endif
