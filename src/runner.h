/* runner.h - run one program: its own session and process group, stdin from
 * /dev/null, both pipes read until exit, timeout, group kill, reap. */
#ifndef PDK_RUNNER_H
#define PDK_RUNNER_H

#include <stdbool.h>

#include "capture.h"
#include "confine.h"

#define PDK_TIMEOUT_DEFAULT 120.0
#define PDK_TIMEOUT_CAP 1800.0
#define PDK_KILL_GRACE 2.0 /* SIGTERM, then SIGKILL this much later */
#define PDK_DRAIN_LIMIT 1.0 /* reading after the exit is bounded by this */
#define PDK_MAX_PROCS_DEFAULT 1024 /* processes a confined run may have at once */

struct pdk_run_spec {
	const char *path;   /* absolute path to execute */
	char *const *argv;  /* argv[0] as the program sees it */
	char *const *envp;
	const char *cwd;    /* NULL: paddock's own */
	double timeout;     /* seconds */
	const struct pdk_backend *backend; /* self-restrictor; NULL: none */
	void *backend_state;
	unsigned long max_procs;           /* RLIMIT_NPROC above current; 0: none */
};

struct pdk_run_status {
	int exit_status;   /* code, or the signal negated */
	bool timed_out;
	bool stopped;      /* paddock was told to stop */
	int stop_signal;   /* the signal that told it */
	double duration;
	int exec_errno;    /* the exec (or the backend) failed in the child */
	const char *exec_stage; /* what failed: "exec", "chdir", "sandbox" */
};

/* Resolve program through PATH the way a shell would. Returns 0 with a new
 * absolute or relative-with-slash path, -ENOENT (not found), -EACCES (found,
 * not executable), -EISDIR. */
int pdk_find_program(const char *program, char **ret_path);

int pdk_run(const struct pdk_run_spec *spec, struct pdk_capture *out, struct pdk_capture *err,
	    struct pdk_run_status *ret);

#endif
