/* guard.h - a guardian for a confined run: a small process that outlives
 * paddock and, if paddock dies without saying the run is done, kills the run. */
#ifndef PDK_GUARD_H
#define PDK_GUARD_H

#include <stdbool.h>
#include <sys/types.h>

struct pdk_cgroup;

/* The variable that marks a run's processes when no cgroup holds them. */
#define PDK_GUARD_MARKER "PADDOCK_RUN"

struct pdk_guard {
	int fd; /* paddock's end of the guardian's socket; -1: no guardian */
	pid_t pid;
};

/*
 * Start the guardian, outside cg and in a process group of its own, waiting on a
 * socket only paddock holds (close-on-exec). When paddock dies without
 * pdk_guard_stop(done), it kills everything in cg (holding the cgroup slot's
 * lock until then) or, without a cgroup, every process whose environment
 * holds marker ("PADDOCK_RUN=TOKEN"), the processes the run started. devnull
 * becomes its stdin, stdout and stderr. finish (-1: none) is a run journal
 * (confine/vet.h) the guardian keeps open: when paddock dies, once the run is
 * killed, it executes paddock's own binary as `paddock __finish 5` with the
 * journal as fd 5. cg and marker are copied: the caller may free them once
 * this returns. 0 or -errno.
 */
int pdk_guard_start(struct pdk_guard *g, const struct pdk_cgroup *cg, const char *marker,
		    int devnull, int finish);

/* Dismiss it: with done, it exits quietly; without, it does its killing.
 * It is reaped later, not waited for. Accepts a guard never started. */
void pdk_guard_stop(struct pdk_guard *g, bool done);

/* The guardian's pid, or 0: paddock's own reaping must leave it alone. */
static inline pid_t pdk_guard_pid(const struct pdk_guard *g)
{
	return g->fd >= 0 ? g->pid : 0;
}

/* The guardian of the last run, dismissed but not reaped yet, or 0: paddock's
 * own reaping leaves it alone too. */
pid_t pdk_guard_stale(void);

#endif
