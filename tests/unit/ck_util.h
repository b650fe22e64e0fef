/* ck_util.h - what the Check suites share: a suite's main(), scratch paths,
 * and reading and writing small files. */
#ifndef PDK_CK_UTIL_H
#define PDK_CK_UTIL_H

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Run the suite; exit 1 when a test failed. */
static inline int pdk_ck_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* A formatted path, in one of a few rotating buffers so that several can be
 * live in one expression. */
static inline __attribute__((format(printf, 1, 2))) char *ck_path(const char *fmt, ...)
{
	static char bufs[8][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 8];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, PATH_MAX, fmt, ap);
	va_end(ap);
	return b;
}

/* Write text to path, asserting it worked. */
static inline void ck_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "fopen %s: %s", path, strerror(errno));
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* The first 64 KiB of path, in a static buffer; NULL when it cannot be read. */
static inline char *ck_slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

#endif
