/* gate-drive.c - runs the confirm gate once on a hand-built decision (verdict ASK, one
 * step), so tests/shell/gate-pty.sh can answer it on a real terminal; prints the outcome. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "gate/gate.h"
#include "policy/policy.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: gate-drive [--mode auto|ask|deny|allow|command] [--command PATH]\n"
		"       [--yes] [--outside] [--password PATH]... [--sudo PATH]\n"
		"       [--session NAME] [--program NAME]... [--timeout SECONDS]\n"
		"       [--risk moderate|dangerous] [--raise TEXT] [--project DIR] -- LINE\n"
		"The first program runs with LINE's words after its first as its arguments.\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct pdk_config cfg = {0};
	struct pdk_decision d = {0};
	struct pdk_policy_step steps[8] = {{0}};
	char *words[64], *line_copy, *save = NULL, *raises[4] = {"network on"}, cwd[4096];
	size_t n_words = 0, n_raises = 1;
	enum pdk_risk risk = PDK_RISK_MODERATE;
	struct pdk_gate_request rq = {0};
	struct pdk_gate_result res = {0};
	const char *passwords[8], *programs[8];
	size_t n_pw = 0, n_prog = 0;
	bool yes = false;
	int i, r;

	cfg.approval_mode = PDK_APPROVAL_AUTO;
	cfg.threshold = PDK_RISK_MODERATE;
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--yes") == 0) {
			yes = true;
			continue;
		}
		if (strcmp(a, "--outside") == 0) {
			rq.outside_sandbox = true;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (strcmp(a, "--mode") == 0) {
			if (strcmp(v, "auto") == 0)
				cfg.approval_mode = PDK_APPROVAL_AUTO;
			else if (strcmp(v, "ask") == 0)
				cfg.approval_mode = PDK_APPROVAL_ASK;
			else if (strcmp(v, "deny") == 0)
				cfg.approval_mode = PDK_APPROVAL_DENY;
			else if (strcmp(v, "allow") == 0)
				cfg.approval_mode = PDK_APPROVAL_ALLOW;
			else if (strcmp(v, "command") == 0)
				cfg.approval_mode = PDK_APPROVAL_COMMAND;
			else
				usage();
		} else if (strcmp(a, "--command") == 0) {
			cfg.approval_command = (char *)v;
		} else if (strcmp(a, "--password") == 0 && n_pw < 8) {
			passwords[n_pw++] = v;
		} else if (strcmp(a, "--program") == 0 && n_prog < 8) {
			programs[n_prog++] = v;
		} else if (strcmp(a, "--sudo") == 0) {
			rq.sudo = v;
		} else if (strcmp(a, "--session") == 0) {
			rq.session = v;
		} else if (strcmp(a, "--risk") == 0) {
			risk = strcmp(v, "dangerous") == 0 ? PDK_RISK_DANGEROUS : PDK_RISK_MODERATE;
		} else if (strcmp(a, "--raise") == 0 && n_raises < 4) {
			raises[n_raises++] = (char *)v;
		} else if (strcmp(a, "--project") == 0) {
			rq.project = v;
		} else if (strcmp(a, "--timeout") == 0) {
			rq.command_timeout = atof(v);
		} else {
			usage();
		}
	}
	if (i + 2 != argc)
		usage();
	if (n_prog == 0)
		programs[n_prog++] = "git";

	/* What the policy would say about `git push origin main`: one step per
	 * program, the first with LINE's arguments. */
	if (!(line_copy = strdup(argv[i + 1])) || !getcwd(cwd, sizeof(cwd)))
		return 2;
	for (char *w = strtok_r(line_copy, " ", &save); w && n_words < 63;
	     w = strtok_r(NULL, " ", &save))
		words[n_words++] = w;
	words[n_words] = NULL;
	for (size_t k = 0; k < n_prog; k++) {
		static char *bare[8][2];

		bare[k][0] = (char *)programs[k];
		steps[k].text = argv[i + 1];
		steps[k].program = (char *)programs[k];
		steps[k].argv = bare[k];
		steps[k].risk = risk;
		steps[k].rule = "risk: git-push";
		steps[k].why = "publishes commits to the remote";
	}
	if (n_words) {
		words[0] = (char *)programs[0];
		steps[0].argv = words;
	}
	d.verdict = PDK_VERDICT_ASK;
	d.risk = risk;
	d.rule = "risk: git-push";
	d.ask = "`git push origin main`: publishes commits to the remote";
	d.programs = (struct pdk_strv){(char **)programs, n_prog};
	d.raises = (struct pdk_strv){raises, n_raises};
	d.steps = steps;
	d.n_steps = n_prog;

	rq.line = argv[i + 1];
	rq.d = &d;
	rq.cwd = cwd;
	rq.password_paths = passwords;
	rq.n_password_paths = n_pw;

	r = pdk_gate_decide(&cfg, yes, &rq, &res);
	if (r < 0) {
		fprintf(stderr, "gate-drive: pdk_gate_decide: %s\n", strerror(-r));
		return 2;
	}
	printf("approved=%d\nasked=%d\nremembered=%d\nby=%s\nmessage=%s\n", res.approved, res.asked,
	       res.remembered, res.by ? res.by : "", res.message ? res.message : "");
	r = res.approved ? 0 : 1;
	pdk_gate_result_release(&res);
	free(line_copy);
	return r;
}
