/* trash-driver.c - runs paddock's trash-backed rm from the command line for the trash-cli
 * interoperability test: trash-driver ROOT[:ROOT...] rm [OPTION]... FILE... */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trash/trash.h"

int main(int argc, char **argv)
{
	const char *roots[64];
	char *owned[64];
	size_t n = 0, n_owned = 0;
	char *list, *tok, *save = NULL;
	int code;

	if (argc < 3) {
		fprintf(stderr, "usage: trash-driver ROOT[:ROOT...] rm [OPTION]... FILE...\n");
		return 2;
	}
	list = strdup(argv[1]);
	if (!list)
		return 2;
	for (tok = strtok_r(list, ":", &save); tok && n < 64; tok = strtok_r(NULL, ":", &save)) {
		/* Roots are real paths, as the confinement layer hands them over. */
		char *real = realpath(tok, NULL);

		if (real)
			owned[n_owned++] = real;
		roots[n++] = real ? real : tok;
	}
	code = pdk_rm_main(argc - 2, argv + 2, roots, n, stderr);
	for (size_t i = 0; i < n_owned; i++)
		free(owned[i]);
	free(list);
	return code;
}
