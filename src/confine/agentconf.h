/* agentconf.h - the agent and editor configuration a tool reads at start-up to decide what to
 * run (hooks, MCP servers, tasks), in a project and in the home directory: held like hooks. */
#ifndef PDK_AGENTCONF_H
#define PDK_AGENTCONF_H

#include <stdbool.h>

/* Names in a project root (NULL-terminated). */
extern const char *const pdk_agentconf_project[];
/* Names in the home directory (NULL-terminated). */
extern const char *const pdk_agentconf_home[];

/* Is path (absolute) one of those names, or below one, in any directory? */
bool pdk_agentconf_is(const char *path);

#endif
