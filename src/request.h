/* request.h - one call, however it arrived (CLI options, JSON, MCP): what to
 * run, where, for how long, and with what confinement. */
#ifndef PDK_REQUEST_H
#define PDK_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

struct pdk_request {
	char **argv;            /* the program and its arguments (borrowed) */
	double timeout;         /* seconds, after clamping */
	double timeout_asked;   /* what was asked, 0: the default */
	bool timeout_clamped;
	size_t bound;           /* bytes the result may take */
	bool json;
	bool no_sandbox;        /* a person turned confinement off */
	bool network;
	bool print_profile;
	const char *cwd;        /* where the command runs; NULL: here */
	const char *root;       /* the writable project directory; NULL: here */
	const char *backend;    /* NULL: the first that works */
	const char **writes;    /* extra writable paths, n_writes entries */
	size_t n_writes;
};

void pdk_request_release(struct pdk_request *o);

#endif
