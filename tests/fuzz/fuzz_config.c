/* fuzz_config.c - libFuzzer harness for the configuration loader: any file
 * must load or be refused with one printable line, warnings likewise, and
 * loading it twice (a system file, then a user file) must merge cleanly. */
#include <string.h>

#include "config/config.h"
#include "fuzz.h"

static void check_line(const char *what, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			fuzz_fail(what, s, strlen(s));
}

static void warn(void *ctx, const char *line)
{
	check_line("a control byte in a warning", line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_write("config.json", data, size);
	struct pdk_config cfg;
	char why[1024];
	int r;

	pdk_config_init(&cfg);
	for (int i = 0; i < 2; i++) {
		why[0] = '\0';
		r = pdk_config_load_file(&cfg, path, true, warn, NULL, why, sizeof(why));
		if (r < 0) {
			if (!why[0])
				fuzz_fail("a refusal that says nothing", (const char *)data, size);
			check_line("a control byte in a refusal", why);
			break;
		}
	}
	pdk_config_release(&cfg);
	return 0;
}
