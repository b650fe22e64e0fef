/* rmshim.h - rm inside a confined command: a PATH shim that stages what it removes inside the
 * writable root it came from, and the sweep that moves staged files to the trash after the run. */
#ifndef PDK_RMSHIM_H
#define PDK_RMSHIM_H

#include <stddef.h>

/*
 * Lifecycle, in the parent (outside the sandbox):
 *
 *   pdk_rmshim_prepare()   before the run: shim directory, run id, the run's registry entry
 *   ... the command runs with the shim's environment (its env, through pdk_sandbox_setenv) ...
 *   pdk_rmshim_sweep()     after the run, however it ended (exit, timeout, stop)
 *   pdk_rmshim_release()   always, also after a failed prepare
 *
 * Inside the sandbox `rm` resolves to the shim directory's rm, a symlink to paddock itself;
 * main() sees argv[0]'s basename "rm" and calls pdk_rmshim_main(). That renames each operand
 * into ROOT/.paddock-rm-UID/RUNID/N/NAME (ROOT: the writable root holding it, or the top of
 * its own mount inside that root) next to RUNID/N.info, which records the original path and
 * the time. The sweep moves each staged file into the trash under its original path, so
 * trash-restore puts it back; a run that died before its sweep is swept by the next one.
 */

/* Environment variables the shim reads. */
#define PDK_RMSHIM_ENV_STAGE "PADDOCK_RM_STAGE" /* ".paddock-rm-UID/RUNID" */
#define PDK_RMSHIM_ENV_ROOTS "PADDOCK_RM_ROOTS" /* the writable roots, one per line */
#define PDK_RMSHIM_ENV_DIRECT "PADDOCK_RM_DIRECT" /* unconfined run: trash at once */

struct pdk_sandbox;

struct pdk_rmshim {
	char *dir;	  /* the shim directory (holds rm), first on the command's PATH */
	char *run_id;	  /* 16 hex digits */
	char *stage_name; /* ".paddock-rm-UID": the staging directory's name in each root */
	/* The command's environment entries, for pdk_sandbox_setenv(): "PADDOCK_RM_STAGE=...",
	 * "PADDOCK_RM_ROOTS=...", "PADDOCK_RM_DIRECT" (taken out), NULL */
	char **env;
	char **roots;	  /* copy of the roots, NULL-terminated */
	size_t n_roots;
	char *registry; /* $STATE/shim/runs/RUNID: this run's roots, locked while it lives */
	int lock_fd;	/* holds the flock on registry; -1 when none */
	int prepared;
	int made_state; /* the state directory did not exist before */
};

/*
 * Make (idempotently; atomically replacing a stale link) the shim directory
 * $XDG_STATE_HOME/paddock/shim holding `rm` -> realpath of /proc/self/exe, and its runs/.
 * *RET_DIR (when not NULL) gets the directory; free() it. Returns 1 when it had to make the
 * state directory itself, 0 when that existed, or -errno. Call it before pdk_sandbox_setup():
 * a state directory that is missing when the confinement is set up may be held by an empty
 * read-only placeholder inside the sandbox, which would hide the shim from the command.
 */
int pdk_rmshim_install(char **ret_dir);

/*
 * Install the shim (as pdk_rmshim_install), draw a run id, record the
 * run's ROOTS (real paths; a root with a newline is left out) in a registry entry that stays
 * locked while this process lives. Returns 0 or -errno; RET is filled on success and must be
 * released with pdk_rmshim_release() in every case (zero it before the call).
 */
int pdk_rmshim_prepare_roots(const char *const *roots, size_t n_roots, struct pdk_rmshim *ret);

/* "PATH=DIR:PATH" (the default search path for a missing or empty path), a new
 * string, or NULL: the shim in DIR first on a command's PATH. */
char *pdk_rmshim_path_env(const char *dir, const char *path);

/*
 * Move every staged file found under ROOTS (and, for runs whose paddock died, under the roots
 * their registry recorded) to the trash with its original path, then remove the emptied staging
 * directories. Runs of other paddock processes still alive are left alone. SHIM may be NULL
 * (sweep only what dead runs left). Nothing is ever deleted: a file that cannot be trashed stays
 * staged and *RET_NOTE (when not NULL) gets a line saying where (free() it; NULL when all went
 * well). Returns the number of files trashed, or -errno when the sweep could not run at all.
 *
 * Mounts below the roots are looked at only when a root holds a staging area (the shim marks
 * the root when it stages on such a mount) or a dead run is swept. Only entries inside a
 * staging directory are moved, opened from directory fds without following symlinks. A recorded
 * original path that is not absolute, holds '.' or '..' components, or lies outside every root
 * is not trusted: the .trashinfo then names the staged location instead.
 */
int pdk_rmshim_sweep_roots(const char *const *roots, size_t n_roots, struct pdk_rmshim *shim,
			   char **ret_note);

/* The same for a run set up by pdk_sandbox_setup(): both take the roots from SB's policy, real
 * paths already, which the sweep does not resolve again; the caller gives the command RET->env
 * with pdk_sandbox_setenv(). prepare() fails with -EAGAIN when it had to make the state
 * directory and that lies in a root (pdk_rmshim_install() was not called before
 * pdk_sandbox_setup()): the sandbox would hide the shim. */
int pdk_rmshim_prepare(const struct pdk_sandbox *sb, struct pdk_rmshim *ret);
int pdk_rmshim_sweep(const struct pdk_sandbox *sb, struct pdk_rmshim *shim, char **ret_note);

/* Close the registry lock; the registry entry itself goes only when the sweep emptied the run's
 * staging, so that a later sweep finds what was left. Accepts a zeroed SHIM. */
void pdk_rmshim_release(struct pdk_rmshim *shim);

/*
 * The shim: rm(1)'s options, messages and exit codes (as pdk_rm_main), staging each operand
 * instead of unlinking it. Without PADDOCK_RM_STAGE (started outside `paddock run`) it removes
 * nothing and says to use /bin/rm, or `paddock run -- rm`, instead. Prints; returns the exit
 * code.
 */
int pdk_rmshim_main(int argc, char **argv);

#endif
