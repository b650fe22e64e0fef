/* bwrap_int.h - what bwrap.c takes from bwrap_probe.c. */
#ifndef PDK_BWRAP_INT_H
#define PDK_BWRAP_INT_H

#include <stddef.h>

/* Find the bwrap binary (the configured one, the built-in path, /usr/bin/bwrap, then PATH),
 * once per process: 0, or -errno when there is none. pdk_bwrap_locate() then names it. */
int pdk_bwrap_find(void);
/* The backend's probe(): the namespaces, /proc and a bind by descriptor, with /bin/true. */
int pdk_bwrap_probe(char *why, size_t why_len);
/* The backend's available(): the binary is there; runs nothing. */
int pdk_bwrap_available(char *why, size_t why_len);

#endif
