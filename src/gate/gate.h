/* gate.h - the confirm gate: who says yes to a call the policy would not run on
 * its own (verdict ASK, or --outside-sandbox), and what the refusal tells the model. */
#ifndef PDK_GATE_H
#define PDK_GATE_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"
#include "policy/policy.h"

/* How long approval.command may take before it is killed and counts as no. */
#define PDK_GATE_COMMAND_TIMEOUT 120.0

struct pdk_gate_request {
	const char *line;	      /* the whole call as one line, as the person should see it */
	const struct pdk_decision *d; /* the policy's decision */
	const char *session;	      /* NULL: PADDOCK_SESSION, else "default" */
	const char *cwd;	      /* where it would run (shown and sent to approval.command) */
	const char *project;	      /* the project (first writable root); NULL: cwd */
	bool outside_sandbox;	      /* --outside-sandbox: asked every time, approved once only */
	/* write paths outside $HOME: the yes must be backed by the person's password */
	const char *const *password_paths;
	size_t n_password_paths;
	/* A front end's approver over a socket (the MCP server's elicitation):
	 * asked instead of the terminal in modes auto and ask when remote is set. */
	bool remote;
	int remote_fd;
	/* The rest is for tests; leave zero. */
	double command_timeout; /* seconds for approval.command; 0: PDK_GATE_COMMAND_TIMEOUT */
	const char *sudo;	/* the re-authentication program; NULL: /usr/bin/sudo */
};

struct pdk_gate_result {
	bool approved;
	bool asked;	 /* a person or approval.command was asked (not --yes, not memory) */
	bool remembered; /* "yes for this program" was stored for the session */
	/* Who approved: "the person at the terminal", "the person at the terminal, with
	 * their password", "--yes", "approval.mode allow", "approval command PATH",
	 * "session approval for `git stash`". NULL when refused. */
	char *by;
	/* Refused: one line, "command not approved: ...", saying why and what to do
	 * instead. NULL when approved. */
	char *message;
};

/*
 * Decide whether the call in rq may run. yes is --yes. Who is asked follows
 * cfg->approval_mode:
 *   AUTO     ask on the terminal when /dev/tty opens and paddock is in its
 *            foreground, else as deny;
 *   ASK      open /dev/tty (never stdin/stdout/stderr), show the call and ask:
 *            y = yes once, a = yes for the rest of the session to these
 *            commands (`git stash`), anything else, EOF or Ctrl-C = no;
 *   DENY     refuse, saying no one can be asked;
 *   ALLOW    (or yes) approve, and say so in by;
 *   COMMAND  run cfg->approval_command (no shell, own process group, the
 *            request as one JSON object on stdin, output kept for the refusal),
 *            approve on exit 0; killed after the timeout, which is a no.
 * A call a person approved with "a" covers passes without asking, in every
 * mode: each of its programs that is not read-only is a file approved (same
 * path, same file), with the same subcommand and no higher risk class, the
 * call's widenings are among those approved, in the same project, and the
 * call is no riskier (see grant.c). Never outside_sandbox and password-backed calls. Those two are
 * approved once only, and only by someone who can be asked: --yes and
 * approval.mode allow do not count; a password can only be typed on the terminal
 * (`sudo -k -v`, then `sudo -k` so no credential stays cached).
 *
 * This is the one library function that talks to a person: it writes the
 * prompt to /dev/tty and reads the answer there. Returns 0 with the outcome
 * in ret (refusals included), or -ENOMEM / -EINVAL (no decision in rq).
 */
int pdk_gate_decide(const struct pdk_config *cfg, bool yes, const struct pdk_gate_request *rq,
		    struct pdk_gate_result *ret);
void pdk_gate_result_release(struct pdk_gate_result *r);

/* Would an "a" given earlier in rq->session let this call pass unasked?
 * 1 yes, 0 no, or -errno. */
int pdk_gate_session_covers(const struct pdk_gate_request *rq);

/* The JSON object approval.command receives on stdin (a new string, or NULL). */
char *pdk_gate_request_json(const struct pdk_config *cfg, const struct pdk_gate_request *rq);

#endif
