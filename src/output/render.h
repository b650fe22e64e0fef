/* render.h - the result a model reads: exit status, each stream's head and
 * tail within the bound, and notes saying what was held back and where. */
#ifndef PDK_RENDER_H
#define PDK_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture.h"
#include "core/defaults.h"
#include "store.h"

/* Why a call did not run, or paddock failed around it. */
enum pdk_failure {
	PDK_FAIL_NONE = 0,	 /* the command ran (or `cd`, `rm`) */
	PDK_FAIL_BAD_REQUEST,	 /* bad option, bad -C, bad configuration */
	PDK_FAIL_REFUSED,	 /* the policy refused it */
	PDK_FAIL_NOT_APPROVED,	 /* the confirm gate got no yes */
	PDK_FAIL_NOT_FOUND,	 /* no such program */
	PDK_FAIL_NOT_EXECUTABLE, /* found, but it cannot be executed */
	PDK_FAIL_INTERNAL,	 /* paddock itself could not do it */
};

/* "bad_request", "refused", ...: the JSON result's error_kind. */
const char *pdk_failure_name(enum pdk_failure f);

/*
 * One result, whatever the outcome: the command's streams when it ran,
 * else the failure and why. The JSON form is described by
 * data/result.schema.json, the contract for every caller that reads it.
 */
struct pdk_render_in {
	/* The streams; NULL (both) when failure is set. */
	const struct pdk_capture *out, *err;
	enum pdk_failure failure;
	const char *error;	/* failure: one line saying why and what to do */
	const char *risk, *rule; /* refusals: the decision's class and rule; else NULL */
	/* Where the command ran (absolute), or would have; NULL: unknown. */
	const char *cwd;
	bool show_cwd;	/* text: a "cwd:" line (it is not the launch directory) */
	int exit_code;	/* what paddock exits with */
	int exit_status;  /* the code, or the signal negated */
	bool timed_out, stopped;
	double duration;  /* seconds */
	/* Lines added after the streams (timed out:, stopped:, sandbox: ...),
	 * each without '\n'; borrowed. */
	const char *const *notes;
	size_t n_notes;
	/* Writes the sandbox refused (sandbox: ... lines): after the notes in
	 * text, a field of their own in JSON; borrowed. */
	const char *const *hints;
	size_t n_hints;
	size_t bound;     /* bytes the whole result may take */
	bool json;
	/* JSON only: the network mode ("off", "domains", "on"; NULL: no
	 * sandbox), the allowed domains and those the proxy refused; borrowed. */
	const char *network;
	const char *const *domains;
	size_t n_domains;
	const char *const *refused_domains;
	size_t n_refused_domains;
	/* JSON only: the host unix sockets the command could reach, by path
	 * (allowUnixSockets); borrowed. */
	const char *const *unix_sockets;
	size_t n_unix_sockets;
	/* Where held-back output is kept; NULL: no store. */
	struct pdk_store_entry *store;
	/* Set: the output was kept already, by an earlier rendering of this
	 * same run (text after JSON): name that copy, write no second one. */
	const struct pdk_store_result *kept;
};

/* What was held back of one stream, in the stored output's line numbers. */
struct pdk_held {
	bool any;
	uint64_t first_line, last_line, bytes;
};

struct pdk_render_out {
	char *text; /* NUL-terminated; free() it */
	size_t len;
	struct pdk_held held[3]; /* [1] stdout, [2] stderr */
	bool stored;
	struct pdk_store_result stored_as;
};

/* The result as text or one JSON object (in->json), within in->bound. A
 * failure renders as "error: ..." in text, as the whole object in JSON. */
int pdk_render(const struct pdk_render_in *in, struct pdk_render_out *ret);
void pdk_render_out_release(struct pdk_render_out *out);

#endif
