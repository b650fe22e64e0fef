/* fmt.c - formatting for results a model reads: thousands separators,
 * human byte sizes, shell-quoted words, a growable buffer. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

char *pdk_fmt_num(uint64_t n, char buf[PDK_NUM_MAX])
{
	char digits[24];
	int len = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)n);
	char *p = buf;

	for (int i = 0; i < len; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			*p++ = ',';
		*p++ = digits[i];
	}
	*p = '\0';
	return buf;
}

char *pdk_fmt_size(uint64_t bytes, char buf[PDK_NUM_MAX])
{
	char num[PDK_NUM_MAX];

	if (bytes < 1024) {
		snprintf(buf, PDK_NUM_MAX, "%s byte%s", pdk_fmt_num(bytes, num),
			 bytes == 1 ? "" : "s");
	} else if (bytes < 1024 * 1024) {
		snprintf(buf, PDK_NUM_MAX, "%s KiB", pdk_fmt_num((bytes + 512) / 1024, num));
	} else if (bytes < 10ULL * 1024 * 1024 * 1024) {
		uint64_t tenths = (bytes * 10 + 512 * 1024) / (1024 * 1024);
		if (tenths >= 1000)
			snprintf(buf, PDK_NUM_MAX, "%s MiB", pdk_fmt_num((tenths + 5) / 10, num));
		else
			snprintf(buf, PDK_NUM_MAX, "%llu.%llu MiB", (unsigned long long)tenths / 10,
				 (unsigned long long)tenths % 10);
	} else {
		snprintf(buf, PDK_NUM_MAX, "%s GiB",
			 pdk_fmt_num((bytes + (512ULL << 20)) >> 30, num));
	}
	return buf;
}

void pdk_buf_add(struct pdk_buf *b, const void *p, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->alloc) {
		size_t want = b->alloc ? b->alloc : 256;
		while (want < b->len + n + 1)
			want *= 2;
		char *d = realloc(b->data, want);
		if (!d) {
			b->oom = 1;
			return;
		}
		b->data = d;
		b->alloc = want;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void pdk_buf_puts(struct pdk_buf *b, const char *s)
{
	pdk_buf_add(b, s, strlen(s));
}

void pdk_buf_printf(struct pdk_buf *b, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		pdk_buf_add(b, small, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big) {
		b->oom = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	pdk_buf_add(b, big, (size_t)n);
	free(big);
}

void pdk_buf_free(struct pdk_buf *b)
{
	free(b->data);
	*b = (struct pdk_buf){0};
}

/* One word of a POSIX shell command line, quoted only when it needs it, so
 * the printed line can be pasted into a shell and runs the same argv. */
void pdk_fput_shell_word(FILE *out, const char *w)
{
	bool plain = *w != '\0';

	for (const char *p = w; *p && plain; p++)
		plain = strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			       "0123456789_@%+=:,./-",
			       *p) != NULL;
	if (plain) {
		fputs(w, out);
		return;
	}
	fputc('\'', out);
	for (const char *p = w; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", out);
		else
			fputc(*p, out);
	}
	fputc('\'', out);
}

int pdk_why(char *why, size_t why_len, int r, const char *fmt, ...)
{
	va_list ap;

	if (why && why_len) {
		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	return r;
}

char *pdk_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}
