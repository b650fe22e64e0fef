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

/* The network a run would have: NULL unconfined, else "on", "domains" or "off"
 * (the domains mode needs a backend with a network of the run's own). */
static const char *network_mode(const struct pdk_cli_call *c)
{
	if (c->o.no_sandbox || c->o.outside_sandbox)
		return NULL;
	if (c->o.network)
		return "on";
	return c->o.n_domains || c->cfg.allowed_domains.n ? "domains" : "off";
}

static void put_network(const struct pdk_cli_call *c, cJSON *o)
{
	const char *mode = network_mode(c);
	cJSON *net, *a;

	if (!mode) {
		cJSON_AddNullToObject(o, "network");
		return;
	}
	if (!(net = cJSON_AddObjectToObject(o, "network")))
		return;
	cJSON_AddStringToObject(net, "mode", mode);
	a = cJSON_AddArrayToObject(net, "allowed_domains");
	for (size_t i = 0; !c->o.network && a && i < c->cfg.allowed_domains.n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(c->cfg.allowed_domains.v[i]));
	for (size_t i = 0; !c->o.network && a && i < c->o.n_domains; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(c->o.domains[i]));
	/* as configured, and the sockets granted by name: the run opens each when it starts */
	a = cJSON_AddArrayToObject(net, "unix_sockets");
	for (size_t i = 0; a && i < c->cfg.allow_unix_sockets.n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(c->cfg.allow_unix_sockets.v[i]));
	for (int g = 0; a && g < PDK_GRANT_N; g++)
		if (c->grant[g])
			cJSON_AddItemToArray(a, cJSON_CreateString(c->grant[g]));
}

/* Bad input: one line on standard error, or with --json the one object,
 * its verdict null and the error said. */
static void error_out(const struct pdk_cli_call *c, const char *why)
{
	cJSON *o;
	char *text = NULL;

	if (!c->o.json) {
		pdk_cli_error("%s", why);
		return;
	}
	o = cJSON_CreateObject();
	if (o && cJSON_AddNullToObject(o, "verdict") && cJSON_AddNullToObject(o, "cwd") &&
	    cJSON_AddStringToObject(o, "error", why) &&
	    cJSON_AddStringToObject(o, "error_kind", "bad_request"))
		text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!text) {
		pdk_cli_error("%s", why);
		return;
	}
	puts(text);
	free(text);
}

/* The decision for the call c was initialised for (init: its result). */
static int check(struct pdk_cli_call *c, int init)
{
	int r, code = PDK_EXIT_FAILURE;

	if (init < 0) {
		error_out(c, c->why);
		goto out;
	}
	if ((r = pdk_cli_call_decide(c)) < 0) {
		snprintf(c->why, sizeof(c->why), "check: %s", strerror(-r));
		error_out(c, c->why);
		goto out;
	}
	bool asks = !c->refusal && pdk_cli_call_needs_gate(c);
	/* What the session would decide: an "a" given earlier may cover it. */
	bool covered = asks && pdk_cli_call_session_covers(c) == 1;

	if (covered)
		asks = false;
	code = c->refusal ? CHECK_REFUSED : asks ? CHECK_ASKS : CHECK_RUNS;
	if (c->o.json) {
		cJSON *o = pdk_decision_json(&c->d);
		char *text = NULL;
		if (o) {
			cJSON_ReplaceItemInObject(o, "verdict",
						  cJSON_CreateString(c->refusal ? "refuse"
								     : asks    ? "ask"
									       : "run"));
			put_network(c, o);
			cJSON_AddBoolToObject(o, "session_approved", covered);
			if (cJSON_AddStringToObject(o, "cwd", c->cwd) &&
			    cJSON_AddNullToObject(o, "error"))
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
	if (covered)
		c->d.verdict = PDK_VERDICT_RUN;
	pdk_decision_print(&c->d, stdout);
	if (covered)
		printf("session: an approval given earlier in this session (%s) covers it: it "
		       "runs without asking\n",
		       c->session ? c->session : "default");
	for (size_t i = 0; i < c->password.n; i++)
		printf("password: writes %s, outside $HOME: a yes must be backed by the "
		       "person's password\n", c->password.v[i]);
	if (c->o.outside_sandbox && !c->refusal)
		printf("outside the sandbox: a person is asked every time, for this one run\n");
	const char *mode = network_mode(c);
	if (mode) {
		printf("network: %s", mode);
		for (size_t i = 0; !c->o.network && i < c->cfg.allowed_domains.n; i++)
			printf("%s%s", i ? ", " : ": ", c->cfg.allowed_domains.v[i]);
		for (size_t i = 0; !c->o.network && i < c->o.n_domains; i++)
			printf("%s%s", i || c->cfg.allowed_domains.n ? ", " : ": ", c->o.domains[i]);
		printf("\n");
		for (size_t i = 0; i < c->cfg.allow_unix_sockets.n; i++)
			printf("network: unix socket %s (allowUnixSockets)\n",
			       c->cfg.allow_unix_sockets.v[i]);
		for (int g = 0; g < PDK_GRANT_N; g++)
			if (c->grant[g])
				printf("network: unix socket %s (%s)\n", c->grant[g],
				       pdk_grant_flag(g));
	}
out:
	pdk_cli_call_release(c);
	return code;
}

int pdk_cli_check_main(int argc, char **argv)
{
	struct pdk_cli_call c;

	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(check_usage, stdout);
		return 0;
	}
	return check(&c, pdk_cli_call_init_argv(&c, "check", argc, argv, NULL));
}

int pdk_cli_check_request(struct pdk_request *req, const struct pdk_cli_face *face)
{
	struct pdk_cli_call c;

	return check(&c, pdk_cli_call_init(&c, "check", req, face));
}
