/* runner.h - run one program: its own session and process group, stdin from
 * /dev/null, both pipes read until exit, timeout, group kill, reap. */
#ifndef PDK_RUNNER_H
#define PDK_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/defaults.h"
#include "output/capture.h"

#define PDK_KILL_GRACE	      2.0  /* SIGTERM, then SIGKILL this much later */
#define PDK_DRAIN_LIMIT	      1.0  /* reading after the exit is bounded by this */

/* How a run's process limit was set. */
enum pdk_procs_how {
	PDK_PROCS_OFF = 0, /* none asked for (max_procs 0) */
	PDK_PROCS_CGROUP,  /* a pids cgroup of the run's own: exact, and it can tell a hit */
	PDK_PROCS_RLIMIT,  /* RLIMIT_NPROC: counts every process of the user, cannot tell */
	PDK_PROCS_NONE,	   /* asked for, but nothing here could set one */
};

/* The backend whose child-side ops run between fork and exec (confine/confine.h). */
struct pdk_backend;

struct pdk_run_spec {
	const char *path;  /* absolute path to execute */
	char *const *argv; /* argv[0] as the program sees it */
	char *const *envp;
	const char *cwd;		   /* NULL: paddock's own */
	double timeout;			   /* seconds */
	const struct pdk_backend *backend; /* self-restrictor; NULL: none */
	void *backend_state;
	/* At most this many processes at once (a cgroup's pids.max, else
	 * RLIMIT_NPROC); 0: no limit. A run with a cgroup also gets a guardian
	 * that kills the run if paddock itself is killed. */
	unsigned long max_procs;
	bool tree_dies_with_parent;        /* the wrapper kills the tree if paddock dies */
	/* A run journal (confine/vet.h), locked, open on this fd (> 2; 0: none): if paddock dies,
	 * the guardian, once the run is killed, hands it to `paddock __finish`. */
	int finish_fd;
	/* A resident session's zygote (run/zygote.h), on this fd (> 2; 0: none): it forks and
	 * execs the command, already confined; backend is then NULL. Needs a pids cgroup. */
	int zygote_fd;
	char *why;			   /* why spawned() stopped the run, or it was lost */
	size_t why_len;
};

struct pdk_run_status {
	int exit_status; /* code, or the signal negated */
	bool timed_out;
	bool stopped;	 /* paddock was told to stop */
	int stop_signal; /* the signal that told it */
	double duration;
	int exec_errno;		/* the exec (or the backend) failed in the child */
	const char *exec_stage; /* what failed: "exec", "chdir", "sandbox", "cgroup" */
	/* The process limit, when spec->max_procs asked for one. */
	enum pdk_procs_how procs_how;
	unsigned long procs_limit; /* as set: pids.max, or the absolute RLIMIT_NPROC */
	bool procs_limited;	   /* a fork was refused at the limit (cgroup only) */
	const char *procs_why;	   /* static: why no cgroup (RLIMIT, NONE) */
};

/* The search path when PATH is unset or empty. */
#define PDK_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

/* Resolve program through PATH the way a shell would. Returns 0 with a new
 * absolute or relative-with-slash path, -ENOENT (not found), -EACCES (found,
 * not executable), -EISDIR. */
int pdk_find_program(const char *program, char **ret_path);

/*
 * How a run's process limit would be set here: PDK_PROCS_CGROUP when a pids
 * cgroup can be made or taken (it tries one), else PDK_PROCS_RLIMIT or
 * PDK_PROCS_NONE with *ret_why saying why (static). For `paddock doctor`.
 */
enum pdk_procs_how pdk_run_procs_probe(const char **ret_why);

/* The result's line about the process limit, into buf: when the command hit
 * it, or when none could be set. Returns the length, 0 when there is nothing
 * to say. */
int pdk_run_procs_note(const struct pdk_run_status *st, char *buf, size_t len);

/* Mark every descriptor from first on close-on-exec; async-signal-safe, for a
 * child between fork and exec. */
void pdk_cloexec_from(int first);
/* In a child before exec (async-signal-safe): every signal back to its
 * default disposition, glibc's own included, and an empty mask. */
void pdk_reset_signals(void);

int pdk_run(const struct pdk_run_spec *spec, struct pdk_capture *out, struct pdk_capture *err,
	    struct pdk_run_status *ret);

#endif
