/* mcp.c - `paddock mcp`: a Model Context Protocol server on stdio. One poll
 * loop reads JSON-RPC lines; each tool call runs in a process of its own. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

#include "agent.h"
#include "agent_int.h"
#include "agent/result_schema.h"
#include "cli/cli.h"
#include "core/fmt.h"
#include "core/path.h"
#include "core/util.h"
#ifdef __linux__
#include "run/zygote.h"
#endif

/* A line longer than this is answered with a parse error and skipped: a
 * call's arguments are a command line, never megabytes. */
#define LINE_MAX_BYTES (4u << 20)
#define READ_CHUNK (64u << 10)
#define PROGRESS_EVERY 1.0 /* seconds between progress notifications */

/* The protocol versions spoken, newest first. */
static const char *const versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

enum { ERR_PARSE = -32700, ERR_REQUEST = -32600, ERR_METHOD = -32601, ERR_PARAMS = -32602,
       ERR_INTERNAL = -32603, ERR_NOT_INITIALIZED = -32002 };

static const char *const log_levels[] = {"debug",    "info",  "notice", "warning",
					 "error",    "critical", "alert", "emergency"};

struct call {
	struct call *next;
	cJSON *id;	       /* the request's id */
	cJSON *progress_token; /* NULL: no progress wanted */
	bool recall;
	bool pkg; /* pkg_manage: `paddock pkg` */
	bool check; /* paddock/check: the decision alone (libpaddock's paddock_check) */
	pid_t pid;
	int out, err, ask; /* -1 once closed */
	struct pdk_buf outb, errb, askb;
	bool cancelled;
	double started, next_tick;
	unsigned ticks;
	char *elicit_id; /* the elicitation/create sent for this call and not yet answered */
};

struct server {
	const struct pdk_agent_opts *o;
	int in, out;
	bool initialized, eof, elicitation;
	int log_level; /* index into log_levels */
	const char *version;
	struct pdk_buf line;
	bool skipping; /* inside a line too long to keep */
	struct call *calls;
	unsigned long next_id;
	pid_t self;
	int zygote; /* the zygote host's socket (run/zygote.h); -1: none (--no-zygote) */
	pid_t zygote_pid; /* the host, reaped at the end */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- sending --------------------------------------------------------------- */

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* the client went away: EOF on stdin follows */
		p += w;
		n -= (size_t)w;
	}
}

/* One message, one line; takes msg. */
static void send_msg(struct server *s, cJSON *msg)
{
	char *text;

	if (!msg)
		return;
	text = cJSON_PrintUnformatted(msg);
	cJSON_Delete(msg);
	if (!text)
		return;
	size_t n = strlen(text);
	text[n] = '\n'; /* replaces the NUL: written by length */
	write_all(s->out, text, n + 1);
	cJSON_free(text);
}

/* A message, "jsonrpc" first. */
static cJSON *new_msg(void)
{
	cJSON *m = cJSON_CreateObject();

	if (m && !cJSON_AddStringToObject(m, "jsonrpc", "2.0")) {
		cJSON_Delete(m);
		return NULL;
	}
	return m;
}

static cJSON *id_copy(const cJSON *id)
{
	return id ? cJSON_Duplicate(id, true) : cJSON_CreateNull();
}

static void send_result(struct server *s, const cJSON *id, cJSON *result)
{
	cJSON *m = new_msg();

	if (!m || !result) {
		cJSON_Delete(m);
		cJSON_Delete(result);
		return;
	}
	cJSON_AddItemToObject(m, "id", id_copy(id));
	cJSON_AddItemToObject(m, "result", result);
	send_msg(s, m);
}

static void send_error(struct server *s, const cJSON *id, int code, const char *message)
{
	cJSON *m = new_msg(), *e = cJSON_CreateObject();

	if (!m || !e) {
		cJSON_Delete(m);
		cJSON_Delete(e);
		return;
	}
	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", message);
	cJSON_AddItemToObject(m, "id", id_copy(id));
	cJSON_AddItemToObject(m, "error", e);
	send_msg(s, m);
}

static void send_notification(struct server *s, const char *method, cJSON *params)
{
	cJSON *m = new_msg();

	if (!m) {
		cJSON_Delete(params);
		return;
	}
	cJSON_AddStringToObject(m, "method", method);
	cJSON_AddItemToObject(m, "params", params);
	send_msg(s, m);
}

static void send_log(struct server *s, int level, const char *text)
{
	cJSON *p;

	if (!s->initialized || level < s->log_level || !(p = cJSON_CreateObject()))
		return;
	cJSON_AddStringToObject(p, "level", log_levels[level]);
	cJSON_AddStringToObject(p, "logger", "paddock");
	cJSON_AddStringToObject(p, "data", text);
	send_notification(s, "notifications/message", p);
}

/* ---- the tools ------------------------------------------------------------- */

/* An outputSchema: definition def of the shipped result schema, with every
 * definition beside it for its references ("#/$defs/failure"). */
static cJSON *output_schema(const cJSON *schema, const char *def)
{
	const cJSON *defs = cJSON_GetObjectItemCaseSensitive(schema, "$defs");
	cJSON *o = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(defs, def), true);
	cJSON *all = cJSON_Duplicate(defs, true);

	if (!o || !all || !cJSON_AddItemToObject(o, "$defs", all)) {
		cJSON_Delete(o);
		cJSON_Delete(all);
		return NULL;
	}
	return o;
}

static cJSON *tools_list(void)
{
	cJSON *tools = cJSON_Parse(PDK_AGENT_TOOLS_JSON);
	cJSON *schema = cJSON_Parse(PDK_RESULT_SCHEMA_JSON), *t;
	bool ok = tools && schema;
#ifdef __linux__
	/* The host's package manager: Linux only. */
	cJSON *pkg = cJSON_Parse(PDK_AGENT_PKG_TOOL_JSON);

	ok = ok && pkg && cJSON_AddItemToArray(tools, pkg);
	if (!ok)
		cJSON_Delete(pkg);
#endif
	/* structuredContent is recall --json's object for recall_output, run
	 * --json's for the others. */
	cJSON *list = ok ? tools : NULL;
	cJSON_ArrayForEach(t, list) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(t, "name");
		cJSON *out = output_schema(schema, strcmp(name->valuestring, "recall_output") == 0
							   ? "recall"
							   : "run");
		if (!out || !cJSON_AddItemToObject(t, "outputSchema", out)) {
			cJSON_Delete(out);
			ok = false;
			break;
		}
	}
	cJSON_Delete(schema);
	if (!ok) {
		cJSON_Delete(tools);
		return NULL;
	}
	return tools;
}

/* A tool result of one text, an error the model reads and can act on. */
static cJSON *tool_error(const char *text)
{
	cJSON *r = cJSON_CreateObject(), *content = cJSON_AddArrayToObject(r, "content");
	cJSON *t = cJSON_CreateObject();

	cJSON_AddStringToObject(t, "type", "text");
	cJSON_AddStringToObject(t, "text", text);
	cJSON_AddItemToArray(content, t);
	cJSON_AddBoolToObject(r, "isError", true);
	return r;
}

static void call_free(struct call *c)
{
	if (!c)
		return;
	cJSON_Delete(c->id);
	cJSON_Delete(c->progress_token);
	pdk_buf_free(&c->outb);
	pdk_buf_free(&c->errb);
	pdk_buf_free(&c->askb);
	for (int *fd = &c->out; fd <= &c->ask; fd++)
		if (*fd >= 0)
			close(*fd);
	free(c->elicit_id);
	free(c);
}

/* What a call is: run_command's request, or the words of recall or pkg. */
struct call_what {
	struct pdk_request req;
	struct pdk_strv argv;
};

/* The call's own process: stdout and stderr to the server, the approver's
 * line on fd 3, nothing else of the server's; then the verb, as the CLI runs it. */
static void call_child(struct server *s, int out, int err, int ask, struct call_what *w,
		       const struct call *c) __attribute__((noreturn));
static void call_child(struct server *s, int out, int err, int ask, struct call_what *w,
		       const struct call *c)
{
	struct pdk_cli_face face = {.config = s->o->config, .remote_fd = -1, .text_too = true};
	int devnull, code;
	sigset_t none;

#ifdef __linux__
	/* The server gone (even SIGKILLed): stop the command as on a signal. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
	if (getppid() != s->self)
		_exit(PDK_EXIT_FAILURE);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	devnull = open("/dev/null", O_RDONLY);
	if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(PDK_EXIT_FAILURE);
	if (ask >= 0) {
		if (dup2(ask, 3) < 0)
			_exit(PDK_EXIT_FAILURE);
		/* Never the command's: it could answer its own approval. */
		fcntl(3, F_SETFD, FD_CLOEXEC);
		face.remote_fd = 3;
	}
	int first = ask >= 0 ? 4 : 3;
	/* The zygote host's socket, past the close below. */
	if (w->req.zygote_host > 2) {
		if (dup2(w->req.zygote_host, first) < 0)
			_exit(PDK_EXIT_FAILURE);
		fcntl(first, F_SETFD, FD_CLOEXEC);
		w->req.zygote_host = first++;
	}
#if defined(__linux__) && defined(SYS_close_range)
	if (syscall(SYS_close_range, (unsigned)first, ~0U, 0U) < 0)
#endif
		for (int fd = first; fd < 1024; fd++)
			close(fd);
	code = c->recall  ? pdk_cli_recall_main((int)w->argv.n, w->argv.v, &face)
	       : c->pkg	  ? pdk_cli_pkg_main((int)w->argv.n, w->argv.v, &face)
	       : c->check ? pdk_cli_check_request(&w->req, &face)
			  : pdk_cli_run_request(&w->req, &face);
	fflush(NULL);
	_exit(code);
}

static int call_start(struct server *s, struct call *c, struct call_what *w)
{
	int o[2] = {-1, -1}, e[2] = {-1, -1}, a[2] = {-1, -1}, r;

	if ((r = pdk_pipe_cloexec(o)) < 0 || (r = pdk_pipe_cloexec(e)) < 0)
		goto fail;
	/* The approver asks the client only when it can show a form. */
	if (!c->recall && !c->check && s->elicitation && pdk_socketpair_cloexec(a) < 0) {
		r = -errno;
		goto fail;
	}
	/* A cancel can come in the same read as the call: until the child has put its
	 * signals back to their defaults, the server's handler would swallow it. Held
	 * blocked over the fork, it stays pending until then, and then ends the call. */
	sigset_t stops, old;
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGHUP);
	sigprocmask(SIG_BLOCK, &stops, &old);
	c->pid = fork();
	if (c->pid == 0)
		call_child(s, o[1], e[1], a[1], w, c);
	r = -errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (c->pid < 0)
		goto fail;
	close(o[1]);
	close(e[1]);
	if (a[1] >= 0)
		close(a[1]);
	c->out = o[0];
	c->err = e[0];
	c->ask = a[0];
	for (int *fd = &c->out; fd <= &c->ask; fd++)
		if (*fd >= 0)
			fcntl(*fd, F_SETFL, O_NONBLOCK);
	c->started = now();
	c->next_tick = c->started + PROGRESS_EVERY;
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (o[i] >= 0)
			close(o[i]);
		if (e[i] >= 0)
			close(e[i]);
		if (a[i] >= 0)
			close(a[i]);
	}
	return r;
}

/* stderr of a call, as one text: paddock's own lines say what went wrong. */
static char *err_text(const struct call *c)
{
	const char *p = c->errb.data ? c->errb.data : "";
	size_t n = c->errb.len;

	while (n && p[n - 1] == '\n')
		n--;
	return n ? strndup(p, n) : strdup("paddock: the call ended without a result");
}

static void add_text(cJSON *result, const char *text, size_t len)
{
	cJSON *content = cJSON_AddArrayToObject(result, "content"), *t = cJSON_CreateObject();
	char *copy = strndup(text, len);

	cJSON_AddStringToObject(t, "type", "text");
	cJSON_AddStringToObject(t, "text", copy ? copy : "");
	cJSON_AddItemToArray(content, t);
	free(copy);
}

/* The answer to a finished call: the run's JSON object and its text, or what
 * paddock said on stderr when nothing ran. */
static cJSON *call_result(struct server *s, struct call *c, int code)
{
	const char *out = c->outb.data ? c->outb.data : "";
	size_t len = c->outb.len;
	cJSON *result;

	/* Warnings of a call that went on (configuration, say): the log. */
	if (c->errb.len && (c->outb.len || code == 0)) {
		char *e = err_text(c);
		send_log(s, 3, e ? e : "");
		free(e);
	}
	const char *nl = memchr(out, '\n', len);
	cJSON *json = nl ? cJSON_ParseWithLength(out, (size_t)(nl - out)) : NULL;
	if (c->recall && cJSON_IsObject(json)) {
		/* recall --json: the page in "text", or why not in "error". */
		const cJSON *text = cJSON_GetObjectItemCaseSensitive(json, "text");
		const cJSON *error = cJSON_GetObjectItemCaseSensitive(json, "error");
		const char *page = cJSON_GetStringValue(text);
		bool failed = code != 0 || !page;
		_cleanup_free_ char *e =
		    failed ? pdk_asprintf("error: %s", cJSON_IsString(error) ? error->valuestring
									       : "recall failed")
			   : NULL;

		result = cJSON_CreateObject();
		if (failed)
			add_text(result, e ? e : "error", e ? strlen(e) : 5);
		else
			add_text(result, page, strlen(page));
		cJSON_AddItemToObject(result, "structuredContent", json);
		cJSON_AddBoolToObject(result, "isError", failed);
		return result;
	}
	if (c->check && cJSON_IsObject(json)) {
		/* check --json: the decision, or why there is none in "error". */
		const cJSON *error = cJSON_GetObjectItemCaseSensitive(json, "error");
		bool failed = cJSON_IsString(error);

		result = cJSON_CreateObject();
		add_text(result, failed ? error->valuestring : out,
			 failed ? strlen(error->valuestring) : (size_t)(nl - out));
		cJSON_AddItemToObject(result, "structuredContent", json);
		cJSON_AddBoolToObject(result, "isError", failed);
		return result;
	}
	if (!json || !cJSON_IsObject(json)) {
		_cleanup_free_ char *e = err_text(c);
		cJSON_Delete(json);
		return tool_error(e ? e : "the command did not start");
	}
	const cJSON *error = cJSON_GetObjectItemCaseSensitive(json, "error");
	/* data/result.schema.json: "ran" says it; "error" is null when it ran. */
	bool ran = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(json, "ran"));
	result = cJSON_CreateObject();
	if (ran) {
		add_text(result, nl + 1, len - (size_t)(nl + 1 - out));
	} else {
		_cleanup_free_ char *e = NULL;
		if (cJSON_IsString(error))
			e = pdk_asprintf("error: %s", error->valuestring);
		else
			e = err_text(c);
		add_text(result, e ? e : "error", e ? strlen(e) : 5);
	}
	cJSON_AddItemToObject(result, "structuredContent", json);
	cJSON_AddBoolToObject(result, "isError", !ran);
	return result;
}

static void call_finish(struct server *s, struct call *c)
{
	int status = 0, code;

	while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
		;
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (c->elicit_id) {
		/* Withdrawn: the call is gone, its question with it. */
		cJSON *p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "requestId", c->elicit_id);
		cJSON_AddStringToObject(p, "reason", "the call ended");
		send_notification(s, "notifications/cancelled", p);
	}
	if (!c->cancelled && !s->eof)
		send_result(s, c->id, call_result(s, c, code));
}

/* ---- the approver's channel ------------------------------------------------ */

/* A line from a call's approver: ask the client, or withdraw the question. */
static void ask_line(struct server *s, struct call *c, const char *line)
{
	cJSON *m = cJSON_Parse(line), *p, *answer;
	const cJSON *q = cJSON_GetObjectItemCaseSensitive(m, "message");
	const cJSON *schema = cJSON_GetObjectItemCaseSensitive(m, "requestedSchema");

	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "withdraw"))) {
		if (c->elicit_id) {
			p = cJSON_CreateObject();
			cJSON_AddStringToObject(p, "requestId", c->elicit_id);
			cJSON_AddStringToObject(p, "reason", "answered out of band");
			send_notification(s, "notifications/cancelled", p);
			free(c->elicit_id);
			c->elicit_id = NULL;
		}
		cJSON_Delete(m);
		return;
	}
	if (!cJSON_IsString(q) || !cJSON_IsObject(schema) || !s->elicitation || c->elicit_id) {
		answer = cJSON_CreateObject();
		cJSON_AddStringToObject(answer, "action", "cancel");
		char *t = cJSON_PrintUnformatted(answer);
		cJSON_Delete(answer);
		if (t) {
			write_all(c->ask, t, strlen(t));
			write_all(c->ask, "\n", 1);
		}
		cJSON_free(t);
		cJSON_Delete(m);
		return;
	}
	c->elicit_id = pdk_asprintf("paddock-%lu", ++s->next_id);
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "message", q->valuestring);
	cJSON_AddItemToObject(p, "requestedSchema", cJSON_Duplicate(schema, true));
	cJSON *req = new_msg();
	cJSON_AddStringToObject(req, "id", c->elicit_id ? c->elicit_id : "paddock-0");
	cJSON_AddStringToObject(req, "method", "elicitation/create");
	cJSON_AddItemToObject(req, "params", p);
	send_msg(s, req);
	cJSON_Delete(m);
}

/* The client's answer to an elicitation/create, passed to the call that asked. */
static void client_response(struct server *s, const cJSON *msg)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	const cJSON *result = cJSON_GetObjectItemCaseSensitive(msg, "result");
	cJSON *answer;
	char *t;

	if (!cJSON_IsString(id))
		return;
	for (struct call *c = s->calls; c; c = c->next) {
		if (!c->elicit_id || strcmp(c->elicit_id, id->valuestring) != 0)
			continue;
		free(c->elicit_id);
		c->elicit_id = NULL;
		if (cJSON_IsObject(result)) {
			answer = cJSON_Duplicate(result, true);
		} else {
			answer = cJSON_CreateObject();
			cJSON_AddStringToObject(answer, "action", "cancel");
		}
		t = answer ? cJSON_PrintUnformatted(answer) : NULL;
		cJSON_Delete(answer);
		if (t && c->ask >= 0) {
			write_all(c->ask, t, strlen(t));
			write_all(c->ask, "\n", 1);
		}
		cJSON_free(t);
		return;
	}
}

/* ---- requests -------------------------------------------------------------- */

static void do_initialize(struct server *s, const cJSON *id, const cJSON *params)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
	const cJSON *caps = cJSON_GetObjectItemCaseSensitive(params, "capabilities");
	cJSON *r, *sc, *info;

	if (s->initialized) {
		send_error(s, id, ERR_REQUEST, "already initialized: initialize is sent once");
		return;
	}
	if (!cJSON_IsString(v) || (caps && !cJSON_IsObject(caps))) {
		send_error(s, id, ERR_PARAMS, "initialize needs params.protocolVersion (a string) "
					      "and params.capabilities (an object)");
		return;
	}
	/* The client's version when spoken here, else the newest. */
	s->version = versions[0];
	for (size_t i = 0; i < PDK_ARRAY_SIZE(versions); i++)
		if (strcmp(v->valuestring, versions[i]) == 0)
			s->version = versions[i];
	/* Form elicitation: an empty object says it too (before 2025-11-25). */
	const cJSON *el = cJSON_GetObjectItemCaseSensitive(caps, "elicitation");
	s->elicitation = cJSON_IsObject(el) &&
			 (cJSON_GetObjectItemCaseSensitive(el, "form") ||
			  !cJSON_GetObjectItemCaseSensitive(el, "url"));
	s->initialized = true;
	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "protocolVersion", s->version);
	sc = cJSON_AddObjectToObject(r, "capabilities");
	cJSON_AddObjectToObject(sc, "tools");
	cJSON_AddObjectToObject(sc, "logging");
	info = cJSON_AddObjectToObject(r, "serverInfo");
	cJSON_AddStringToObject(info, "name", "paddock");
	cJSON_AddStringToObject(info, "title", "paddock sandbox runner");
	cJSON_AddStringToObject(info, "version", PACKAGE_VERSION);
	cJSON_AddStringToObject(r, "instructions", PDK_AGENT_INSTRUCTIONS);
	send_result(s, id, r);
}

static void do_set_level(struct server *s, const cJSON *id, const cJSON *params)
{
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(params, "level");

	for (size_t i = 0; cJSON_IsString(l) && i < PDK_ARRAY_SIZE(log_levels); i++)
		if (strcmp(l->valuestring, log_levels[i]) == 0) {
			s->log_level = (int)i;
			send_result(s, id, cJSON_CreateObject());
			return;
		}
	send_error(s, id, ERR_PARAMS, "params.level must be one of debug, info, notice, warning, "
				      "error, critical, alert, emergency");
}

static void do_call(struct server *s, const cJSON *id, const cJSON *params, bool check)
{
	const cJSON *name = check ? NULL : cJSON_GetObjectItemCaseSensitive(params, "name");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
	const cJSON *token = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");
	struct call_what w = {0};
	struct call *c;
	char why[512];
	int r;

	if ((!check && !cJSON_IsString(name)) || (args && !cJSON_IsObject(args))) {
		send_error(s, id, ERR_PARAMS, check ? "paddock/check needs params.arguments (an "
						      "object: run_command's)"
						    : "tools/call needs params.name (a string) and "
						      "params.arguments (an object)");
		return;
	}
	const char *tool = check ? "paddock/check" : name->valuestring;
	bool recall = strcmp(tool, "recall_output") == 0;
#ifdef __linux__
	bool pkg = strcmp(tool, "pkg_manage") == 0;
#define TOOL_NAMES "run_command, recall_output and pkg_manage"
#else
	bool pkg = false;
#define TOOL_NAMES "run_command and recall_output"
#endif
	if (!check && !recall && !pkg && strcmp(tool, "run_command") != 0) {
		_cleanup_free_ char *m = pdk_asprintf("unknown tool '%.64s'; the tools are " TOOL_NAMES,
						      name->valuestring);
		send_error(s, id, ERR_PARAMS, m ? m : "unknown tool");
		return;
	}
	cJSON *empty = args ? NULL : cJSON_CreateObject();
	if (recall || pkg) {
		if (pdk_strv_push(&w.argv, recall ? "recall" : "pkg") < 0)
			goto oom;
		/* recall_output's structuredContent is recall --json's object. */
		if (recall && pdk_strv_push(&w.argv, "--json") < 0)
			goto oom;
		if (s->o->config_path && (pdk_strv_push(&w.argv, "--config") < 0 ||
					  pdk_strv_push(&w.argv, s->o->config_path) < 0))
			goto oom;
		r = recall ? pdk_agent_recall_args(args ? args : empty, &w.argv, why, sizeof(why))
			   : pdk_agent_pkg_args(args ? args : empty, &w.argv, why, sizeof(why));
	} else {
		/* The server's own options, then the call's arguments over them: the
		 * server's -w are the first writes, chosen by whoever configured it. */
		r = pdk_cli_parse_run_opts((int)s->o->run_opts.n, s->o->run_opts.v, &w.req, why,
					   sizeof(why));
		w.req.n_server_writes = w.req.n_writes;
		if (r == 0)
			r = pdk_agent_run_request(args ? args : empty, &w.req, why, sizeof(why));
		w.req.zygote_host = s->zygote > 2 ? s->zygote : 0;
	}
	if (r == -EINVAL) {
		_cleanup_free_ char *m = pdk_asprintf("%s: bad arguments: %s", tool, why);
		send_result(s, id, tool_error(m ? m : why));
		goto done;
	}
	if (r < 0)
		goto oom;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto oom;
	c->out = c->err = c->ask = -1;
	c->recall = recall;
	c->pkg = pkg;
	c->check = check;
	c->id = cJSON_Duplicate(id, true);
	if (cJSON_IsString(token) || cJSON_IsNumber(token))
		c->progress_token = cJSON_Duplicate(token, true);
	/* The child takes its copy of w (and of the message it borrows from) at the fork. */
	r = call_start(s, c, &w);
	if (r < 0) {
		_cleanup_free_ char *m = pdk_asprintf("paddock: cannot start the call: %s; try again",
						      strerror(-r));
		send_result(s, id, tool_error(m ? m : "cannot start the call"));
		call_free(c);
		goto done;
	}
	c->next = s->calls;
	s->calls = c;
	goto done;
oom:
	send_error(s, id, ERR_INTERNAL, "out of memory");
done:
	pdk_request_release(&w.req);
	pdk_strv_release(&w.argv);
	cJSON_Delete(empty);
}

static bool same_id(const cJSON *a, const cJSON *b)
{
	if (cJSON_IsString(a) && cJSON_IsString(b))
		return strcmp(a->valuestring, b->valuestring) == 0;
	return cJSON_IsNumber(a) && cJSON_IsNumber(b) && a->valuedouble == b->valuedouble;
}

/* Stop a call's command as Ctrl-C would; the runner then kills what is left
 * after its grace, as on a timeout. No answer is sent. */
static void do_cancelled(struct server *s, const cJSON *params)
{
	const cJSON *rid = cJSON_GetObjectItemCaseSensitive(params, "requestId");

	for (struct call *c = s->calls; c; c = c->next)
		if (!c->cancelled && same_id(c->id, rid)) {
			c->cancelled = true;
			kill(c->pid, SIGINT);
		}
}

static void handle(struct server *s, const char *text, size_t len)
{
	cJSON *msg = cJSON_ParseWithLength(text, len);
	const cJSON *id, *method, *params, *ver;

	if (!msg) {
		send_error(s, NULL, ERR_PARSE, "parse error: the line is not JSON; send one "
					       "JSON-RPC 2.0 message per line");
		return;
	}
	if (!cJSON_IsObject(msg)) {
		send_error(s, NULL, ERR_REQUEST, cJSON_IsArray(msg)
						     ? "invalid request: batches are not "
						       "supported; send one message per line"
						     : "invalid request: a message is a JSON object");
		cJSON_Delete(msg);
		return;
	}
	id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	method = cJSON_GetObjectItemCaseSensitive(msg, "method");
	params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	ver = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");
	if (id && !cJSON_IsString(id) && !cJSON_IsNumber(id))
		id = NULL;
	if (!cJSON_IsString(ver) || strcmp(ver->valuestring, "2.0") != 0 ||
	    (method && !cJSON_IsString(method)) ||
	    (cJSON_GetObjectItemCaseSensitive(msg, "id") && !id) ||
	    (params && !cJSON_IsObject(params) && !cJSON_IsArray(params))) {
		send_error(s, id, ERR_REQUEST, "invalid request: a message needs \"jsonrpc\": "
					       "\"2.0\", a string \"method\", a string or number "
					       "\"id\" (requests), an object \"params\"");
		goto out;
	}
	if (!method) {
		if (id && (cJSON_GetObjectItemCaseSensitive(msg, "result") ||
			   cJSON_GetObjectItemCaseSensitive(msg, "error")))
			client_response(s, msg);
		else
			send_error(s, id, ERR_REQUEST, "invalid request: no \"method\"");
		goto out;
	}
	const char *m = method->valuestring;
	if (!id) { /* a notification: never answered */
		if (strcmp(m, "notifications/cancelled") == 0)
			do_cancelled(s, params);
		goto out;
	}
	if (strcmp(m, "ping") == 0) {
		send_result(s, id, cJSON_CreateObject());
	} else if (strcmp(m, "initialize") == 0) {
		do_initialize(s, id, params);
	} else if (!s->initialized) {
		send_error(s, id, ERR_NOT_INITIALIZED, "not initialized: send initialize first");
	} else if (strcmp(m, "tools/list") == 0) {
		cJSON *r = cJSON_CreateObject();
		cJSON_AddItemToObject(r, "tools", tools_list());
		send_result(s, id, r);
	} else if (strcmp(m, "tools/call") == 0) {
		do_call(s, id, params, false);
	} else if (strcmp(m, "paddock/check") == 0) {
		/* paddock's own: what run_command would decide, for libpaddock. */
		do_call(s, id, params, true);
	} else if (strcmp(m, "logging/setLevel") == 0) {
		do_set_level(s, id, params);
	} else {
		_cleanup_free_ char *e = pdk_asprintf("method not found: %.64s; this server "
						      "offers initialize, ping, tools/list, "
						      "tools/call and logging/setLevel",
						      m);
		send_error(s, id, ERR_METHOD, e ? e : "method not found");
	}
out:
	cJSON_Delete(msg);
}

/* ---- the loop -------------------------------------------------------------- */

static void read_input(struct server *s)
{
	char buf[READ_CHUNK];
	ssize_t n = read(s->in, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		s->eof = true;
		return;
	}
	for (char *p = buf, *end = buf + n; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t k = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (!s->skipping && s->line.len + k > LINE_MAX_BYTES) {
			send_error(s, NULL, ERR_PARSE, "parse error: the message is longer than "
						       "4 MiB and was skipped");
			pdk_buf_free(&s->line);
			s->skipping = true;
		}
		if (!s->skipping)
			pdk_buf_add(&s->line, p, k);
		if (nl) {
			if (!s->skipping && s->line.oom)
				send_error(s, NULL, ERR_INTERNAL, "out of memory reading a message");
			else if (!s->skipping) {
				size_t len = s->line.len;
				const char *t = s->line.data ? s->line.data : "";
				if (len && t[len - 1] == '\r')
					len--;
				/* Blank lines between messages are no message. */
				size_t i = 0;
				while (i < len && (t[i] == ' ' || t[i] == '\t'))
					i++;
				if (i < len)
					handle(s, t, len);
			}
			pdk_buf_free(&s->line);
			s->skipping = false;
		}
		p += k + (nl ? 1 : 0);
	}
}

/* Read what a call's process sent; 1 when it is done (both streams closed). */
static int read_call(struct server *s, struct call *c, int *fd, struct pdk_buf *b)
{
	char buf[READ_CHUNK];
	ssize_t n;

	for (;;) {
		n = read(*fd, buf, sizeof(buf));
		if (n > 0) {
			pdk_buf_add(b, buf, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		close(*fd);
		*fd = -1;
		return 0;
	}
}

static void ask_lines(struct server *s, struct call *c)
{
	char *nl;

	while (c->askb.len && (nl = memchr(c->askb.data, '\n', c->askb.len))) {
		*nl = '\0';
		ask_line(s, c, c->askb.data);
		size_t k = (size_t)(nl + 1 - c->askb.data);
		memmove(c->askb.data, nl + 1, c->askb.len - k);
		c->askb.len -= k;
	}
}

static void progress(struct server *s, struct call *c, double t)
{
	cJSON *p;

	if (!c->progress_token || c->cancelled || t < c->next_tick)
		return;
	c->ticks++;
	c->next_tick = c->started + PROGRESS_EVERY * (c->ticks + 1);
	p = cJSON_CreateObject();
	cJSON_AddItemToObject(p, "progressToken", cJSON_Duplicate(c->progress_token, true));
	cJSON_AddNumberToObject(p, "progress", c->ticks);
	char *m = pdk_asprintf("running for %u s", c->ticks);
	cJSON_AddStringToObject(p, "message", m ? m : "running");
	free(m);
	send_notification(s, "notifications/progress", p);
}

static volatile sig_atomic_t stop_signal;
static void on_stop(int sig)
{
	stop_signal = sig;
}

int pdk_agent_mcp_serve(const struct pdk_agent_opts *o, int in, int out)
{
	struct server s = {
	    .o = o, .in = in, .out = out, .log_level = 1, .self = getpid(), .zygote = -1};
	struct sigaction sa = {0};
	bool stopping = false;
	int r;

	/* Above the descriptors a call's process places (0 to 4). */
	if (o->zygote) {
#ifdef __linux__
		int fd;

		if ((r = pdk_zygote_host_start(&fd, &s.zygote_pid)) < 0)
			return r;
		s.zygote = fcntl(fd, F_DUPFD_CLOEXEC, 64);
		close(fd);
		if (s.zygote < 0)
			return -errno;
#else
		return -EOPNOTSUPP;
#endif
	}

	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	for (;;) {
		size_t n = 0, cap = 1;
		for (struct call *c = s.calls; c; c = c->next)
			cap += 3;
		struct pollfd *pfd = calloc(cap, sizeof(*pfd));
		double t = now(), wake = 1e18;

		if (!pfd)
			return -ENOMEM;
		if ((s.eof || stop_signal) && !stopping) {
			/* The client is gone: stop every command, as on a signal. */
			stopping = true;
			s.eof = true;
			for (struct call *c = s.calls; c; c = c->next) {
				c->cancelled = true;
				kill(c->pid, SIGTERM);
			}
		}
		if (stopping && !s.calls) {
			free(pfd);
			break;
		}
		if (!s.eof)
			pfd[n++] = (struct pollfd){s.in, POLLIN, 0};
		for (struct call *c = s.calls; c; c = c->next) {
			for (int *fd = &c->out; fd <= &c->ask; fd++)
				if (*fd >= 0)
					pfd[n++] = (struct pollfd){*fd, POLLIN, 0};
			if (c->progress_token && !c->cancelled && c->next_tick < wake)
				wake = c->next_tick;
		}
		int ms = wake >= 1e17 ? -1 : (int)((wake - t) * 1000) + 1;
		if (poll(pfd, n, ms < 0 && wake < 1e17 ? 0 : ms) < 0 && errno != EINTR) {
			free(pfd);
			return -errno;
		}
		free(pfd);
		/* Every descriptor is non-blocking or was ready: read them all. */
		if (!s.eof) {
			struct pollfd p = {s.in, POLLIN, 0};
			if (poll(&p, 1, 0) > 0)
				read_input(&s);
		}
		t = now();
		for (struct call **pc = &s.calls; *pc;) {
			struct call *c = *pc;
			if (c->out >= 0)
				read_call(&s, c, &c->out, &c->outb);
			if (c->err >= 0)
				read_call(&s, c, &c->err, &c->errb);
			if (c->ask >= 0) {
				read_call(&s, c, &c->ask, &c->askb);
				ask_lines(&s, c);
			}
			if (c->out < 0 && c->err < 0) {
				call_finish(&s, c);
				*pc = c->next;
				call_free(c);
				continue;
			}
			progress(&s, c, t);
			pc = &c->next;
		}
	}
	/* The host, and its zygotes, go once no call holds the socket either: every call has
	 * ended by now. */
	if (s.zygote >= 0) {
		close(s.zygote);
		while (waitpid(s.zygote_pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	return 0;
}
