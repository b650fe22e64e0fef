/* vettrack.h - a protected name git itself checked out: a file or directory at a
 * protected path missing before the run (.vscode, .mcp.json, a shell start-up file) is
 * kept when it is exactly what a commit that was a ref's tip before the run tracks there,
 * and HEAD is that commit (git checkout, switch, reset between existing branches).
 * Whatever git's files say, every object read is checked against its own hash here, so a
 * command that rewrote the repository's objects cannot pass off a file of its own. */
#ifndef PDK_VETTRACK_H
#define PDK_VETTRACK_H

#include <stdbool.h>
#include <stddef.h>

/* The commits at the tips of worktree's refs (HEAD, branches, remote-tracking branches)
 * as they are now, appended to *tips as "WORKTREE\tHEX" (owned strings), at most a
 * thousand. Nothing when worktree has no .git. 0 or -ENOMEM. */
int pdk_vettrack_snapshot(const char *worktree, char ***tips, size_t *n);

/* Commits the sandbox made are never trusted: at the end of a run, and in the guardian's
 * finish, the tips of the n worktrees that were not among the run's tips at its start
 * (before) go to a ledger in paddock's state directory, out of every sandbox's reach;
 * pdk_vettrack_untaint() drops the tips the ledger names. 0 or -errno. */
int pdk_vettrack_taint(char *const *worktrees, size_t n, char *const *before, size_t n_before);
void pdk_vettrack_untaint(char **tips, size_t *n);

/* Is what is at path (in a worktree of tips, at any depth) what HEAD's commit tracks
 * there, HEAD being one of the worktree's tips before the run? A directory must hold
 * nothing else; any doubt (git missing, an object that does not match its name, SHA-256
 * repositories) says no. */
bool pdk_vettrack_checked_out(const char *path, char *const *tips, size_t n);

/* Does the index of the worktree path lies directly in name it, or something under it?
 * Read from git's index file as bytes: a yes may be wrong (vetted, not held: still undone
 * after the run), a no keeps it held. */
bool pdk_vettrack_in_index(const char *path);

#endif
