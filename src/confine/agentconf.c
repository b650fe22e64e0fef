/* agentconf.c - the agent and editor configuration held like git's hooks: each entry names
 * a file a tool reads when it starts and that tells it what to run, with no one asked. */
#include <stdbool.h>
#include <string.h>

#include "agentconf.h"

/*
 * In a project. Left out on purpose: instructions a model reads (.github/copilot-instructions.md,
 * .cursorrules, .windsurf/rules, CLAUDE.md), which run nothing themselves; version pins
 * (.tool-versions), which name versions, not programs; mise.toml, whose hooks run only once a
 * person has trusted the file.
 */
const char *const pdk_agentconf_project[] = {
	".claude",	   /* Claude Code: hooks and MCP servers in settings.json */
	".mcp.json",	   /* MCP servers, started by the agent that opens the project */
	".codex",	   /* Codex: config.toml's mcp_servers */
	".cursor",	   /* Cursor: mcp.json, hooks.json */
	".gemini",	   /* Gemini CLI: settings.json's mcpServers and tool commands */
	".continue",	   /* Continue: mcpServers in its config */
	".amazonq",	   /* Amazon Q: mcp.json */
	".roo",		   /* Roo Code: mcp.json */
	".aider.conf.yml", /* aider: lint-cmd and test-cmd, run after each edit */
	".vscode",	   /* tasks run on folder open, settings that name programs */
	".idea",	   /* JetBrains: run configurations, startup tasks, external tools */
	".zed",		   /* Zed: tasks and language servers by path */
	".devcontainer",   /* initializeCommand runs on the host when the folder opens */
	".envrc",	   /* direnv runs it on entering the directory */
	NULL,
};

/* In the home directory: the same tools' user configuration. */
const char *const pdk_agentconf_home[] = {
	".claude", ".claude.json", ".codex", ".cursor", ".gemini", ".continue",
	".aider.conf.yml", ".vscode", ".config/Code/User", ".config/zed", ".config/JetBrains",
	NULL,
};

static bool component_is(const char *c, size_t len, const char *const *names)
{
	for (size_t i = 0; names[i]; i++)
		if (!strchr(names[i], '/') && strlen(names[i]) == len && !strncmp(c, names[i], len))
			return true;
	return false;
}

bool pdk_agentconf_is(const char *path)
{
	for (const char *p = strchr(path, '/'); p; p = strchr(p + 1, '/')) {
		const char *next = strchr(p + 1, '/');
		size_t len = next ? (size_t)(next - p - 1) : strlen(p + 1);

		if (component_is(p + 1, len, pdk_agentconf_project) ||
		    component_is(p + 1, len, pdk_agentconf_home))
			return true;
		/* A name of more than one part (.config/zed) starting here. */
		for (size_t i = 0; pdk_agentconf_home[i]; i++) {
			size_t n = strlen(pdk_agentconf_home[i]);

			if (strchr(pdk_agentconf_home[i], '/') &&
			    !strncmp(p + 1, pdk_agentconf_home[i], n) &&
			    (!p[1 + n] || p[1 + n] == '/'))
				return true;
		}
	}
	return false;
}
