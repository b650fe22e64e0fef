/* gate-drive.c - runs the confirm gate once on a hand-built decision (verdict ASK, one
 * step), so tests/shell/gate-pty.sh can answer it on a real terminal; prints the outcome. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "gate/gate.h"
#include "policy/policy.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: gate-drive [--mode auto|ask|deny|allow|command] [--command PATH]\n"
		"       [--yes] [--outside] [--password PATH]... [--sudo PATH]\n"
		"       [--session NAME] [--program NAME]... [--timeout SECONDS] -- LINE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct pdk_config cfg = {0};
	struct pdk_decision d = {0};
	struct pdk_policy_step step = {0};
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

	/* What the policy would say about `git push origin main`. */
	step.text = argv[i + 1];
	step.program = (char *)programs[0];
	step.risk = PDK_RISK_MODERATE;
	step.rule = "risk: git-push";
	step.why = "publishes commits to the remote";
	d.verdict = PDK_VERDICT_ASK;
	d.risk = PDK_RISK_MODERATE;
	d.rule = "risk: git-push";
	d.ask = "`git push origin main`: publishes commits to the remote";
	d.programs = (struct pdk_strv){(char **)programs, n_prog};
	char *raises[] = {"network on"};
	d.raises = (struct pdk_strv){raises, 1};
	d.steps = &step;
	d.n_steps = 1;

	rq.line = argv[i + 1];
	rq.d = &d;
	rq.cwd = "/work/project";
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
	return r;
}
