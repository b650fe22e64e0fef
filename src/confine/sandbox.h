/* sandbox.h - the confinement stage: from a request and the configuration to
 * writable roots, protected paths, a scrubbed environment and a chosen
 * backend, ready for the runner; and the run, with its one fallback. */
#ifndef PDK_SANDBOX_H
#define PDK_SANDBOX_H

#include <stdbool.h>
#include <stdio.h>

#include "output/capture.h"
#include "confine.h"
#include "core/request.h"
#include "run/runner.h"
#include "secrets.h"
#include "vet.h"

struct pdk_config;
struct pdk_proxy;
struct pdk_seen;

#define PDK_SANDBOX_NOTES 4

/* What the run reaches beyond its own: the domains mode's proxy, the host's unix sockets. */
struct pdk_sandbox_net {
	/* Domains mode: the configured and asked-for domains (owned), the
	 * proxy while the command runs, and paddock's end of its control
	 * socket (policy.proxy_fd is the sandbox's). */
	char **domains;
	size_t n_domains;
	char **local_addrs;	       /* owned: allowLocalAddresses, the proxy's exceptions */
	size_t n_local_addrs;
	bool domains_mode;
	int proxy_ctl;
	struct pdk_proxy *proxy;
	char **refused;                /* owned: the names the proxy refused */
	size_t n_refused;
	/* allowUnixSockets and the grants: the paths (owned) and their O_PATH descriptors */
	char **unix_paths;
	int *unix_fds;
	const char **unix_from; /* what opened each: "allowUnixSockets", "--ssh-agent"... */
	size_t n_unix;
};

/* The repositories in the roots: what of git is left writable and vetted after the run. */
struct pdk_sandbox_git {
	size_t wt_first, n_wt;	       /* roots[wt_first...]: a linked worktree's git directories */
	/* owned: protected paths git tracks (vettrack.h): never held, so that a checkout can
	 * change or remove them, and vetted after the run on every backend */
	char **tracked;
	size_t n_tracked;
	char **configs;		       /* owned: git configurations left writable, vetted after */
	size_t n_configs;
	/* owned: submodules' gitdir: files, put back after the run when changed; repositories'
	 * git directories, whose new modules and worktrees are vetted; submodules' .git files
	 * still to be made, each of which must name one of those (vetgit.h) */
	char **pins, **gitdirs, **gitfiles;
	size_t n_pins, n_gitdirs, n_gitfiles;
	/* owned: the real paths of hooks directories not named .git/hooks (core.hooksPath, the
	 * target of a .git/hooks symlink): held, or vetted after the run as hooks */
	char **hookdirs;
	size_t n_hookdirs;
	bool allow_hooks;	       /* --allow-git-hooks: git hooks and core.hooksPath writable */
};

/* What goes to the trash after the run: what the command made where nothing was. */
struct pdk_sandbox_trash {
	/* owned: protected paths inside a root missing at the start (their parent there):
	 * what the command makes at them goes to the trash after the run (vet.h) */
	char **missing;
	size_t n_missing;
	struct pdk_vet vet;	       /* this run's journal of them, from pdk_sandbox_run on */
	bool vetting;
	char *sweep_note;	       /* what a killed earlier run had left, swept at set-up */
};

struct pdk_sandbox {
	struct pdk_run_spec spec;      /* what the runner executes */
	const struct pdk_backend *backend; /* NULL: --no-sandbox */
	void *state;
	struct pdk_confine policy;
	char **roots, **protect;       /* owned, NULL-terminated */
	char **wrapped;                /* owned argv for wrapper backends */
	char **envp;                   /* owned array, borrowed strings */
	char **env_added;              /* owned copies of pdk_sandbox_setenv's entries */
	const char *path;              /* the command's resolved path (borrowed) */
	char **argv;                   /* the command (borrowed) */
	bool named;                    /* a person chose the backend: never another */
	bool nested;                   /* the command runs under another sandbox, not ours */
	const char *notes[PDK_SANDBOX_NOTES]; /* result lines (sandbox: ...) */
	size_t n_notes;
	char fallback_note[600];       /* why an earlier backend was passed over */
	char note_buf[PDK_SANDBOX_NOTES - 1][600];
	size_t n_note_buf;
	char why[600];                 /* why pdk_sandbox_run failed, when it did */
	size_t own_first, own_end;     /* protect[own_first..own_end): paddock's own directories */
	char *cache;		       /* owned: the per-user cache directory's real path, or NULL */
	char **devices; /* --gpu: the device nodes opened to the run */
	size_t n_devices;
	struct pdk_sandbox_net net;
	struct pdk_sandbox_git git;
	struct pdk_sandbox_trash trash;
	bool allow_agent_config;       /* --allow-agent-config: agentconf.h's names writable */
	struct pdk_secrets secrets;    /* what the command may not read (secrets.h) */
	char *blank, *blank_dir;       /* owned: what a backend puts over them */
	/* While the policy is built and the backend picked (before anything runs): what lstat
	 * said of each protected path, so that it is looked at once (sandbox.c). Owned. */
	struct pdk_seen *seen;
	size_t n_seen;
	bool seeing;
};

/* Variables whose names match these (fnmatch, any case) never reach a
 * confined command; the configuration's "env" patterns add to them. */
extern const char *const pdk_secret_env_default[];

/*
 * Build the policy and pick the backend. cfg may be NULL (defaults): its
 * writablePaths join the roots (a missing one is skipped with a note; one
 * that is not a directory is an error), protectedPaths the protected names,
 * env the secret patterns; backend is the default for req->backend, bwrap the
 * bubblewrap binary, max_procs the process limit (PDK_MAX_PROCS_DEFAULT when
 * 0; none with --no-sandbox). path is the command's resolved path; environ is
 * borrowed until pdk_sandbox_release. Nothing runs here. Returns 0, or -errno
 * with why for a person.
 */
int pdk_sandbox_setup(const struct pdk_request *req, const struct pdk_config *cfg,
		      const char *path, char **environ, struct pdk_sandbox *sb, char *why,
		      size_t why_len);
/* After a confined run, whatever its outcome: what the command made at sb->trash.missing (a
 * commondir or configuration git would read, a hook, an editor's settings: outside the sandbox
 * too) goes to the trash. *ret_note says so, or is NULL when there was nothing;
 * *ret_sweep_note likewise for what earlier runs, killed, had left. 0 or -ENOMEM. */
int pdk_sandbox_undo_made(struct pdk_sandbox *sb, char **ret_note, char **ret_sweep_note);
/* Add "NAME=VALUE" entries (NULL-terminated) to the command's environment,
 * replacing variables of the same name; entries are copied; an entry "NAME"
 * with no '=' takes NAME out. Secret patterns do not apply to them. Call
 * between setup and run. */
int pdk_sandbox_setenv(struct pdk_sandbox *sb, const char *const *extra_env);
/*
 * Run the command (pdk_run) confined. When the backend's helper could not set
 * up (bwrap without namespaces), nothing of the command ran: the backend is
 * marked broken for the process, what it printed is dropped (out and err are
 * emptied), and the command runs once under the next backend that works,
 * with one sandbox: note saying why. When the backend was named, or no other
 * works, returns -ENOSYS with sb->why. Other errors are pdk_run's.
 */
int pdk_sandbox_run(struct pdk_sandbox *sb, struct pdk_capture *out, struct pdk_capture *err,
		    struct pdk_run_status *st);
int pdk_sandbox_describe(const struct pdk_sandbox *sb, FILE *out);
/* The network the command had: "off", "domains" or "on"; NULL without a sandbox. */
const char *pdk_sandbox_network(const struct pdk_sandbox *sb);
/* The host unix sockets of allowUnixSockets the command could reach, by path
 * (each as configured and as its real path where that differs, those that
 * were sockets when the run was set up): their number, the paths (borrowed)
 * in *ret_paths. 0 without a sandbox, or where the backend keeps them closed
 * (Linux without a connect supervisor). */
size_t pdk_sandbox_unix_sockets(const struct pdk_sandbox *sb, const char *const **ret_paths);
void pdk_sandbox_release(struct pdk_sandbox *sb);

#endif
