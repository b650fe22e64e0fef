/* cli_approvals.c - `paddock approvals`: list the calls waiting for a person,
 * and answer one from this terminal (approve ID, deny ID). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "core/textclean.h"
#include "gate/approvals.h"

static const char approvals_usage[] =
	"usage: paddock approvals [--json]     list the calls waiting for a person\n"
	"       paddock approvals approve ID   run it\n"
	"       paddock approvals deny ID      refuse it\n";

/* Quoted text from the request: one clean line. */
static void put_clean(FILE *f, const char *s)
{
	size_t len = strlen(s);
	char buf[PDK_CLEAN_ROOM(1024) + 1];

	if (len > 1024)
		len = 1024;
	buf[pdk_text_clean_line(s, len, buf)] = '\0';
	fputs(buf, f);
}

static int list(bool json)
{
	struct pdk_approval_info *v;
	size_t n;
	int r = pdk_approvals_list(&v, &n);

	if (r < 0) {
		pdk_cli_error("approvals: cannot read the waiting calls: %s", strerror(-r));
		return PDK_EXIT_FAILURE;
	}
	if (json) {
		cJSON *a = cJSON_CreateArray();
		for (size_t i = 0; a && i < n; i++) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "id", v[i].id);
			cJSON_AddStringToObject(o, "command", v[i].command);
			cJSON_AddStringToObject(o, "cwd", v[i].cwd);
			cJSON_AddStringToObject(o, "needs", v[i].needs);
			cJSON_AddStringToObject(o, "session", v[i].session);
			cJSON_AddNumberToObject(o, "pid", v[i].pid);
			cJSON_AddNumberToObject(o, "created", (double)v[i].created);
			cJSON_AddBoolToObject(o, "answered", v[i].answered);
			cJSON_AddItemToArray(a, o);
		}
		char *t = a ? cJSON_PrintUnformatted(a) : NULL;
		cJSON_Delete(a);
		if (t)
			puts(t);
		cJSON_free(t);
	} else if (n == 0) {
		puts("no call is waiting for approval");
	}
	for (size_t i = 0; !json && i < n; i++) {
		long long age = (long long)time(NULL) - v[i].created;
		printf("%s  ", v[i].id);
		put_clean(stdout, v[i].command);
		printf("\n          in ");
		put_clean(stdout, v[i].cwd);
		if (*v[i].needs) {
			printf("; needs ");
			put_clean(stdout, v[i].needs);
		}
		printf("; waiting %llds%s\n", age < 0 ? 0 : age, v[i].answered ? "; answered" : "");
	}
	pdk_approvals_list_free(v, n);
	return fflush(stdout) == 0 ? 0 : PDK_EXIT_FAILURE;
}

int pdk_cli_approvals_main(int argc, char **argv)
{
	if (argc == 1 || (argc == 2 && strcmp(argv[1], "--json") == 0))
		return list(argc == 2);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(approvals_usage, stdout);
		return 0;
	}
	bool approve = strcmp(argv[1], "approve") == 0;
	if ((!approve && strcmp(argv[1], "deny") != 0) || argc != 3) {
		pdk_cli_error("approvals: give no argument to list, or 'approve ID' or 'deny ID'; "
			      "see 'paddock approvals --help'");
		return PDK_EXIT_FAILURE;
	}
	int r = pdk_approval_answer(argv[2], approve);
	switch (r) {
	case 0:
		printf("%s %s\n", approve ? "approved" : "denied", argv[2]);
		return 0;
	case -EINVAL:
		pdk_cli_error("approvals: '%s' is not a request id (8 hex digits, as 'paddock "
			      "approvals' lists them)",
			      argv[2]);
		break;
	case -ENOENT:
		pdk_cli_error("approvals: no call %s is waiting: it was answered, withdrawn or "
			      "never asked; see 'paddock approvals'",
			      argv[2]);
		break;
	case -EEXIST:
		pdk_cli_error("approvals: %s was answered already; the first answer counts", argv[2]);
		break;
	default:
		pdk_cli_error("approvals: %s: %s", argv[2], strerror(-r));
	}
	return PDK_EXIT_FAILURE;
}
