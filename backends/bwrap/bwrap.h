/* bwrap.h - what the bubblewrap backend takes besides the policy: where the
 * bwrap binary is (configuration). */
#ifndef PDK_BWRAP_H
#define PDK_BWRAP_H

/* Use this bwrap (an absolute path; NULL: the built-in one, then PATH); the
 * path is copied. Returns 1 when that changed which bwrap is used (verdicts
 * cached about the old one no longer hold), 0 when it did not, or -EINVAL for
 * a relative path or one too long. */
int pdk_bwrap_set_path(const char *path);

/* The bwrap binary the backend runs (the configured one, the built-in path,
 * /usr/bin/bwrap, then PATH), or NULL when there is none. */
const char *pdk_bwrap_locate(void);

#endif
