/* trash.h - rm without deletion: move files to the user's trash (freedesktop.org Trash
 * specification on Linux, ~/.Trash on macOS) after checking they lie inside a writable root. */
#ifndef PDK_TRASH_H
#define PDK_TRASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "core/util.h"

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
 * trash; the caller frees it with free(). On failure it is left untouched, WHY (WHY_LEN bytes, 0: none)
 * says why (the reason only: the caller knows which path it passed) and -errno is returned.
 */
int pdk_trash_put(const char *path, const char *const *roots, size_t n_roots,
		  char **ret_trashed_as, char *why, size_t why_len);

/*
 * rm(1) with the trash in place of unlink(2): GNU rm's options, messages and exit codes
 * (0 when every operand was trashed, 1 otherwise). ARGV[0] is the program name. A directory
 * given with -r is trashed as a whole. Interactive modes (-i, -I) are refused since nobody
 * can be asked. Diagnostics go to ERR_OUT, -v reports to stdout as rm does. This is the body
 * of a verb, so unlike the rest of the library it prints.
 */
int pdk_rm_main(int argc, char *const *argv, const char *const *roots, size_t n_roots,
		FILE *err_out);
/* The same, with -v's reports going to OUT instead of stdout. */
int pdk_rm_main_out(int argc, char *const *argv, const char *const *roots, size_t n_roots,
		    FILE *out, FILE *err_out);

/*
 * Move DIRFD/NAME (never following a final symlink) to the trash as if it had been removed from
 * ORIG_PATH: the .trashinfo records ORIG_PATH (absolute; relative to $topdir when it lies under
 * the trash's $topdir) and DELETION_DATE ("YYYY-MM-DDThh:mm:ss" local time; NULL or any other
 * shape: now). No writable-root check is made: the caller decides what may be moved, and what
 * ORIG_PATH may say. Same trash choice, naming and failure rules as pdk_trash_put().
 */
int pdk_trash_put_as(int dirfd, const char *name, const char *orig_path, const char *deletion_date,
		     char **ret_trashed_as, char *why, size_t why_len);

/* The user's home trash: $XDG_DATA_HOME/Trash (default ~/.local/share/Trash) on Linux,
 * ~/.Trash on macOS; NULL without a home directory or memory. Free with free(). */
char *pdk_trash_home_dir(void);

/* PATH as the .trashinfo Path key writes it (URI-escaped bytes). Free with free(); NULL on
 * ENOMEM. */
char *pdk_trash_path_encode(const char *path);

/*
 * What rm does with each operand once rm's own checks passed (it exists, -r for directories,
 * -d for empty ones, not '.' or '..', not '/'): MOVE returns 0 and may set *RET_WHERE (freed by
 * the caller) to where the operand went, or -errno with the reason in WHY. DONE is the phrase -v
 * prints before that place ("moved to the trash").
 */
struct pdk_rm_mover {
	int (*move)(void *ctx, const char *path, char **ret_where, char *why, size_t why_len);
	void *ctx;
	const char *done;
	FILE *out; /* where -v reports; NULL: stdout */
};

/* pdk_rm_main() with MOVER in place of the trash: same options, messages and exit codes. */
int pdk_rm_main_with(int argc, char *const *argv, const struct pdk_rm_mover *mover,
		     FILE *err_out);

/* PATH as rm names an operand: the directory holding it and its last component, trailing
 * slashes ignored ("dir/" is the directory itself, "link/" the link). 0 or -ENOMEM; the
 * caller frees both strings. */
int pdk_trash_split_path(const char *path, char **ret_dir, char **ret_base);

/* Which mount a file is on. Bind mounts share st_dev but rename(2) still refuses to cross
 * them, so the mount id is compared when the kernel has it. */
struct pdk_mount_ident {
	dev_t dev;
	uint64_t mnt_id;
	bool has_mnt_id;
};

/* DIRFD/NAME's mount, never through a final symlink. 0 or -errno. */
int pdk_trash_mount_ident_at(int dirfd, const char *name, struct pdk_mount_ident *ret);
/* t as a .trashinfo DeletionDate (local time, YYYY-MM-DDThh:mm:ss): 0 or -EINVAL. */
int pdk_trash_date(time_t t, char *buf, size_t len);
/* A and B lie on one mount (by device alone when either has no mount id). */
bool pdk_trash_same_mount(const struct pdk_mount_ident *a, const struct pdk_mount_ident *b);

/* An rm operand, opened for moving: its directory (opened, the real path of what was opened)
 * and its last component. '.', '..' and '/' are refused. 0 or -errno with why set. */
int pdk_trash_open_operand(const char *path, int *ret_fd, char **ret_real, char **ret_base,
			   char *why, size_t why_len);
/* -EBUSY (why set) when name in dirfd is a directory another mount is on; 0 otherwise. */
int pdk_trash_refuse_mount_point(int dirfd, const char *name, char *why, size_t why_len);
/* The highest directory from dir up to stop (stop included) still on the mount want: the
 * specification's $topdir when stop is "/". 0 or -errno. */
int pdk_trash_mount_top(const char *dir, const struct pdk_mount_ident *want, const char *stop,
			char **ret);
/*
 * Expiry of the entries paddock put in a trash (paddock(1), REMOVING FILES). Each entry
 * paddock makes is recorded in $XDG_STATE_HOME/paddock/trash/made: its trash, its name there,
 * its device and inode, and its DeletionDate. Only recorded entries that are still the same
 * file with the same .trashinfo date are ever removed; everything else in a trash is the
 * user's.
 */
#define PDK_TRASH_EXPIRE_EVERY	  86400	       /* seconds between two expiries */

struct stat;

struct pdk_trash_expiry {
	unsigned long max_age_days; /* entries at least this old go; 0: none by age */
	uint64_t max_size;	    /* beyond this total the oldest go; 0: no cap */
};

struct pdk_trash_expired {
	size_t removed, kept, failed;
	uint64_t bytes_removed, bytes_kept;
};

/* Record that paddock made TRASH's entry NAME (ST: the entry after the move; DATE: the
 * DeletionDate written, or NULL). 0 or -errno; a failure leaves the entry unexpirable. */
int pdk_trash_note_made(const char *trash, const char *name, const struct stat *st,
			const char *date);

/*
 * Expire: when FORCE, or when the last expiry is PDK_TRASH_EXPIRE_EVERY seconds old or more
 * (the time of $XDG_STATE_HOME/paddock/trash/expired), remove every recorded entry whose
 * DeletionDate is CFG->max_age_days old at NOW, then the oldest of the rest until their total
 * apparent size is at most CFG->max_size. A file is removed before its .trashinfo; symlinks
 * are removed, never followed, and no other file system is entered. Records of entries gone
 * from their trash are dropped. Returns 1 when it ran (*RET, when not NULL, says what it did),
 * 0 when it was not due or another paddock is at it, or -errno.
 */
int pdk_trash_expire(const struct pdk_trash_expiry *cfg, time_t now, bool force,
		     struct pdk_trash_expired *ret);
#endif
