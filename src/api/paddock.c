/* paddock.c - libpaddock (include/paddock.h): a session is the MCP engine forked once
 * from the caller, spoken to over a socket; a call is one request in, one result out. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

#include "paddock.h"
#include "cli/cli.h"
#include "cli/cli_call.h"
#include "confine/backend.h"
#include "core/fmt.h"
#include "core/self.h"
#include "core/util.h"

#ifndef PDK_BINDIR
#define PDK_BINDIR "/usr/local/bin"
#endif

struct paddock_session {
	pthread_mutex_t lock;
	pid_t engine;
	int fd;                  /* the engine's end of the socket is its stdin and stdout */
	char *buf;               /* what was read and is not yet a whole line */
	size_t len, cap;
	unsigned long next_id;
	bool gone;               /* the engine ended: every call fails with -EPIPE */
	paddock_confirm_fn confirm;
	void *confirm_ctx;
};

const char *paddock_version(void)
{
	return PACKAGE_VERSION;
}

/* ---- the engine's process ------------------------------------------------------------ */

/* The engine: `paddock mcp` with the session's options, on the socket; never returns. */
static void engine_main(int sock, const struct paddock_options *o, const char *program)
    __attribute__((noreturn));
static void engine_main(int sock, const struct paddock_options *o, const char *program)
{
	char bound[32];
	const char *argv[64];
	int argc = 0, devnull;
	sigset_t none;

	/* Nothing of the caller's signal handling: a default for each, none blocked. */
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
#ifdef __linux__
	/* The caller gone (even SIGKILLed): stop every command, as on EOF. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
	devnull = open("/dev/null", O_RDWR);
	if (devnull < 0 || dup2(sock, 0) < 0 || dup2(sock, 1) < 0 || dup2(devnull, 2) < 0)
		_exit(PDK_EXIT_FAILURE);
#if defined(__linux__) && defined(SYS_close_range)
	if (syscall(SYS_close_range, 3U, ~0U, 0U) < 0)
#endif
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	if (o->state_home && setenv("XDG_STATE_HOME", o->state_home, 1) < 0)
		_exit(PDK_EXIT_FAILURE);
	if (pdk_self_set(program) < 0)
		_exit(PDK_EXIT_FAILURE);
	argv[argc++] = "mcp";
	if (o->config) {
		argv[argc++] = "--config";
		argv[argc++] = o->config;
	}
	if (o->backend) {
		argv[argc++] = "--backend";
		argv[argc++] = o->backend;
	}
	if (o->root) {
		argv[argc++] = "--root";
		argv[argc++] = o->root;
	}
	if (o->bound) {
		snprintf(bound, sizeof(bound), "%zu", o->bound);
		argv[argc++] = "--bound";
		argv[argc++] = bound;
	}
	for (size_t i = 0; o->write_paths && o->write_paths[i] && argc < 60; i++) {
		argv[argc++] = "-w";
		argv[argc++] = o->write_paths[i];
	}
	argv[argc] = NULL;
	_exit(pdk_cli_mcp_main(argc, (char **)argv));
}

/* ---- one message at a time -------------------------------------------------------------- */

static int send_msg(struct paddock_session *s, cJSON *msg)
{
	char *text = cJSON_PrintUnformatted(msg);
	size_t n, off = 0;
	int r = 0;

	if (!text)
		return -ENOMEM;
	n = strlen(text);
	text[n] = '\n'; /* the NUL's place: one line, sent whole */
	while (off < n + 1) {
		ssize_t w = send(s->fd, text + off, n + 1 - off, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			r = -EPIPE;
			break;
		}
		off += (size_t)w;
	}
	text[n] = '\0';
	cJSON_free(text);
	return r;
}

/* The next message from the engine: a new object, or NULL with -errno in *err. */
static cJSON *recv_msg(struct paddock_session *s, int *err)
{
	for (;;) {
		char *nl = s->len ? memchr(s->buf, '\n', s->len) : NULL;

		if (nl) {
			size_t line = (size_t)(nl - s->buf);
			cJSON *m = cJSON_ParseWithLength(s->buf, line);

			memmove(s->buf, nl + 1, s->len - line - 1);
			s->len -= line + 1;
			if (m)
				return m;
			continue; /* not JSON: nothing the engine says is meant for us */
		}
		if (s->len == s->cap) {
			size_t cap = s->cap ? s->cap * 2 : 65536;
			char *b = realloc(s->buf, cap);
			if (!b) {
				*err = -ENOMEM;
				return NULL;
			}
			s->buf = b;
			s->cap = cap;
		}
		ssize_t n = read(s->fd, s->buf + s->len, s->cap - s->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			s->gone = true;
			*err = -EPIPE;
			return NULL;
		}
		s->len += (size_t)n;
	}
}

/* The engine asks a person (elicitation/create): the program's callback answers. */
static int answer_question(struct paddock_session *s, const cJSON *req)
{
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(req, "params");
	const char *q = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "message"));
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(params, "requestedSchema"), "properties"),
		"decision"),
	    "enum");
	enum paddock_confirm a = s->confirm && q ? s->confirm(s->confirm_ctx, q)
						 : PADDOCK_CONFIRM_NO;
	bool session_offered = false;
	const cJSON *it;
	cJSON *msg = cJSON_CreateObject(), *res;
	int r;

	cJSON_ArrayForEach(it, e) if (cJSON_IsString(it) && !strcmp(it->valuestring, "session"))
	    session_offered = true;
	if (!msg)
		return -ENOMEM;
	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	cJSON_AddItemToObject(msg, "id",
			      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(req, "id"), true));
	res = cJSON_AddObjectToObject(msg, "result");
	if (a == PADDOCK_CONFIRM_ONCE || a == PADDOCK_CONFIRM_SESSION) {
		cJSON_AddStringToObject(res, "action", "accept");
		cJSON_AddStringToObject(cJSON_AddObjectToObject(res, "content"), "decision",
					a == PADDOCK_CONFIRM_SESSION && session_offered ? "session"
											: "once");
	} else {
		cJSON_AddStringToObject(res, "action", "decline");
	}
	r = send_msg(s, msg);
	cJSON_Delete(msg);
	return r;
}

/* A request to the engine and its answer's "result" (a new object), answering the
 * questions it asks on the way. */
static int call(struct paddock_session *s, const char *method, cJSON *params, cJSON **ret,
		char *why, size_t why_len)
{
	cJSON *msg = cJSON_CreateObject(), *m;
	unsigned long id = ++s->next_id;
	int r;

	if (s->gone) {
		cJSON_Delete(params);
		cJSON_Delete(msg);
		return pdk_why(why, why_len, -EPIPE, "paddock: the session's engine has ended; "
						  "start a new session");
	}
	if (!msg) {
		cJSON_Delete(params);
		return pdk_why(why, why_len, -ENOMEM, "paddock: out of memory");
	}
	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	cJSON_AddNumberToObject(msg, "id", (double)id);
	cJSON_AddStringToObject(msg, "method", method);
	cJSON_AddItemToObject(msg, "params", params);
	r = send_msg(s, msg);
	cJSON_Delete(msg);
	while (r == 0 && (m = recv_msg(s, &r))) {
		const cJSON *mid = cJSON_GetObjectItemCaseSensitive(m, "id");
		const char *meth =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "method"));

		if (meth && mid && strcmp(meth, "elicitation/create") == 0) {
			r = answer_question(s, m);
		} else if (!meth && cJSON_IsNumber(mid) && mid->valuedouble == (double)id) {
			cJSON *res = cJSON_DetachItemFromObjectCaseSensitive(m, "result");
			const cJSON *err = cJSON_GetObjectItemCaseSensitive(m, "error");
			const char *emsg =
			    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(err, "message"));

			cJSON_Delete(m);
			if (!res)
				return pdk_why(why, why_len, -EINVAL, "paddock: %s",
					    emsg ? emsg : "the engine refused the request");
			*ret = res;
			return 0;
		}
		cJSON_Delete(m); /* notifications (log, progress) and others' answers */
	}
	if (r == -EPIPE)
		return pdk_why(why, why_len, r, "paddock: the session's engine has ended; start a "
					     "new session");
	return pdk_why(why, why_len, r, "paddock: %s", strerror(-r));
}

/* ---- the session ------------------------------------------------------------------------ */

int paddock_session_new(const struct paddock_options *opts, struct paddock_session **ret,
			char *why, size_t why_len)
{
	struct paddock_options o = PADDOCK_OPTIONS_INIT;
	struct pdk_config cfg;
	struct paddock_session *s;
	const char *program;
	char line[1200];
	cJSON *params, *caps, *res = NULL;
	int sv[2], r;

	if (why && why_len)
		*why = '\0';
	if (!ret)
		return pdk_why(why, why_len, -EINVAL, "paddock_session_new: ret is NULL");
	if (opts) {
		if (opts->size < offsetof(struct paddock_options, config) ||
		    opts->size > sizeof(o))
			return pdk_why(why, why_len, -EINVAL,
				"paddock_session_new: options.size %zu "
				"is not a size of struct paddock_options; use PADDOCK_OPTIONS_INIT",
				opts->size);
		memcpy(&o, opts, opts->size);
	}
	if (o.bound && (o.bound < 1024 || o.bound > 1048576))
		return pdk_why(why, why_len, -EINVAL,
			"paddock_session_new: bound %zu is out of range: "
			"give 1024 to 1048576 bytes, or 0 for the configured one", o.bound);
	if (o.backend && !pdk_backend_find(o.backend))
		return pdk_why(why, why_len, -EINVAL,
			"paddock_session_new: no backend '%.64s' in this "
			"build; give one of those `paddock doctor` lists, or NULL", o.backend);
	if (o.state_home && o.state_home[0] != '/')
		return pdk_why(why, why_len, -EINVAL,
			"paddock_session_new: state_home '%.200s' is not "
			"absolute; give an absolute path, or NULL", o.state_home);
	program = o.program ? o.program : getenv("PADDOCK_PROGRAM");
	if (!program || !*program)
		program = PDK_BINDIR "/paddock";
	if (access(program, X_OK) < 0)
		return pdk_why(why, why_len, -ENOENT,
			"paddock_session_new: the paddock program %.300s: "
			"%s; install paddock, or name it in options.program", program,
			strerror(errno));
	/* A bad configuration is said now, in the caller's words, not on each call. */
	if (pdk_cli_config_load_why(NULL, "paddock_session_new", o.config, false, &cfg, line,
				    sizeof(line)) < 0)
		return pdk_why(why, why_len, -EINVAL, "%s", line);
	pdk_config_release(&cfg);

	if (!(s = calloc(1, sizeof(*s))))
		return pdk_why(why, why_len, -ENOMEM, "paddock_session_new: out of memory");
	s->confirm = o.confirm;
	s->confirm_ctx = o.confirm_ctx;
	pthread_mutex_init(&s->lock, NULL);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		r = -errno;
		free(s);
		return pdk_why(why, why_len, r,
			"paddock_session_new: socketpair: %s", strerror(-r));
	}
	s->engine = fork();
	if (s->engine == 0)
		engine_main(sv[1], &o, program);
	r = -errno;
	close(sv[1]);
	s->fd = sv[0];
	if (s->engine < 0) {
		close(s->fd);
		free(s);
		return pdk_why(why, why_len, r, "paddock_session_new: fork: %s", strerror(-r));
	}

	params = cJSON_CreateObject();
	caps = cJSON_AddObjectToObject(params, "capabilities");
	if (s->confirm)
		cJSON_AddObjectToObject(caps, "elicitation");
	cJSON_AddStringToObject(params, "protocolVersion", "2025-06-18");
	cJSON *info = cJSON_AddObjectToObject(params, "clientInfo");
	cJSON_AddStringToObject(info, "name", "libpaddock");
	cJSON_AddStringToObject(info, "version", PACKAGE_VERSION);
	r = call(s, "initialize", params, &res, line, sizeof(line));
	cJSON_Delete(res);
	if (r == 0) {
		cJSON *n = cJSON_CreateObject();
		cJSON_AddStringToObject(n, "jsonrpc", "2.0");
		cJSON_AddStringToObject(n, "method", "notifications/initialized");
		r = send_msg(s, n);
		cJSON_Delete(n);
	}
	if (r < 0) {
		paddock_session_free(s);
		return pdk_why(why, why_len, r, "paddock_session_new: the engine did not start: %s",
			    line);
	}
	*ret = s;
	return 0;
}

void paddock_session_free(struct paddock_session *s)
{
	int status;

	if (!s)
		return;
	/* EOF: the engine stops what still runs, then ends. */
	shutdown(s->fd, SHUT_RDWR);
	close(s->fd);
	while (waitpid(s->engine, &status, 0) < 0 && errno == EINTR)
		;
	pthread_mutex_destroy(&s->lock);
	free(s->buf);
	free(s);
}

/* ---- calls ------------------------------------------------------------------------------ */

static int add_strings(cJSON *o, const char *key, const char *const *v)
{
	cJSON *a;

	if (!v)
		return 0;
	if (!(a = cJSON_AddArrayToObject(o, key)))
		return -ENOMEM;
	for (size_t i = 0; v[i]; i++)
		if (!cJSON_AddItemToArray(a, cJSON_CreateString(v[i])))
			return -ENOMEM;
	return 0;
}

/* The request as run_command's arguments, or -EINVAL with why. */
static int request_args(const struct paddock_request *rq, cJSON **ret, char *why, size_t why_len)
{
	struct paddock_request q = {0};
	cJSON *a;

	if (!rq)
		return pdk_why(why, why_len, -EINVAL, "paddock: the request is NULL");
	if (rq->size < offsetof(struct paddock_request, argv) + sizeof(rq->argv) ||
	    rq->size > sizeof(q))
		return pdk_why(why, why_len, -EINVAL, "paddock: request.size %zu is not a size of "
			    "struct paddock_request; use PADDOCK_REQUEST_INIT", rq->size);
	memcpy(&q, rq, rq->size);
	if (!q.argv || !q.argv[0] || !q.argv[0][0])
		return pdk_why(why, why_len, -EINVAL,
			"paddock: the request has no program: give argv "
			"as {\"ls\", \"-l\", NULL}");
	if (q.network > PADDOCK_NETWORK_FULL)
		return pdk_why(why, why_len, -EINVAL, "paddock: request.network %d is none of "
			    "PADDOCK_NETWORK_OFF, _DOMAINS, _FULL", (int)q.network);
	if (q.domains && q.domains[0] && q.network != PADDOCK_NETWORK_DOMAINS)
		return pdk_why(why, why_len, -EINVAL, "paddock: request.domains go with "
			    "PADDOCK_NETWORK_DOMAINS; set it, or drop the domains");
	if (!(a = cJSON_CreateObject()))
		return pdk_why(why, why_len, -ENOMEM, "paddock: out of memory");
	if (add_strings(a, "argv", q.argv) < 0 ||
	    (q.cwd && !cJSON_AddStringToObject(a, "workingDirectory", q.cwd)) ||
	    (q.network && !cJSON_AddStringToObject(a, "network", q.network == PADDOCK_NETWORK_FULL
							       ? "full" : "domains")) ||
	    (q.network == PADDOCK_NETWORK_DOMAINS &&
	     add_strings(a, "allowDomains", q.domains) < 0) ||
	    add_strings(a, "writePaths", q.write_paths) < 0 ||
	    (q.timeout && !cJSON_AddNumberToObject(a, "timeoutSeconds", q.timeout)) ||
	    (q.outside_sandbox && !cJSON_AddTrueToObject(a, "outsideSandbox")) ||
	    (q.allow_git_hooks && !cJSON_AddTrueToObject(a, "allowGitHooks"))) {
		cJSON_Delete(a);
		return pdk_why(why, why_len, -ENOMEM, "paddock: out of memory");
	}
	*ret = a;
	return 0;
}

/* The text of a tool result's first content item. */
static const char *content_text(const cJSON *res)
{
	const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(res, "content"), 0);

	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "text"));
}

/* A tool call: its result, or -EINVAL with the refusal of bad arguments in why. */
static int tool(struct paddock_session *s, const char *method, const char *name, cJSON *args,
		cJSON **ret, char *why, size_t why_len)
{
	cJSON *params = cJSON_CreateObject(), *res = NULL;
	int r;

	if (!params || (name && !cJSON_AddStringToObject(params, "name", name))) {
		cJSON_Delete(params);
		cJSON_Delete(args);
		return pdk_why(why, why_len, -ENOMEM, "paddock: out of memory");
	}
	cJSON_AddItemToObject(params, "arguments", args);
	pthread_mutex_lock(&s->lock);
	r = call(s, method, params, &res, why, why_len);
	pthread_mutex_unlock(&s->lock);
	if (r < 0)
		return r;
	if (!cJSON_GetObjectItemCaseSensitive(res, "structuredContent")) {
		const char *t = content_text(res);
		r = pdk_why(why, why_len, -EINVAL, "%s", t ? t : "paddock: the call was refused");
		cJSON_Delete(res);
		return r;
	}
	*ret = res;
	return 0;
}

/* A copy of a JSON string member, or NULL when it is null or missing. */
static int dup_member(const cJSON *o, const char *key, const char **ret)
{
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));

	*ret = NULL;
	return v && !(*ret = strdup(v)) ? -ENOMEM : 0;
}

static int dup_strings(const cJSON *o, const char *key, const char *const **ret, size_t *n)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key), *e;
	const char **v = calloc((size_t)cJSON_GetArraySize(a) + 1, sizeof(*v));

	*n = 0;
	*ret = v;
	if (!v)
		return -ENOMEM;
	cJSON_ArrayForEach(e, a) if (cJSON_IsString(e) && !(v[(*n)++] = strdup(e->valuestring)))
	    return -ENOMEM;
	return 0;
}

static double number(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

int paddock_run(struct paddock_session *s, const struct paddock_request *rq,
		struct paddock_result **ret, char *why, size_t why_len)
{
	struct paddock_result *res;
	cJSON *args = NULL, *out = NULL;
	const cJSON *sc;
	char *json;
	int r;

	if (why && why_len)
		*why = '\0';
	if (!s || !ret)
		return pdk_why(why, why_len, -EINVAL, "paddock_run: the session or ret is NULL");
	if ((r = request_args(rq, &args, why, why_len)) < 0 ||
	    (r = tool(s, "tools/call", "run_command", args, &out, why, why_len)) < 0)
		return r;
	sc = cJSON_GetObjectItemCaseSensitive(out, "structuredContent");
	if (!(res = calloc(1, sizeof(*res)))) {
		cJSON_Delete(out);
		return pdk_why(why, why_len, -ENOMEM, "paddock_run: out of memory");
	}
	res->ran = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sc, "ran"));
	res->exit_code = (int)number(sc, "exit_code");
	res->signal = (int)number(sc, "signal");
	res->timed_out = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sc, "timed_out"));
	res->duration = number(sc, "duration");
	json = cJSON_PrintUnformatted(sc);
	res->json = json;
	r = json ? 0 : -ENOMEM;
	if (r == 0 && !(res->text = strdup(content_text(out) ? content_text(out) : "")))
		r = -ENOMEM;
	if (r == 0)
		r = dup_member(sc, "stdout", &res->stdout_text);
	if (r == 0)
		r = dup_member(sc, "stderr", &res->stderr_text);
	if (r == 0)
		r = dup_member(sc, "output_id", &res->output_id);
	if (r == 0)
		r = dup_member(sc, "error", &res->error);
	if (r == 0)
		r = dup_member(sc, "error_kind", &res->error_kind);
	if (r == 0)
		r = dup_strings(sc, "notes", &res->notes, &res->n_notes);
	if (r == 0)
		r = dup_strings(sc, "sandbox_refusals", &res->refusals, &res->n_refusals);
	cJSON_Delete(out);
	if (r < 0) {
		paddock_result_free(res);
		return pdk_why(why, why_len, r, "paddock_run: out of memory");
	}
	*ret = res;
	return 0;
}

static void free_strings(const char *const *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free((char *)v[i]);
	free((void *)v);
}

void paddock_result_free(struct paddock_result *res)
{
	if (!res)
		return;
	cJSON_free((char *)res->json);
	free((char *)res->text);
	free((char *)res->stdout_text);
	free((char *)res->stderr_text);
	free((char *)res->output_id);
	free((char *)res->error);
	free((char *)res->error_kind);
	free_strings(res->notes, res->n_notes);
	free_strings(res->refusals, res->n_refusals);
	free(res);
}

int paddock_check(struct paddock_session *s, const struct paddock_request *rq,
		  struct paddock_decision **ret, char *why, size_t why_len)
{
	struct paddock_decision *d;
	const char *verdict;
	cJSON *args = NULL, *out = NULL;
	const cJSON *sc;
	int r;

	if (why && why_len)
		*why = '\0';
	if (!s || !ret)
		return pdk_why(why, why_len, -EINVAL, "paddock_check: the session or ret is NULL");
	if ((r = request_args(rq, &args, why, why_len)) < 0 ||
	    (r = tool(s, "paddock/check", NULL, args, &out, why, why_len)) < 0)
		return r;
	sc = cJSON_GetObjectItemCaseSensitive(out, "structuredContent");
	verdict = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sc, "verdict"));
	if (!verdict) {
		const char *e = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sc, "error"));
		r = pdk_why(why, why_len, -EINVAL, "%s", e ? e : "paddock_check: no decision");
		cJSON_Delete(out);
		return r;
	}
	if (!(d = calloc(1, sizeof(*d)))) {
		cJSON_Delete(out);
		return pdk_why(why, why_len, -ENOMEM, "paddock_check: out of memory");
	}
	d->verdict = !strcmp(verdict, "run")   ? PADDOCK_VERDICT_RUN
		     : !strcmp(verdict, "ask") ? PADDOCK_VERDICT_ASK
					       : PADDOCK_VERDICT_REFUSE;
	r = dup_member(sc, "risk", &d->risk);
	if (r == 0)
		r = dup_member(sc, "rule", &d->rule);
	if (r == 0)
		r = dup_member(sc, d->verdict == PADDOCK_VERDICT_REFUSE ? "message" : "ask",
			       &d->why);
	if (r == 0 && !(d->json = cJSON_PrintUnformatted(sc)))
		r = -ENOMEM;
	cJSON_Delete(out);
	if (r < 0) {
		paddock_decision_free(d);
		return pdk_why(why, why_len, r, "paddock_check: out of memory");
	}
	*ret = d;
	return 0;
}

void paddock_decision_free(struct paddock_decision *d)
{
	if (!d)
		return;
	free((char *)d->risk);
	free((char *)d->rule);
	free((char *)d->why);
	cJSON_free((char *)d->json);
	free(d);
}

int paddock_recall(struct paddock_session *s, const char *output_id, unsigned from,
		   const char *match, char **ret, char *why, size_t why_len)
{
	cJSON *args = cJSON_CreateObject(), *out = NULL;
	const cJSON *sc;
	const char *text, *kind;
	int r;

	if (why && why_len)
		*why = '\0';
	if (!s || !ret || !output_id) {
		cJSON_Delete(args);
		return pdk_why(why, why_len, -EINVAL,
			"paddock_recall: the session, output_id or ret "
			"is NULL");
	}
	if (!args || !cJSON_AddStringToObject(args, "id", output_id) ||
	    (from && !cJSON_AddNumberToObject(args, "from", from)) ||
	    (match && !cJSON_AddStringToObject(args, "match", match))) {
		cJSON_Delete(args);
		return pdk_why(why, why_len, -ENOMEM, "paddock_recall: out of memory");
	}
	if ((r = tool(s, "tools/call", "recall_output", args, &out, why, why_len)) < 0)
		return r;
	sc = cJSON_GetObjectItemCaseSensitive(out, "structuredContent");
	text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sc, "text"));
	kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sc, "error_kind"));
	if (!text) {
		const char *e = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sc, "error"));
		r = pdk_why(why, why_len, kind && !strcmp(kind, "not_found") ? -ENOENT : -EINVAL,
			    "%s", e ? e : "paddock_recall: no such output");
	} else if (!(*ret = strdup(text))) {
		r = pdk_why(why, why_len, -ENOMEM, "paddock_recall: out of memory");
	}
	cJSON_Delete(out);
	return r;
}
