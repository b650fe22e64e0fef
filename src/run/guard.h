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
	pid_t child;  /* the command, when the guardian started it; 0: none */
	bool exited;  /* the guardian said how the command ended */
};

/* What the guardian says on its socket, three ints: what, value, cleared. */
enum { PDK_GUARD_PID = 'p', PDK_GUARD_FAILED = 'f', PDK_GUARD_EXIT = 'x' };

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
 * this returns. kill_after_ms (0: never) bounds the run even while paddock
 * cannot act (stopped, SIGSTOP, or starved): once that long has passed without
 * a word from paddock, the guardian kills the run as above and waits on.
 *
 * spawn (NULL: none) starts the command in the guardian, before it drops
 * paddock's descriptors, and returns its pid or -errno: the command is then
 * the guardian's child, and the guardian a child subreaper, so that every
 * process of the run is the guardian's to reap, even after paddock is
 * SIGKILLed; g->child is its pid, and pdk_guard_child_status() says how it
 * ended (the guardian kills the rest of the run at once then, as paddock
 * would). 0 or -errno (spawn's, when it failed).
 */
int pdk_guard_start(struct pdk_guard *g, const struct pdk_cgroup *cg, const char *marker,
		    int devnull, int finish, long kill_after_ms, pid_t (*spawn)(void *arg),
		    void *spawn_arg);

/* How the command the guardian started ended: 1 with its wait status and
 * whether nothing of the run was left after it (the guardian killed and
 * reaped the rest), 0 when it runs on (!block), or 1 with SIGKILL's status
 * when the guardian is gone. */
int pdk_guard_child_status(struct pdk_guard *g, bool block, int *ret_wstatus, bool *ret_cleared);

/* Dismiss it: with done, it exits quietly, and is reaped here; without, it
 * does its killing, and is reaped by the next run's pdk_guard_stop() or when
 * paddock exits. Accepts a guard never started. */
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
