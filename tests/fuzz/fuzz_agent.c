/* fuzz_agent.c - libFuzzer harness for the arguments an agent sends with an
 * MCP tools/call (run_command, recall_output): any JSON must become options
 * of `paddock run` or `paddock recall`, or be refused with one printable
 * line. (The server itself runs each call in a process of its own, which a
 * fuzzer cannot; the arguments are what it reads of a call.) */
#include <errno.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent/agent.h"
#include "config/config.h"
#include "fuzz.h"

static void one(int (*conv)(const cJSON *, struct pdk_strv *, char *, size_t), const cJSON *args)
{
	struct pdk_strv v = {0};
	char why[512];
	int r = conv(args, &v, why, sizeof(why));

	if (r == -EINVAL && !why[0])
		fuzz_fail("a refusal that says nothing", "", 0);
	if (r == -EINVAL)
		fuzz_check_clean("a refusal that is not clean", why, strlen(why));
	if (r == -EINVAL && strchr(why, '\n'))
		fuzz_fail("a refusal of more than one line", why, strlen(why));
	if (r == 0 && (!v.n || v.v[v.n] != NULL))
		fuzz_fail("options that are not a NULL-terminated list", "", 0);
	pdk_strv_release(&v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *args = cJSON_ParseWithLength((const char *)data, size);

	one(pdk_agent_run_args, args);
	one(pdk_agent_recall_args, args);
	cJSON_Delete(args);
	return 0;
}
