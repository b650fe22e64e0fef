/* rmshim_layout.c - the names and checks the rm shim and its sweep agree on: the staging
 * area's name, run ids, slot numbers (the layout itself is described in rmshim_int.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rmshim_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *pdk_rmshim_stage_name(void)
{
	char *s;

	if (asprintf(&s, PDK_RMSHIM_STAGE_PREFIX "%u", (unsigned)getuid()) < 0)
		return NULL;
	return s;
}

bool pdk_rmshim_run_id_valid(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return i == PDK_RMSHIM_RUN_ID_LEN;
}

bool pdk_rmshim_digits(const char *s, size_t len)
{
	if (len == 0 || len > 9)
		return false;
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}
