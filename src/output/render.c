/* render.c - the result a model reads: exit status, each stream's head and
 * tail within the bound, and notes saying what was held back and where. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fmt.h"
#include "render.h"
#include "core/textclean.h"
#include "core/util.h"

/* One stream as render sees it: all of it, or its head and its tail. */
struct view {
	int stream;
	const char *name;
	const char *a; /* whole stream, or its head */
	size_t alen;
	const char *b; /* its tail when not whole */
	size_t blen;
	char *owned;
	bool whole;
	uint64_t total, lines;
	uint64_t need;   /* cost to show it all (whole streams only) */
	uint64_t offset; /* stored line number of its line 0 */
};

struct ctx {
	bool json;
	char *scratch;
	size_t scratch_len;
	int oom;
};

static size_t nl_cost(const struct ctx *c)
{
	return c->json ? 2 : 1;
}

static size_t cost(const struct ctx *c, const char *s, size_t n)
{
	return c->json ? pdk_text_json_len(s, n) : n;
}

/* Clean a raw line into the scratch buffer. */
static const char *clean(struct ctx *c, const char *s, size_t n, size_t *ret_len)
{
	if (PDK_CLEAN_ROOM(n) > c->scratch_len) {
		char *p = realloc(c->scratch, PDK_CLEAN_ROOM(n));
		if (!p) {
			c->oom = 1;
			*ret_len = 0;
			return "";
		}
		c->scratch = p;
		c->scratch_len = PDK_CLEAN_ROOM(n);
	}
	*ret_len = pdk_text_clean_line(s, n, c->scratch);
	return c->scratch;
}

/* The line at pos: [pos, content end), *next after its '\n'. */
static size_t line_at(const char *buf, size_t len, size_t pos, size_t *next, bool *terminated)
{
	const char *nl = memchr(buf + pos, '\n', len - pos);
	size_t end = nl ? (size_t)(nl - buf) : len;

	*terminated = nl != NULL;
	*next = nl ? end + 1 : len;
	return end - pos;
}

static int view_init(struct view *v, const struct pdk_capture *cap, const char *name)
{
	memset(v, 0, sizeof(*v));
	v->stream = cap->stream;
	v->name = name;
	v->total = cap->total;
	v->lines = pdk_capture_lines(cap);
	v->whole = pdk_capture_whole(cap);
	if (v->whole && cap->ring_len == 0) {
		v->a = cap->head;
		v->alen = cap->head_len;
		return 0;
	}
	v->owned = pdk_capture_join(cap);
	if (!v->owned)
		return -ENOMEM;
	v->a = v->owned;
	if (v->whole) {
		v->alen = cap->head_len + cap->ring_len;
	} else {
		v->alen = cap->head_len;
		v->b = v->owned + cap->head_len;
		v->blen = cap->ring_len;
	}
	return 0;
}

static uint64_t measure(struct ctx *c, const struct view *v)
{
	uint64_t sum = 0;
	size_t pos = 0, next, n, clen;
	bool term;

	while (pos < v->alen) {
		n = line_at(v->a, v->alen, pos, &next, &term);
		const char *s = clean(c, v->a + pos, n, &clen);
		sum += cost(c, s, clen) + nl_cost(c);
		pos = next;
	}
	return sum;
}

struct cut {
	uint64_t head_lines, tail_lines; /* complete lines shown */
	bool head_partial, tail_partial;
	uint64_t head_raw, tail_raw;     /* raw bytes shown */
};

static void emit(struct ctx *c, struct pdk_buf *out, const char *s, size_t n)
{
	pdk_buf_add(out, s, n);
	pdk_buf_add(out, "\n", 1);
}

static void emit_all(struct ctx *c, const struct view *v, struct pdk_buf *out)
{
	size_t pos = 0, next, n, clen;
	bool term;

	while (pos < v->alen) {
		n = line_at(v->a, v->alen, pos, &next, &term);
		const char *s = clean(c, v->a + pos, n, &clen);
		emit(c, out, s, clen);
		pos = next;
	}
}

/* Longest prefix of s whose cost is at most budget. Cost grows with the
 * length, so bisect: stepping down a byte at a time is quadratic on a long
 * line full of characters JSON escapes. */
static size_t fit_prefix(struct ctx *c, const char *s, size_t n, size_t budget)
{
	size_t lo = 0, hi = pdk_text_prefix(s, n, budget);

	if (cost(c, s, hi) <= budget)
		return hi;
	/* cost(prefix(lo)) fits, cost(prefix(hi)) does not */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (cost(c, s, pdk_text_prefix(s, n, mid)) <= budget)
			lo = mid;
		else
			hi = mid;
	}
	return pdk_text_prefix(s, n, lo);
}

/* Start of the longest suffix of s whose cost is at most budget. */
static size_t fit_suffix(struct ctx *c, const char *s, size_t n, size_t budget)
{
	size_t lo = 0, hi = budget < n ? budget : n, start;

	start = pdk_text_suffix_start(s, n, hi);
	if (cost(c, s + start, n - start) <= budget)
		return start;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		start = pdk_text_suffix_start(s, n, mid);
		if (cost(c, s + start, n - start) <= budget)
			lo = mid;
		else
			hi = mid;
	}
	return pdk_text_suffix_start(s, n, lo);
}

/* Raw bytes behind the first k cleaned bytes of a line (exact when cleaning
 * changed nothing, proportional otherwise). */
static uint64_t raw_share(size_t raw, size_t cleaned, size_t k)
{
	return cleaned == 0 ? 0 : (uint64_t)raw * k / cleaned;
}

static void marker_text(const struct view *v, const struct cut *k, char *buf, size_t len)
{
	uint64_t first = k->head_lines + 1;
	uint64_t last = v->lines - k->tail_lines;
	uint64_t bytes = v->total - k->head_raw - k->tail_raw;
	char n[PDK_NUM_MAX], sz[PDK_NUM_MAX];

	if (last < first)
		last = first;
	if (first == last && (k->head_partial || k->tail_partial))
		snprintf(buf, len, "[… %s of line %s held back …]", pdk_fmt_size(bytes, sz),
			 pdk_fmt_num(first, n));
	else
		snprintf(buf, len, "[… %s line%s (%s) held back …]", pdk_fmt_num(last - first + 1, n),
			 last == first ? "" : "s", pdk_fmt_size(bytes, sz));
}

/* Show v within share: its first lines, a marker, its last lines. */
static void cut_stream(struct ctx *c, const struct view *v, uint64_t share, struct pdk_buf *out,
		       struct pdk_held *held)
{
	struct cut k = {0};
	char marker[160];
	size_t pos = 0, next, n, clen, used = 0, budget, mcost;
	size_t head_end = 0; /* raw offset in a after what the head showed */
	bool term;
	const char *s;
	struct pdk_buf head = {0}, tail = {0};

	memset(held, 0, sizeof(*held));
	if (v->whole && v->need <= share) {
		emit_all(c, v, out);
		return;
	}
	/* Reserve room for the widest marker this stream can need. */
	{
		struct cut worst = {0};
		marker_text(v, &worst, marker, sizeof(marker));
		mcost = cost(c, marker, strlen(marker)) + nl_cost(c);
	}
	budget = share > mcost ? (size_t)(share - mcost) / 2 : 0;

	/* Head: whole lines while they fit; else a piece of the first. */
	while (pos < v->alen) {
		n = line_at(v->a, v->alen, pos, &next, &term);
		if (!term && !v->whole)
			break; /* runs on past the head */
		s = clean(c, v->a + pos, n, &clen);
		if (used + cost(c, s, clen) + nl_cost(c) > budget)
			break;
		emit(c, &head, s, clen);
		used += cost(c, s, clen) + nl_cost(c);
		k.head_lines++;
		k.head_raw += next - pos;
		pos = next;
	}
	head_end = pos;
	if (k.head_lines == 0 && budget > nl_cost(c) + 8 && v->alen > 0) {
		n = line_at(v->a, v->alen, 0, &next, &term);
		s = clean(c, v->a, n, &clen);
		size_t take = fit_prefix(c, s, clen, budget - nl_cost(c));
		if (take > 0) {
			emit(c, &head, s, take);
			used += cost(c, s, take) + nl_cost(c);
			k.head_partial = true;
			k.head_raw = raw_share(n, clen, take);
			head_end = next; /* the rest of line 1 is held back */
		}
	}

	/* Tail: whole lines from the end while they fit; else a piece of the
	 * last. In a head+tail view, the tail's first line began in the gap. */
	{
		const char *buf = v->whole ? v->a : v->b;
		size_t len = v->whole ? v->alen : v->blen;
		size_t lower = v->whole ? head_end : 0;
		size_t end = len, tbudget = share > mcost + used ? (size_t)(share - mcost - used) : 0;
		size_t tused = 0;
		/* Lines are collected back to front, then emitted in order. */
		size_t starts[64], lens[64], nk = 0, first_start = len;

		if (!v->whole) {
			const char *nl = memchr(buf, '\n', len);
			lower = nl ? (size_t)(nl - buf) + 1 : len;
		}
		while (end > lower) {
			size_t cend = end, start;
			if (buf[cend - 1] == '\n')
				cend--;
			start = cend;
			while (start > lower && buf[start - 1] != '\n')
				start--;
			if (start == lower && lower > 0 && buf[lower - 1] != '\n')
				break;
			s = clean(c, buf + start, cend - start, &clen);
			if (tused + cost(c, s, clen) + nl_cost(c) > tbudget)
				break;
			tused += cost(c, s, clen) + nl_cost(c);
			k.tail_lines++;
			k.tail_raw += end - start;
			if (nk < PDK_ARRAY_SIZE(starts)) {
				starts[nk] = start;
				lens[nk] = cend - start;
				nk++;
			} else {
				/* Many short lines: re-collect forward below. */
				nk = SIZE_MAX;
			}
			first_start = start;
			end = start;
		}
		if (k.tail_lines == 0 && tbudget > nl_cost(c) + 8 && len > 0) {
			size_t cend = len, start;
			if (buf[cend - 1] == '\n')
				cend--;
			start = cend;
			while (start > 0 && buf[start - 1] != '\n')
				start--;
			if (v->whole && start < head_end && cend > head_end)
				start = head_end;
			if (cend > start && !(v->whole && cend <= head_end)) {
				s = clean(c, buf + start, cend - start, &clen);
				size_t from = fit_suffix(c, s, clen, tbudget - nl_cost(c));
				if (from < clen) {
					emit(c, &tail, s + from, clen - from);
					k.tail_partial = true;
					k.tail_raw = raw_share(cend - start, clen, clen - from);
				}
			}
		} else if (nk == SIZE_MAX) {
			size_t p = first_start;
			while (p < len) {
				n = line_at(buf, len, p, &next, &term);
				s = clean(c, buf + p, n, &clen);
				emit(c, &tail, s, clen);
				p = next;
			}
		} else {
			while (nk-- > 0) {
				s = clean(c, buf + starts[nk], lens[nk], &clen);
				emit(c, &tail, s, clen);
			}
		}
	}

	marker_text(v, &k, marker, sizeof(marker));
	pdk_buf_add(out, head.data ? head.data : "", head.len);
	emit(c, out, marker, strlen(marker));
	pdk_buf_add(out, tail.data ? tail.data : "", tail.len);
	pdk_buf_free(&head);
	pdk_buf_free(&tail);
	if (head.oom || tail.oom)
		out->oom = 1;

	held->any = true;
	held->first_line = v->offset + k.head_lines + 1;
	held->last_line = v->offset + v->lines - k.tail_lines;
	if (held->last_line < held->first_line)
		held->last_line = held->first_line;
	held->bytes = v->total - k.head_raw - k.tail_raw;
}

/* Split room between the streams: in proportion to their sizes, at least a
 * fifth each for a stream with anything to show, never more than it needs. */
static void shares(const struct view *o, const struct view *e, uint64_t room, uint64_t *so,
		   uint64_t *se)
{
	uint64_t no = o->whole ? o->need : UINT64_MAX / 4, ne = e->whole ? e->need : UINT64_MAX / 4;
	uint64_t floor = room / 5;

	if (no + ne <= room) {
		*so = no;
		*se = ne;
		return;
	}
	if (o->total + e->total == 0) {
		*so = *se = 0;
		return;
	}
	*so = (uint64_t)((long double)room * o->total / (o->total + e->total));
	*se = room - *so;
	if (e->total && *se < (ne < floor ? ne : floor)) {
		*se = ne < floor ? ne : floor;
		*so = room - *se;
	}
	if (o->total && *so < (no < floor ? no : floor)) {
		*so = no < floor ? no : floor;
		*se = room - *so;
	}
	if (*so > no) {
		*se += *so - no;
		*so = no;
	}
	if (*se > ne) {
		*so += *se - ne;
		*se = ne;
	}
}

static void held_note(const struct pdk_render_out *r, const struct view *views,
		      const char *store_error, struct pdk_buf *b)
{
	char n1[PDK_NUM_MAX], n2[PDK_NUM_MAX], sz[PDK_NUM_MAX];
	uint64_t from = 0;
	bool first = true;

	pdk_buf_puts(b, "held back: ");
	for (int i = 1; i <= 2; i++) {
		const struct pdk_held *h = &r->held[i];
		if (!h->any)
			continue;
		if (!from)
			from = h->first_line;
		pdk_buf_puts(b, first ? "" : ", ");
		first = false;
		if (h->first_line == h->last_line)
			pdk_buf_printf(b, "%s line %s (%s)", views[i - 1].name,
				       pdk_fmt_num(h->first_line, n1), pdk_fmt_size(h->bytes, sz));
		else
			pdk_buf_printf(b, "%s lines %s–%s (%s)", views[i - 1].name,
				       pdk_fmt_num(h->first_line, n1), pdk_fmt_num(h->last_line, n2),
				       pdk_fmt_size(h->bytes, sz));
	}
	if (!r->stored) {
		pdk_buf_printf(b, "; the held-back lines were not kept (%s)",
			       store_error ? store_error : "no output store");
		return;
	}
	const char *id = r->stored_as.id;
	if (r->stored_as.truncated)
		pdk_buf_printf(b, "; the first %s of the output is kept as output %s (%s lines), "
				  "the rest was not kept",
			       pdk_fmt_size(r->stored_as.bytes, sz), id,
			       pdk_fmt_num(r->stored_as.lines, n1));
	else
		pdk_buf_printf(b, "; the whole output is kept as output %s (%s lines)", id,
			       pdk_fmt_num(r->stored_as.lines, n1));
	pdk_buf_printf(b, "; \"paddock recall %s --from %llu\" pages it, \"paddock recall %s "
			  "--match PATTERN\" filters it, \"paddock recall %s --summary\" shows its "
			  "errors, warnings and test counts; do not run the command again to see it",
		       id, (unsigned long long)from, id, id);
}

static int commit(const struct pdk_render_in *in, struct view *v, struct pdk_render_out *r)
{
	char header[64];
	struct pdk_store_part parts[7];
	size_t n = 0;

	if (in->kept) {
		r->stored_as = *in->kept;
		r->stored = true;
		return 0;
	}

	snprintf(header, sizeof(header), "exit status: %d\n", in->exit_status);
	parts[n++] = (struct pdk_store_part){header, strlen(header), 0};
	for (int i = 0; i < 2; i++) {
		static const char *labels[] = {"stdout:\n", "stderr:\n"};
		if (v[i].total == 0)
			continue;
		parts[n++] = (struct pdk_store_part){labels[i], 8, 0};
		if (v[i].whole)
			parts[n++] = (struct pdk_store_part){v[i].a, v[i].alen, 0};
		else
			parts[n++] = (struct pdk_store_part){NULL, v[i].total, v[i].stream};
		/* The rendering ends every stream with a newline. */
		if ((v[i].whole && v[i].a[v[i].alen - 1] != '\n') ||
		    (!v[i].whole && v[i].b[v[i].blen - 1] != '\n'))
			parts[n++] = (struct pdk_store_part){"\n", 1, 0};
	}
	if (pdk_store_commit(in->store, parts, n, &r->stored_as) < 0)
		return -1;
	r->stored = true;
	return 0;
}

static void compose_text(const struct pdk_render_in *in, struct view *v, struct pdk_buf *streams,
			 const struct pdk_buf *note, struct pdk_buf *out)
{
	pdk_buf_printf(out, "exit status: %d\n", in->exit_status);
	if (in->show_cwd && in->cwd)
		pdk_buf_printf(out, "cwd: %s\n", in->cwd);
	for (int i = 0; i < 2; i++) {
		if (v[i].total == 0)
			continue;
		pdk_buf_printf(out, "%s:\n", v[i].name);
		pdk_buf_add(out, streams[i].data ? streams[i].data : "", streams[i].len);
	}
	for (size_t i = 0; i < in->n_notes; i++) {
		pdk_buf_puts(out, in->notes[i]);
		pdk_buf_puts(out, "\n");
	}
	for (size_t i = 0; i < in->n_hints; i++) {
		pdk_buf_puts(out, in->hints[i]);
		pdk_buf_puts(out, "\n");
	}
	if (note->len) {
		pdk_buf_add(out, note->data, note->len);
		pdk_buf_puts(out, "\n");
	}
}

static int compose_json(const struct pdk_render_in *in, struct view *v, struct pdk_buf *streams,
			const struct pdk_buf *note, const struct pdk_render_out *r,
			struct pdk_buf *out)
{
	cJSON *o = cJSON_CreateObject(), *held = NULL, *hints = NULL, *notes = NULL;
	bool ran = in->failure == PDK_FAIL_NONE;
	bool ok; /* every field made it: a result missing one is no result */
	char *s;

	if (!o)
		return -ENOMEM;
	/* Every member is there whatever the outcome, in this order; see
	 * data/result.schema.json. */
	ok = cJSON_AddBoolToObject(o, "ran", ran) &&
	     (ran ? cJSON_AddNumberToObject(o, "exit_status", in->exit_status)
		  : cJSON_AddNullToObject(o, "exit_status")) &&
	     (ran && in->exit_status < 0 ? cJSON_AddNumberToObject(o, "signal", -in->exit_status)
					 : cJSON_AddNullToObject(o, "signal")) &&
	     cJSON_AddNumberToObject(o, "exit_code", in->exit_code) &&
	     cJSON_AddBoolToObject(o, "timed_out", in->timed_out) &&
	     cJSON_AddBoolToObject(o, "stopped", in->stopped) &&
	     cJSON_AddNumberToObject(o, "duration",
				     (double)(long long)(in->duration * 1000) / 1000) &&
	     (in->cwd ? cJSON_AddStringToObject(o, "cwd", in->cwd)
		      : cJSON_AddNullToObject(o, "cwd")) &&
	     (ran ? cJSON_AddNullToObject(o, "error")
		  : cJSON_AddStringToObject(o, "error", in->error ? in->error : "")) &&
	     (ran ? cJSON_AddNullToObject(o, "error_kind")
		  : cJSON_AddStringToObject(o, "error_kind", pdk_failure_name(in->failure))) &&
	     (!in->risk || cJSON_AddStringToObject(o, "risk", in->risk)) &&
	     (!in->rule || cJSON_AddStringToObject(o, "rule", in->rule)) &&
	     cJSON_AddStringToObject(o, "stdout", streams[0].data ? streams[0].data : "") &&
	     cJSON_AddStringToObject(o, "stderr", streams[1].data ? streams[1].data : "") &&
	     (held = cJSON_AddArrayToObject(o, "held_back"));
	for (int i = 1; i <= 2 && ok; i++) {
		cJSON *h;
		if (!r->held[i].any)
			continue;
		ok = (h = cJSON_CreateObject()) && cJSON_AddItemToArray(held, h) &&
		     cJSON_AddStringToObject(h, "stream", v[i - 1].name) &&
		     cJSON_AddNumberToObject(h, "first_line", (double)r->held[i].first_line) &&
		     cJSON_AddNumberToObject(h, "last_line", (double)r->held[i].last_line) &&
		     cJSON_AddNumberToObject(h, "bytes", (double)r->held[i].bytes);
	}
	if (ok && r->stored)
		ok = cJSON_AddStringToObject(o, "output_id", r->stored_as.id) &&
		     cJSON_AddNumberToObject(o, "output_lines", (double)r->stored_as.lines);
	else if (ok)
		ok = cJSON_AddNullToObject(o, "output_id");
	if (ok && in->network) {
		cJSON *net, *a;

		ok = (net = cJSON_AddObjectToObject(o, "network")) &&
		     cJSON_AddStringToObject(net, "mode", in->network) &&
		     (a = cJSON_AddArrayToObject(net, "allowed_domains"));
		for (size_t i = 0; i < in->n_domains && ok; i++)
			ok = cJSON_AddItemToArray(a, cJSON_CreateString(in->domains[i]));
		ok = ok && (a = cJSON_AddArrayToObject(net, "refused_domains"));
		for (size_t i = 0; i < in->n_refused_domains && ok; i++)
			ok = cJSON_AddItemToArray(a, cJSON_CreateString(in->refused_domains[i]));
		ok = ok && (a = cJSON_AddArrayToObject(net, "unix_sockets"));
		for (size_t i = 0; i < in->n_unix_sockets && ok; i++)
			ok = cJSON_AddItemToArray(a, cJSON_CreateString(in->unix_sockets[i]));
	} else if (ok) {
		ok = cJSON_AddNullToObject(o, "network");
	}
	ok = ok && (hints = cJSON_AddArrayToObject(o, "sandbox_refusals"));
	for (size_t i = 0; i < in->n_hints && ok; i++)
		ok = cJSON_AddItemToArray(hints, cJSON_CreateString(in->hints[i]));
	ok = ok && (notes = cJSON_AddArrayToObject(o, "notes"));
	for (size_t i = 0; i < in->n_notes && ok; i++)
		ok = cJSON_AddItemToArray(notes, cJSON_CreateString(in->notes[i]));
	if (ok && note->len)
		ok = cJSON_AddItemToArray(notes, cJSON_CreateString(note->data));
	if (!ok) {
		cJSON_Delete(o);
		return -ENOMEM;
	}
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!s)
		return -ENOMEM;
	pdk_buf_puts(out, s);
	pdk_buf_puts(out, "\n");
	cJSON_free(s);
	return 0;
}

/* Notes and hints are paddock's words, but they quote what the command
 * printed or named (a path with an escape sequence in it, say): each is
 * cleaned as a line of the streams is. NULL when out of memory. */
static char **clean_lines(const char *const *lines, size_t n)
{
	char **v = calloc(n + 1, sizeof(*v));

	for (size_t i = 0; v && i < n; i++) {
		size_t len = strlen(lines[i]);

		if (!(v[i] = malloc(PDK_CLEAN_ROOM(len) + 1))) {
			pdk_strv_freep(&v);
			return NULL;
		}
		v[i][pdk_text_clean_line(lines[i], len, v[i])] = '\0';
	}
	return v;
}

const char *pdk_failure_name(enum pdk_failure f)
{
	static const char *const names[] = {
	    [PDK_FAIL_NONE] = "none",		    [PDK_FAIL_BAD_REQUEST] = "bad_request",
	    [PDK_FAIL_REFUSED] = "refused",	    [PDK_FAIL_NOT_APPROVED] = "not_approved",
	    [PDK_FAIL_NOT_FOUND] = "not_found",	    [PDK_FAIL_NOT_EXECUTABLE] = "not_executable",
	    [PDK_FAIL_INTERNAL] = "failed",
	};

	return (unsigned)f < PDK_ARRAY_SIZE(names) ? names[f] : "failed";
}

/* Nothing ran: no streams to bound, only why. */
static int render_failure(const struct pdk_render_in *in, struct pdk_render_out *ret)
{
	struct pdk_render_out r = {0};
	struct pdk_buf out = {0}, none[2] = {{0}, {0}}, note = {0};
	int rc = 0;

	if (in->json)
		rc = compose_json(in, NULL, none, &note, &r, &out);
	else
		pdk_buf_printf(&out, "error: %s\n", in->error ? in->error : "");
	if (rc == 0 && out.oom)
		rc = -ENOMEM;
	if (rc < 0) {
		pdk_buf_free(&out);
		return rc;
	}
	r.text = out.data ? out.data : strdup("");
	r.len = out.len;
	if (!r.text)
		return -ENOMEM;
	*ret = r;
	return 0;
}

static int render(const struct pdk_render_in *in, struct pdk_render_out *ret)
{
	struct ctx c = {.json = in->json};
	struct view v[2];
	struct pdk_render_out r = {0};
	struct pdk_buf out = {0};
	uint64_t room, so, se;
	bool tried = false;
	int rc = 0;

	if ((rc = view_init(&v[0], in->out, "stdout")) < 0)
		return rc;
	if ((rc = view_init(&v[1], in->err, "stderr")) < 0) {
		free(v[0].owned);
		return rc;
	}
	for (int i = 0; i < 2; i++)
		if (v[i].whole)
			v[i].need = measure(&c, &v[i]);
	v[0].offset = 2;
	v[1].offset = 2 + (v[0].total ? 1 + v[0].lines : 0);

	/* Start from the room left by the fixed parts, then shrink it by
	 * whatever the last attempt overshot until the whole fits. Streams are
	 * cut at line ends, so shrinking by the overshoot alone may change
	 * nothing: the step doubles with each attempt. */
	{
		struct pdk_buf empty[2] = {{0}, {0}}, none = {0}, probe = {0};
		if (in->json)
			rc = compose_json(in, v, empty, &none, &r, &probe);
		else
			compose_text(in, v, empty, &none, &probe);
		room = probe.len < in->bound ? in->bound - probe.len : 0;
		pdk_buf_free(&probe);
	}
	for (int attempt = 0; attempt < 40; attempt++) {
		struct pdk_buf streams[2] = {{0}, {0}}, note = {0};

		pdk_buf_free(&out);
		shares(&v[0], &v[1], room, &so, &se);
		cut_stream(&c, &v[0], so, &streams[0], &r.held[1]);
		cut_stream(&c, &v[1], se, &streams[1], &r.held[2]);
		if ((r.held[1].any || r.held[2].any) && !tried && (in->store || in->kept)) {
			tried = true;
			commit(in, v, &r);
		}
		if (r.held[1].any || r.held[2].any)
			held_note(&r, v, in->store ? pdk_store_error(in->store) : NULL, &note);
		if (in->json)
			rc = compose_json(in, v, streams, &note, &r, &out);
		else
			compose_text(in, v, streams, &note, &out);
		if (streams[0].oom || streams[1].oom || note.oom)
			out.oom = 1;
		pdk_buf_free(&streams[0]);
		pdk_buf_free(&streams[1]);
		pdk_buf_free(&note);
		if (rc < 0 || out.len <= in->bound || room == 0)
			break;
		uint64_t over = (uint64_t)(out.len - in->bound) << (attempt < 20 ? attempt : 20);
		room = room > over ? room - over : 0;
	}
	free(v[0].owned);
	free(v[1].owned);
	free(c.scratch);
	if (rc == 0 && (out.oom || c.oom))
		rc = -ENOMEM;
	if (rc < 0) {
		pdk_buf_free(&out);
		return rc;
	}
	r.text = out.data ? out.data : strdup("");
	r.len = out.len;
	*ret = r;
	return 0;
}

int pdk_render(const struct pdk_render_in *in, struct pdk_render_out *ret)
{
	struct pdk_render_in cleaned = *in;
	_cleanup_strv_ char **notes = clean_lines(in->notes, in->n_notes);
	_cleanup_strv_ char **hints = clean_lines(in->hints, in->n_hints);

	if (!notes || !hints)
		return -ENOMEM;
	cleaned.notes = (const char *const *)notes;
	cleaned.hints = (const char *const *)hints;
	if (in->failure != PDK_FAIL_NONE)
		return render_failure(&cleaned, ret);
	return render(&cleaned, ret);
}

void pdk_render_out_release(struct pdk_render_out *out)
{
	free(out->text);
	out->text = NULL;
}
