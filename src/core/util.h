/* util.h - small helpers shared by every file: cleanup attributes and
 * ownership transfer, in the style of bubblewrap's utils.h and systemd. */
#ifndef PDK_UTIL_H
#define PDK_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/strv.h"

#define PDK_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline void *pdk_steal_ptr(void *pp)
{
	void **p = pp;
	void *v = *p;
	*p = NULL;
	return v;
}
#define steal_pointer(pp) ((__typeof__(*(pp)))pdk_steal_ptr(pp))

static inline void pdk_freep(void *p)
{
	free(*(void **)p);
}
static inline void pdk_closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}
#define _cleanup_free_ __attribute__((cleanup(pdk_freep)))
#define _cleanup_close_ __attribute__((cleanup(pdk_closep)))

/* What the code guarantees where clang's analyzer cannot see it (it reads one
 * file at a time); nothing at all in a build. Each use says why it holds. */
#ifdef __clang_analyzer__
#define PDK_ANALYZER_ASSUME(cond) ((cond) ? (void)0 : __builtin_unreachable())
#else
#define PDK_ANALYZER_ASSUME(cond) ((void)0)
#endif

/* -errno for a call that just failed. A failed call always sets errno; the
 * fallback says so where a reader (or clang's analyzer) cannot see it, so a
 * failure can never read as a success of 0. */
static inline int pdk_neg_errno(void)
{
	int e = errno, r = e > 0 ? -e : -EIO;

	/* clang 14's analyzer does not follow the negation */
	PDK_ANALYZER_ASSUME(r < 0);
	return r;
}

static inline int steal_fd(int *fd)
{
	int v = *fd;
	*fd = -1;
	return v;
}

/* Parse errors come back to callers this way (as pcre2 reports them). */
struct pdk_error {
	int line;   /* 1-based, 0 when not applicable */
	int column; /* 1-based, 0 when not applicable */
	char message[256];
};

/* The value of one hex digit, or -1. */
static inline int pdk_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
