/* vet.h - protected paths with no file in the user's tree: which were missing before a run is
 * written down, and what the command made at them goes to the trash after it, done by paddock,
 * by the run's guardian when paddock dies, or else by the next run. */
#ifndef PDK_VET_H
#define PDK_VET_H

#include <stdbool.h>
#include <stddef.h>

/* The journals of the runs going on: $XDG_STATE_HOME/paddock/runs/PID-RANDOM. */
#define PDK_VET_DIR "runs"

struct pdk_vet {
	char *journal; /* its path; NULL: none could be kept (no state directory) */
	int fd;	       /* the journal, locked while the run lasts; -1: none */
	char **roots;  /* owned copies: what the trash may take from */
	size_t n_roots;
	char **missing; /* owned copies: protected paths missing at the start */
	size_t n_missing;
	struct pdk_vet_config *configs; /* git configurations left writable, as they were */
	size_t n_configs;
	char **gitdirs; /* owned: repositories' git directories whose new modules and worktrees
			 * are vetted after the run (vetgit.h) */
	size_t n_gitdirs;
	char **known;	/* owned: the git directories in their modules and worktrees before */
	size_t n_known;
	char **gitfiles; /* owned: a submodule's .git, missing before, which the run may make */
	size_t n_gitfiles;
	bool allow_hooks; /* --allow-git-hooks: core.hooksPath stays (journal: "A\thooks") */
	char **hookdirs; /* owned: hooks directories (and those in them) vetted after the run:
			  * what is new in them goes to the trash (journal: "h") */
	size_t n_hookdirs;
	char **hookroots; /* owned: hooks directories named otherwise (journal: "G") */
	size_t n_hookroots;
	char **tips;	  /* owned: "WORKTREE\tCOMMIT", the worktrees' ref tips before the run,
			   * whose checked-out files stay (vettrack.h; journal: "T") */
	size_t n_tips;
	char **worktrees; /* owned: where the tips were looked for, and are again after the run
			   * for the commits it made (vettrack.h; journal: "V") */
	size_t n_worktrees;
};

/* What a run's git may make that git would later run code from, beyond missing paths and
 * configurations: pins (a submodule's gitdir: file, put back when changed), the repositories'
 * git directories (new submodule and worktree git directories in them vetted after the run)
 * and the submodules' .git files still to be made (each must name a git directory in there). */
struct pdk_vet_git {
	char *const *pins;
	size_t n_pins;
	char *const *gitdirs;
	size_t n_gitdirs;
	char *const *gitfiles;
	size_t n_gitfiles;
	bool allow_hooks; /* --allow-git-hooks: the run may install hooks and set core.hooksPath */
	/* Hooks directories the backend cannot hold (Landlock): what is in them is copied before
	 * the run and put back after it, and what is new goes to the trash. */
	char *const *hooks;
	size_t n_hooks;
	/* Directories git runs hooks from by another name than hooks (core.hooksPath, where a
	 * hooks symlink leads): what is in them is vetted as hooks (a removed one put back). */
	char *const *hookroots;
	size_t n_hookroots;
};

/* A git configuration the command may write, vetted after the run: what it was. */
struct pdk_vet_config {
	char *path;
	char *before; /* its text; NULL: it was missing */
	size_t len;
	unsigned int mode;
	bool pinned; /* not a configuration: a gitdir: file, put back whatever the change */
	/* Not a configuration but what is in a hooks directory: 'H' a file, 'L' a symlink
	 * (before: its target), 'D' anything else (a directory too deep, a fifo), left as it is;
	 * 0 for a configuration or a pin. */
	char hook;
	bool copied; /* a copy was found beside the journal (or could not be told): removed */
};

/*
 * Finish the journals of runs that died with nobody to finish them (unlocked, not being
 * written): what their commands made at protected names goes to the trash. *ret_note (may be
 * NULL) says what was moved, or stays NULL. Best effort; 0 or -ENOMEM.
 */
int pdk_vet_sweep(char **ret_note);

/*
 * The missing paths that runs going on now wrote down, those inside one of the n_roots roots,
 * onto *missing (*n of them) unless there already: what is at them now was made while those
 * runs lasted, perhaps by their commands, and this run must not take it for the user's. Under
 * Landlock, which does not hold what exists, this run's command could otherwise write there
 * after the earlier run has cleaned up. Those named skip (a last component; NULL: none) are
 * left out: this run may make them. 0 or -ENOMEM.
 */
int pdk_vet_adopt(char *const *roots, size_t n_roots, const char *skip, char ***missing,
		  size_t *n);

/*
 * Before the run: write down the n missing paths (absolute, no newline), the n_configs git
 * configurations and git's pins (copied as they are now, next to the journal), git's
 * directories and files of git (NULL: none) and the n_roots roots in a new journal, locked.
 * Without a state directory all is kept in memory only: paddock still undoes, a guardian
 * cannot. 0 or -ENOMEM; v is reset first.
 */
int pdk_vet_begin(struct pdk_vet *v, const char *const *roots, size_t n_roots,
		  char *const *missing, size_t n, char *const *configs, size_t n_configs,
		  const struct pdk_vet_git *git);

/* The journal's descriptor for the guardian (it keeps the lock when paddock dies), or -1. */
static inline int pdk_vet_fd(const struct pdk_vet *v)
{
	return v->journal ? v->fd : -1;
}

/*
 * After the run: what is at a missing path now goes to the trash (a file the trash will not
 * take is deleted); a git configuration that gained a setting that runs a program (or that git
 * cannot read) goes to the trash too and the earlier one is put back, while other changes
 * (user.email, a remote, a branch's upstream) stay; a pin the command changed goes to the
 * trash and the earlier one is put back; new git directories are vetted (vetgit.h); in a hooks
 * directory, a hook the command changed or removed is put back (its version to the trash)
 * and one it made goes to the trash; the journal is removed. *ret_note is a
 * sandbox: line saying what was undone, or NULL when nothing was. 0 or -ENOMEM.
 */
int pdk_vet_end(struct pdk_vet *v, char **ret_note);

/* The same for the journal open on fd, which the caller has locked (`paddock __finish`, run
 * by a guardian whose paddock died). 0, or -errno when fd holds no journal. */
int pdk_vet_finish_fd(int fd);

void pdk_vet_release(struct pdk_vet *v);

#endif
