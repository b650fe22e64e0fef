/* nobody.h - the environment that keeps a command from waiting for a person
 * it cannot reach: editors fail at once saying what to do, pagers are cat,
 * prompts are off. */
#ifndef PDK_NOBODY_H
#define PDK_NOBODY_H

#include <stdbool.h>

/*
 * "NAME=VALUE" entries (a new NULL-terminated vector; free with
 * pdk_strv_freep) to add to a command's environment: GIT_EDITOR, EDITOR,
 * VISUAL and GIT_SEQUENCE_EDITOR fail with a line saying what to pass
 * instead; GIT_PAGER, PAGER, MANPAGER and SYSTEMD_PAGER are cat; prompts are
 * off (GIT_TERMINAL_PROMPT=0, GCM_INTERACTIVE=never,
 * DEBIAN_FRONTEND=noninteractive, PIP_NO_INPUT=1, GIT_MERGE_AUTOEDIT=no).
 * A variable the environment already sets is the call's own and kept, but
 * an editor or pager variable naming a program that needs a terminal (vim,
 * nano, less...) is replaced. 0, or -ENOMEM.
 */
int pdk_nobody_env(char ***ret);

/* Does value (a command line) start with a program that needs a person at
 * a terminal? */
bool pdk_nobody_terminal_program(const char *value);

#endif
