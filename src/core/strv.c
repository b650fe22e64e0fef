/* strv.c - string vectors (see strv.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "strv.h"

int pdk_strv_append(char ***v, size_t *n, char *s)
{
	char **nv;

	if (!s)
		return -ENOMEM;
	nv = realloc(*v, (*n + 2) * sizeof(*nv));
	if (!nv) {
		free(s);
		return -ENOMEM;
	}
	nv[(*n)++] = s;
	nv[*n] = NULL;
	*v = nv;
	return 0;
}

int pdk_strv_take(struct pdk_strv *sv, char *s)
{
	return pdk_strv_append(&sv->v, &sv->n, s);
}

int pdk_strv_push(struct pdk_strv *sv, const char *s)
{
	return pdk_strv_append(&sv->v, &sv->n, strdup(s));
}

void pdk_strv_freep(char ***v)
{
	if (!*v)
		return;
	for (char **p = *v; *p; p++)
		free(*p);
	free(*v);
	*v = NULL;
}

void pdk_strv_release(struct pdk_strv *sv)
{
	/* v stolen (steal_pointer(&sv->v)): nothing is left to free */
	for (size_t i = 0; sv->v && i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}
