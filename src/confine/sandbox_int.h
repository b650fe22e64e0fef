/* sandbox_int.h - what sandbox.c shares with sandbox_git.c. */
#ifndef PDK_SANDBOX_INT_H
#define PDK_SANDBOX_INT_H

#include <stddef.h>

#include "sandbox.h"

/*
 * root/.git and what git runs code from through it, onto sb->protect (*np of them): a gitdir:
 * file and the repository it names when a root holds it, a symlink (refused by a backend
 * that holds protected paths), or the directory's commondir and config.worktree, its
 * submodules' and worktrees' git directories, and what its commondir names. Those names
 * missing that git would read go to sb->missing. 0 or -ENOMEM.
 */
int pdk_sandbox_protect_git(struct pdk_sandbox *sb, size_t *np, const char *root);

#endif
