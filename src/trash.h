/* trash.h - rm without deletion: move files to the user's trash (freedesktop.org Trash
 * specification on Linux, ~/.Trash on macOS) after checking they lie inside a writable root. */
#ifndef PDK_TRASH_H
#define PDK_TRASH_H

#include <stddef.h>
#include <stdio.h>

#include "util.h"

/*
 * Move one file, directory or symlink to the trash. A final symlink is never followed: the
 * link itself is trashed and its target is untouched. Trailing slashes are ignored.
 *
 * The real path of PATH's parent directory must lie inside one of ROOTS (N_ROOTS real
 * paths); otherwise nothing happens and -EPERM is returned.
 *
 * Linux: the home trash ($XDG_DATA_HOME/Trash, default ~/.local/share/Trash) when PATH is on
 * the same mount, else $topdir/.Trash/$uid (only if $topdir/.Trash is a sticky directory and
 * not a symlink) or $topdir/.Trash-$uid. The .trashinfo is created first with O_EXCL to
 * reserve the name, then the file is renamed. Files are never copied: when no trash on the
 * file's own mount can be used, the call fails and the file stays where it was.
 *
 * On success, *RET_TRASHED_AS (when not NULL) receives the new path of the file inside the
 * trash; the caller frees it with free(). On failure it is left untouched, ERR (when not NULL)
 * says why (the reason only: the caller knows which path it passed) and -errno is returned.
 */
int pdk_trash_put(const char *path, const char *const *roots, size_t n_roots,
		  char **ret_trashed_as, struct pdk_error *err);

/*
 * rm(1) with the trash in place of unlink(2): GNU rm's options, messages and exit codes
 * (0 when every operand was trashed, 1 otherwise). ARGV[0] is the program name. A directory
 * given with -r is trashed as a whole. Interactive modes (-i, -I) are refused since nobody
 * can be asked. Diagnostics go to ERR_OUT, -v reports to stdout as rm does. This is the body
 * of a verb, so unlike the rest of the library it prints.
 */
int pdk_rm_main(int argc, char *const *argv, const char *const *roots, size_t n_roots,
		FILE *err_out);

#endif
