/* state.c - where paddock keeps its own state ($XDG_STATE_HOME/paddock) and
 * the name of the session whose calls share it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

char *pdk_state_dir(void)
{
	const char *state = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	char *ret = NULL;

	if (state && state[0] == '/') {
		if (asprintf(&ret, "%s/paddock", state) < 0)
			return NULL;
	} else if (home && home[0] == '/') {
		if (asprintf(&ret, "%s/.local/state/paddock", home) < 0)
			return NULL;
	}
	return ret;
}

int pdk_session_name(const char **ret)
{
	const char *s = getenv("PADDOCK_SESSION");

	if (!s || !*s) {
		*ret = "default";
		return 0;
	}
	if (!pdk_session_name_valid(s))
		return -EINVAL;
	*ret = s;
	return 0;
}

bool pdk_session_name_valid(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n <= 64 && strcmp(s, ".") != 0 && strcmp(s, "..") != 0 &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == n;
}
