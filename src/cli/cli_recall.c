/* cli_recall.c - `paddock recall ID`: page, filter or summarise an output
 * the store kept. */
#include <errno.h>
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
				   "                         [--config FILE]\n";

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

int pdk_cli_recall_main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"from", required_argument, NULL, 'f'},  {"lines", required_argument, NULL, 'l'},
	    {"match", required_argument, NULL, 'm'}, {"summary", no_argument, NULL, 's'},
	    {"bound", required_argument, NULL, 'b'}, {"config", required_argument, NULL, 'c'},
	    {"help", no_argument, NULL, 'h'},	     {NULL, 0, NULL, 0},
	};
	struct pdk_recall_opts o = {.mode = PDK_RECALL_PAGE, .from = 1, .bound = PDK_BOUND_DEFAULT};
	struct pdk_error err = {0};
	struct pdk_buf out = {0};
	struct pdk_config cfg;
	const char *session, *config = NULL;
	char *dir;
	int c, fd, r;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:l:m:sb:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 'f':
			if (parse_count(optarg, &o.from) < 0) {
				pdk_cli_error("recall: --from '%s' is not a line number (1 or more)",
					      optarg);
				return PDK_EXIT_FAILURE;
			}
			break;
		case 'l':
			if (parse_count(optarg, &o.lines) < 0) {
				pdk_cli_error("recall: --lines '%s' is not a count (1 or more)", optarg);
				return PDK_EXIT_FAILURE;
			}
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
			    o.bound > PDK_BOUND_MAX) {
				pdk_cli_error("recall: --bound '%s' is out of range: give a number of "
					      "bytes from 1024 to 1048576",
					      optarg);
				return PDK_EXIT_FAILURE;
			}
			break;
		case 'h':
			fputs(recall_usage, stdout);
			return 0;
		case ':':
			pdk_cli_error("recall: option '%s' needs a value", argv[optind - 1]);
			return PDK_EXIT_FAILURE;
		default:
			pdk_cli_error("recall: unknown option '%s'; see 'paddock recall --help'",
				      argv[optind - 1]);
			return PDK_EXIT_FAILURE;
		}
	}
	if (optind != argc - 1) {
		pdk_cli_error("recall: give exactly one output id, as printed in a 'held back:' note");
		return PDK_EXIT_FAILURE;
	}
	o.id = argv[optind];
	if (!pdk_store_id_valid(o.id)) {
		pdk_cli_error("recall: '%s' is not an output id (8 hex digits, as in a 'held back:' "
			      "note)",
			      o.id);
		return PDK_EXIT_FAILURE;
	}
	if (pdk_session_name(&session) < 0) {
		pdk_cli_error("recall: PADDOCK_SESSION must be 1 to 64 of A-Z a-z 0-9 . _ -");
		return PDK_EXIT_FAILURE;
	}
	/* The store is where runs put it: output.storeDir when configured. */
	r = pdk_cli_config_load("recall", config, false, &cfg);
	dir = r < 0 ? NULL : pdk_cli_store_dir("recall", &cfg);
	pdk_config_release(&cfg);
	if (!dir)
		return PDK_EXIT_FAILURE;
	fd = pdk_store_open(dir, session, o.id);
	free(dir);
	if (fd < 0) {
		if (fd == -ENOENT)
			pdk_cli_error("recall: no output %s in the store: unknown, or pruned since; "
				      "run the command again only if you need its output",
				      o.id);
		else
			pdk_cli_error("recall: output %s: %s", o.id, strerror(-fd));
		return PDK_EXIT_FAILURE;
	}
	r = pdk_recall(fd, &o, &out, &err);
	close(fd);
	if (r < 0) {
		if (r == -EINVAL)
			pdk_cli_error("recall: bad pattern: %s", err.message);
		else if (r == -ERANGE)
			pdk_cli_error("recall: %s", err.message);
		else
			pdk_cli_error("recall: %s", strerror(-r));
		pdk_buf_free(&out);
		return PDK_EXIT_FAILURE;
	}
	fwrite(out.data, 1, out.len, stdout);
	pdk_buf_free(&out);
	return fflush(stdout) == 0 ? 0 : PDK_EXIT_FAILURE;
}
