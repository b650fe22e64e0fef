/* config.h - paddock's configuration: built-in defaults, then
 * /etc/paddock/config.json, then $XDG_CONFIG_HOME/paddock/config.json (or
 * only --config FILE); a later file wins key by key, lists add up. */
#ifndef PDK_CONFIG_H
#define PDK_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <pcre2.h>

#include "core/strv.h"

enum pdk_risk { PDK_RISK_SAFE, PDK_RISK_MODERATE, PDK_RISK_DANGEROUS };

enum pdk_approval_mode {
	PDK_APPROVAL_AUTO,    /* not configured: ask on a terminal, else deny */
	PDK_APPROVAL_ASK,
	PDK_APPROVAL_DENY,
	PDK_APPROVAL_ALLOW,
	PDK_APPROVAL_COMMAND, /* approval.command gets the request as JSON */
};


/* A PCRE2 pattern from the configuration (or a shipped default). */
struct pdk_pattern {
	char *source; /* as written */
	char *where;  /* "FILE:LINE:COL" where it was written, or "built-in" */
	pcre2_code *re;
};

/* A risk rule: a simple command whose text matches is at least this risky. */
struct pdk_risk_rule {
	char *name; /* shown as the rule that set the class */
	struct pdk_pattern match;
	enum pdk_risk risk;
	char *why; /* one line shown to the person who is asked */
};

struct pdk_config {
	/* commandPolicy */
	struct pdk_pattern *deny;
	size_t n_deny;
	struct pdk_pattern *allow;
	size_t n_allow;
	bool sandbox_enabled;          /* commandPolicy.sandbox.enabled (true) */
	bool allow_network;            /* .allowNetwork (false): true = network for every call */
	struct pdk_strv writable_paths; /* .writablePaths, ~ expanded, not yet resolved */
	struct pdk_strv allowed_domains; /* .allowedDomains: reached through the proxy, unasked */
	struct pdk_strv allow_unix_sockets; /* .allowUnixSockets: host unix sockets a run may reach */
	struct pdk_strv allow_local_addresses; /* .allowLocalAddresses: addresses and CIDR blocks
						* of the host's own that allowed names may reach */
	struct pdk_strv deny_read;     /* .denyRead: secrets added to the default list */
	struct pdk_strv allow_read;    /* .allowRead: taken from it */
	bool allow_outside_sandbox;    /* .allowOutsideSandbox (false) */
	bool allow_ssh_agent;          /* .allowSshAgent (false): calls reach $SSH_AUTH_SOCK */
	bool allow_docker;             /* .allowDocker (false): calls reach Docker's socket */
	bool allow_gpu;                /* .allowGpu (false): calls open the GPU's nodes */
	char *backend;                 /* .backend: NULL = the first that works */
	char *bwrap;                   /* .bwrap: absolute path of bubblewrap, NULL = built-in */
	unsigned long max_procs;       /* .maxProcesses (0 = paddock's default) */
	bool tool_caches;              /* .toolCaches (true): package tools' caches under paddock's */
	/* Lists added to the shipped ones. */
	struct pdk_strv read_only_command; /* "git status", "ls" */
	struct pdk_strv denied_command;    /* program names */
	struct pdk_strv sensitive_paths;   /* ~ expanded */
	struct pdk_strv protected_paths;   /* names inside a root: ".envrc", ".git/info" */
	struct pdk_strv env;               /* secret-variable fnmatch patterns */
	/* timeouts, in seconds */
	double timeout_default;        /* 120 */
	double timeout_cap;            /* 1800 */
	/* output */
	size_t bound;                  /* 16 KiB */
	size_t store_cap;              /* bytes kept per output, 16 MiB */
	char *store_dir;               /* NULL = $XDG_STATE_HOME/paddock/outputs */
	/* trash: what paddock put there expires */
	unsigned long trash_max_age_days; /* 30; 0 = never by age */
	size_t trash_max_size;            /* 1 GiB; 0 = no cap */
	/* approval */
	enum pdk_approval_mode approval_mode;
	enum pdk_risk threshold;       /* moderate */
	char *approval_command;        /* argv[0]-style program path; run with no shell */
	bool approval_out_of_band;     /* `paddock approvals` may answer a waiting call */
	/* pkg */
	char *pkg_manager;             /* pkg.manager: NULL = detected */
	/* risk: rules from the configuration; the shipped ones come after. */
	struct pdk_risk_rule *risk_rules;
	size_t n_risk_rules;
	/* the files that were read, in order */
	struct pdk_strv files;
};

/* Defaults only; nothing is read. */
void pdk_config_init(struct pdk_config *cfg);

/*
 * Read the configuration into cfg (which pdk_config_init set up): the system
 * and user files when path is NULL (a missing file is fine), else only path
 * (which must exist). Unknown keys are not errors: each gives one line to
 * warn(ctx, line) naming the key and its file:line:col. Returns 0, or -EINVAL
 * with why = "FILE:LINE:COL: KEY.PATH: what is wrong; what to do" (bad JSON,
 * wrong type, bad value, invalid pattern); cfg is then still releasable.
 */
int pdk_config_load(struct pdk_config *cfg, const char *path,
		    void (*warn)(void *ctx, const char *line), void *ctx, char *why,
		    size_t why_len);

/* One file into cfg (the building block of pdk_config_load): a missing file
 * is -ENOENT with why when must_exist, else 0 and nothing changes. */
int pdk_config_load_file(struct pdk_config *cfg, const char *path, bool must_exist,
			 void (*warn)(void *ctx, const char *line), void *ctx, char *why,
			 size_t why_len);

void pdk_config_release(struct pdk_config *cfg);

/* The user's configuration directory: $XDG_CONFIG_HOME/paddock, else
 * $HOME/.config/paddock; NULL when neither is an absolute path. */
char *pdk_config_user_dir(void);

/* Compile src into p (where is copied). -EINVAL with why on a bad pattern. */
int pdk_pattern_compile(struct pdk_pattern *p, const char *src, const char *where, char *why,
			size_t why_len);
void pdk_pattern_release(struct pdk_pattern *p);
/* Does the pattern match anywhere in text? */
bool pdk_pattern_match(const struct pdk_pattern *p, const char *text, size_t len);

const char *pdk_risk_name(enum pdk_risk r); /* "safe", "moderate", "dangerous" */
int pdk_risk_parse(const char *s, enum pdk_risk *ret); /* -EINVAL if none of those */


#endif
