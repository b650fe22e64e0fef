/* sandbox_int.h - what sandbox.c shares with sandbox_git.c and sandbox_home.c. */
#ifndef PDK_SANDBOX_INT_H
#define PDK_SANDBOX_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "sandbox.h"

/*
 * root/.git and what git runs code from through it, onto sb->protect (*np of them): a gitdir:
 * file and the repository it names when a root holds it, a symlink (refused by a backend
 * that holds protected paths), or the directory's commondir and config.worktree, its
 * submodules' and worktrees' git directories, and what its commondir names. Those names
 * missing that git would read go to sb->trash.missing. 0 or -ENOMEM.
 */
int pdk_sandbox_protect_git(struct pdk_sandbox *sb, size_t *np, const char *root);

/*
 * The absolute path as the kernel would follow it, symlinks and all: its real path when it
 * exists (*exists set), or else the real path of the parent of its first missing part, and
 * the rest as written, which is where a command would make it (*exists cleared). NULL when
 * neither can be told (a loop, a part that is not a directory, no memory).
 */
char *pdk_sandbox_resolve_want(const char *path, bool *exists);

/*
 * A protected path that is missing, as pdk_sandbox_resolve_want gives it: onto sb->protect
 * (*np of them: Seatbelt denies making it), and its first missing part onto sb->trash.missing (what
 * the command makes there is undone after the run on every backend). 0 or -ENOMEM.
 */
int pdk_sandbox_add_want(struct pdk_sandbox *sb, size_t *np, const char *want);

/*
 * A directory git runs hooks from (core.hooksPath, or where a .git/hooks symlink leads), when
 * it lies inside a root: held (onto sb->protect, *np of them, at its real path, and the name as
 * written when that is a symlink) and known as a hooks directory (sb->git.hookdirs) for the vetting
 * after the run; a missing one as pdk_sandbox_add_want says. 0 or -ENOMEM.
 */
int pdk_sandbox_add_hookdir(struct pdk_sandbox *sb, size_t *np, const char *path);

/*
 * When root/.git is a gitdir: file naming a linked worktree's git directory (one with a
 * commondir) outside the n roots, that directory and the common one onto sb->roots: git there
 * writes the worktree's index and HEAD, and objects and refs in the common directory. Their
 * hooks and configuration are then protected as any repository's in a root. 0 or -ENOMEM.
 */
int pdk_sandbox_worktree_roots(struct pdk_sandbox *sb, size_t *n, const char *root);

/*
 * The start-up files of the home directory when one of the first n roots holds it (held onto
 * sb->protect, *np of them; a git configuration onto sb->git.configs; a missing one watched from
 * its first missing directory down, onto sb->trash.missing), and the shell prompt's files zsh
 * sources from the cache directory cache (a root, or NULL). 0 or -ENOMEM.
 */
int pdk_sandbox_add_home(struct pdk_sandbox *sb, size_t *np, size_t n, const char *cache);

#endif
