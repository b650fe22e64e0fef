/* trash-driver.c - runs paddock's trash-backed rm from the command line for the trash-cli
 * interoperability test: trash-driver ROOT[:ROOT...] rm [OPTION]... FILE...
 * and, for the expiry test, puts a file in the trash as paddock does with a given deletion
 * date (an entry paddock made long ago): trash-driver put-as FILE YYYY-MM-DDThh:mm:ss */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trash/trash.h"

static int put_as(const char *file, const char *date)
{
	char *dir = NULL, *base = NULL, *real = NULL, *orig = NULL, *as = NULL;
	char why[256] = "";
	int fd, r;

	if (pdk_trash_split_path(file, &dir, &base) < 0 || !(real = realpath(dir, NULL)) ||
	    asprintf(&orig, "%s/%s", real, base) < 0)
		return 2;
	fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 2;
	r = pdk_trash_put_as(fd, base, orig, date, &as, why, sizeof(why));
	if (r < 0)
		fprintf(stderr, "trash-driver: %s: %s\n", file, why);
	else
		printf("%s\n", as);
	close(fd);
	free(dir);
	free(base);
	free(real);
	free(orig);
	free(as);
	return r < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *roots[64];
	char *owned[64];
	size_t n = 0, n_owned = 0;
	char *list, *tok, *save = NULL;
	int code;

	if (argc == 4 && strcmp(argv[1], "put-as") == 0)
		return put_as(argv[2], argv[3]);
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
