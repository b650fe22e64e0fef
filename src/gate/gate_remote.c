/* gate_remote.c - the approver a front end reaches over a socket (the MCP
 * server's elicitation), answered alongside `paddock approvals`: first answer wins. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "approvals.h"
#include "gate_int.h"
#include "session.h"
#include "core/util.h"

static volatile sig_atomic_t interrupted;
static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int send_line(int fd, cJSON *o)
{
	char *t = o ? cJSON_PrintUnformatted(o) : NULL;
	int r = 0;

	cJSON_Delete(o);
	if (!t)
		return -ENOMEM;
	size_t n = strlen(t);
	t[n] = '\n';
	for (size_t off = 0; off <= n;) {
		ssize_t w = write(fd, t + off, n + 1 - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			r = -EPIPE;
			break;
		}
		off += (size_t)w;
	}
	cJSON_free(t);
	return r;
}

static char *question(const struct pdk_gate_request *rq, const struct pdk_approval *a)
{
	struct pdk_buf b = {0};

	pdk_buf_puts(&b, "paddock: this command needs your approval\ncommand: ");
	pdk_gate_put_shown(&b, rq->line);
	if (rq->cwd) {
		pdk_buf_puts(&b, "\nin: ");
		pdk_gate_put_shown(&b, rq->cwd);
	}
	if (rq->d->ask) {
		pdk_buf_puts(&b, "\nneeds: ");
		pdk_gate_put_shown(&b, rq->d->ask);
	}
	if (rq->outside_sandbox)
		pdk_buf_puts(&b, "\nit asks to run outside the sandbox, this once");
	pdk_buf_printf(&b, "\nrisk: %s", pdk_risk_name(rq->d->risk));
	if (a->dir)
		pdk_buf_printf(&b, "\n(or answer from a terminal: paddock approvals approve %s)",
			       a->id);
	pdk_buf_add(&b, "", 1);
	return b.oom ? (pdk_buf_free(&b), NULL) : b.data;
}

static cJSON *schema(bool offer_session, const char *heads)
{
	cJSON *s = cJSON_CreateObject(), *props = cJSON_AddObjectToObject(s, "properties");
	cJSON *d = cJSON_AddObjectToObject(props, "decision");
	cJSON *e = cJSON_AddArrayToObject(d, "enum"), *names = cJSON_AddArrayToObject(d, "enumNames");
	cJSON *req = cJSON_AddArrayToObject(s, "required");
	_cleanup_free_ char *all = heads ? pdk_asprintf("Yes, and for the rest of this session: %s",
							heads)
					 : NULL;

	cJSON_AddStringToObject(s, "type", "object");
	cJSON_AddStringToObject(d, "type", "string");
	cJSON_AddStringToObject(d, "title", "Run this command?");
	cJSON_AddItemToArray(e, cJSON_CreateString("once"));
	cJSON_AddItemToArray(names, cJSON_CreateString("Yes, once"));
	if (offer_session && all) {
		cJSON_AddItemToArray(e, cJSON_CreateString("session"));
		cJSON_AddItemToArray(names, cJSON_CreateString(all));
	}
	cJSON_AddItemToArray(e, cJSON_CreateString("no"));
	cJSON_AddItemToArray(names, cJSON_CreateString("No"));
	cJSON_AddItemToArray(req, cJSON_CreateString("decision"));
	return s;
}

enum answer { A_NONE, A_ONCE, A_SESSION, A_NO, A_DISMISSED, A_OOB_YES, A_OOB_NO, A_GONE };

/* The client's reply: {"action": "accept", "content": {"decision": ...}} or
 * "decline" / "cancel". */
static enum answer parse_reply(const char *line, bool offer_session)
{
	cJSON *m = cJSON_Parse(line);
	const cJSON *action = cJSON_GetObjectItemCaseSensitive(m, "action");
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(content, "decision");
	enum answer a = A_DISMISSED;

	if (cJSON_IsString(action) && strcmp(action->valuestring, "decline") == 0)
		a = A_NO;
	else if (cJSON_IsString(action) && strcmp(action->valuestring, "accept") == 0 &&
		 cJSON_IsString(d)) {
		if (strcmp(d->valuestring, "once") == 0)
			a = A_ONCE;
		else if (strcmp(d->valuestring, "session") == 0 && offer_session)
			a = A_SESSION;
		else
			a = A_NO;
	}
	cJSON_Delete(m);
	return a;
}

/* Wait for the client's reply on fd, or an answer from `paddock approvals`. */
static enum answer wait_answer(int fd, const struct pdk_approval *a, bool offer_session)
{
	char buf[4096];
	size_t len = 0;

	while (!interrupted) {
		struct pollfd p = {fd, POLLIN, 0};
		int k = poll(&p, 1, a->dir ? PDK_APPROVAL_POLL_MS : -1);
		const char *by;

		if (a->dir) {
			int r = pdk_approval_poll(a, &by);
			if (r >= 0)
				return r ? A_OOB_YES : A_OOB_NO;
		}
		if (k < 0 && errno != EINTR)
			return A_GONE;
		if (k <= 0)
			continue;
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return A_GONE;
		len += (size_t)n;
		buf[len] = '\0';
		char *nl = strchr(buf, '\n');
		if (nl) {
			*nl = '\0';
			return parse_reply(buf, offer_session);
		}
		if (len == sizeof(buf) - 1)
			return A_DISMISSED;
	}
	return A_GONE;
}

int pdk_gate_ask_remote(const struct pdk_config *cfg, const struct pdk_gate_request *rq,
			bool offer_session, struct pdk_gate_result *ret)
{
	struct pdk_approval a = {0};
	struct sigaction sa = {0}, old_int, old_term;
	_cleanup_free_ char *heads = pdk_gate_grant_heads(rq), *text = NULL;
	enum answer ans;
	int r;

	/* Published for `paddock approvals`; without it the dialog alone asks. */
	if (cfg->approval_out_of_band && pdk_approval_publish(rq, &a) < 0)
		a = (struct pdk_approval){0};
	text = question(rq, &a);
	cJSON *m = cJSON_CreateObject();
	if (!text || !m) {
		cJSON_Delete(m);
		pdk_approval_withdraw(&a);
		return -ENOMEM;
	}
	cJSON_AddStringToObject(m, "message", text);
	cJSON_AddItemToObject(m, "requestedSchema", schema(offer_session, heads));
	interrupted = 0;
	sa.sa_handler = on_interrupt;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	ans = send_line(rq->remote_fd, m) < 0 ? A_GONE : wait_answer(rq->remote_fd, &a, offer_session);
	/* The dialog's answer counts only if no out-of-band one came first. */
	if ((ans == A_ONCE || ans == A_SESSION || ans == A_NO) && a.dir &&
	    pdk_approval_claim(&a, ans != A_NO) == -EEXIST) {
		const char *by;
		r = pdk_approval_poll(&a, &by);
		if (r >= 0)
			ans = r ? A_OOB_YES : A_OOB_NO;
	}
	if (ans == A_OOB_YES || ans == A_OOB_NO) {
		cJSON *w = cJSON_CreateObject();
		cJSON_AddTrueToObject(w, "withdraw");
		send_line(rq->remote_fd, w);
	}
	pdk_approval_withdraw(&a);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);

	switch (ans) {
	case A_ONCE:
		return pdk_gate_approve(ret, "the person, through the MCP client");
	case A_OOB_YES:
		return pdk_gate_approve(ret, "the person, with 'paddock approvals'");
	case A_SESSION:
		if (pdk_gate_grant_remember(rq) < 0)
			return pdk_gate_approve(ret, "the person, through the MCP client "
						     "(once: the session could not keep it)");
		r = pdk_gate_approve(ret, "the person, through the MCP client");
		ret->remembered = r == 0;
		return r;
	case A_NO:
		return pdk_gate_refuse(ret, rq, "the person said no", PDK_GATE_INSTEAD_SAID_NO);
	case A_OOB_NO:
		return pdk_gate_refuse(ret, rq, "the person said no (with 'paddock approvals')",
				       PDK_GATE_INSTEAD_SAID_NO);
	case A_DISMISSED:
		return pdk_gate_refuse(ret, rq, "the person dismissed the question without an "
						"answer",
				       "ask them whether they want it run, then call again");
	default:
		return pdk_gate_refuse(ret, rq, "the question was withdrawn before anyone answered",
				       PDK_GATE_INSTEAD_SAID_NO);
	}
}
