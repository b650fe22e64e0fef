/* gate.c - the confirm gate: session memory, then the approver approval.mode names
 * (the terminal, approval.command, deny, allow), then the password where one is due. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "core/fmt.h"
#include "gate_int.h"
#include "core/textclean.h"
#include "core/util.h"

#define TTY_PATH  "/dev/tty"
#define SHOWN_MAX 160 /* of the call, quoted in a refusal */

/* ---- outcomes -------------------------------------------------------------- */

/* The call for a refusal message: the model already has it, so a short head will do. */
static void put_short(struct pdk_buf *b, const char *text)
{
	size_t len = text ? strlen(text) : 0, n = pdk_text_prefix(text, len, SHOWN_MAX);

	pdk_buf_add(b, text ? text : "", n);
	if (n < len)
		pdk_buf_puts(b, "...");
}

int pdk_gate_approve(struct pdk_gate_result *ret, const char *by)
{
	ret->by = strdup(by);
	if (!ret->by)
		return -ENOMEM;
	ret->approved = true;
	return 0;
}

/* Finish a refusal built in b (which this frees). */
int pdk_gate_refuse_buf(struct pdk_gate_result *ret, struct pdk_buf *b)
{
	pdk_buf_add(b, "", 0);
	if (b->oom) {
		pdk_buf_free(b);
		return -ENOMEM;
	}
	ret->approved = false;
	ret->message = b->data;
	*b = (struct pdk_buf){0};
	return 0;
}

/*
 * "command not approved: `git push --force`: dangerous (risk: git-push-force):
 * rewrites history ...; REASON; INSTEAD" - what needed approval (the decision's
 * ask line carries the class and rule), why no one said yes, what to do.
 */
int pdk_gate_refuse(struct pdk_gate_result *ret, const struct pdk_gate_request *rq,
		    const char *reason, const char *instead)
{
	const struct pdk_decision *d = rq->d;
	struct pdk_buf b = {0};

	pdk_buf_puts(&b, "command not approved: ");
	if (d->ask) {
		pdk_buf_puts(&b, d->ask);
	} else {
		pdk_buf_printf(&b, "%s: `", pdk_risk_name(d->risk));
		put_short(&b, rq->line);
		pdk_buf_puts(&b, "`");
	}
	pdk_buf_printf(&b, "; %s; %s", reason, instead);
	return pdk_gate_refuse_buf(ret, &b);
}

static int refuse_outside(struct pdk_gate_result *ret, const char *why)
{
	struct pdk_buf b = {0};

	pdk_buf_printf(&b,
		       "command not approved: running outside the sandbox is asked of a person "
		       "every time, and no one can be asked here (%s); run it in the sandbox "
		       "(without --outside-sandbox), or ask the person to run it themselves",
		       why);
	return pdk_gate_refuse_buf(ret, &b);
}

static int refuse_password(struct pdk_gate_result *ret, const struct pdk_gate_request *rq,
			   const char *why)
{
	struct pdk_buf b = {0};

	pdk_buf_puts(&b, "command not approved: writing outside your home (");
	pdk_gate_put_paths(&b, rq);
	pdk_buf_printf(&b,
		       ") needs your password, and no one can type it here (%s); write under "
		       "your home or the project instead, or ask the person to run it at their "
		       "terminal",
		       why);
	return pdk_gate_refuse_buf(ret, &b);
}

/* ---- the gate -------------------------------------------------------------- */

int pdk_gate_decide(const struct pdk_config *cfg, bool yes, const struct pdk_gate_request *rq,
		    struct pdk_gate_result *ret)
{
	struct pdk_gate_result res = {0};
	const char *nobody = NULL;
	_cleanup_close_ int tty = -1;
	bool remember;
	int r;

	if (!rq || !rq->d || !rq->line)
		return -EINVAL;

	remember = pdk_gate_grant_possible(rq);
	if (remember && pdk_gate_session_covers(rq) == 1) {
		_cleanup_free_ char *heads = pdk_gate_grant_heads(rq);
		_cleanup_free_ char *by =
		    heads ? pdk_asprintf("session approval for %s", heads) : NULL;

		if (!by)
			return -ENOMEM;
		r = pdk_gate_approve(&res, by);
		goto done;
	}

	if (yes || cfg->approval_mode == PDK_APPROVAL_ALLOW) {
		const char *who = yes ? "--yes" : "approval.mode allow";

		if (rq->outside_sandbox)
			r = refuse_outside(&res, yes ? "--yes does not answer for a person"
						     : "approval.mode is allow");
		else if (rq->n_password_paths)
			r = refuse_password(&res, rq,
					    yes ? "--yes was given" : "approval.mode is allow");
		else
			r = pdk_gate_approve(&res, who);
		goto done;
	}

	switch (cfg->approval_mode) {
	case PDK_APPROVAL_DENY:
		nobody = "approval.mode is deny";
		break;
	case PDK_APPROVAL_COMMAND:
		/* A program does not answer for a person: outside the sandbox is
		 * asked of someone who can be asked, or refused. */
		if (rq->outside_sandbox)
			r = refuse_outside(&res, "approval.mode is command, and a program does "
						 "not answer for a person");
		else if (rq->n_password_paths)
			r = refuse_password(&res, rq, "approval.mode is command");
		else
			r = pdk_gate_ask_command(cfg, rq, &res);
		goto done;
	case PDK_APPROVAL_AUTO:
	case PDK_APPROVAL_ASK:
	default:
		if (rq->remote) {
			if (rq->n_password_paths)
				r = refuse_password(&res, rq, "it is asked through the MCP client, "
							      "where no password can be typed");
			else
				r = pdk_gate_ask_remote(cfg, rq, remember, &res);
			goto done;
		}
		/* Never stdin or stdout: those belong to the agent that called us. */
		tty = open(TTY_PATH, O_RDWR | O_NOCTTY | O_CLOEXEC);
		nobody = pdk_gate_tty_unusable(tty);
		break;
	}
	if (nobody) {
		if (rq->outside_sandbox)
			r = refuse_outside(&res, nobody);
		else if (rq->n_password_paths)
			r = refuse_password(&res, rq, nobody);
		else {
			_cleanup_free_ char *reason =
			    pdk_asprintf("no one can be asked here (%s)", nobody);

			r = reason ? pdk_gate_refuse(&res, rq, reason, PDK_GATE_INSTEAD_NOBODY)
				   : -ENOMEM;
		}
		goto done;
	}
	r = pdk_gate_ask_tty(cfg, rq, tty, remember, &res);
done:
	if (r < 0) {
		pdk_gate_result_release(&res);
		return r;
	}
	*ret = res;
	return 0;
}

void pdk_gate_result_release(struct pdk_gate_result *r)
{
	if (!r)
		return;
	free(r->by);
	free(r->message);
	*r = (struct pdk_gate_result){0};
}
