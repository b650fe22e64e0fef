/* agent.h - the faces agent harnesses use: the MCP server (`paddock mcp`) and
 * the JSON request of `paddock run --request`; both end in `paddock run`. */
#ifndef PDK_AGENT_H
#define PDK_AGENT_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"

struct cJSON;

/* The names run_command takes, for messages and the schema. */
#define PDK_AGENT_RUN_KEYS                                                                         \
	"argv, network, allowDomains, writePaths, timeoutSeconds, workingDirectory, outsideSandbox, "  \
	"allowGitHooks, readPaths"

/*
 * The run_command arguments (one JSON object) as the options of `paddock
 * run`: appended to ret as "--json", per-call options, "--", the argv.
 * Unknown keys and wrong types are refused: -EINVAL with one line in why
 * saying what is wrong and what to give instead.
 */
int pdk_agent_run_args(const struct cJSON *args, struct pdk_strv *ret, char *why, size_t why_len);

/* The pkg_manage arguments as the words of `paddock pkg`: "--json", "--",
 * the action, the package. The name's shape is the verb's to check. */
#define PDK_AGENT_PKG_KEYS "action, package"
int pdk_agent_pkg_args(const struct cJSON *args, struct pdk_strv *ret, char *why, size_t why_len);

/* The recall_output arguments as the options of `paddock recall`, the same way. */
int pdk_agent_recall_args(const struct cJSON *args, struct pdk_strv *ret, char *why,
			  size_t why_len);

/* The options `paddock mcp` fixes for the server's life. */
struct pdk_agent_opts {
	struct pdk_strv run_opts; /* given to every run: --backend, --root, -w, --config, --bound */
	const char *config;	  /* --config FILE, for the server's own reading */
};

/* Serve MCP on in/out until EOF on in. Returns 0, or -errno when it could not start. */
int pdk_agent_mcp_serve(const struct pdk_agent_opts *o, int in, int out);

#endif
