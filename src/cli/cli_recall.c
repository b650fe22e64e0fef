/* cli_recall.c - `paddock recall ID`: page, filter or summarise an output
 * the store kept. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_call.h"
#include "output/recall.h"
#include "output/render.h"
#include "output/store.h"

static const char recall_usage[] = "usage: paddock recall ID [--from LINE] [--lines N] [--match "
				   "PCRE2 | --summary] [--bound BYTES]\n"
				   "                         [--json] [--config FILE]\n";

/* What recall says, as text or, with --json, as one object. */
struct answer {
	bool json;
	const char *id;
};

/* Bad input or a missing output: one line on standard error, or the one
 * JSON object saying it. */
static int __attribute__((format(printf, 3, 4)))
say_error(const struct answer *a, const char *kind, const char *fmt, ...)
{
	char line[1200];
	cJSON *o;
	char *text = NULL;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (!a->json) {
		pdk_cli_error("%s", line);
		return PDK_EXIT_FAILURE;
	}
	o = cJSON_CreateObject();
	if (o && (a->id ? cJSON_AddStringToObject(o, "output_id", a->id)
			: cJSON_AddNullToObject(o, "output_id")) &&
	    cJSON_AddNullToObject(o, "text") && cJSON_AddStringToObject(o, "error", line) &&
	    cJSON_AddStringToObject(o, "error_kind", kind))
		text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!text)
		pdk_cli_error("%s", line);
	else
		puts(text);
	free(text);
	return PDK_EXIT_FAILURE;
}

static int say_text(const struct answer *a, const struct pdk_buf *out)
{
	cJSON *o;
	char *text = NULL;

	if (!a->json) {
		fwrite(out->data ? out->data : "", 1, out->len, stdout);
		return fflush(stdout) == 0 ? 0 : PDK_EXIT_FAILURE;
	}
	o = cJSON_CreateObject();
	if (o && cJSON_AddStringToObject(o, "output_id", a->id) &&
	    cJSON_AddStringToObject(o, "text", out->data ? out->data : "") &&
	    cJSON_AddNullToObject(o, "error") && cJSON_AddNullToObject(o, "error_kind"))
		text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!text) {
		pdk_cli_error("recall: out of memory");
		return PDK_EXIT_FAILURE;
	}
	puts(text);
	free(text);
	return fflush(stdout) == 0 ? 0 : PDK_EXIT_FAILURE;
}

static int parse_count(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v == 0)
		return -EINVAL;
	*ret = v;
	return 0;
}

int pdk_cli_recall_main(int argc, char **argv, const struct pdk_cli_face *face)
{
	static const struct option opts[] = {
	    {"from", required_argument, NULL, 'f'},  {"lines", required_argument, NULL, 'l'},
	    {"match", required_argument, NULL, 'm'}, {"summary", no_argument, NULL, 's'},
	    {"bound", required_argument, NULL, 'b'}, {"config", required_argument, NULL, 'c'},
	    {"json", no_argument, NULL, 'j'},	     {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct pdk_recall_opts o = {.mode = PDK_RECALL_PAGE, .from = 1, .bound = PDK_BOUND_DEFAULT};
	struct pdk_error err = {0};
	struct pdk_buf out = {0};
	struct pdk_config cfg;
	struct answer a = {0};
	const char *session, *config = NULL;
	char *dir, why[1200];
	int c, fd, r;

	/* Known before any option can be wrong, so that the error is said in
	 * the form asked for. */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--json") == 0)
			a.json = true;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:l:m:sb:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 'f':
			if (parse_count(optarg, &o.from) < 0)
				return say_error(&a, "bad_request",
						 "recall: --from '%s' is not a line number (1 or more)",
						 optarg);
			break;
		case 'l':
			if (parse_count(optarg, &o.lines) < 0)
				return say_error(&a, "bad_request",
						 "recall: --lines '%s' is not a count (1 or more)",
						 optarg);
			break;
		case 'm':
			o.mode = PDK_RECALL_MATCH;
			o.pattern = optarg;
			break;
		case 's':
			o.mode = PDK_RECALL_SUMMARY;
			break;
		case 'b':
			if (pdk_cli_parse_size(optarg, &o.bound) < 0 || o.bound < PDK_BOUND_MIN ||
			    o.bound > PDK_BOUND_MAX)
				return say_error(&a, "bad_request",
						 "recall: --bound '%s' is out of range: give a number "
						 "of bytes from 1024 to 1048576",
						 optarg);
			break;
		case 'j':
			a.json = true;
			break;
		case 'h':
			fputs(recall_usage, stdout);
			return 0;
		case ':':
			return say_error(&a, "bad_request", "recall: option '%s' needs a value",
					 argv[optind - 1]);
		default:
			return say_error(&a, "bad_request",
					 "recall: unknown option '%s'; see 'paddock recall --help'",
					 argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return say_error(&a, "bad_request",
				 "recall: give exactly one output id, as printed in a 'held back:' "
				 "note");
	o.id = argv[optind];
	if (!pdk_store_id_valid(o.id))
		return say_error(&a, "bad_request",
				 "recall: '%s' is not an output id (8 hex digits, as in a 'held "
				 "back:' note)",
				 o.id);
	a.id = o.id;
	if (pdk_session_name(&session) < 0)
		return say_error(&a, "bad_request",
				 "recall: PADDOCK_SESSION must be 1 to 64 of A-Z a-z 0-9 . _ -");
	/* The store is where runs put it: output.storeDir when configured. */
	r = pdk_cli_config_load_why(face, "recall", config, false, &cfg, why, sizeof(why));
	dir = r < 0 ? NULL : pdk_cli_store_dir_why("recall", &cfg, why, sizeof(why));
	pdk_cli_config_done(face, &cfg);
	if (!dir)
		return say_error(&a, r < 0 ? "bad_request" : "failed", "%s", why);
	fd = pdk_store_open(dir, session, o.id);
	free(dir);
	if (fd == -ENOENT)
		return say_error(&a, "not_found",
				 "recall: no output %s in the store: unknown, or pruned since; "
				 "run the command again only if you need its output",
				 o.id);
	if (fd == -EBADMSG)
		return say_error(&a, "failed",
				 "recall: output %s is damaged (not a file paddock kept); remove it from "
				 "the store and run the command again if you need its output",
				 o.id);
	if (fd < 0)
		return say_error(&a, "failed", "recall: output %s: %s", o.id, strerror(-fd));
	r = pdk_recall(fd, &o, &out, &err);
	close(fd);
	if (r < 0) {
		pdk_buf_free(&out);
		if (r == -EINVAL)
			return say_error(&a, "bad_request", "recall: bad pattern: %s", err.message);
		if (r == -ERANGE)
			return say_error(&a, "bad_request", "recall: %s", err.message);
		return say_error(&a, "failed", "recall: %s", strerror(-r));
	}
	r = say_text(&a, &out);
	pdk_buf_free(&out);
	return r;
}
