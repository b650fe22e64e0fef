/* confine.h - the one confinement policy every backend enforces, and the
 * interface a backend implements to enforce it natively. */
#ifndef PDK_CONFINE_H
#define PDK_CONFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* What a command may do. All paths are absolute real paths (realpath'd by
 * the caller); a backend translates this and adds nothing of its own. */
struct pdk_confine {
	const char *const *roots;     /* writable roots, n_roots entries */
	size_t n_roots;
	const char *const *protect;   /* stay read-only inside roots (may not exist) */
	size_t n_protect;
	bool network;                 /* false: no connection leaves the sandbox */
	/* Domains mode (network false, n_domains > 0): these are reached through
	 * paddock's proxy, and proxy_fd is the sandbox's end of its control
	 * socket (a wrapper with a network namespace of its own hands it to
	 * paddock's __proxy-listen in the sandbox). */
	const char *const *domains;
	size_t n_domains;
	int proxy_fd;
	/* commandPolicy.sandbox.allowUnixSockets: the host's unix sockets a
	 * connect() may reach, by these absolute paths exactly, each through
	 * unix_fds[i] (an O_PATH descriptor of the socket, opened before the
	 * run); every other unix socket, by path or abstract name, stays closed. */
	const char *const *unix_paths;
	const int *unix_fds;
	size_t n_unix;
	/* What opened each of unix_paths ("allowUnixSockets", "--ssh-agent",
	 * "--docker"), for the profile's words; NULL: allowUnixSockets. */
	const char *const *unix_from;
	/* Seatbelt: the first n_socket_roots roots are named ones (the project,
	 * --write, writablePaths, a linked worktree's git directories), where
	 * the command's own unix sockets may be bound and reached by path; the
	 * rest (TMPDIR, the cache) hold the host's too. The Linux backends tell
	 * the run's sockets by inode. */
	size_t n_socket_roots;
	/* --gpu under Seatbelt, which has no device nodes to open: Metal. */
	bool gpu;
	/* --gpu: device nodes (absolute; a directory for all below it) the
	 * command may open for writing and ioctl, as the user can. */
	const char *const *devices;
	size_t n_devices;
	/* Secrets the command may not read (confine/secrets.h): hide, the real paths of those
	 * that exist, each to be covered by blank (an empty file of mode 0, or /dev/null) or
	 * blank_dir (an empty directory of mode 0; NULL: an empty tmpfs), or denied by the
	 * kernel; deny_read and allow_read, the absolute fnmatch patterns they come from, for a
	 * backend that matches patterns. */
	const char *const *hide;
	size_t n_hide;
	const char *blank, *blank_dir;
	const char *const *deny_read;
	size_t n_deny_read;
	const char *const *allow_read;
	size_t n_allow_read;
	const char *cwd;              /* where the command starts */
	unsigned long max_procs;      /* processes the run may have at once (the runner
				       * enforces it; backends only describe it) */
};


/*
 * A backend. Wrappers (bwrap, Seatbelt) rewrite argv to run inside a helper
 * program; self-restrictors (Landlock + seccomp) restrict the child between
 * fork and exec. An op a backend does not need is NULL.
 *
 * Lifecycle: available() (or probe()) once per process; prepare() in the
 * parent before fork (every allocation and open happens there); wrap_argv()
 * in the parent; enter() in the child after fork; started() in the parent
 * after the run; release() in the parent after the run, also when prepare()
 * failed half way (state may be NULL).
 */
struct pdk_backend {
	const char *name;
	/* Its helper takes the whole tree down when paddock dies (bwrap:
	 * --die-with-parent and a pid namespace), so no guardian is needed. */
	bool tree_dies_with_parent;
	/* It keeps the protected paths read-only inside the roots. */
	bool enforces_protect;
	/* It opens the policy's device nodes (--gpu) to the run. */
	bool devices;
	/* The network off is a namespace of the run's own: loopback works
	 * there, and the domains mode's proxy can be reached. */
	bool private_network;
	/* The domains mode's proxy is reached on the host's loopback (Seatbelt):
	 * prepare() hands the proxy its listener over policy.proxy_fd, and the
	 * profile lets the command reach that port. */
	bool proxy_on_loopback;
	/* 0 when usable here, else -errno; writes a one-line reason to why.
	 * May run the helper (a trivial command of its own): for doctor. */
	int (*probe)(char *why, size_t why_len);
	/* What a run checks instead of probe(): cheap, runs nothing (the
	 * helper binary is there, the kernel has the feature). NULL: probe()
	 * is cheap enough. Same contract as probe(). */
	int (*available)(char *why, size_t why_len);
	int (*prepare)(const struct pdk_confine *policy, void **ret_state);
	/* Returns a new NULL-terminated argv (caller frees each string and the
	 * array); argv[0] of the result is an absolute path. */
	int (*wrap_argv)(void *state, char *const *argv, char ***ret_argv);
	/* Child side: async-signal-safe calls only. fds the backend needs
	 * across exec are its business here (the runner has already marked
	 * every fd above 2 close-on-exec). Returns 0 or -errno. */
	int (*enter)(void *state);
	/* Wrappers, in the parent once the helper is executed and before the
	 * command may start: 0 lets it start, -errno stops the run (the runner
	 * kills the helper), saying why in why when it can. NULL: the command
	 * starts when the helper says. */
	int (*spawned)(void *state, char *why, size_t why_len);
	/* In the parent last before the fork, for a child that hands something
	 * over before it execs (the connect supervisor's thread, started here,
	 * takes the seccomp listener while the child waits in enter(); the
	 * child may share the parent's memory meanwhile): 0 or -errno. NULL:
	 * nothing. */
	int (*before_fork)(void *state);
	/* Wrappers, in the parent after the run: 1 when the helper started
	 * the command, 0 when the helper's own setup failed first, so that
	 * nothing of the command ran (the helper's complaint is on the
	 * command's stderr), -errno when it cannot tell. NULL: always 1. */
	int (*started)(void *state);
	/* Wrappers whose helper passes a death by signal N on as the exit
	 * code 128+N: the command's status as it really ended (negative for
	 * a signal), given the one the runner saw. NULL: that one. */
	int (*exit_status)(void *state, int status);
	void (*release)(void *state);
	/* Variables the command must see (NAME=VALUE, NULL-terminated, owned by
	 * state), set after prepare(): the proxy's, when the backend makes its
	 * listener. NULL, or an op returning NULL: none. */
	char *const *(*env)(void *state);
	/* A sandbox: line for the run's result, owned by state, or NULL. NULL op:
	 * none. *ret_nested is set true when the command runs under another
	 * sandbox instead of paddock's (Seatbelt inside one: the audit log's
	 * confinement "nested"); it is left alone otherwise. */
	const char *(*note)(void *state, bool *ret_nested);
	/* After prepare() failed: a one-line reason better than its -errno,
	 * or NULL (Seatbelt: what sandbox-exec said of the profile). */
	const char *(*prepare_why)(void);
	/* --print-profile: the exact native confinement, as text. */
	int (*describe)(void *state, char *const *argv, FILE *out);
	/* Backends that run a helper binary (bwrap); NULL otherwise. set_helper:
	 * run this one (an absolute path, copied; NULL: the built-in search),
	 * 1 when that changed which helper runs, 0 when it did not, -EINVAL
	 * for a relative path or one too long. helper: the one a run
	 * executes, or NULL when there is none. */
	int (*set_helper)(const char *path);
	const char *(*helper)(void);
};

/*
 * For the backends that hold paths in a mount namespace (bwrap, landlock): the directories
 * between a root and a path paddock relies on inside it (a root within the root, a protected
 * path), appended to *pins (*n of them, each once, copies), each to be bound onto itself: a
 * mount point cannot be renamed or removed, so the command cannot move .git aside, with its
 * held hooks, and put a symlink or a copy of its own in its place. The walk stops at the first
 * name that is not a directory. 0 or -errno.
 */
int pdk_confine_pins(const struct pdk_confine *policy, const char *path, char ***pins, size_t *n);

#endif
