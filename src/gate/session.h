/* session.h - what one session (PADDOCK_SESSION) remembers between calls: the
 * programs a person approved for the rest of the session, and the cd directory. */
#ifndef PDK_SESSION_H
#define PDK_SESSION_H

#include <stdbool.h>

/*
 * State lives under $XDG_STATE_HOME/paddock/sessions/SESSION/ (else
 * ~/.local/state/paddock/...): directories 0700, files 0600, each file
 * replaced whole (temp file + rename), so a reader never sees half of one.
 * Every function takes the session name; NULL means the one from
 * PADDOCK_SESSION (pdk_session_name(), "default" when unset). A name that is
 * not 1-64 of [A-Za-z0-9._-] is -EINVAL.
 */

/* The session's directory, made (with its parents) when missing. Returns 0
 * and a new string in ret, -ENOENT when there is no home to keep it under,
 * -ENOTDIR when something that is not our own directory sits in its place. */
int pdk_session_dir(const char *session, char **ret);

/* The longest approval line kept. */
#define PDK_SESSION_LINE_MAX 16384

/* An approval line that can be remembered: non-empty, at most
 * PDK_SESSION_LINE_MAX bytes, no '\n' (one per line of the approvals file,
 * matched whole). What a line means is the gate's (gate/grant.c). */
bool pdk_session_program_valid(const char *program);

/* Is this line among the session's approvals? 1 yes, 0 no (also for a line
 * that could never have been stored), or -errno. */
int pdk_session_approved(const char *session, const char *program);

/* The session's approvals file whole, a new string in ret: 0, -ENOENT when
 * there is none, or -errno (-EPERM for a file that is not our own). */
int pdk_session_approvals(const char *session, char **ret);

/* Remember an approval line for the rest of the session. 0 (also when it was
 * already there), -EINVAL for a line pdk_session_program_valid() refuses, or
 * -errno. Concurrent calls do not lose each other's lines. */
int pdk_session_approve(const char *session, const char *program);

/*
 * The session's working directory for calls launched in launch (the
 * absolute directory paddock was started in), as `cd` set it: each launch
 * directory has its own, so one project's cd never moves another's calls.
 * 0 and a new string in ret; -ENOENT when none was set (the calls run in
 * launch), -EINVAL for a launch that is not absolute, or -errno.
 */
int pdk_session_cwd_get(const char *session, const char *launch, char **ret);

/* Set it: abs_dir must be absolute (-EINVAL otherwise); it is stored as
 * given, not checked here (the cd command verifies it first). NULL, or
 * launch itself, forgets it: calls run in launch again. */
int pdk_session_cwd_set(const char *session, const char *launch, const char *abs_dir);

#endif
