/* gate_command.c - the approval.command approver: the request as JSON on its stdin, the command
 * run in its own process group, killed at the timeout; and the fork/exec both approvers use. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "core/fmt.h"
#include "gate_int.h"
#include "core/path.h"
#include "run/runner.h"
#include "session.h"
#include "core/state.h"
#include "core/util.h"

extern char **environ;

#define COMMAND_OUTPUT_MAX 4096 /* of approval.command's output, kept for the refusal */

/* ---- children -------------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * In the child, between fork and exec (async-signal-safe calls only): stdio
 * from in/out, default signals, nothing else inherited; exec's errno goes back
 * over the CLOEXEC pipe report.
 */
void __attribute__((noreturn))
pdk_gate_exec_child(const char *path, char *const argv[], char *const envp[], int in, int out,
		    int report, bool own_group)
{
	int e;

	if (own_group)
		setpgid(0, 0);
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
		goto fail;
	pdk_reset_signals();
	pdk_cloexec_from(3);
	execve(path, argv, envp);
fail:
	e = errno;
	if (write(report, &e, sizeof(e)) < 0) {
		/* the parent sees EOF and a status of 127 */
	}
	_exit(127);
}

/* After fork: the errno of a failed exec, or 0 when it ran. Closes report. */
int pdk_gate_exec_report(int report)
{
	int e = 0;
	ssize_t n;

	do
		n = read(report, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(report);
	return n == (ssize_t)sizeof(e) ? e : 0;
}

/* ---- approval.command -------------------------------------------------------- */

static cJSON *json_str(const char *s)
{
	_cleanup_free_ char *clean = NULL;

	if (!s)
		return cJSON_CreateNull();
	clean = pdk_gate_utf8_clean(s);
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
		int sig;

		/* sigwait() only on one that is pending, so it never blocks. */
		sigpending(&pending);
		if (sigismember(&pending, SIGPIPE))
			sigwait(&pipe_set, &sig);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return n;
}

/* Read what the command printed so far (the first COMMAND_OUTPUT_MAX bytes
 * are kept); at its end, close the pipe. */
static void read_output(int *fd, struct command_run *cr)
{
	while (*fd >= 0) {
		char buf[4096];
		ssize_t n = read(*fd, buf, sizeof(buf));

		if (n > 0) {
			size_t keep = COMMAND_OUTPUT_MAX - cr->out_len;

			if (keep > (size_t)n)
				keep = (size_t)n;
			memcpy(cr->out + cr->out_len, buf, keep);
			cr->out_len += keep;
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			close(*fd);
			*fd = -1;
		}
		break;
	}
}

static int run_command(const char *path, const char *json, double timeout, struct command_run *cr)
{
	char *argv[] = {(char *)path, NULL};
	int in[2] = {-1, -1}, out[2] = {-1, -1}, rep[2] = {-1, -1};
	size_t json_len = strlen(json), sent = 0;
	double deadline = now_s() + timeout;
	bool exited = false;
	int status = 0, r;
	pid_t pid;

	cr->out_len = 0;
	if ((r = pdk_pipe_cloexec(in)) < 0 || (r = pdk_pipe_cloexec(out)) < 0 ||
	    (r = pdk_pipe_cloexec(rep)) < 0)
		goto close_pipes;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		goto close_pipes;
	}
	if (pid == 0)
		pdk_gate_exec_child(path, argv, environ, in[0], out[1], rep[1], true);
	/* Also here, so a kill at the deadline finds the group even if the
	 * child has not run yet. */
	setpgid(pid, pid);
	close(in[0]);
	close(out[1]);
	close(rep[1]);
	in[0] = out[1] = rep[1] = -1;
	r = pdk_gate_exec_report(rep[0]);
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
		read_output(&out[0], cr);
		if (waitpid(pid, &status, WNOHANG) == pid)
			exited = true;
	}
	/* What it wrote just before it exited is still in the pipe. */
	read_output(&out[0], cr);
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

int pdk_gate_ask_command(const struct pdk_config *cfg, const struct pdk_gate_request *rq,
			 struct pdk_gate_result *ret)
{
	const char *path = cfg->approval_command;
	double timeout = rq->command_timeout > 0 ? rq->command_timeout : PDK_GATE_COMMAND_TIMEOUT;
	_cleanup_free_ char *json = NULL, *by = NULL, *reason = NULL;
	_cleanup_free_ struct command_run *cr = NULL;
	struct pdk_buf b = {0};
	int r;

	if (!path || path[0] != '/')
		return pdk_gate_refuse(ret, rq,
				       "approval.mode is command, but approval.command is not an "
				       "absolute path",
				       PDK_GATE_INSTEAD_NOBODY);
	json = pdk_gate_request_json(cfg, rq);
	by = pdk_asprintf("approval command %s", path);
	cr = calloc(1, sizeof(*cr));
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
	return pdk_gate_refuse(ret, rq, reason,
			       r == 0 && cr->outcome == CMD_EXIT ? PDK_GATE_INSTEAD_SAID_NO
								 : PDK_GATE_INSTEAD_NOBODY);
}
