/* backend.h - the compiled-in confinement backends: registry, one check per
 * process, selection by name or by what works here. */
#ifndef PDK_BACKEND_H
#define PDK_BACKEND_H

#include <stddef.h>

#include "confine.h"

/* Compiled backends in order of preference, NULL-terminated. */
extern const struct pdk_backend *const pdk_backends[];

/* Comma-separated names of the compiled backends ("bwrap, landlock"). */
const char *pdk_backend_names(void);
const struct pdk_backend *pdk_backend_find(const char *name);
/* Probe b once per process (it may run the helper; for doctor); the
 * verdict and reason are cached. */
int pdk_backend_probe(const struct pdk_backend *b, const char **ret_why);
/* What a run asks: b's cheap check (available(), else probe()), cached, and
 * -ENOSYS once a run found b broken here. */
int pdk_backend_usable(const struct pdk_backend *b, const char **ret_why);
/* A run found b broken here (its helper could not set up): usable() and
 * probe() say so, with why, for the rest of the process. */
void pdk_backend_mark_broken(const struct pdk_backend *b, const char *why);

/* Forget what the checks of b found (its configuration changed). */
void pdk_backend_forget(const struct pdk_backend *b);

/* The configuration's helper binary for the backend called name (path
 * NULL: its built-in search); what its checks found with another one is
 * forgotten. 0 also when that backend is not compiled or runs no helper;
 * -EINVAL for a path it cannot use. */
int pdk_backend_set_helper(const char *name, const char *path);
/* The helper binary that backend runs, or NULL (none found, no helper, not
 * compiled). */
const char *pdk_backend_helper(const char *name);

/*
 * Pick a backend: the named one (which must be compiled and usable here), or
 * the first usable one. When an earlier one was passed over, *ret_fallback
 * says why (a static buffer); when none works, returns -ENOSYS with why.
 */
int pdk_backend_select(const char *name, const struct pdk_backend **ret, const char **ret_fallback,
		       char *why, size_t why_len);

#endif
