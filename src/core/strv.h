/* strv.h - string vectors: NULL-terminated arrays of owned strings, so that
 * one can serve as an argv. The one grower, and a free that leaves NULL. */
#ifndef PDK_STRV_H
#define PDK_STRV_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* A vector and its count. {0} is the empty one. */
struct pdk_strv {
	char **v; /* NULL-terminated once anything was added; NULL when empty */
	size_t n;
};

/*
 * Append s to the vector v of *n strings, kept NULL-terminated. The vector
 * takes s: on failure s is freed, and a NULL s is -ENOMEM, so that
 * pdk_strv_append(&v, &n, strdup(x)) needs no test of its own. Returns 0 or
 * -ENOMEM; v is then as it was.
 */
int pdk_strv_append(char ***v, size_t *n, char *s);
/* The same for a struct pdk_strv: pdk_strv_take() takes s, pdk_strv_push()
 * appends a copy of it. */
int pdk_strv_take(struct pdk_strv *sv, char *s);
int pdk_strv_push(struct pdk_strv *sv, const char *s);

/* Free each string and the vector, and set *v to NULL (a NULL *v is fine). */
void pdk_strv_freep(char ***v);
/* Free a struct pdk_strv's strings and leave it empty; one whose v was
 * stolen (steal_pointer(&sv->v)) is only emptied. */
void pdk_strv_release(struct pdk_strv *sv);
#define _cleanup_strv_ __attribute__((cleanup(pdk_strv_freep)))

/* Is s one of the first n strings of v? */
static inline bool pdk_strv_contains(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

#endif
