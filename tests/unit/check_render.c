/* check_render.c - Check suite for the bounded result: shares between the streams, the one-fifth
 * floor, cuts at line ends, over-long lines, the bound in both modes, notes, cleaning of text. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/capture.h"
#include "core/fmt.h"
#include "output/render.h"
#include "output/store.h"
#include "ck_util.h"
#include "failalloc.h"

static char base[256];
static char store_dir[512];

static void setup(void)
{
	snprintf(base, sizeof(base), "%s/pdk-render.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(store_dir, sizeof(store_dir), "%s/output", base);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	return remove(p);
}

static void teardown(void)
{
	nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A growing byte string to build test streams. */
struct str {
	char *p;
	size_t n, alloc;
};

static void str_add(struct str *s, const void *d, size_t n)
{
	if (s->n + n + 1 > s->alloc) {
		s->alloc = (s->n + n + 1) * 2;
		s->p = realloc(s->p, s->alloc);
		ck_assert_ptr_nonnull(s->p);
	}
	memcpy(s->p + s->n, d, n);
	s->n += n;
	s->p[s->n] = '\0';
}

static void str_printf(struct str *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void str_printf(struct str *s, const char *fmt, ...)
{
	char *t;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&t, fmt, ap);
	va_end(ap);
	ck_assert_int_ge(n, 0);
	str_add(s, t, (size_t)n);
	free(t);
}

/* count lines of "<tag> <number> <filler>\n", lengths varying with the number. */
static struct str numbered(const char *tag, unsigned count)
{
	struct str s = {0};

	for (unsigned i = 1; i <= count; i++)
		str_printf(&s, "%s %u %.*s\n", tag, i, (int)(i * 7 % 53), "abcdefghijklmnopqrstuvwxyz"
							     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0");
	return s;
}

/* One render: both streams fed as a pipe would (in uneven chunks), with a
 * store under the test's temp dir (or none). */
struct run {
	struct pdk_capture out, err;
	struct pdk_store_entry *store;
	struct pdk_render_out r;
	int rc;
};

static void feed(struct pdk_capture *c, const char *d, size_t n)
{
	size_t chunk = 1;

	while (n > 0) {
		size_t k = chunk < n ? chunk : n;
		pdk_capture_feed(c, d, k);
		d += k;
		n -= k;
		chunk = chunk * 3 + 1 > 65536 ? 4093 : chunk * 3 + 1;
	}
}

static void run_render(struct run *x, const char *o, size_t on, const char *e, size_t en,
		       size_t bound, bool json, bool with_store)
{
	struct pdk_store_config cfg = {store_dir, "t", PDK_STORE_CAP_DEFAULT,
				       PDK_STORE_PRUNE_DEFAULT};

	memset(x, 0, sizeof(*x));
	if (with_store)
		ck_assert_int_eq(pdk_store_entry_new(&cfg, &x->store), 0);
	ck_assert_int_eq(pdk_capture_init(&x->out, 1, bound, x->store), 0);
	ck_assert_int_eq(pdk_capture_init(&x->err, 2, bound, x->store), 0);
	feed(&x->out, o, on);
	feed(&x->err, e, en);
	struct pdk_render_in in = {
		.out = &x->out, .err = &x->err, .exit_status = 0, .bound = bound, .json = json,
		.store = x->store,
	};
	x->rc = pdk_render(&in, &x->r);
	ck_assert_int_eq(x->rc, 0);
	ck_assert_uint_eq(strlen(x->r.text), x->r.len);
}

static void run_free(struct run *x)
{
	pdk_render_out_release(&x->r);
	pdk_capture_release(&x->out);
	pdk_capture_release(&x->err);
	pdk_store_entry_free(x->store);
}

/* The text between "<from>" and "<to>" (exclusive) in s; "" when absent. */
static struct str section(const char *s, const char *from, const char *to)
{
	struct str r = {0};
	const char *a = strstr(s, from), *b;

	str_add(&r, "", 0);
	if (!a)
		return r;
	a += strlen(from);
	b = to ? strstr(a, to) : NULL;
	str_add(&r, a, b ? (size_t)(b - a) : strlen(a));
	return r;
}

static size_t count_char(const char *s, size_t n, char ch)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += s[i] == ch;
	return k;
}

static bool valid_utf8(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t l = s[i] < 0x80 ? 1 : (s[i] & 0xe0) == 0xc0 ? 2 : (s[i] & 0xf0) == 0xe0 ? 3
					  : (s[i] & 0xf8) == 0xf0 ? 4 : 0;
		if (l == 0 || i + l > n || (l == 2 && s[i] < 0xc2))
			return false;
		for (size_t j = 1; j < l; j++)
			if ((s[i + j] & 0xc0) != 0x80)
				return false;
		i += l;
	}
	return true;
}

/* The stored output named by a render, read whole. */
static struct str stored(const struct run *x)
{
	struct str s = {0};
	char path[1024], buf[65536];
	ssize_t n;
	int fd;

	ck_assert_msg(x->r.stored, "nothing was stored");
	snprintf(path, sizeof(path), "%s/t/%s", store_dir, x->r.stored_as.id);
	fd = open(path, O_RDONLY);
	ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
	str_add(&s, "", 0);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		str_add(&s, buf, (size_t)n);
	close(fd);
	return s;
}

/* Line `no` (1-based) of s, without its '\n'. */
static struct str line_of(const char *s, size_t len, uint64_t no)
{
	struct str r = {0};
	const char *p = s, *end = s + len;

	str_add(&r, "", 0);
	for (uint64_t i = 1; i < no && p < end; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	if (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		str_add(&r, p, nl ? (size_t)(nl - p) : (size_t)(end - p));
	}
	return r;
}

/* ------------------------------------------------------------------------- */

START_TEST(test_whole_and_empty_streams)
{
	struct run x;

	run_render(&x, "hello\n", 6, "", 0, 16384, false, true);
	ck_assert_str_eq(x.r.text, "exit status: 0\nstdout:\nhello\n");
	ck_assert(!x.r.stored);
	run_free(&x);

	run_render(&x, "", 0, "oops", 4, 16384, false, true);
	ck_assert_str_eq(x.r.text, "exit status: 0\nstderr:\noops\n");
	run_free(&x);

	run_render(&x, "", 0, "", 0, 1024, false, true);
	ck_assert_str_eq(x.r.text, "exit status: 0\n");
	run_free(&x);

	run_render(&x, "", 0, "", 0, 1024, true, true);
	cJSON *j = cJSON_Parse(x.r.text);
	ck_assert_ptr_nonnull(j);
	ck_assert_str_eq(cJSON_GetObjectItem(j, "stdout")->valuestring, "");
	ck_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "output_id")));
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "held_back")), 0);
	cJSON_Delete(j);
	run_free(&x);
	/* Nothing held back: nothing stored. */
	ck_assert_int_ne(access(store_dir, F_OK), 0);
}
END_TEST

/* stdout twice the size of stderr gets about twice the room. */
START_TEST(test_proportional_shares)
{
	struct str o = {0}, e = {0};
	struct run x;

	/* Same line shapes, 2:1 in bytes. */
	for (int i = 0; i < 4000; i++)
		str_printf(&o, "out line %05d ........................\n", i);
	for (int i = 0; i < 2000; i++)
		str_printf(&e, "err line %05d ........................\n", i);
	run_render(&x, o.p, o.n, e.p, e.n, 16384, false, true);
	struct str so = section(x.r.text, "\nstdout:\n", "\nstderr:\n");
	struct str se = section(x.r.text, "\nstderr:\n", "\nheld back: ");
	double ratio = (double)so.n / (double)se.n;
	ck_assert_msg(ratio > 1.8 && ratio < 2.2, "stdout %zu, stderr %zu bytes shown", so.n, se.n);
	ck_assert(x.r.held[1].any && x.r.held[2].any);
	ck_assert_uint_le(x.r.len, 16384);
	/* The room is used: nearly the whole bound. */
	ck_assert_uint_ge(x.r.len, 16384 - 200);
	free(so.p);
	free(se.p);
	run_free(&x);

	/* And 1:3 the other way round. */
	run_render(&x, e.p, e.n / 2, o.p, o.n * 3 / 4, 16384, false, true);
	so = section(x.r.text, "\nstdout:\n", "\nstderr:\n");
	se = section(x.r.text, "\nstderr:\n", "\nheld back: ");
	ratio = (double)se.n / (double)so.n;
	ck_assert_msg(ratio > 2.6 && ratio < 3.4, "stdout %zu, stderr %zu bytes shown", so.n, se.n);
	free(so.p);
	free(se.p);
	run_free(&x);
	free(o.p);
	free(e.p);
}
END_TEST

START_TEST(test_fifth_floor)
{
	struct str o = numbered("log", 60000), e = {0};
	struct run x;
	const char *err3 = "error: first\nerror: second\nerror: third\n";

	ck_assert_uint_gt(o.n, 1000000);
	run_render(&x, o.p, o.n, err3, strlen(err3), 16384, false, true);
	struct str se = section(x.r.text, "\nstderr:\n", "\nheld back: ");
	ck_assert_str_eq(se.p, "error: first\nerror: second\nerror: third");
	ck_assert(x.r.held[1].any && !x.r.held[2].any);
	ck_assert_uint_le(x.r.len, 16384);
	free(se.p);
	run_free(&x);

	/* A 30 KB stderr next to 1 MB of stdout: 3% of the bytes, yet a fifth of
	 * the room. */
	for (int i = 0; i < 1000; i++)
		str_printf(&e, "warning %04d: something to see here\n", i);
	run_render(&x, o.p, o.n, e.p, e.n, 16384, false, true);
	se = section(x.r.text, "\nstderr:\n", "\nheld back: ");
	ck_assert_msg(se.n >= 16384 / 5 - 400 && se.n <= 16384 / 5 + 400, "stderr got %zu bytes", se.n);
	ck_assert(x.r.held[1].any && x.r.held[2].any);
	ck_assert_uint_le(x.r.len, 16384);
	free(se.p);
	run_free(&x);
	free(o.p);
	free(e.p);
}
END_TEST

/* Every line shown is a whole line of the input, head from the first line on,
 * tail up to the last, and nothing but the marker in between. */
START_TEST(test_cut_at_line_ends)
{
	const size_t bounds[] = {1024, 3000, 16384, 65536};

	for (size_t b = 0; b < sizeof(bounds) / sizeof(bounds[0]); b++) {
		struct str o = numbered("row", 30000);
		struct run x;
		unsigned expect = 1, tail_from = 0;
		bool in_tail = false, saw_marker = false;

		run_render(&x, o.p, o.n, "", 0, bounds[b], false, true);
		struct str so = section(x.r.text, "\nstdout:\n", "\nheld back: ");
		str_add(&so, "\n", 1);
		for (char *line = so.p, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
			*nl = '\0';
			unsigned no;
			if (strncmp(line, "[… ", 4) == 0) {
				ck_assert(!saw_marker);
				saw_marker = true;
				in_tail = true;
				continue;
			}
			ck_assert_msg(sscanf(line, "row %u ", &no) == 1, "not a line: '%s'", line);
			if (in_tail && !tail_from)
				expect = tail_from = no;
			ck_assert_uint_eq(no, expect);
			char want[128];
			snprintf(want, sizeof(want), "row %u %.*s", no, (int)(no * 7 % 53),
				 "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0");
			ck_assert_str_eq(line, want);
			expect++;
		}
		ck_assert(saw_marker);
		ck_assert_uint_eq(expect, 30001); /* the tail reaches the last line */
		ck_assert_uint_gt(tail_from, 1);
		ck_assert_uint_le(x.r.len, bounds[b]);
		/* Held back: exactly the lines between head and tail. */
		ck_assert_uint_eq(x.r.held[1].last_line, 2 + tail_from - 1);
		free(so.p);
		free(o.p);
		run_free(&x);
	}
}
END_TEST

/* 10 MB without a newline: a piece of its start, a piece of its end. */
START_TEST(test_long_line)
{
	size_t n = 10 * 1000 * 1000;
	char *big = malloc(n);
	struct run x;

	ck_assert_ptr_nonnull(big);
	for (size_t i = 0; i < n; i++)
		big[i] = (char)('a' + i % 26);
	memcpy(big, "BEGIN", 5);
	memcpy(big + n - 3, "END", 3);
	for (int json = 0; json <= 1; json++) {
		run_render(&x, big, n, "", 0, 16384, json, true);
		ck_assert_uint_le(x.r.len, 16384);
		ck_assert_uint_ge(x.r.len, 16384 / 2);
		ck_assert(x.r.held[1].any);
		ck_assert_uint_eq(x.r.held[1].first_line, 3);
		ck_assert_uint_eq(x.r.held[1].last_line, 3);
		ck_assert_uint_gt(x.r.held[1].bytes, n - 16384);
		ck_assert_uint_lt(x.r.held[1].bytes, n);
		const char *text = x.r.text;
		cJSON *j = NULL;
		if (json) {
			j = cJSON_Parse(x.r.text);
			ck_assert_ptr_nonnull(j);
			text = cJSON_GetObjectItem(j, "stdout")->valuestring;
		} else {
			ck_assert_ptr_nonnull(strstr(text, "\nstdout:\nBEGINfghij"));
			ck_assert_ptr_nonnull(strstr(text, "held back: stdout line 3 (9.5 MiB)"));
		}
		ck_assert_ptr_nonnull(strstr(text, "END\n"));
		ck_assert_ptr_nonnull(strstr(text, " of line 1 held back …]\n"));
		ck_assert_ptr_nonnull(strstr(text, "[… 9.5 MiB of line 1 held back …]"));
		cJSON_Delete(j);
		/* The store has the whole line, and a newline after it. */
		struct str s = stored(&x);
		ck_assert_uint_eq(s.n, strlen("exit status: 0\nstdout:\n") + n + 1);
		ck_assert_int_eq(memcmp(s.p + 23, big, n), 0);
		ck_assert_int_eq(s.p[s.n - 1], '\n');
		free(s.p);
		run_free(&x);
	}
	free(big);
}
END_TEST

/* Whatever the input and the bound, the whole result fits, and JSON parses. */
START_TEST(test_bound_sweep)
{
	const size_t bounds[] = {1024, 1100, 1500, 2048, 4000, 8192, 16384, 50000, 131072, 1048576};
	size_t bound = bounds[_i];

	for (int kind = 0; kind < 6; kind++) {
		size_t size = bound * 3 + 5000;
		struct str o = {0}, e = {0};

		switch (kind) {
		case 0: /* short lines */
			for (unsigned i = 0; o.n < size; i++)
				str_printf(&o, "%u\n", i);
			break;
		case 1: /* one line */
			for (; o.n < size;)
				str_add(&o, "0123456789\"\\\t", 13);
			break;
		case 2: /* binary */
			for (unsigned i = 0; o.n < size; i++) {
				unsigned char c = (unsigned char)(i * 2654435761u >> 13);
				str_add(&o, &c, 1);
			}
			break;
		case 3: /* both streams, long lines of quotes and multibyte text */
			for (unsigned i = 0; o.n < size; i++)
				str_printf(&o, "\"%u\" %s\n", i, i % 3 ? "✓ ok" : "\\ «x» ✗ failed");
			for (unsigned i = 0; e.n < size / 4; i++)
				str_printf(&e, "warning: %u\x1b[31m red\x1b[0m\r\n", i);
			break;
		case 4: /* lines longer than the bound */
			for (unsigned i = 0; o.n < size; i++) {
				for (size_t k = 0; k < bound / 3 + 100; k++)
					str_add(&o, "é", 2);
				str_add(&o, "\n", 1);
			}
			break;
		case 5: /* a small stdout, a huge stderr */
			str_add(&o, "done\n", 5);
			for (unsigned i = 0; e.n < size; i++)
				str_printf(&e, "trace %u: at frame %u\n", i, i * 7);
			break;
		}
		for (int json = 0; json <= 1; json++) {
			struct run x;
			run_render(&x, o.p, o.n, e.p ? e.p : "", e.n, bound, json, kind % 2 == 0);
			ck_assert_msg(x.r.len <= bound, "kind %d json %d: %zu > %zu", kind, json,
				      x.r.len, bound);
			ck_assert_msg(x.r.len >= bound / 2 || kind == 4, "kind %d json %d: %zu of %zu",
				      kind, json, x.r.len, bound);
			ck_assert(x.r.held[1].any || x.r.held[2].any);
			ck_assert(valid_utf8((const unsigned char *)x.r.text, x.r.len));
			if (json) {
				cJSON *j = cJSON_ParseWithLength(x.r.text, x.r.len);
				ck_assert_msg(j != NULL, "kind %d: JSON does not parse", kind);
				ck_assert(cJSON_IsString(cJSON_GetObjectItem(j, "stdout")));
				ck_assert(cJSON_IsString(cJSON_GetObjectItem(j, "stderr")));
				ck_assert(cJSON_IsArray(cJSON_GetObjectItem(j, "held_back")));
				ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(j, "exit_status")));
				ck_assert(cJSON_IsArray(cJSON_GetObjectItem(j, "notes")));
				ck_assert_int_eq(count_char(x.r.text, x.r.len, '\n'), 1);
				cJSON_Delete(j);
			} else {
				ck_assert_int_eq(x.r.text[x.r.len - 1], '\n');
				ck_assert_ptr_nonnull(strstr(x.r.text, "\nheld back: "));
			}
			run_free(&x);
		}
		free(o.p);
		free(e.p);
	}
}
END_TEST

START_TEST(test_thousands_separators)
{
	char b[PDK_NUM_MAX];
	struct str o = {0};
	struct run x;
	char want[256], n1[PDK_NUM_MAX], n2[PDK_NUM_MAX], sz[PDK_NUM_MAX];

	ck_assert_str_eq(pdk_fmt_num(0, b), "0");
	ck_assert_str_eq(pdk_fmt_num(999, b), "999");
	ck_assert_str_eq(pdk_fmt_num(1000, b), "1,000");
	ck_assert_str_eq(pdk_fmt_num(2270, b), "2,270");
	ck_assert_str_eq(pdk_fmt_num(1234567, b), "1,234,567");
	ck_assert_str_eq(pdk_fmt_num(UINT64_MAX, b), "18,446,744,073,709,551,615");
	ck_assert_str_eq(pdk_fmt_size(1, b), "1 byte");
	ck_assert_str_eq(pdk_fmt_size(900, b), "900 bytes");
	ck_assert_str_eq(pdk_fmt_size(184320, b), "180 KiB");
	ck_assert_str_eq(pdk_fmt_size(5767168, b), "5.5 MiB");

	for (unsigned i = 1; i <= 100000; i++)
		str_printf(&o, "%u\n", i);
	run_render(&x, o.p, o.n, "", 0, 16384, false, true);
	const struct pdk_held *h = &x.r.held[1];
	ck_assert(h->any);
	snprintf(want, sizeof(want), "[… %s lines (%s) held back …]\n",
		 pdk_fmt_num(h->last_line - h->first_line + 1, n1), pdk_fmt_size(h->bytes, sz));
	ck_assert_msg(strstr(x.r.text, want), "no marker '%s'", want);
	ck_assert_ptr_nonnull(strchr(want, ','));
	ck_assert_ptr_nonnull(strstr(want, " KiB)"));
	snprintf(want, sizeof(want), "held back: stdout lines %s–%s (%s); the whole output is kept "
				     "as output %s (100,002 lines); \"paddock recall %s --from %llu\"",
		 pdk_fmt_num(h->first_line, n1), pdk_fmt_num(h->last_line, n2), sz,
		 x.r.stored_as.id, x.r.stored_as.id, (unsigned long long)h->first_line);
	ck_assert_msg(strstr(x.r.text, want), "no note '%s' in:\n%s", want,
		      strstr(x.r.text, "held back:"));
	ck_assert_ptr_nonnull(strchr(want, ','));
	/* The bytes held back are exactly those not shown. */
	struct str so = section(x.r.text, "\nstdout:\n", "\nheld back: ");
	const char *m = strstr(so.p, "[… ");
	const char *mend = strchr(m, '\n');
	ck_assert_uint_eq(h->bytes, o.n - (size_t)(m - so.p) - (so.n - (size_t)(mend - so.p) - 1) -
					    1);
	free(so.p);
	free(o.p);
	run_free(&x);
}
END_TEST

/* The note's line numbers are those of the stored output: --from N starts at
 * the first line held back, and the tail begins right after the last. */
START_TEST(test_note_lines_match_store)
{
	struct str o = numbered("out", 5000), e = numbered("err", 4000);
	struct run x;

	run_render(&x, o.p, o.n, e.p, e.n, 8192, false, true);
	struct str s = stored(&x);
	struct str so = section(x.r.text, "\nstdout:\n", "\nstderr:\n");
	struct str se = section(x.r.text, "\nstderr:\n", "\nheld back: ");

	for (int i = 1; i <= 2; i++) {
		const struct pdk_held *h = &x.r.held[i];
		struct str *shown = i == 1 ? &so : &se;
		ck_assert(h->any);
		/* Last line of the head, first of the tail, as shown. */
		char *m = strstr(shown->p, "[… ");
		ck_assert_ptr_nonnull(m);
		*(m - 1) = '\0';
		const char *head_last = strrchr(shown->p, '\n') ? strrchr(shown->p, '\n') + 1
								: shown->p;
		const char *tail_first = strchr(m, '\n') + 1;
		struct str before = line_of(s.p, s.n, h->first_line - 1);
		struct str after = line_of(s.p, s.n, h->last_line + 1);
		ck_assert_str_eq(before.p, head_last);
		ck_assert_int_eq(strncmp(after.p, tail_first, after.n), 0);
		ck_assert_int_eq(tail_first[after.n], '\n');
		/* And the held lines are exactly the bytes the note counts. */
		uint64_t bytes = 0;
		for (uint64_t l = h->first_line; l <= h->last_line; l++) {
			struct str t = line_of(s.p, s.n, l);
			bytes += t.n + 1;
			free(t.p);
		}
		ck_assert_uint_eq(bytes, h->bytes);
		free(before.p);
		free(after.p);
	}
	/* The stored file is the rendering with nothing held back. */
	ck_assert_uint_eq(s.n, 15 + 8 + o.n + 8 + e.n);
	ck_assert_int_eq(memcmp(s.p, "exit status: 0\nstdout:\n", 23), 0);
	ck_assert_int_eq(memcmp(s.p + 23, o.p, o.n), 0);
	ck_assert_int_eq(memcmp(s.p + 23 + o.n, "stderr:\n", 8), 0);
	ck_assert_int_eq(memcmp(s.p + 31 + o.n, e.p, e.n), 0);
	ck_assert_uint_eq(x.r.stored_as.lines, 2 + 5000 + 1 + 4000);
	char from[64];
	snprintf(from, sizeof(from), "--from %llu\"", (unsigned long long)x.r.held[1].first_line);
	ck_assert_ptr_nonnull(strstr(x.r.text, from));
	free(s.p);
	free(so.p);
	free(se.p);
	free(o.p);
	free(e.p);
	run_free(&x);
}
END_TEST

START_TEST(test_binary_and_invalid_utf8)
{
	static const char in[] = "a\0b\xff\xfe" "c\x01 h\xc3\xa9llo \xe2\x9c\x93 \xc3\n"
				 "over\xc0\xaf long \xed\xa0\x80 surrogate\t\"q\"\\\n";
	struct run x;

	run_render(&x, in, sizeof(in) - 1, "", 0, 1024, false, true);
	ck_assert_str_eq(x.r.text, "exit status: 0\nstdout:\n"
				   "a\\x00b\\xff\\xfec\\x01 h\xc3\xa9llo \xe2\x9c\x93 \\xc3\n"
				   "over\\xc0\\xaf long \\xed\\xa0\\x80 surrogate\t\"q\"\\\n");
	run_free(&x);

	run_render(&x, in, sizeof(in) - 1, "", 0, 1024, true, true);
	ck_assert(valid_utf8((const unsigned char *)x.r.text, x.r.len));
	cJSON *j = cJSON_ParseWithLength(x.r.text, x.r.len);
	ck_assert_ptr_nonnull(j);
	ck_assert_str_eq(cJSON_GetObjectItem(j, "stdout")->valuestring,
			 "a\\x00b\\xff\\xfec\\x01 h\xc3\xa9llo \xe2\x9c\x93 \\xc3\n"
			 "over\\xc0\\xaf long \\xed\\xa0\\x80 surrogate\t\"q\"\\\n");
	cJSON_Delete(j);
	run_free(&x);
}
END_TEST

/* C1 controls written as UTF-8 are controls still: U+009B is CSI to a
 * terminal that reads C1. Escaped byte by byte, in plain and redrawn lines;
 * U+00A0 and later are text. */
START_TEST(test_c1_controls)
{
	static const char in[] = "\xc2\x9b" "31mred \xc2\x85next \xc2\xa0nbsp \x7f\n"
				 "bar\rx\xc2\x90y\n";
	struct run x;

	run_render(&x, in, sizeof(in) - 1, "", 0, 1024, false, false);
	ck_assert_str_eq(x.r.text, "exit status: 0\nstdout:\n"
				   "\\xc2\\x9b31mred \\xc2\\x85next \xc2\xa0nbsp \\x7f\n"
				   "x\\xc2\\x90y\n");
	run_free(&x);
}
END_TEST

START_TEST(test_redraws_and_escapes)
{
	static const char in[] = "progress 10%\rprogress 50%\rprogress 100%\n"
				 "\x1b[1;31mred\x1b[0m and \x1b]0;title\x07plain\n"
				 "abc\b\bX\n"
				 "windows line\r\n"
				 "long bar ==========\rdone\n";
	struct run x;

	run_render(&x, in, sizeof(in) - 1, "", 0, 1024, false, true);
	ck_assert_str_eq(x.r.text, "exit status: 0\nstdout:\n"
				   "progress 100%\n"
				   "red and plain\n"
				   "aXc\n"
				   "windows line\n"
				   "done bar ==========\n");
	run_free(&x);

	/* Held back: the store keeps the raw bytes, colours and all. */
	struct str o = {0};
	for (int i = 0; i < 3000; i++)
		str_printf(&o, "\x1b[32mPASS\x1b[0m test %d 0%%\r100%%\n", i);
	run_render(&x, o.p, o.n, "", 0, 4096, false, true);
	ck_assert_ptr_null(strchr(x.r.text, '\x1b'));
	ck_assert_ptr_null(strchr(x.r.text, '\r'));
	ck_assert_ptr_nonnull(strstr(x.r.text, "\n100% test 0 0%\n"));
	struct str s = stored(&x);
	ck_assert_uint_eq(s.n, 23 + o.n);
	ck_assert_int_eq(memcmp(s.p + 23, o.p, o.n), 0);
	free(s.p);
	free(o.p);
	run_free(&x);
}
END_TEST

/* Notes and refusal hints quote names the command chose: an escape sequence
 * in one never reaches the terminal, in text or in JSON. */
START_TEST(test_notes_and_hints_cleaned)
{
	struct pdk_capture o = {0}, e = {0};
	const char *notes[] = {"note: staged x\x1b]52;c;cHduZWQ=\x07y left in place"};
	const char *hints[] = {"sandbox: the sandbox refused a write to /etc/\x1b]0;t\x07z\x01"};
	struct pdk_render_out r;

	ck_assert_int_eq(pdk_capture_init(&o, 1, 4096, NULL), 0);
	ck_assert_int_eq(pdk_capture_init(&e, 2, 4096, NULL), 0);
	for (int json = 0; json <= 1; json++) {
		struct pdk_render_in in = {.out = &o,
					   .err = &e,
					   .bound = 4096,
					   .json = json,
					   .notes = notes,
					   .n_notes = 1,
					   .hints = hints,
					   .n_hints = 1};
		ck_assert_int_eq(pdk_render(&in, &r), 0);
		ck_assert_ptr_null(strchr(r.text, '\x1b'));
		ck_assert_ptr_null(strstr(r.text, "\\u001b"));
		ck_assert_ptr_nonnull(strstr(r.text, "note: staged xy left in place"));
		ck_assert_ptr_nonnull(strstr(r.text, json ? "/etc/z\\\\x01" : "/etc/z\\x01"));
		pdk_render_out_release(&r);
	}
	pdk_capture_release(&o);
	pdk_capture_release(&e);
}
END_TEST

/* Out of memory at any allocation of a render with notes and hints: -ENOMEM or a result,
 * never a crash (the notes' copy was once freed twice when its second line failed). */
START_TEST(test_out_of_memory_anywhere)
{
	struct pdk_capture o = {0}, e = {0};
	const char *notes[] = {"note: one", "note: two", "note: three"};
	const char *hints[] = {"sandbox: one", "sandbox: two"};
	struct pdk_render_in in = {.out = &o,
				   .err = &e,
				   .bound = 4096,
				   .notes = notes,
				   .n_notes = 3,
				   .hints = hints,
				   .n_hints = 2};
	unsigned long n;

	if (!pdk_failalloc_works())
		return; /* a sanitizer's allocator: nothing to sweep with */
	ck_assert_int_eq(pdk_capture_init(&o, 1, 4096, NULL), 0);
	ck_assert_int_eq(pdk_capture_init(&e, 2, 4096, NULL), 0);
	pdk_capture_feed(&o, "out\n", 4);
	pdk_capture_feed(&e, "err\n", 4);
	for (int json = 0; json <= 1; json++) {
		in.json = json;
		for (n = 1;; n++) {
			struct pdk_render_out r = {0};
			int rc;
			bool fired;

			pdk_failalloc_arm(n);
			rc = pdk_render(&in, &r);
			fired = pdk_failalloc_disarm();
			ck_assert_msg(rc == 0 || (fired && rc == -ENOMEM), "allocation %lu: %d", n, rc);
			if (rc == 0)
				ck_assert_msg(strstr(r.text, "note: three"), "allocation %lu json %d: %s", n, json, r.text);
			pdk_render_out_release(&r);
			if (!fired)
				break;
		}
		ck_assert_uint_gt(n, 6);
	}
	pdk_capture_release(&o);
	pdk_capture_release(&e);
}
END_TEST

/* Without a usable store the result says the lines were not kept. */
START_TEST(test_no_store)
{
	struct str o = numbered("x", 3000);
	struct run x;
	struct pdk_store_config cfg = {"/proc/self/no/such/dir", "t", PDK_STORE_CAP_DEFAULT,
				       PDK_STORE_PRUNE_DEFAULT};

	memset(&x, 0, sizeof(x));
	ck_assert_int_eq(pdk_store_entry_new(&cfg, &x.store), 0);
	ck_assert_int_eq(pdk_capture_init(&x.out, 1, 2048, x.store), 0);
	ck_assert_int_eq(pdk_capture_init(&x.err, 2, 2048, x.store), 0);
	feed(&x.out, o.p, o.n);
	struct pdk_render_in in = {.out = &x.out, .err = &x.err, .bound = 2048, .store = x.store};
	ck_assert_int_eq(pdk_render(&in, &x.r), 0);
	ck_assert(!x.r.stored);
	ck_assert_uint_le(x.r.len, 2048);
	ck_assert_ptr_nonnull(strstr(x.r.text, "; the held-back lines were not kept ("));
	ck_assert_ptr_null(strstr(x.r.text, "paddock recall"));
	run_free(&x);
	free(o.p);
}
END_TEST

static Suite *render_suite(void)
{
	Suite *s = suite_create("render");
	TCase *t = tcase_create("render");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_whole_and_empty_streams);
	tcase_add_test(t, test_proportional_shares);
	tcase_add_test(t, test_fifth_floor);
	tcase_add_test(t, test_cut_at_line_ends);
	tcase_add_test(t, test_long_line);
	tcase_add_loop_test(t, test_bound_sweep, 0, 10);
	tcase_add_test(t, test_thousands_separators);
	tcase_add_test(t, test_note_lines_match_store);
	tcase_add_test(t, test_binary_and_invalid_utf8);
	tcase_add_test(t, test_redraws_and_escapes);
	tcase_add_test(t, test_no_store);
	tcase_add_test(t, test_notes_and_hints_cleaned);
	tcase_add_test(t, test_out_of_memory_anywhere);
	tcase_add_test(t, test_c1_controls);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return pdk_ck_run(render_suite());
}
