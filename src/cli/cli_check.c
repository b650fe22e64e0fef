/* cli_check.c - `paddock check`: the decision a run would make, step by
 * step, without running or asking anything. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_call.h"

static const char check_usage[] =
	"usage: paddock check [--json] [RUN OPTIONS] -- PROGRAM [ARG...]\n"
	"Prints what 'paddock run' would decide for the same call: the simple commands\n"
	"found, the rule that matched each, read-only or not, and what would be asked.\n"
	"Exit status: 0 runs now, 1 a person would be asked, 2 refused, 125 bad input.\n";

enum { CHECK_RUNS = 0, CHECK_ASKS = 1, CHECK_REFUSED = 2 };

int pdk_cli_check_main(int argc, char **argv)
{
	struct pdk_cli_call c;
	int r, code = PDK_EXIT_FAILURE;

	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(check_usage, stdout);
		return 0;
	}
	if (pdk_cli_call_init(&c, "check", argc, argv) < 0)
		goto out;
	if ((r = pdk_cli_call_decide(&c)) < 0) {
		pdk_cli_error("check: %s", strerror(-r));
		goto out;
	}
	bool asks = !c.refusal && pdk_cli_call_needs_gate(&c);
	code = c.refusal ? CHECK_REFUSED : asks ? CHECK_ASKS : CHECK_RUNS;
	if (c.o.json) {
		cJSON *o = pdk_decision_json(&c.d);
		char *text = NULL;
		if (o) {
			cJSON_ReplaceItemInObject(o, "verdict",
						  cJSON_CreateString(c.refusal ? "refuse"
								     : asks    ? "ask"
									       : "run"));
			text = cJSON_PrintUnformatted(o);
		}
		cJSON_Delete(o);
		if (!text) {
			pdk_cli_error("check: out of memory");
			code = PDK_EXIT_FAILURE;
			goto out;
		}
		puts(text);
		free(text);
		goto out;
	}
	/* The decision, then what the call adds to it. */
	pdk_decision_print(&c.d, stdout);
	for (size_t i = 0; i < c.password.n; i++)
		printf("password: writes %s, outside $HOME: a yes must be backed by the "
		       "person's password\n", c.password.v[i]);
	if (c.o.outside_sandbox && !c.refusal)
		printf("outside the sandbox: a person is asked every time, for this one run\n");
out:
	pdk_cli_call_release(&c);
	return code;
}
