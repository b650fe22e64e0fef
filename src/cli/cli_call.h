/* cli_call.h - the stage every verb that takes a command shares before
 * anything runs: options, configuration, working directory, decision, gate. */
#ifndef PDK_CLI_CALL_H
#define PDK_CLI_CALL_H

#include <stdbool.h>

#include "audit/audit.h"
#include "cli.h"
#include "config/config.h"
#include "confine/grants.h"
#include "gate/gate.h"
#include "policy/policy.h"
#include "core/request.h"

struct pdk_cli_call {
	struct pdk_request o;
	const struct pdk_cli_face *face; /* NULL: the command line's */
	struct pdk_config cfg;
	const char *session;
	char *launch;               /* absolute: where paddock was started */
	char *session_cwd;          /* where the session's last cd from launch went, if any */
	bool stale_cwd;             /* that directory is gone: the call runs in launch */
	char *cwd;                  /* absolute: where the command runs */
	char *line;                 /* the call as one shell-quoted line */
	struct pdk_decision d;
	struct pdk_strv password;   /* -w paths outside $HOME */
	struct pdk_strv roots;	    /* the writable roots as the policy sees them */
	struct pdk_strv writes;	    /* -w paths, resolved, for the question */
	struct pdk_strv reads;	    /* --read paths, absolute (o.reads points at them) */
	struct pdk_strv widen;	    /* --root, a configuration that widens: named when asked */
	char *grant[PDK_GRANT_N];   /* each host socket granted (by call or configuration),
				     * found once when the call is read; NULL: not granted */
	bool grant_by_call[PDK_GRANT_N]; /* that grant is the call's own: it is asked */
	struct pdk_strv gpu;	    /* --gpu's device nodes, found once; empty: not granted */
	bool config_widens;	    /* then its own approval settings answer nothing */
	struct pdk_gate_result g;
	bool gated;		    /* the gate was asked: g holds its answer */
	char audit_id[PDK_AUDIT_ID_LEN + 1]; /* the call in the audit log; "": not logged */
	char audit_why[320];	    /* why the log could not be written; "": it was */
	char *refusal;              /* set: nothing runs; one line saying why */
	char why[1200];             /* pdk_cli_call_init()'s failure: "VERB: what is wrong" */
};

/* Take the request (its allocations become c's), read the configuration, find
 * the working directory. Returns -EINVAL on bad input with one line in c->why,
 * printing nothing: the verb says it as its output format wants. */
int pdk_cli_call_init(struct pdk_cli_call *c, const char *verb, struct pdk_request *req,
		      const struct pdk_cli_face *face);
/* The same, from run's options and command in argv: a bad option fails as
 * above, with c->o.json saying whether --json was among them. */
int pdk_cli_call_init_argv(struct pdk_cli_call *c, const char *verb, int argc, char **argv,
			   const struct pdk_cli_face *face);
/* The decision; a refusal lands in c->refusal. -errno only when out of memory. */
int pdk_cli_call_decide(struct pdk_cli_call *c);
/* A call paddock composed (paddock pkg): no policy, the decision says ask
 * (with what as the question) or run. -ENOMEM only. */
int pdk_cli_call_decide_preset(struct pdk_cli_call *c, bool ask, const char *what);
/* Does the call need a person's yes: the decision asks, a write path outside
 * $HOME needs a password, or the call asks to run outside the sandbox? */
bool pdk_cli_call_needs_gate(const struct pdk_cli_call *c);
/* Would an "a" given earlier in the session let it pass unasked? 1, 0 or -errno. */
int pdk_cli_call_session_covers(const struct pdk_cli_call *c);
/* The confirm gate, when the decision or the call needs a person's yes. */
int pdk_cli_call_gate(struct pdk_cli_call *c);
void pdk_cli_call_release(struct pdk_cli_call *c);

/* Read the configuration (only path when given) into cfg, which is then
 * initialised whatever happens; unknown keys warned about when warn. Prints
 * "VERB: configuration: ..." and returns -EINVAL on a bad file. */
int pdk_cli_config_load(const char *verb, const char *path, bool warn, struct pdk_config *cfg);
/* The same, the error line ("VERB: configuration: ...") into why instead; a
 * face that read the configuration already (the MCP server's) lends its copy,
 * which the call may release (pdk_cli_config_done). */
int pdk_cli_config_load_why(const struct pdk_cli_face *face, const char *verb, const char *path,
			    bool warn, struct pdk_config *cfg, char *why, size_t why_len);
/* Release what pdk_cli_config_load_why() read, unless the face lent it. */
void pdk_cli_config_done(const struct pdk_cli_face *face, struct pdk_config *cfg);
/* Was --json among the options of argv (before the program)? For saying a
 * bad option in the form asked for, when parsing stopped before it. */
bool pdk_cli_wants_json(int argc, char **argv);
/* Where the output store is (output.storeDir, else the default), or NULL with
 * the one-line error printed. */
char *pdk_cli_store_dir(const char *verb, const struct pdk_config *cfg);
/* The same, the error line into why instead. */
char *pdk_cli_store_dir_why(const char *verb, const struct pdk_config *cfg, char *why,
			    size_t why_len);

#endif
