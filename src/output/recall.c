/* recall.c - reading a stored output back: paging by line, filtering with a
 * PCRE2 pattern, and the notable lines, each bounded like a result. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/path.h"
#include "recall.h"
#include "core/textclean.h"

/* What a person skimming a log looks for: errors, warnings, failures and
 * the summaries test runners print. */
static const char summary_pattern[] =
	"(?i)\\b(error|errors|warning|fatal|panic|fail|failed|failure|failures|exception|"
	"traceback|assert(ion)?|abort(ed)?|segmentation fault|core dumped|undefined reference|"
	"no such file|permission denied|not found|cannot|could not|timed out|"
	"\\d+ (passed|failed|errors?|tests?|skipped)|tests? (run|ran|passed|failed)|"
	"passed|ok \\d+|not ok)\\b|^(FAIL|ERROR|PASS|OK)\\b|^\\s*(E|F)\\s";

struct file {
	char *data;
	size_t len;
};

static int slurp(int fd, struct file *f)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	return pdk_read_size(fd, (size_t)st.st_size, &f->data, &f->len);
}

static uint64_t count_lines(const struct file *f)
{
	uint64_t n = 0;

	if (!f->data)
		return 0;
	for (const char *p = f->data; (p = memchr(p, '\n', f->len - (size_t)(p - f->data))); p++)
		n++;
	return n + (f->len > 0 && f->data[f->len - 1] != '\n');
}

static const char *next_line(const struct file *f, size_t *pos, size_t *len)
{
	const char *s = f->data + *pos, *nl;

	if (*pos >= f->len)
		return NULL;
	nl = memchr(s, '\n', f->len - *pos);
	*len = nl ? (size_t)(nl - s) : f->len - *pos;
	*pos += *len + (nl != NULL);
	return s;
}

int pdk_recall(int fd, const struct pdk_recall_opts *o, struct pdk_buf *out, struct pdk_error *err)
{
	struct file f = {0};
	pcre2_code *re = NULL;
	pcre2_match_data *md = NULL;
	char *scratch = NULL;
	size_t scratch_len = 0, pos = 0, len, clen;
	uint64_t total, lineno = 0, shown = 0, first = 0, last = 0, more = 0;
	char n1[PDK_NUM_MAX], n2[PDK_NUM_MAX], n3[PDK_NUM_MAX];
	/* Leave room for the closing line. */
	size_t room = o->bound > 400 ? o->bound - 400 : o->bound / 2;
	struct pdk_buf body = {0};
	const char *line;
	int r;

	if ((r = slurp(fd, &f)) < 0)
		return r;
	total = count_lines(&f);
	if (o->from > total || (o->from == 0 && total == 0)) {
		snprintf(err->message, sizeof(err->message),
			 "line %s is past the end of output %s (%s lines)", pdk_fmt_num(o->from, n1),
			 o->id, pdk_fmt_num(total, n2));
		r = -ERANGE;
		goto done;
	}
	if (o->mode != PDK_RECALL_PAGE) {
		int code;
		PCRE2_SIZE off;
		const char *pat = o->mode == PDK_RECALL_MATCH ? o->pattern : summary_pattern;
		re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED,
				   PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &code, &off, NULL);
		if (!re) {
			char msg[160];
			pcre2_get_error_message(code, (PCRE2_UCHAR *)msg, sizeof(msg));
			err->column = (int)off + 1;
			snprintf(err->message, sizeof(err->message), "%s at offset %zu", msg,
				 (size_t)off);
			r = -EINVAL;
			goto done;
		}
		md = pcre2_match_data_create_from_pattern(re, NULL);
		if (!md) {
			r = -ENOMEM;
			goto done;
		}
	}
	while ((line = next_line(&f, &pos, &len))) {
		const char *s;
		size_t need;

		if (++lineno < o->from)
			continue;
		if (PDK_CLEAN_ROOM(len) > scratch_len) {
			char *p = realloc(scratch, PDK_CLEAN_ROOM(len));
			if (!p) {
				r = -ENOMEM;
				goto done;
			}
			scratch = p;
			scratch_len = PDK_CLEAN_ROOM(len);
		}
		clen = pdk_text_clean_line(line, len, scratch);
		s = scratch;
		if (re && pcre2_match(re, (PCRE2_SPTR)s, clen, 0, 0, md, NULL) < 0)
			continue;
		if (more || (o->lines && shown >= o->lines)) {
			more++;
			if (o->mode == PDK_RECALL_PAGE)
				break;
			continue;
		}
		need = clen + 1 + (re ? 24 : 0);
		if (body.len + need > room) {
			if (shown == 0) {
				/* One line longer than the bound: show its start. */
				size_t k = pdk_text_prefix(s, clen, room > 120 ? room - 120 : 0);
				if (re)
					pdk_buf_printf(&body, "%llu: ", (unsigned long long)lineno);
				pdk_buf_add(&body, s, k);
				pdk_buf_printf(&body, " [… line continues: %s bytes not shown …]\n",
					       pdk_fmt_num(clen - k, n1));
				first = last = lineno;
				shown = 1;
				continue;
			}
			more++;
			if (o->mode == PDK_RECALL_PAGE)
				break;
			continue;
		}
		if (re)
			pdk_buf_printf(&body, "%llu: ", (unsigned long long)lineno);
		pdk_buf_add(&body, s, clen);
		pdk_buf_add(&body, "\n", 1);
		if (!first)
			first = lineno;
		last = lineno;
		shown++;
	}
	if (o->mode == PDK_RECALL_PAGE) {
		pdk_buf_printf(out, "output %s, lines %s–%s of %s:\n", o->id, pdk_fmt_num(first, n1),
			       pdk_fmt_num(last, n2), pdk_fmt_num(total, n3));
		pdk_buf_add(out, body.data ? body.data : "", body.len);
		if (last < total)
			pdk_buf_printf(out, "more: \"paddock recall %s --from %llu\" goes on (%s lines "
					    "left)\n",
				       o->id, (unsigned long long)last + 1,
				       pdk_fmt_num(total - last, n1));
	} else {
		const char *what = o->mode == PDK_RECALL_MATCH ? "matching" : "notable";
		if (shown == 0) {
			pdk_buf_printf(out, "no %s line in output %s (%s lines)\n", what, o->id,
				       pdk_fmt_num(total, n1));
		} else {
			pdk_buf_printf(out, "output %s, %s lines (of %s):\n", o->id, what,
				       pdk_fmt_num(total, n1));
			pdk_buf_add(out, body.data, body.len);
		}
		if (more)
			pdk_buf_printf(out, "more: %s further %s line%s not shown; \"paddock recall %s "
					    "--from %llu%s\" goes on\n",
				       pdk_fmt_num(more, n1), what, more == 1 ? "" : "s", o->id,
				       (unsigned long long)last + 1,
				       o->mode == PDK_RECALL_MATCH ? " --match PATTERN" : " --summary");
	}
	r = body.oom || out->oom ? -ENOMEM : 0;
done:
	pdk_buf_free(&body);
	free(scratch);
	free(f.data);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return r;
}
