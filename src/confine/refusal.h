/* refusal.h - when a confined command fails on a write the sandbox refused,
 * one sandbox: line naming the path, the writable roots, and how to ask. */
#ifndef PDK_REFUSAL_H
#define PDK_REFUSAL_H

#include <stddef.h>

#define PDK_REFUSAL_MAX 3

/*
 * Scan text (command output) for refused writes ("Operation not permitted",
 * "Permission denied", "Read-only file system", "Device or resource busy" in any
 * case, Python's [Errno 1|13|16|30], Java's AccessDeniedException, "PATH is not writable.", and
 * a reason alone on a line below its path, as cargo prints it), resolve each
 * path against cwd, and write up to max lines into lines[i]. Returns how many.
 */
size_t pdk_refusal_hints(const char *text, size_t text_len, const char *cwd,
			 const char *const *roots, size_t n_roots, char lines[][768], size_t max);

/*
 * The same, where a path refused inside a root that is or lies in one of the n_held paths
 * paddock holds read-only (protected paths) is named as such, with why, instead of a guess;
 * "Device or resource busy" (a held path moved or removed) counts as a refusal too.
 */
size_t pdk_refusal_hints_held(const char *text, size_t text_len, const char *cwd,
			      const char *const *roots, size_t n_roots, const char *const *held,
			      size_t n_held, char lines[][768], size_t max);

#endif
