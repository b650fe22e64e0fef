/* failalloc.c - linked into a Check suite, its malloc, calloc, realloc and free stand in front
 * of the C library's (reached with dlsym(RTLD_NEXT)) and fail the armed allocation. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "failalloc.h"

/* Under a sanitizer the allocator is the sanitizer's, linked into the program: no hook. */
#if defined(__SANITIZE_ADDRESS__)
#define FAILALLOC_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) ||                     \
    __has_feature(thread_sanitizer)
#define FAILALLOC_OFF 1
#endif
#endif

static unsigned long armed, counted;
static bool fired;

void pdk_failalloc_arm(unsigned long n)
{
	counted = 0;
	fired = false;
	armed = n;
}

bool pdk_failalloc_disarm(void)
{
	armed = 0;
	return fired;
}

bool pdk_failalloc_works(void)
{
	/* Through a volatile pointer, so the compiler cannot drop the pair. */
	void *(*volatile m)(size_t) = malloc;
	void (*volatile f)(void *) = free;
	void *p;

	pdk_failalloc_arm(1);
	p = m(16);
	f(p);
	return pdk_failalloc_disarm() && !p;
}

#ifndef FAILALLOC_OFF
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);

/* dlsym may allocate before the real functions are known: it gets this, never freed. */
static alignas(max_align_t) char early[8192];
static size_t early_used;

static void *early_alloc(size_t n)
{
	void *p;

	n = (n + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1);
	if (n > sizeof(early) - early_used)
		return NULL;
	p = early + early_used;
	early_used += n;
	return p;
}

static bool is_early(const void *p)
{
	return (const char *)p >= early && (const char *)p < early + sizeof(early);
}

static bool resolve(void)
{
	static bool resolving;

	if (real_free)
		return true;
	if (resolving)
		return false;
	resolving = true;
	real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	resolving = false;
	return real_free != NULL;
}

static bool fail_now(void)
{
	if (!armed || ++counted != armed)
		return false;
	armed = 0;
	fired = true;
	errno = ENOMEM;
	return true;
}

void *malloc(size_t n)
{
	if (!resolve())
		return early_alloc(n);
	return fail_now() ? NULL : real_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	if (!resolve())
		return size && n > (size_t)-1 / size ? NULL : early_alloc(n * size);
	return fail_now() ? NULL : real_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	void *q;

	if (!resolve() || is_early(p)) {
		q = resolve() ? malloc(n) : early_alloc(n);
		if (q && p) {
			size_t left = (size_t)(early + sizeof(early) - (char *)p);
			memcpy(q, p, n < left ? n : left);
		}
		return q;
	}
	return fail_now() ? NULL : real_realloc(p, n);
}

void free(void *p)
{
	if (p && !is_early(p) && resolve())
		real_free(p);
}
#endif
