/* request.h - one call, however it arrived (CLI options, JSON, MCP): what to
 * run, where, for how long, and with what confinement. */
#ifndef PDK_REQUEST_H
#define PDK_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

/* --allow-git-hooks as the question names it (raised: ...), and as a session approval
 * remembers it. */
#define PDK_WIDEN_GIT_HOOKS                                                                        \
	"installs git hooks: writes .git/hooks and core.hooksPath, which your own git runs "     \
	"later, outside the sandbox (--allow-git-hooks)"
/* --allow-agent-config as the question names it. */
#define PDK_WIDEN_AGENT_CONFIG                                                                     \
	"writes agent and editor configuration (.claude, .codex, .cursor, .gemini, .mcp.json, "  \
	".vscode, .idea, ...), which those tools run later, outside the sandbox "                \
	"(--allow-agent-config)"
/* --read PATH as the question names it (the path follows). */
#define PDK_WIDEN_READ "reads a secret the sandbox keeps unread (--read): "
/* --no-sandbox given by the call itself, as the question names it. */
#define PDK_WIDEN_NO_SANDBOX                                                                       \
	"runs with no sandbox at all: it may write anywhere you can and reach any host "         \
	"(--no-sandbox)"

/* One call, filled once by the face it came through: the CLI's options
 * (pdk_cli_parse_run), a JSON request or MCP arguments (pdk_agent_run_request),
 * whose strings it borrows. */
struct pdk_request {
	char **argv;            /* the program and its arguments (borrowed) */
	char **argv_alloc;      /* argv's array when the request made it (JSON); owned */
	double timeout;         /* seconds, after clamping to timeout_cap */
	double timeout_asked;   /* what was asked, 0: the default */
	double timeout_cap;     /* the most allowed */
	bool timeout_clamped;
	size_t bound;           /* bytes the result may take; 0 until the config is applied */
	bool json;
	bool no_sandbox;        /* confinement off: by the configuration, or asked */
	bool no_sandbox_asked;  /* --no-sandbox: the call asked for it (a widening) */
	bool outside_sandbox;   /* ask a person to run this one call unconfined */
	bool allow_git_hooks;   /* let it write git hooks and core.hooksPath (asked) */
	bool ssh_agent;         /* --ssh-agent: the host's ssh-agent reachable (asked) */
	bool docker;            /* --docker: the Docker or Podman socket reachable (asked) */
	bool gpu;               /* --gpu: the GPU device nodes open to it (asked) */
	bool allow_agent_config; /* let it write agent and editor configuration (asked) */
	bool yes;               /* --yes: approve what the confirm gate would ask */
	bool network;
	bool print_profile;
	const char *cwd;        /* where the command runs; NULL: here */
	const char *root;       /* the writable project directory; NULL: here */
	const char *backend;    /* NULL: the configured one, or the first that works */
	const char *config;     /* --config FILE; NULL: the system and user files */
	const char **writes;    /* extra writable paths, n_writes entries */
	size_t n_writes;
	size_t n_server_writes; /* writes[0..n): the MCP server's own -w, not asked about */
	const char **domains;   /* --allow-domain patterns, n_domains entries */
	size_t n_domains;
	const char **reads;     /* --read: secrets this call may read (asked), n_reads entries */
	size_t n_reads;
	int zygote_host;        /* > 2: the resident session's zygote host (run/zygote.h) */
};

struct pdk_config;
/* Fill what the call left to the configuration: the timeout (clamped to the
 * configured cap), the bound, the backend, network for every call. */
void pdk_request_apply_config(struct pdk_request *o, const struct pdk_config *cfg);
void pdk_request_release(struct pdk_request *o);

#endif
