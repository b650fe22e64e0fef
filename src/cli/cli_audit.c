/* cli_audit.c - a call's events for the audit log: the decision, the gate's question
 * and answer, the outcome; one JSON line each, tied together by the call's id. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "cli_audit.h"
#include "core/defaults.h"
#include "core/util.h"
#include "core/state.h"

/* A call line longer than this is cut in the log, saying so. */
#define CLIP 4096
/* The commands of a script listed one by one; the rest are counted. */
#define MAX_STEPS 64

static void add_string(cJSON *o, const char *key, const char *s)
{
	char buf[CLIP + 32];
	size_t len;

	if (!s)
		return;
	len = strlen(s);
	if (len > CLIP) {
		snprintf(buf, sizeof(buf), "%.*s... (%zu bytes)", CLIP, s, len);
		s = buf;
	}
	cJSON_AddStringToObject(o, key, s);
}

static void add_strings(cJSON *o, const char *key, const char *const *v, size_t n)
{
	cJSON *a = cJSON_AddArrayToObject(o, key);

	for (size_t i = 0; a && i < n; i++) {
		cJSON *s = cJSON_CreateString(v[i]);

		if (s)
			cJSON_AddItemToArray(a, s);
	}
}

static cJSON *event_new(const struct pdk_cli_call *c, const char *event)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "event", event);
	cJSON_AddStringToObject(o, "call", c->audit_id);
	cJSON_AddStringToObject(o, "session", c->session ? c->session : "default");
	cJSON_AddNumberToObject(o, "pid", (double)getpid());
	return o;
}

/* The first failure is kept in c->audit_why, for the result's note. */
static void put(struct pdk_cli_call *c, cJSON *o)
{
	_cleanup_free_ char *dir = pdk_state_dir();
	int r = !o ? -ENOMEM : !dir ? -ENOENT : pdk_audit_append(dir, o, PDK_AUDIT_ROTATE_SIZE,
								  PDK_AUDIT_KEEP);

	cJSON_Delete(o);
	if (r >= 0 || c->audit_why[0])
		return;
	if (!dir)
		snprintf(c->audit_why, sizeof(c->audit_why),
			 "paddock has no state directory (set HOME or XDG_STATE_HOME)");
	else
		snprintf(c->audit_why, sizeof(c->audit_why), "%s/" PDK_AUDIT_FILE ": %s", dir,
			 strerror(-r));
}

/* What the call asked for beyond the defaults: the widenings the gate names. */
static void add_widenings(cJSON *o, const struct pdk_cli_call *c)
{
	const struct pdk_request *q = &c->o;
	cJSON *w = cJSON_AddObjectToObject(o, "widenings");

	if (!w)
		return;
	add_string(w, "root", q->root);
	add_string(w, "config", q->config);
	add_strings(w, "write", (const char *const *)c->writes.v, c->writes.n);
	add_strings(w, "write_outside_home", (const char *const *)c->password.v, c->password.n);
	cJSON_AddBoolToObject(w, "network", q->network);
	add_strings(w, "domains", q->domains, q->n_domains);
	cJSON_AddBoolToObject(w, "outside_sandbox", q->outside_sandbox);
	cJSON_AddBoolToObject(w, "no_sandbox", q->no_sandbox_asked);
	cJSON_AddBoolToObject(w, "allow_git_hooks", q->allow_git_hooks);
	cJSON_AddBoolToObject(w, "allow_agent_config", q->allow_agent_config);
	cJSON_AddBoolToObject(w, "config_widens", c->config_widens);
}

static void add_decision(cJSON *o, const struct pdk_decision *d)
{
	cJSON *steps;

	cJSON_AddStringToObject(o, "verdict", pdk_verdict_name(d->verdict));
	cJSON_AddStringToObject(o, "risk", pdk_risk_name(d->risk));
	cJSON_AddStringToObject(o, "rule", d->rule ? d->rule : "default");
	cJSON_AddBoolToObject(o, "read_only", d->read_only);
	cJSON_AddBoolToObject(o, "shell", d->shell);
	add_string(o, "message", d->message);
	add_string(o, "ask", d->ask);
	add_strings(o, "programs", (const char *const *)d->programs.v, d->programs.n);
	add_strings(o, "raises", (const char *const *)d->raises.v, d->raises.n);
	if (!(steps = cJSON_AddArrayToObject(o, "commands")))
		return;
	for (size_t i = 0; i < d->n_steps && i < MAX_STEPS; i++) {
		const struct pdk_policy_step *st = &d->steps[i];
		cJSON *s = cJSON_CreateObject();

		if (!s)
			return;
		cJSON_AddItemToArray(steps, s);
		add_string(s, "text", st->text);
		add_string(s, "program", st->program);
		cJSON_AddStringToObject(s, "risk", pdk_risk_name(st->risk));
		cJSON_AddStringToObject(s, "rule", st->rule ? st->rule : "default");
	}
	if (d->n_steps > MAX_STEPS)
		cJSON_AddNumberToObject(o, "more_commands", (double)(d->n_steps - MAX_STEPS));
}

void pdk_cli_audit_decision(struct pdk_cli_call *c)
{
	cJSON *o;

	if (pdk_audit_new_id(c->audit_id) < 0) {
		/* no entropy: the pid and the time still tell calls apart in one log */
		snprintf(c->audit_id, sizeof(c->audit_id), "%08x",
			 (unsigned)getpid() ^ (unsigned)time(NULL));
	}
	if ((o = event_new(c, "decision"))) {
		add_string(o, "cwd", c->cwd);
		add_string(o, "command", c->line);
		add_decision(o, &c->d);
		add_widenings(o, c);
	}
	put(c, o);
}

void pdk_cli_audit_approval(struct pdk_cli_call *c)
{
	cJSON *o;

	if (!c->audit_id[0] || !c->gated)
		return;
	if ((o = event_new(c, "approval"))) {
		add_string(o, "needs", c->d.ask);
		cJSON_AddBoolToObject(o, "outside_sandbox", c->o.outside_sandbox);
		cJSON_AddBoolToObject(o, "password", c->password.n > 0);
		cJSON_AddBoolToObject(o, "asked", c->g.asked);
		cJSON_AddBoolToObject(o, "approved", c->g.approved);
		add_string(o, "by", c->g.by);
		cJSON_AddBoolToObject(o, "remembered", c->g.remembered);
		add_string(o, "message", c->g.message);
	}
	put(c, o);
}

static const char *signal_name(int sig)
{
	static const struct {
		int sig;
		const char *name;
	} names[] = {
	    {SIGHUP, "SIGHUP"},	  {SIGINT, "SIGINT"},	{SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
	    {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
	    {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
	    {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"}, {SIGXCPU, "SIGXCPU"},
	    {SIGXFSZ, "SIGXFSZ"}, {SIGSYS, "SIGSYS"},
	};

	for (size_t i = 0; i < PDK_ARRAY_SIZE(names); i++)
		if (names[i].sig == sig)
			return names[i].name;
	return NULL;
}

static void add_signal(cJSON *o, const char *key, int sig)
{
	const char *name = signal_name(sig);

	if (name)
		cJSON_AddStringToObject(o, key, name);
	else
		cJSON_AddNumberToObject(o, key, sig);
}

void pdk_cli_audit_outcome(struct pdk_cli_call *c, const struct pdk_cli_outcome *x)
{
	const struct pdk_run_status *st = x->st;
	cJSON *o;

	if (!c->audit_id[0])
		return;
	if ((o = event_new(c, "outcome"))) {
		cJSON_AddBoolToObject(o, "ran", x->failure == PDK_FAIL_NONE);
		if (x->failure != PDK_FAIL_NONE) {
			cJSON_AddStringToObject(o, "failure", pdk_failure_name(x->failure));
			add_string(o, "error", x->error);
		}
		if (st && x->failure == PDK_FAIL_NONE) {
			if (st->exit_status >= 0)
				cJSON_AddNumberToObject(o, "exit", st->exit_status);
			else
				add_signal(o, "signal", -st->exit_status);
			cJSON_AddNumberToObject(o, "duration", st->duration);
			cJSON_AddBoolToObject(o, "timed_out", st->timed_out);
			if (st->stopped)
				add_signal(o, "stopped_by", st->stop_signal);
		}
		cJSON_AddNumberToObject(o, "timeout", c->o.timeout);
		if (c->o.timeout_clamped)
			cJSON_AddNumberToObject(o, "timeout_asked", c->o.timeout_asked);
		cJSON_AddBoolToObject(o, "timeout_clamped", c->o.timeout_clamped);
		add_string(o, "confinement", x->confinement);
		if (x->backend)
			cJSON_AddStringToObject(o, "backend", x->backend);
		else
			cJSON_AddNullToObject(o, "backend");
		add_string(o, "network", x->network);
		add_strings(o, "sandbox_refusals", x->refusals, x->n_refusals);
		add_strings(o, "notes", x->notes, x->n_notes);
	}
	put(c, o);
}
