/* gate_tty.c - the terminal approver: the prompt on /dev/tty, the answer read there (or given
 * with `paddock approvals`, first answer wins), and the password a write outside $HOME needs,
 * checked by sudo on that terminal. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "approvals.h"
#include "gate_int.h"
#include "core/path.h"
#include "session.h"
#include "core/util.h"

extern char **environ;

#define SUDO_PATH "/usr/bin/sudo"

static volatile sig_atomic_t interrupted;
static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* Run sudo ARGS on the terminal fd and wait: its exit status, 128+signal, or -errno. */
static int run_on_tty(const char *sudo, const char *arg1, const char *arg2, int tty)
{
	char *argv[] = {(char *)"sudo", (char *)arg1, (char *)arg2, NULL};
	int rep[2], status, e, r;
	pid_t pid;

	r = pdk_pipe_cloexec(rep);
	if (r < 0)
		return r;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(rep[0]);
		close(rep[1]);
		return r;
	}
	/* Not in a group of its own: sudo reads the password from the terminal,
	 * which only its foreground group may do. */
	if (pid == 0)
		pdk_gate_exec_child(sudo, argv, environ, tty, tty, rep[1], false);
	close(rep[1]);
	e = pdk_gate_exec_report(rep[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (e)
		return -e;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

enum answer {
	ANSWER_NO,
	ANSWER_ONCE,
	ANSWER_SESSION,
	ANSWER_EOF,
	ANSWER_INTERRUPT,
	ANSWER_ERROR,
	ANSWER_OOB_YES, /* answered with `paddock approvals` */
	ANSWER_OOB_NO,
};

/* The prompt: the whole call, where, the part that needs approval and why, the
 * raises, and the answers on offer. */
static void put_prompt(struct pdk_buf *b, const struct pdk_config *cfg,
		       const struct pdk_gate_request *rq, const char *heads,
		       const struct pdk_approval *oob)
{
	const struct pdk_decision *d = rq->d;

	pdk_buf_puts(b, "\npaddock: this command needs your approval\n  command: ");
	pdk_gate_put_shown(b, rq->line);
	if (rq->cwd) {
		pdk_buf_puts(b, "\n  in:      ");
		pdk_gate_put_shown(b, rq->cwd);
	}
	if (d->ask) {
		pdk_buf_puts(b, "\n  needs:   ");
		pdk_gate_put_shown(b, d->ask);
	}
	pdk_buf_printf(b, "\n  risk:    %s", pdk_risk_name(d->risk));
	if (d->rule) {
		pdk_buf_puts(b, " (");
		pdk_gate_put_shown(b, d->rule);
		pdk_buf_puts(b, ")");
	}
	for (size_t i = 0; d->n_steps > 1 && i < d->n_steps; i++) {
		const struct pdk_policy_step *st = &d->steps[i];

		if (st->read_only || st->risk < cfg->threshold)
			continue;
		pdk_buf_puts(b, "\n  part:    `");
		pdk_gate_put_shown(b, st->text);
		pdk_buf_printf(b, "`: %s", pdk_risk_name(st->risk));
		if (st->rule) {
			pdk_buf_puts(b, " (");
			pdk_gate_put_shown(b, st->rule);
			pdk_buf_puts(b, ")");
		}
		if (st->why) {
			pdk_buf_puts(b, ": ");
			pdk_gate_put_shown(b, st->why);
		}
	}
	for (size_t i = 0; i < d->raises.n; i++) {
		pdk_buf_puts(b, i ? ", " : "\n  also:    ");
		pdk_gate_put_shown(b, d->raises.v[i]);
	}
	if (rq->outside_sandbox)
		pdk_buf_puts(b, "\n  OUTSIDE THE SANDBOX: it may write anywhere you can, paddock's "
				"own state included; asked every time, for this one run only");
	if (rq->n_password_paths) {
		pdk_buf_puts(b, "\n  password: it writes outside your home (");
		for (size_t i = 0; i < rq->n_password_paths; i++) {
			if (i)
				pdk_buf_puts(b, ", ");
			pdk_gate_put_shown(b, rq->password_paths[i]);
		}
		pdk_buf_puts(b, "); after a yes, sudo asks for your password");
	}
	if (oob->dir)
		pdk_buf_printf(b, "\n  or answer from another terminal: paddock approvals approve %s "
				  "(or deny %s)",
			       oob->id, oob->id);
	if (heads) {
		pdk_buf_puts(b, "\nRun it? y = yes, once; a = yes to ");
		pdk_gate_put_shown(b, heads);
		pdk_buf_puts(b, " for the rest of this session (these program files, in this "
				"project, no riskier, no wider); n = no [y/a/N] ");
	} else {
		pdk_buf_puts(b, "\nRun it? y = yes, this once; n = no [y/N] ");
	}
}

static void tty_say(int tty, const char *s)
{
	if (pdk_write_all(tty, s, strlen(s)) < 0) {
		/* the outcome stands; only the echo of it is lost */
	}
}

/* Wait until the terminal has input (in canonical mode: a whole line) or the request
 * published in oob was answered with `paddock approvals`: -1 to read on, or the answer. */
static int wait_input(int tty, const struct pdk_approval *oob)
{
	for (;;) {
		struct pollfd p = {tty, POLLIN, 0};
		int k = poll(&p, 1, PDK_APPROVAL_POLL_MS);
		const char *by;
		int r = pdk_approval_poll(oob, &by);

		if (r >= 0)
			return r ? ANSWER_OOB_YES : ANSWER_OOB_NO;
		if (k < 0 && errno == EINTR && interrupted)
			return ANSWER_INTERRUPT;
		if (k < 0 && errno != EINTR)
			return ANSWER_ERROR;
		if (k > 0)
			return -1;
	}
}

/* Read one answer line in canonical mode, with echo, discarding type-ahead; with a
 * request in oob, an out-of-band answer that comes first ends the question. */
static enum answer read_answer(int tty, bool offer_session, const struct pdk_approval *oob)
{
	char line[64];
	size_t len = 0;
	bool overflow = false;

	for (;;) {
		char c;
		int w = oob->dir ? wait_input(tty, oob) : -1;

		if (w >= 0)
			return (enum answer)w;
		ssize_t n = read(tty, &c, 1);

		if (n < 0) {
			if (errno == EINTR && !interrupted)
				continue;
			return errno == EINTR ? ANSWER_INTERRUPT : ANSWER_ERROR;
		}
		if (n == 0)
			return len ? ANSWER_NO : ANSWER_EOF;
		if (c == '\n')
			break;
		if (len < sizeof(line) - 1)
			line[len++] = c;
		else
			overflow = true;
	}
	line[len] = '\0';
	if (overflow)
		return ANSWER_NO;
	/* Trim, then match a whole word: "y"/"yes", "a"/"always". */
	char *s = line, *e = line + len;
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	if (strcasecmp(s, "y") == 0 || strcasecmp(s, "yes") == 0)
		return ANSWER_ONCE;
	if (strcasecmp(s, "a") == 0 || strcasecmp(s, "always") == 0)
		return offer_session ? ANSWER_SESSION : ANSWER_ONCE;
	return ANSWER_NO;
}

/* Why no one can be asked on this terminal, or NULL when someone can. */
const char *pdk_gate_tty_unusable(int tty)
{
	struct termios t;
	pid_t fg;

	if (tty < 0)
		return "no terminal to ask on";
	if (tcgetattr(tty, &t) < 0)
		return "no terminal to ask on";
	fg = tcgetpgrp(tty);
	/* A background job reading the terminal would be stopped (SIGTTIN). */
	if (fg < 0 || fg != getpgrp())
		return "paddock is not in the foreground of its terminal";
	return NULL;
}

/*
 * Ask on the terminal. Ctrl-C during the question is a no, not the end of
 * paddock: SIGINT is caught (no SA_RESTART) only while the question is open.
 */
int pdk_gate_ask_tty(const struct pdk_config *cfg, const struct pdk_gate_request *rq, int tty,
		     bool offer_session, struct pdk_gate_result *ret)
{
	_cleanup_free_ char *heads = offer_session ? pdk_gate_grant_heads(rq) : NULL;
	const char *sudo = rq->sudo ? rq->sudo : SUDO_PATH;
	struct pdk_approval oob = {0};
	struct sigaction sa, old_int;
	struct termios saved, t;
	struct pdk_buf b = {0};
	enum answer a;
	int r = 0, sudo_rc = 0;
	bool restore;

	if (offer_session && !heads)
		return -ENOMEM;
	/* Published for `paddock approvals` while the question is open; not when a
	 * password is due, which only this terminal can give. */
	if (cfg->approval_out_of_band && !rq->n_password_paths &&
	    pdk_approval_publish(rq, &oob) < 0)
		oob = (struct pdk_approval){0};
	put_prompt(&b, cfg, rq, heads, &oob);
	if (b.oom || !b.data) {
		pdk_buf_free(&b);
		pdk_approval_withdraw(&oob);
		return -ENOMEM;
	}
	ret->asked = true;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	interrupted = 0;
	sigaction(SIGINT, &sa, &old_int);

	/* Cooked mode whatever state the terminal was left in, and nothing typed
	 * before the question was shown can answer it (TCSAFLUSH). */
	restore = tcgetattr(tty, &saved) == 0;
	t = saved;
	t.c_lflag |= ICANON | ECHO | ISIG;
	t.c_iflag |= ICRNL;
	if (restore)
		tcsetattr(tty, TCSAFLUSH, &t);
	tty_say(tty, b.data);
	pdk_buf_free(&b);
	a = read_answer(tty, offer_session, &oob);
	/* The terminal's answer counts only if no out-of-band one came first. */
	if (oob.dir && a != ANSWER_OOB_YES && a != ANSWER_OOB_NO &&
	    pdk_approval_claim(&oob, a == ANSWER_ONCE || a == ANSWER_SESSION) == -EEXIST) {
		const char *by;
		int k = pdk_approval_poll(&oob, &by);

		if (k >= 0)
			a = k ? ANSWER_OOB_YES : ANSWER_OOB_NO;
	}
	pdk_approval_withdraw(&oob);
	if (a == ANSWER_INTERRUPT || a == ANSWER_EOF || a == ANSWER_ERROR || a == ANSWER_OOB_YES ||
	    a == ANSWER_OOB_NO)
		tty_say(tty, "\n");
	/* Half an answer typed here is not left for the shell to read. */
	if (a == ANSWER_OOB_YES || a == ANSWER_OOB_NO)
		tcflush(tty, TCIFLUSH);

	if ((a == ANSWER_ONCE || a == ANSWER_SESSION) && rq->n_password_paths) {
		tty_say(tty,
			"paddock: writing outside your home needs your password (sudo -k -v)\n");
		sudo_rc = run_on_tty(sudo, "-k", "-v", tty);
		/* Leave no cached credential behind for anything that runs next. */
		if (sudo_rc != -ENOENT)
			run_on_tty(sudo, "-k", NULL, tty);
		if (interrupted && sudo_rc == 0)
			sudo_rc = 128 + SIGINT;
	}
	if (restore)
		tcsetattr(tty, TCSANOW, &saved);
	sigaction(SIGINT, &old_int, NULL);

	switch (a) {
	case ANSWER_SESSION:
	case ANSWER_ONCE:
		if (sudo_rc != 0)
			break;
		if (a == ANSWER_SESSION) {
			/* read_answer gives it only when offer_session, which made heads */
			PDK_ANALYZER_ASSUME(heads);
			r = pdk_gate_grant_remember(rq);
			if (r >= 0) {
				ret->remembered = true;
				tty_say(tty, "paddock: approved, and ");
				tty_say(tty, heads);
				tty_say(tty, " for the rest of this session\n");
			} else {
				tty_say(tty,
					"paddock: approved once (could not remember it for the "
					"session: ");
				tty_say(tty, strerror(-r));
				tty_say(tty, ")\n");
			}
		} else {
			tty_say(tty, "paddock: approved once\n");
		}
		return pdk_gate_approve(ret, rq->n_password_paths
						 ? "the person at the terminal, with their password"
						 : "the person at the terminal");
	case ANSWER_NO:
		tty_say(tty, "paddock: not approved\n");
		return pdk_gate_refuse(ret, rq, "the person at the terminal said no",
				       PDK_GATE_INSTEAD_SAID_NO);
	case ANSWER_INTERRUPT:
		tty_say(tty, "paddock: not approved (Ctrl-C)\n");
		return pdk_gate_refuse(ret, rq, "the person at the terminal said no (Ctrl-C)",
				       PDK_GATE_INSTEAD_SAID_NO);
	case ANSWER_EOF:
	case ANSWER_ERROR:
		return pdk_gate_refuse(ret, rq, "the terminal gave no answer (end of input)",
				       PDK_GATE_INSTEAD_NOBODY);
	case ANSWER_OOB_YES:
		tty_say(tty, "paddock: answered elsewhere: approved once with 'paddock approvals'\n");
		return pdk_gate_approve(ret, "the person, with 'paddock approvals'");
	case ANSWER_OOB_NO:
		tty_say(tty, "paddock: answered elsewhere: not approved ('paddock approvals deny')\n");
		return pdk_gate_refuse(ret, rq, "the person said no (with 'paddock approvals')",
				       PDK_GATE_INSTEAD_SAID_NO);
	}

	/* A yes the password did not back. */
	tty_say(tty, "paddock: not approved (the password was not confirmed)\n");
	b = (struct pdk_buf){0};
	pdk_buf_puts(&b, "command not approved: writing outside your home (");
	pdk_gate_put_paths(&b, rq);
	if (sudo_rc == -ENOENT)
		pdk_buf_printf(&b,
			       ") needs your password, and %s is not installed to check it; "
			       "ask the person to run it themselves",
			       sudo);
	else if (sudo_rc < 0)
		pdk_buf_printf(&b,
			       ") needs your password, and %s could not be run (%s); ask the "
			       "person to run it themselves",
			       sudo, strerror(-sudo_rc));
	else
		pdk_buf_printf(&b,
			       ") needs your password, and it was not confirmed (sudo exit "
			       "status %d); ask the person to run it themselves",
			       sudo_rc);
	return pdk_gate_refuse_buf(ret, &b);
}
