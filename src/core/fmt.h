/* fmt.h - formatting for results a model reads: thousands separators,
 * human byte sizes, shell-quoted words, a growable buffer. */
#ifndef PDK_FMT_H
#define PDK_FMT_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#define PDK_NUM_MAX 32

/* 2270 -> "2,270". Returns buf. */
char *pdk_fmt_num(uint64_t n, char buf[PDK_NUM_MAX]);
/* 900 -> "900 bytes", 184320 -> "180 KiB", 5.5 MiB -> "5.5 MiB". */
char *pdk_fmt_size(uint64_t bytes, char buf[PDK_NUM_MAX]);



/* A growable byte buffer; on allocation failure it stays as it was and
 * remembers the failure in oom. */
struct pdk_buf {
	char *data;
	size_t len, alloc;
	int oom;
};

void pdk_buf_add(struct pdk_buf *b, const void *p, size_t n);
void pdk_buf_puts(struct pdk_buf *b, const char *s);
void pdk_buf_printf(struct pdk_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pdk_buf_free(struct pdk_buf *b);
/* Error text, paddock's one way: a function that can say why it failed
 * takes (char *why, size_t why_len), a buffer of the caller's, and writes one
 * line there (nothing when why_len is 0). pdk_why formats it and returns r,
 * so a failure reads `return pdk_why(why, why_len, -EINVAL, "...")`. A parser
 * that places the error in its input uses struct pdk_error (core/util.h). */
int pdk_why(char *why, size_t why_len, int r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* vasprintf into a new string, or NULL when out of memory. */
char *pdk_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One word of a POSIX shell command line, quoted only when it needs it, so
 * the printed line can be pasted into a shell and runs the same argv. */
void pdk_fput_shell_word(FILE *out, const char *w);
#endif
