/* fuzz_package.c - libFuzzer harness for the one JSON paddock reads while
 * deciding: the package.json above the working directory, whose scripts the
 * watcher check follows for `npm run X` (and pnpm, yarn, bun). The input: one
 * byte choosing the runner, the script name up to the first newline, then
 * the package.json. Any file must give a decision, never a crash or a leak. */
#include <string.h>

#include "config/config.h"
#include "fuzz.h"
#include "policy/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const runners[] = {"npm", "pnpm", "yarn", "bun"};
	static struct pdk_config cfg;
	static int ready;
	struct pdk_decision d;
	char name[128];
	const uint8_t *nl;
	size_t n;

	if (size < 1)
		return 0;
	if (!ready) {
		pdk_config_init(&cfg);
		ready = 1;
	}
	nl = memchr(data + 1, '\n', size - 1);
	n = nl ? (size_t)(nl - data - 1) : 0;
	if (n >= sizeof(name) || memchr(data + 1, '\0', n))
		return 0;
	memcpy(name, data + 1, n);
	name[n] = '\0';
	char *argv[] = {(char *)runners[data[0] % 4], data[0] & 4 ? name : "run",
			data[0] & 4 ? NULL : name, NULL};
	struct pdk_policy_call call = {.argv = argv, .cwd = fuzz_dir(), .home = "/nonexistent"};

	n = nl ? (size_t)(nl + 1 - data) : size;
	fuzz_write("package.json", data + n, size - n);
	if (pdk_policy_decide(&cfg, &call, &d) < 0)
		fuzz_fail("no decision", (const char *)data, size);
	if (d.verdict == PDK_VERDICT_REFUSE && !d.message)
		fuzz_fail("a refusal that says nothing", (const char *)data, size);
	pdk_decision_release(&d);
	return 0;
}
