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
	"allowGitHooks, sshAgent, docker, gpu, allowAgentConfig, readPaths"

/*
 * The run_command arguments (one JSON object) into req, over what it holds
 * already (the options of the command line or the MCP server): argv, json,
 * network, domains and writes appended, timeout, cwd, outside_sandbox,
 * allow_git_hooks. The strings stay args's: req borrows them, and its argv
 * array is req's own (pdk_request_release). Unknown keys and wrong types are
 * refused: -EINVAL with one line in why saying what is wrong and what to give
 * instead; -ENOMEM.
 */
struct pdk_request;
int pdk_agent_run_request(const struct cJSON *args, struct pdk_request *req, char *why,
			  size_t why_len);

/* The pkg_manage arguments as the words of `paddock pkg`: "--json", "--",
 * the action, the package. The name's shape is the verb's to check. */
#define PDK_AGENT_PKG_KEYS "action, package"
int pdk_agent_pkg_args(const struct cJSON *args, struct pdk_strv *ret, char *why, size_t why_len);

/* The recall_output arguments as the options of `paddock recall`, the same way. */
int pdk_agent_recall_args(const struct cJSON *args, struct pdk_strv *ret, char *why,
			  size_t why_len);

/* The options `paddock mcp` fixes for the server's life. */
struct pdk_agent_opts {
	/* run's options for every call (argv[0] "run"): --backend, --root, -w, --config,
	 * --bound; its -w are the first writes of each call, not asked about */
	struct pdk_strv run_opts;
	const char *config_path;	  /* --config FILE, which recall and pkg read too */
	const struct pdk_config *config; /* read once at the start: every call takes it */
	bool zygote;			  /* calls fork from confined zygotes (--no-zygote: not) */
};

/* Serve MCP on in/out until EOF on in. Returns 0, or -errno when it could not start. */
int pdk_agent_mcp_serve(const struct pdk_agent_opts *o, int in, int out);

#endif
