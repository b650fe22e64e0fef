/* bwrap_check.h - what the bubblewrap backend checks of the sandbox bwrap made,
 * between bwrap's set-up and the command's start (--block-fd). */
#ifndef PDK_BWRAP_CHECK_H
#define PDK_BWRAP_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A bind paddock had bwrap make: at dest, fd the directory or file opened for it through no
 * symlink (-1: /dev/null, a placeholder), writable or read-only. */
struct pdk_bwrap_bind {
	char *dest;
	int fd;
	bool ro;
};

/*
 * Wait, up to timeout_ms, until the sandbox process pid (bwrap's "child-pid") has set up and
 * waits to start the command; then check its mount table: each of the n binds is a mount
 * point there, read-only or not as asked, and (fd >= 0) the very file or directory fd holds;
 * and every other writable mount lies under a writable bind or is bwrap's own /dev or /proc.
 * 0; -EXDEV with what (what_len bytes) saying what differs; -ENOENT when pid is gone (bwrap
 * failed: it says why itself); other -errno when it cannot tell.
 */
int pdk_bwrap_check_mounts(pid_t pid, const struct pdk_bwrap_bind *binds, size_t n, int timeout_ms,
			   char *what, size_t what_len);

#endif
