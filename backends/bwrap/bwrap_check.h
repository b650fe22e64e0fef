/* bwrap_check.h - what the bubblewrap backend checks of the sandbox bwrap made,
 * between bwrap's set-up and the command's start (--block-fd). */
#ifndef PDK_BWRAP_CHECK_H
#define PDK_BWRAP_CHECK_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Wait, up to timeout_ms, until the sandbox process pid (bwrap's "child-pid")
 * has set up and waits to start the command; then check that its only
 * writable mounts are under dests (the n directories paddock had bwrap bind,
 * with bwrap's own /dev and /proc) and that each of dests is, inside, the
 * directory fds[i] holds. 0; -EXDEV with what (what_len bytes) saying what
 * differs; -ENOENT when pid is gone (bwrap failed: it says why itself);
 * other -errno when it cannot tell.
 */
int pdk_bwrap_check_mounts(pid_t pid, char *const *dests, const int *fds, size_t n, int timeout_ms,
			   char *what, size_t what_len);

#endif
