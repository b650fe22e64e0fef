/* vetgit.h - the git directories a run makes in a repository's modules and worktrees (git
 * submodule update --init, git worktree add) and the .git files that name them: kept when they
 * hold nothing that makes the user's own git run a program later, else undone after the run. */
#ifndef PDK_VETGIT_H
#define PDK_VETGIT_H

#include <stdio.h>

/*
 * The git directories (a directory holding HEAD, not reached through a symlink) in the
 * modules and worktrees of each of the n git directories, and in their own modules, and the
 * repositories at the submodules' paths of a work tree's index (PATH/.git directories), onto
 * *out (*n_out of them). 0 or -ENOMEM.
 */
int pdk_vetgit_scan(char *const *gitdirs, size_t n, char ***out, size_t *n_out);

/* The git directories in dir (dir/NAME, where NAME may hold slashes, a few levels deep) and in
 * their own modules, in that order, onto *out (*n_out of them). 0 or -ENOMEM. */
int pdk_vetgit_gitdirs_under(const char *dir, char ***out, size_t *n_out);

/*
 * After the run. In each git directory of gitdirs' modules and worktrees that is not one of
 * known: a configuration (config, config.worktree) with a setting that makes git run a
 * program or that git cannot read, a hook (anything in hooks but git's *.sample files), and a
 * commondir naming another repository than the one it lies in go to the trash (taken only
 * from under the roots). Each of gitfiles, and each submodule's .git in a work tree's index
 * but the pins, that is there now must be a gitdir: file naming a git directory in the
 * modules or worktrees of one of gitdirs, else it goes to the trash; or a repository there
 * before, else it is vetted as a new git directory.
 * What was undone, as clauses, onto *f (opened on buf and size on first use). 0 or -ENOMEM.
 */
struct pdk_vetgit_repos {
	char *const *roots; /* what the trash may take from */
	size_t n_roots;
	char *const *gitdirs; /* the repositories' git directories */
	size_t n_gitdirs;
	char *const *known; /* the git directories in their modules and worktrees before */
	size_t n_known;
	char *const *gitfiles; /* submodules' .git, missing before */
	size_t n_gitfiles;
	char *const *pins; /* .git files put back after the run already */
	size_t n_pins;
};
int pdk_vetgit_undo(const struct pdk_vetgit_repos *g, FILE **f, char **buf, size_t *size);

#endif
