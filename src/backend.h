/* backend.h - the compiled-in confinement backends: registry, one probe
 * per process, selection by name or by what works here. */
#ifndef PDK_BACKEND_H
#define PDK_BACKEND_H

#include <stddef.h>

#include "confine.h"

/* Compiled backends in order of preference, NULL-terminated. */
extern const struct pdk_backend *const pdk_backends[];

/* Comma-separated names of the compiled backends ("bwrap, landlock"). */
const char *pdk_backend_names(void);
const struct pdk_backend *pdk_backend_find(const char *name);
/* Probe b once per process; the verdict and reason are cached. */
int pdk_backend_probe(const struct pdk_backend *b, const char **ret_why);

/*
 * Pick a backend: the named one (which must be compiled and work here), or
 * the first that works. When an earlier one was passed over, *ret_fallback
 * says why (a static buffer); when none works, returns -ENOSYS with why.
 */
int pdk_backend_select(const char *name, const struct pdk_backend **ret, const char **ret_fallback,
		       char *why, size_t why_len);

#endif
