/* sandbox.h - the confinement stage: from a request to writable roots,
 * protected paths, a scrubbed environment and a chosen backend, ready for
 * the runner. */
#ifndef PDK_SANDBOX_H
#define PDK_SANDBOX_H

#include <stdio.h>

#include "confine.h"
#include "request.h"
#include "runner.h"

struct pdk_sandbox {
	struct pdk_run_spec spec;      /* what the runner executes */
	const struct pdk_backend *backend;
	void *state;
	struct pdk_confine policy;
	char **roots, **protect;       /* owned, NULL-terminated */
	char **wrapped;                /* owned argv for wrapper backends */
	char **envp;                   /* owned array, borrowed strings */
	const char *notes[2];          /* result lines (sandbox: ...) */
	size_t n_notes;
	char note_buf[2][600];
};

/* Variables whose names match these (fnmatch, any case) never reach a
 * confined command. */
extern const char *const pdk_secret_env_default[];

int pdk_sandbox_setup(const struct pdk_request *req, const char *path, char **environ,
		      struct pdk_sandbox *sb, char *why, size_t why_len);
int pdk_sandbox_describe(const struct pdk_sandbox *sb, FILE *out);
void pdk_sandbox_release(struct pdk_sandbox *sb);

#endif
