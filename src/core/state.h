/* state.h - where paddock keeps its own state, and the session whose calls
 * share it: every stage that writes bookkeeping finds its directory here. */
#ifndef PDK_STATE_H
#define PDK_STATE_H

#include <stdbool.h>

/* paddock's state: $XDG_STATE_HOME/paddock, else ~/.local/state/paddock.
 * Returns a new string or NULL (no home). */
char *pdk_state_dir(void);
/* The session name from PADDOCK_SESSION: default "default"; -EINVAL when it
 * is not 1-64 of [A-Za-z0-9._-] (and not "." or ".."). */
int pdk_session_name(const char **ret);
/* 1 to 64 of A-Z a-z 0-9 . _ -, and neither "." nor "..". */
bool pdk_session_name_valid(const char *s);

#endif
