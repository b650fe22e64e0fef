/* cli_request.c - `paddock run --request FILE|-`: the run_command arguments
 * as one JSON object in, the JSON result out, for harnesses that call a CLI. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent.h"
#include "cli.h"
#include "core/fmt.h"
#include "core/util.h"
#include "output/render.h"

#define REQUEST_MAX (4u << 20)

int pdk_cli_request_find(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0 || a[0] != '-')
			return -1;
		if (strcmp(a, "--request") == 0 || strncmp(a, "--request=", 10) == 0)
			return i;
		if (pdk_cli_run_takes_value(a))
			i++;
	}
	return -1;
}

/* The error object, alone on stdout, and 125: the result of a bad request,
 * as every --json outcome is (data/result.schema.json). */
static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	char why[1024];
	va_list ap;
	struct pdk_render_out res = {0};
	struct pdk_render_in in = {
	    .failure = PDK_FAIL_BAD_REQUEST,
	    .error = why,
	    .exit_code = PDK_EXIT_FAILURE,
	    .json = true,
	};

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (pdk_render(&in, &res) < 0) {
		pdk_cli_error("run: %s", why);
		return PDK_EXIT_FAILURE;
	}
	fwrite(res.text, 1, res.len, stdout);
	pdk_render_out_release(&res);
	fflush(stdout);
	return PDK_EXIT_FAILURE;
}

static int read_all(const char *file, struct pdk_buf *b)
{
	char chunk[65536];
	int fd = strcmp(file, "-") == 0 ? STDIN_FILENO : open(file, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || b->len + (size_t)n > REQUEST_MAX) {
			int e = n < 0 ? errno : EFBIG;
			if (fd != STDIN_FILENO)
				close(fd);
			return -e;
		}
		pdk_buf_add(b, chunk, (size_t)n);
	}
	if (fd != STDIN_FILENO)
		close(fd);
	return b->oom ? -ENOMEM : 0;
}

int pdk_cli_request_main(int argc, char **argv, int at)
{
	const char *file = argv[at][9] == '=' ? argv[at] + 10 : at + 1 < argc ? argv[at + 1] : NULL;
	int next = argv[at][9] == '=' ? at + 1 : at + 2;
	struct pdk_strv v = {0};
	struct pdk_request req;
	struct pdk_buf b = {0};
	cJSON *json;
	char why[512];
	int r;

	if (!file || !*file)
		return fail("--request needs a file, or - for standard input");
	for (int i = next; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0 || argv[i][0] != '-')
			return fail("with --request, the program comes from the request's \"argv\"; "
				    "give no program on the command line ('%s')",
				    argv[i]);
		if (pdk_cli_run_takes_value(argv[i]))
			i++;
	}
	r = read_all(file, &b);
	if (r < 0) {
		pdk_buf_free(&b);
		return fail("--request %s: %s", file,
			    r == -EFBIG ? "longer than 4 MiB" : strerror(-r));
	}
	json = cJSON_ParseWithLength(b.data ? b.data : "", b.len);
	if (!json) {
		size_t off = b.data ? (size_t)(cJSON_GetErrorPtr() - b.data) : 0;
		pdk_buf_free(&b);
		return fail("--request %s: not JSON (near byte %zu); give one object such as "
			    "{\"argv\": [\"ls\", \"-l\"]}",
			    file, off);
	}
	pdk_buf_free(&b);
	/* The command line's options first, then the request's over them. */
	r = pdk_strv_push(&v, "run");
	for (int i = 1; r == 0 && i < argc; i++)
		if (i != at && !(i == at + 1 && next == at + 2))
			r = pdk_strv_push(&v, argv[i]);
	if (r < 0) {
		cJSON_Delete(json);
		pdk_strv_release(&v);
		return fail("--request %s: out of memory", file);
	}
	if (pdk_cli_parse_run_opts((int)v.n, v.v, &req, why, sizeof(why)) < 0) {
		cJSON_Delete(json);
		pdk_strv_release(&v);
		return fail("run: %s", why);
	}
	if (pdk_agent_run_request(json, &req, why, sizeof(why)) < 0) {
		pdk_request_release(&req);
		cJSON_Delete(json);
		pdk_strv_release(&v);
		return fail("--request %s: %s", file, why);
	}
	r = pdk_cli_run_request(&req, NULL);
	cJSON_Delete(json);
	pdk_strv_release(&v);
	return r;
}
