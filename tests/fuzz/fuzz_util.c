/* fuzz_util.c - the harnesses' shared helpers (see fuzz.h). */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/textclean.h"
#include "fuzz.h"

static char dir[64];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	remove(path);
	return 0;
}

static void cleanup(void)
{
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *fuzz_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	if (dir[0])
		return dir;
	if (!tmp || tmp[0] != '/' || strlen(tmp) > 40)
		tmp = "/tmp";
	snprintf(dir, sizeof(dir), "%s/pdk-fuzz.XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		perror("fuzz: mkdtemp");
		abort();
	}
	atexit(cleanup);
	return dir;
}

const char *fuzz_write(const char *name, const void *data, size_t size)
{
	static char path[160];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fuzz_dir(), name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || close(fd) < 0) {
		perror("fuzz: writing the input file");
		abort();
	}
	return path;
}

void fuzz_fail(const char *what, const char *text, size_t len)
{
	fprintf(stderr, "fuzz: %s in:\n", what);
	fwrite(text, 1, len, stderr);
	fputc('\n', stderr);
	abort();
}

void fuzz_check_clean(const char *what, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;
	long c;

	while (i < len) {
		c = pdk_utf8_next(u + i, len - i, &n);
		if (c < 0 || (c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7f && c < 0xa0))
			fuzz_fail(what, s, len);
		i += n;
	}
}
