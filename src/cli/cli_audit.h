/* cli_audit.h - what a call writes to the audit log (audit/audit.h): its decision,
 * the confirm gate's question and answer, and its outcome. */
#ifndef PDK_CLI_AUDIT_H
#define PDK_CLI_AUDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "cli_call.h"
#include "output/render.h"
#include "run/runner.h"

/* How the command was confined, for the outcome. */
struct pdk_cli_outcome {
	enum pdk_failure failure; /* PDK_FAIL_NONE: it ran */
	const char *error;	  /* failure: the one line the result gave */
	const struct pdk_run_status *st; /* it ran: how it ended */
	/* "sandbox", "nested" (under another sandbox, not paddock's), "outside" (approved
	 * once), "none" (the sandbox is off), "paddock" (rm to the trash, by paddock) */
	const char *confinement;
	const char *backend;	 /* NULL: none */
	const char *network;	 /* "off", "domains", "on"; NULL: not confined */
	const char *const *refusals; /* the sandbox: lines on refused writes */
	size_t n_refusals;
	const char *const *notes; /* the sandbox's own lines */
	size_t n_notes;
};

/* The decision, under a new call id kept in c->audit_id. A log that cannot be written
 * stops nothing: why is kept in c->audit_why, for the result to say. */
void pdk_cli_audit_decision(struct pdk_cli_call *c);
/* When the gate was asked: its question and answer. */
void pdk_cli_audit_approval(struct pdk_cli_call *c);
/* The outcome of the call whose decision was logged (nothing otherwise). */
void pdk_cli_audit_outcome(struct pdk_cli_call *c, const struct pdk_cli_outcome *o);

#endif
