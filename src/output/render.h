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

struct pdk_render_in {
	const struct pdk_capture *out, *err;
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

int pdk_render(const struct pdk_render_in *in, struct pdk_render_out *ret);
void pdk_render_out_release(struct pdk_render_out *out);

#endif
