/* cli_doctor.c - `paddock doctor`: which backends are compiled in, which
 * work on this host and why not, and which one a run would use. */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "cli.h"

int pdk_cli_doctor_main(int argc, char **argv)
{
	const struct pdk_backend *chosen = NULL;
	const char *why;

	printf("compiled backends: %s\n", pdk_backend_names());
	for (size_t i = 0; pdk_backends[i]; i++) {
		const struct pdk_backend *b = pdk_backends[i];
		int r = pdk_backend_probe(b, &why);
		printf("%s: %s%s%s\n", b->name, r == 0 ? "works here" : "does not work here",
		       why && *why ? ": " : "", why ? why : "");
		if (r == 0 && !chosen)
			chosen = b;
	}
	if (chosen)
		printf("a run would use: %s\n", chosen->name);
	else
		printf("a run would refuse: no backend works here\n");
	return chosen ? 0 : 1;
}
