/* gate.c - the confirm gate: session memory, then the approver approval.mode names
 * (the terminal, approval.command, deny, allow), then the password where one is due. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "fmt.h"
#include "gate.h"
#include "path.h"
#include "session.h"
#include "store.h"
#include "util.h"

extern char **environ;

#define SUDO_PATH	   "/usr/bin/sudo"
#define TTY_PATH	   "/dev/tty"
#define COMMAND_OUTPUT_MAX 4096 /* of approval.command's output, kept for the refusal */
#define SHOWN_MAX	   160	/* of the call, quoted in a refusal */

/* ---- text ------------------------------------------------------------------ */

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

/* One UTF-8 character at s (len bytes left): its code point and length, or -1
 * for a byte that does not start a valid, shortest-form character. */
static long utf8_next(const unsigned char *s, size_t len, size_t *ret_n)
{
	unsigned char c = s[0];
	size_t n;
	long cp, min;

	if (c < 0x80) {
		*ret_n = 1;
		return c;
	}
	if ((c & 0xe0) == 0xc0)
		n = 2, cp = c & 0x1f, min = 0x80;
	else if ((c & 0xf0) == 0xe0)
		n = 3, cp = c & 0x0f, min = 0x800;
	else if ((c & 0xf8) == 0xf0)
		n = 4, cp = c & 0x07, min = 0x10000;
	else
		return -1;
	if (n > len)
		return -1;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*ret_n = n;
	return cp;
}

/* Characters that would let the text redraw or reorder what the person reads:
 * C1 controls, bidirectional overrides and isolates, zero-width characters. */
static bool deceptive(long cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || (cp >= 0x200b && cp <= 0x200f) ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff;
}

/*
 * Text from the call, made safe to print on the person's terminal: the model
 * wrote it, so an escape sequence in it could hide or rewrite the very line
 * being approved. Control bytes, invalid UTF-8 and deceptive characters are
 * shown escaped; a newline shows as "\n" so the call stays one line.
 */
static void put_shown(struct pdk_buf *b, const char *text)
{
	const unsigned char *s = (const unsigned char *)(text ? text : "");
	size_t len = strlen((const char *)s);

	for (size_t i = 0; i < len;) {
		size_t n;
		long cp = utf8_next(s + i, len - i, &n);

		if (cp < 0) {
			pdk_buf_printf(b, "\\x%02x", s[i]);
			i++;
			continue;
		}
		if (cp == '\n')
			pdk_buf_puts(b, "\\n");
		else if (cp == '\t')
			pdk_buf_puts(b, "\\t");
		else if (cp == '\\')
			pdk_buf_puts(b, "\\\\");
		else if (cp < 0x20 || cp == 0x7f)
			pdk_buf_printf(b, "\\x%02lx", cp);
		else if (deceptive(cp))
			pdk_buf_printf(b, "\\u{%04lx}", cp);
		else
			pdk_buf_add(b, s + i, n);
		i += n;
	}
}

/* The same bytes as valid UTF-8 (each invalid byte becomes U+FFFD), for JSON. */
static char *utf8_clean(const char *text)
{
	const unsigned char *s = (const unsigned char *)(text ? text : "");
	size_t len = strlen((const char *)s);
	struct pdk_buf b = {0};

	for (size_t i = 0; i < len;) {
		size_t n;

		if (utf8_next(s + i, len - i, &n) < 0) {
			pdk_buf_puts(&b, "\xef\xbf\xbd");
			i++;
		} else {
			pdk_buf_add(&b, s + i, n);
			i += n;
		}
	}
	pdk_buf_add(&b, "", 0);
	if (b.oom) {
		pdk_buf_free(&b);
		return NULL;
	}
	return b.data ? b.data : strdup("");
}

/* The call for a refusal message: the model already has it, so a short head will do. */
static void put_short(struct pdk_buf *b, const char *text)
{
	size_t len = text ? strlen(text) : 0;

	if (len <= SHOWN_MAX) {
		pdk_buf_puts(b, text ? text : "");
		return;
	}
	len = SHOWN_MAX;
	while (len > 0 && ((unsigned char)text[len] & 0xc0) == 0x80)
		len--;
	pdk_buf_add(b, text, len);
	pdk_buf_puts(b, "...");
}

/* "`git *`" or "`git *`, `make *`": what a "yes for this program" covers. */
static char *program_heads(const struct pdk_decision *d)
{
	struct pdk_buf b = {0};

	for (size_t i = 0; i < d->programs.n; i++)
		pdk_buf_printf(&b, "%s`%s *`", i ? ", " : "", d->programs.v[i]);
	pdk_buf_add(&b, "", 0);
	if (b.oom) {
		pdk_buf_free(&b);
		return NULL;
	}
	return b.data;
}

/* "/etc/x, /opt/y" */
static void put_paths(struct pdk_buf *b, const struct pdk_gate_request *rq)
{
	for (size_t i = 0; i < rq->n_password_paths; i++) {
		if (i)
			pdk_buf_puts(b, ", ");
		pdk_buf_puts(b, rq->password_paths[i]);
	}
}

/* ---- outcomes -------------------------------------------------------------- */

static int approve(struct pdk_gate_result *ret, const char *by)
{
	ret->by = strdup(by);
	if (!ret->by)
		return -ENOMEM;
	ret->approved = true;
	return 0;
}

/* Finish a refusal built in b (which this frees). */
static int refuse_buf(struct pdk_gate_result *ret, struct pdk_buf *b)
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
static int refuse(struct pdk_gate_result *ret, const struct pdk_gate_request *rq,
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
	return refuse_buf(ret, &b);
}

static const char *INSTEAD_NOBODY =
    "use a read-only alternative, or ask the person to run it themselves or to set "
    "approval.mode (ask on a terminal, or an approval.command)";
static const char *INSTEAD_SAID_NO =
    "do not run it again as it is; ask the person what they want instead";

static int refuse_outside(struct pdk_gate_result *ret, const char *why)
{
	struct pdk_buf b = {0};

	pdk_buf_printf(&b,
		       "command not approved: running outside the sandbox is asked of a person "
		       "every time, and no one can be asked here (%s); run it in the sandbox "
		       "(without --outside-sandbox), or ask the person to run it themselves",
		       why);
	return refuse_buf(ret, &b);
}

static int refuse_password(struct pdk_gate_result *ret, const struct pdk_gate_request *rq,
			   const char *why)
{
	struct pdk_buf b = {0};

	pdk_buf_puts(&b, "command not approved: writing outside your home (");
	put_paths(&b, rq);
	pdk_buf_printf(&b,
		       ") needs your password, and no one can type it here (%s); write under "
		       "your home or the project instead, or ask the person to run it at their "
		       "terminal",
		       why);
	return refuse_buf(ret, &b);
}

/* ---- children -------------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cloexec_pipe(int fds[2])
{
#ifdef HAVE_PIPE2
	return pipe2(fds, O_CLOEXEC) < 0 ? -errno : 0;
#else
	if (pipe(fds) < 0)
		return -errno;
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	return 0;
#endif
}

/*
 * In the child, between fork and exec (async-signal-safe calls only): stdio
 * from in/out, default signals, nothing else inherited; exec's errno goes back
 * over the CLOEXEC pipe report.
 */
static void __attribute__((noreturn))
exec_child(const char *path, char *const argv[], char *const envp[], int in, int out, int report,
	   bool own_group, long maxfd)
{
	struct sigaction dfl;
	sigset_t none;
	int e;

	if (own_group)
		setpgid(0, 0);
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
		goto fail;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
#if defined(__linux__) && defined(SYS_close_range)
	if (syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */) < 0)
#endif
		for (long fd = 3; fd < maxfd; fd++)
			fcntl((int)fd, F_SETFD, FD_CLOEXEC);
	execve(path, argv, envp);
fail:
	e = errno;
	if (write(report, &e, sizeof(e)) < 0) {
		/* the parent sees EOF and a status of 127 */
	}
	_exit(127);
}

/* After fork: the errno of a failed exec, or 0 when it ran. Closes report. */
static int exec_report(int report)
{
	int e = 0;
	ssize_t n;

	do
		n = read(report, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(report);
	return n == (ssize_t)sizeof(e) ? e : 0;
}

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
	long maxfd = sysconf(_SC_OPEN_MAX);
	int rep[2], status, e, r;
	pid_t pid;

	r = cloexec_pipe(rep);
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
		exec_child(sudo, argv, environ, tty, tty, rep[1], false, maxfd > 0 ? maxfd : 1024);
	close(rep[1]);
	e = exec_report(rep[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (e)
		return -e;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

/* ---- approval.command -------------------------------------------------------- */

static cJSON *json_str(const char *s)
{
	_cleanup_free_ char *clean = NULL;

	if (!s)
		return cJSON_CreateNull();
	clean = utf8_clean(s);
	return clean ? cJSON_CreateString(clean) : NULL;
}

static bool json_add_str(cJSON *o, const char *key, const char *s)
{
	cJSON *v = json_str(s);

	if (v && cJSON_AddItemToObject(o, key, v))
		return true;
	cJSON_Delete(v);
	return false;
}

static bool json_add_strs(cJSON *o, const char *key, char *const *v, size_t n)
{
	cJSON *a = cJSON_AddArrayToObject(o, key);

	if (!a)
		return false;
	for (size_t i = 0; i < n; i++) {
		cJSON *s = json_str(v[i]);

		if (!s || !cJSON_AddItemToArray(a, s)) {
			cJSON_Delete(s);
			return false;
		}
	}
	return true;
}

char *pdk_gate_request_json(const struct pdk_config *cfg, const struct pdk_gate_request *rq)
{
	const struct pdk_decision *d = rq->d;
	const char *session = rq->session;
	cJSON *o = cJSON_CreateObject(), *steps;
	bool ok = o != NULL;
	char *ret = NULL;

	if (!session && pdk_session_name(&session) < 0)
		session = NULL;
	ok = ok && json_add_str(o, "line", rq->line) && json_add_str(o, "cwd", rq->cwd) &&
	     json_add_str(o, "session", session) &&
	     cJSON_AddBoolToObject(o, "outside_sandbox", rq->outside_sandbox) &&
	     json_add_str(o, "risk", pdk_risk_name(d->risk)) &&
	     json_add_str(o, "threshold", pdk_risk_name(cfg->threshold)) &&
	     json_add_str(o, "rule", d->rule) && json_add_str(o, "ask", d->ask) &&
	     json_add_strs(o, "programs", d->programs.v, d->programs.n) &&
	     json_add_strs(o, "raises", d->raises.v, d->raises.n) &&
	     json_add_strs(o, "password_paths", (char *const *)rq->password_paths,
			   rq->n_password_paths) &&
	     cJSON_AddBoolToObject(o, "shell", d->shell);
	steps = ok ? cJSON_AddArrayToObject(o, "steps") : NULL;
	ok = ok && steps;
	for (size_t i = 0; ok && i < d->n_steps; i++) {
		const struct pdk_policy_step *st = &d->steps[i];
		cJSON *s = cJSON_CreateObject();
		size_t argc = 0;

		while (st->argv && st->argv[argc])
			argc++;
		if (!s || !cJSON_AddItemToArray(steps, s)) {
			cJSON_Delete(s);
			ok = false;
			break;
		}
		ok = json_add_str(s, "text", st->text) && json_add_str(s, "program", st->program) &&
		     json_add_strs(s, "argv", st->argv, argc) &&
		     cJSON_AddNumberToObject(s, "line", st->line) &&
		     cJSON_AddNumberToObject(s, "column", st->column) &&
		     cJSON_AddNumberToObject(s, "depth", st->depth) &&
		     cJSON_AddBoolToObject(s, "read_only", st->read_only) &&
		     json_add_str(s, "risk", pdk_risk_name(st->risk)) &&
		     json_add_str(s, "rule", st->rule) && json_add_str(s, "why", st->why);
	}
	if (ok)
		ret = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return ret;
}

enum command_outcome { CMD_EXIT, CMD_SIGNAL, CMD_TIMEOUT, CMD_EXEC };

struct command_run {
	enum command_outcome outcome;
	int code; /* exit status, signal, or errno */
	char out[COMMAND_OUTPUT_MAX + 1];
	size_t out_len;
};

/* Write what is left of the JSON without dying of SIGPIPE when the command
 * closed its stdin unread: SIGPIPE stays blocked, and one it raised is taken back. */
static ssize_t write_nopipe(int fd, const char *p, size_t len)
{
	sigset_t pipe_set, old, pending;
	bool was_pending;
	ssize_t n;
	int e;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, &old);
	n = write(fd, p, len);
	e = errno;
	if (n < 0 && e == EPIPE && !was_pending) {
		struct timespec zero = {0, 0};

		sigtimedwait(&pipe_set, NULL, &zero);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return n;
}

static int run_command(const char *path, const char *json, double timeout, struct command_run *cr)
{
	char *argv[] = {(char *)path, NULL};
	long maxfd = sysconf(_SC_OPEN_MAX);
	int in[2] = {-1, -1}, out[2] = {-1, -1}, rep[2] = {-1, -1};
	size_t json_len = strlen(json), sent = 0;
	double deadline = now_s() + timeout;
	bool exited = false;
	int status = 0, r;
	pid_t pid;

	cr->out_len = 0;
	if ((r = cloexec_pipe(in)) < 0 || (r = cloexec_pipe(out)) < 0 ||
	    (r = cloexec_pipe(rep)) < 0)
		goto close_pipes;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		goto close_pipes;
	}
	if (pid == 0)
		exec_child(path, argv, environ, in[0], out[1], rep[1], true,
			   maxfd > 0 ? maxfd : 1024);
	/* Also here, so a kill at the deadline finds the group even if the
	 * child has not run yet. */
	setpgid(pid, pid);
	close(in[0]);
	close(out[1]);
	close(rep[1]);
	in[0] = out[1] = rep[1] = -1;
	r = exec_report(rep[0]);
	rep[0] = -1;
	if (r) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		cr->outcome = CMD_EXEC;
		cr->code = r;
		r = 0;
		goto close_pipes;
	}
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	while (!exited) {
		struct pollfd pfd[2];
		double left = deadline - now_s();
		int nfd = 0, ms;

		if (left <= 0) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			cr->outcome = CMD_TIMEOUT;
			cr->code = 0;
			r = 0;
			goto close_pipes;
		}
		if (in[1] >= 0)
			pfd[nfd++] = (struct pollfd){.fd = in[1], .events = POLLOUT};
		if (out[0] >= 0)
			pfd[nfd++] = (struct pollfd){.fd = out[0], .events = POLLIN};
		/* Short steps: the exit is seen by polling waitpid, not by a signal. */
		ms = left > 0.02 ? 20 : (int)(left * 1000) + 1;
		if (poll(pfd, (nfds_t)nfd, ms) < 0 && errno != EINTR) {
			r = -errno;
			kill(-pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			goto close_pipes;
		}
		if (in[1] >= 0) {
			ssize_t n = write_nopipe(in[1], json + sent, json_len - sent);

			if (n > 0)
				sent += (size_t)n;
			if (sent == json_len || (n < 0 && errno != EAGAIN && errno != EINTR)) {
				close(in[1]);
				in[1] = -1;
			}
		}
		while (out[0] >= 0) {
			char buf[4096];
			ssize_t n = read(out[0], buf, sizeof(buf));

			if (n > 0) {
				size_t keep = COMMAND_OUTPUT_MAX - cr->out_len;

				if (keep > (size_t)n)
					keep = (size_t)n;
				memcpy(cr->out + cr->out_len, buf, keep);
				cr->out_len += keep;
				continue;
			}
			if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
				close(out[0]);
				out[0] = -1;
			}
			break;
		}
		if (waitpid(pid, &status, WNOHANG) == pid)
			exited = true;
	}
	/* Whatever it left running in its group goes with it. */
	kill(-pid, SIGKILL);
	if (WIFEXITED(status)) {
		cr->outcome = CMD_EXIT;
		cr->code = WEXITSTATUS(status);
	} else {
		cr->outcome = CMD_SIGNAL;
		cr->code = WTERMSIG(status);
	}
	r = 0;
close_pipes:
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (out[i] >= 0)
			close(out[i]);
		if (rep[i] >= 0)
			close(rep[i]);
	}
	cr->out[cr->out_len] = '\0';
	return r;
}

/* The first non-empty line of the command's output, trimmed, for the refusal. */
static void put_first_line(struct pdk_buf *b, const char *out)
{
	const char *s = out, *e;

	while (*s == '\n' || *s == '\r' || *s == ' ' || *s == '\t')
		s++;
	e = s + strcspn(s, "\r\n");
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (e == s)
		return;
	pdk_buf_puts(b, ": ");
	if (e - s > 200)
		e = s + 200;
	pdk_buf_add(b, s, (size_t)(e - s));
}

static int ask_command(const struct pdk_config *cfg, const struct pdk_gate_request *rq,
		       struct pdk_gate_result *ret)
{
	const char *path = cfg->approval_command;
	double timeout = rq->command_timeout > 0 ? rq->command_timeout : PDK_GATE_COMMAND_TIMEOUT;
	_cleanup_free_ char *json = NULL, *by = NULL, *reason = NULL;
	_cleanup_free_ struct command_run *cr = NULL;
	struct pdk_buf b = {0};
	int r;

	if (!path || path[0] != '/')
		return refuse(ret, rq,
			      "approval.mode is command, but approval.command is not an absolute "
			      "path",
			      INSTEAD_NOBODY);
	json = pdk_gate_request_json(cfg, rq);
	by = xasprintf("approval command %s", path);
	cr = malloc(sizeof(*cr));
	if (!json || !by || !cr)
		return -ENOMEM;
	ret->asked = true;
	r = run_command(path, json, timeout, cr);
	if (r < 0) {
		pdk_buf_printf(&b, "approval command %s could not be run: %s", path, strerror(-r));
	} else if (cr->outcome == CMD_EXIT && cr->code == 0) {
		ret->by = steal_pointer(&by);
		ret->approved = true;
		return 0;
	} else if (cr->outcome == CMD_EXIT) {
		pdk_buf_printf(&b, "approval command %s said no (exit status %d)", path, cr->code);
		put_first_line(&b, cr->out);
	} else if (cr->outcome == CMD_SIGNAL) {
		pdk_buf_printf(&b, "approval command %s was killed by signal %d (%s)", path,
			       cr->code, strsignal(cr->code));
	} else if (cr->outcome == CMD_TIMEOUT) {
		pdk_buf_printf(&b, "approval command %s gave no answer within %g s and was killed",
			       path, timeout);
	} else {
		pdk_buf_printf(&b, "approval command %s could not be run: %s", path,
			       strerror(cr->code));
	}
	pdk_buf_add(&b, "", 0);
	if (b.oom) {
		pdk_buf_free(&b);
		return -ENOMEM;
	}
	reason = b.data;
	return refuse(ret, rq, reason,
		      cr->outcome == CMD_EXIT && r == 0 ? INSTEAD_SAID_NO : INSTEAD_NOBODY);
}

/* ---- the terminal ---------------------------------------------------------- */

enum answer { ANSWER_NO, ANSWER_ONCE, ANSWER_SESSION, ANSWER_EOF, ANSWER_INTERRUPT, ANSWER_ERROR };

/* The prompt: the whole call, where, the part that needs approval and why, the
 * raises, and the answers on offer. */
static void put_prompt(struct pdk_buf *b, const struct pdk_config *cfg,
		       const struct pdk_gate_request *rq, const char *heads)
{
	const struct pdk_decision *d = rq->d;

	pdk_buf_puts(b, "\npaddock: this command needs your approval\n  command: ");
	put_shown(b, rq->line);
	if (rq->cwd) {
		pdk_buf_puts(b, "\n  in:      ");
		put_shown(b, rq->cwd);
	}
	if (d->ask) {
		pdk_buf_puts(b, "\n  needs:   ");
		put_shown(b, d->ask);
	}
	pdk_buf_printf(b, "\n  risk:    %s", pdk_risk_name(d->risk));
	if (d->rule) {
		pdk_buf_puts(b, " (");
		put_shown(b, d->rule);
		pdk_buf_puts(b, ")");
	}
	for (size_t i = 0; d->n_steps > 1 && i < d->n_steps; i++) {
		const struct pdk_policy_step *st = &d->steps[i];

		if (st->read_only || st->risk < cfg->threshold)
			continue;
		pdk_buf_puts(b, "\n  part:    `");
		put_shown(b, st->text);
		pdk_buf_printf(b, "`: %s", pdk_risk_name(st->risk));
		if (st->rule) {
			pdk_buf_puts(b, " (");
			put_shown(b, st->rule);
			pdk_buf_puts(b, ")");
		}
		if (st->why) {
			pdk_buf_puts(b, ": ");
			put_shown(b, st->why);
		}
	}
	for (size_t i = 0; i < d->raises.n; i++) {
		pdk_buf_puts(b, i ? ", " : "\n  also:    ");
		put_shown(b, d->raises.v[i]);
	}
	if (rq->outside_sandbox)
		pdk_buf_puts(b, "\n  OUTSIDE THE SANDBOX: it may write anywhere you can, paddock's "
				"own state included; asked every time, for this one run only");
	if (rq->n_password_paths) {
		pdk_buf_puts(b, "\n  password: it writes outside your home (");
		for (size_t i = 0; i < rq->n_password_paths; i++) {
			if (i)
				pdk_buf_puts(b, ", ");
			put_shown(b, rq->password_paths[i]);
		}
		pdk_buf_puts(b, "); after a yes, sudo asks for your password");
	}
	if (heads) {
		pdk_buf_puts(b, "\nRun it? y = yes, once; a = yes to ");
		put_shown(b, heads);
		pdk_buf_puts(b, " for the rest of this session; n = no [y/a/N] ");
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

/* Read one answer line in canonical mode, with echo, discarding type-ahead. */
static enum answer read_answer(int tty, bool offer_session)
{
	char line[64];
	size_t len = 0;
	bool overflow = false;

	for (;;) {
		char c;
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
static const char *tty_unusable(int tty)
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
static int ask_tty(const struct pdk_config *cfg, const struct pdk_gate_request *rq, int tty,
		   bool offer_session, struct pdk_gate_result *ret)
{
	const struct pdk_decision *d = rq->d;
	_cleanup_free_ char *heads = offer_session ? program_heads(d) : NULL;
	const char *sudo = rq->sudo ? rq->sudo : SUDO_PATH;
	struct sigaction sa, old_int;
	struct termios saved, t;
	struct pdk_buf b = {0};
	enum answer a;
	int r = 0, sudo_rc = 0;
	bool restore;

	if (offer_session && !heads)
		return -ENOMEM;
	put_prompt(&b, cfg, rq, heads);
	if (b.oom) {
		pdk_buf_free(&b);
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
	a = read_answer(tty, offer_session);
	if (a == ANSWER_INTERRUPT || a == ANSWER_EOF || a == ANSWER_ERROR)
		tty_say(tty, "\n");

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
			for (size_t i = 0; i < d->programs.n && r >= 0; i++)
				r = pdk_session_approve(rq->session, d->programs.v[i]);
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
		return approve(ret, rq->n_password_paths
					? "the person at the terminal, with their password"
					: "the person at the terminal");
	case ANSWER_NO:
		tty_say(tty, "paddock: not approved\n");
		return refuse(ret, rq, "the person at the terminal said no", INSTEAD_SAID_NO);
	case ANSWER_INTERRUPT:
		tty_say(tty, "paddock: not approved (Ctrl-C)\n");
		return refuse(ret, rq, "the person at the terminal said no (Ctrl-C)",
			      INSTEAD_SAID_NO);
	case ANSWER_EOF:
	case ANSWER_ERROR:
		return refuse(ret, rq, "the terminal gave no answer (end of input)",
			      INSTEAD_NOBODY);
	}

	/* A yes the password did not back. */
	tty_say(tty, "paddock: not approved (the password was not confirmed)\n");
	b = (struct pdk_buf){0};
	pdk_buf_puts(&b, "command not approved: writing outside your home (");
	put_paths(&b, rq);
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
	return refuse_buf(ret, &b);
}

/* ---- the gate -------------------------------------------------------------- */

/* Could a "yes for this program" cover this call? */
static bool rememberable(const struct pdk_gate_request *rq)
{
	const struct pdk_decision *d = rq->d;

	if (rq->outside_sandbox || rq->n_password_paths || d->programs.n == 0)
		return false;
	for (size_t i = 0; i < d->programs.n; i++)
		if (!pdk_session_program_valid(d->programs.v[i]))
			return false;
	return true;
}

static bool session_covers(const struct pdk_gate_request *rq)
{
	for (size_t i = 0; i < rq->d->programs.n; i++)
		if (pdk_session_approved(rq->session, rq->d->programs.v[i]) != 1)
			return false;
	return true;
}

int pdk_gate_decide(const struct pdk_config *cfg, bool yes, const struct pdk_gate_request *rq,
		    struct pdk_gate_result *ret)
{
	struct pdk_gate_result res = {0};
	const char *nobody = NULL;
	_cleanup_close_ int tty = -1;
	bool remember = rq && rq->d && rememberable(rq);
	int r;

	if (!rq || !rq->d || !rq->line)
		return -EINVAL;

	if (remember && session_covers(rq)) {
		_cleanup_free_ char *heads = program_heads(rq->d);
		_cleanup_free_ char *by =
		    heads ? xasprintf("session approval for %s", heads) : NULL;

		if (!by)
			return -ENOMEM;
		r = approve(&res, by);
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
			r = approve(&res, who);
		goto done;
	}

	switch (cfg->approval_mode) {
	case PDK_APPROVAL_DENY:
		nobody = "approval.mode is deny";
		break;
	case PDK_APPROVAL_COMMAND:
		if (rq->n_password_paths)
			r = refuse_password(&res, rq, "approval.mode is command");
		else
			r = ask_command(cfg, rq, &res);
		goto done;
	case PDK_APPROVAL_AUTO:
	case PDK_APPROVAL_ASK:
	default:
		/* Never stdin or stdout: those belong to the agent that called us. */
		tty = open(TTY_PATH, O_RDWR | O_NOCTTY | O_CLOEXEC);
		nobody = tty_unusable(tty);
		break;
	}
	if (nobody) {
		if (rq->outside_sandbox)
			r = refuse_outside(&res, nobody);
		else if (rq->n_password_paths)
			r = refuse_password(&res, rq, nobody);
		else {
			_cleanup_free_ char *reason =
			    xasprintf("no one can be asked here (%s)", nobody);

			r = reason ? refuse(&res, rq, reason, INSTEAD_NOBODY) : -ENOMEM;
		}
		goto done;
	}
	r = ask_tty(cfg, rq, tty, remember, &res);
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
