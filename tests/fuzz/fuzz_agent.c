/* fuzz_agent.c - libFuzzer harness for the arguments an agent sends with an
 * MCP tools/call (run_command, recall_output): any JSON must become a run's
 * request or the options of `paddock recall`, or be refused with one printable
 * line. (The server itself runs each call in a process of its own, which a
 * fuzzer cannot; the arguments are what it reads of a call.) */
#include <errno.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/agent.h"
#include "config/config.h"
#include "core/request.h"
#include "fuzz.h"

static void refusal(int r, const char *why)
{
	if (r == -EINVAL && !why[0])
		fuzz_fail("a refusal that says nothing", "", 0);
	if (r == -EINVAL)
		fuzz_check_clean("a refusal that is not clean", why, strlen(why));
	if (r == -EINVAL && strchr(why, '\n'))
		fuzz_fail("a refusal of more than one line", why, strlen(why));
}

static void run(const cJSON *args)
{
	struct pdk_request req = {0};
	char why[512];
	int r = pdk_agent_run_request(args, &req, why, sizeof(why));

	refusal(r, why);
	if (r == 0 && (!req.argv || !req.argv[0] || !req.argv[0][0] || !req.json))
		fuzz_fail("a request with no program", "", 0);
	if (r == 0 && req.n_domains && !req.domains)
		fuzz_fail("domains counted but not listed", "", 0);
	pdk_request_release(&req);
}

static void one(int (*conv)(const cJSON *, struct pdk_strv *, char *, size_t), const cJSON *args)
{
	struct pdk_strv v = {0};
	char why[512];
	int r = conv(args, &v, why, sizeof(why));

	refusal(r, why);
	if (r == 0 && (!v.n || v.v[v.n] != NULL))
		fuzz_fail("options that are not a NULL-terminated list", "", 0);
	pdk_strv_release(&v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *args = cJSON_ParseWithLength((const char *)data, size);

	run(args);
	one(pdk_agent_recall_args, args);
	cJSON_Delete(args);
	return 0;
}
