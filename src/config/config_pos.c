/* config_pos.c - the position index of a configuration file: a small scanner that gives each
 * JSON key and value its FILE:LINE:COL, and the errors and warnings that cite those places. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "config_int.h"
#include "core/util.h"

#define NESTING_LIMIT 1000 /* cJSON's CJSON_NESTING_LIMIT */

/* ---- the position index ----
 *
 * cJSON keeps no positions, so a second, small scanner walks the same bytes with cJSON's own
 * grammar (its whitespace, number and literal rules) and records where each value and key
 * starts, in document order. cJSON's tree in pre-order is the same order, which pairs each
 * node with its position. On bad JSON the scanner also says what it expected, and where. */

struct scanner {
	const char *s;
	size_t len, i;
	struct pdk_config_pos *pos;
	size_t n, cap;
	int depth;
	bool nomem;
	bool failed;
	size_t err_off;
	char err[160];
	char path[PDK_CONFIG_PATH_LEN];	    /* the key path being scanned */
	char err_path[PDK_CONFIG_PATH_LEN]; /* the key path where the scan failed */
};

static bool sc_fail(struct scanner *sc, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool sc_fail(struct scanner *sc, size_t off, const char *fmt, ...)
{
	va_list ap;

	if (sc->failed)
		return false;
	sc->failed = true;
	sc->err_off = off;
	va_start(ap, fmt);
	vsnprintf(sc->err, sizeof(sc->err), fmt, ap);
	va_end(ap);
	memcpy(sc->err_path, sc->path, sizeof(sc->path));
	return false;
}

static void sc_ws(struct scanner *sc)
{
	/* cJSON skips every byte up to and including the space as whitespace. */
	while (sc->i < sc->len && (unsigned char)sc->s[sc->i] <= 32)
		sc->i++;
}

/* A byte for a message, never a control character. */
static char shown(char c)
{
	return ((unsigned char)c < 32 || c == 127) ? '?' : c;
}

static bool sc_record(struct scanner *sc, size_t key)
{
	if (sc->n == sc->cap) {
		size_t cap = sc->cap ? sc->cap * 2 : 64;
		struct pdk_config_pos *p = realloc(sc->pos, cap * sizeof(*p));

		if (!p) {
			sc->nomem = true;
			return sc_fail(sc, sc->i, "out of memory");
		}
		sc->pos = p;
		sc->cap = cap;
	}
	sc->pos[sc->n++] = (struct pdk_config_pos){.val = sc->i, .key = key};
	return true;
}

static bool sc_string(struct scanner *sc)
{
	size_t start = sc->i;

	for (sc->i++; sc->i < sc->len && sc->s[sc->i] != '"'; sc->i++) {
		if (sc->s[sc->i] != '\\')
			continue;
		if (sc->i + 1 >= sc->len)
			break;
		switch (sc->s[++sc->i]) {
		case '"':
		case '\\':
		case '/':
		case 'b':
		case 'f':
		case 'n':
		case 'r':
		case 't':
			break;
		case 'u':
			for (int k = 1; k <= 4; k++)
				if (sc->i + k >= sc->len ||
				    !strchr("0123456789abcdefABCDEF", sc->s[sc->i + k]) ||
				    !sc->s[sc->i + k])
					return sc_fail(
					    sc, sc->i - 1,
					    "\\u without four hex digits; write e.g. \\u00e9");
			break;
		default:
			return sc_fail(sc, sc->i - 1,
				       "unknown escape '\\%c' in a string; write \\\\ for a "
				       "backslash",
				       shown(sc->s[sc->i]));
		}
	}
	if (sc->i >= sc->len)
		return sc_fail(sc, start, "this string is never closed; end it with '\"'");
	sc->i++;
	return true;
}

static bool sc_value(struct scanner *sc, size_t key);

size_t pdk_config_append(char *buf, size_t size, const char *fmt, ...)
{
	size_t old = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + old, size - old, fmt, ap);
	va_end(ap);
	return old;
}

/* A value inside an object or a list (its key path ends at old), then ',' to go on to the next
 * one or close to end the container (*done). */
static bool sc_member(struct scanner *sc, size_t key, size_t old, char close, const char *inside,
		      bool *done)
{
	if (!sc_value(sc, key))
		return false;
	sc->path[old] = '\0';
	sc_ws(sc);
	if (sc->i >= sc->len)
		return sc_fail(sc, sc->i, "the file ends inside %s; close it with '%c'", inside,
			       close);
	*done = sc->s[sc->i] == close;
	if (!*done && sc->s[sc->i] != ',')
		return sc_fail(sc, sc->i,
			       "expected ',' or '%c' after a value, got '%c'; a missing comma?",
			       close, shown(sc->s[sc->i]));
	sc->i++;
	return true;
}

static bool sc_object(struct scanner *sc)
{
	bool done = false;
	size_t old;

	sc->i++;
	sc_ws(sc);
	if (sc->i < sc->len && sc->s[sc->i] == '}') {
		sc->i++;
		return true;
	}
	while (!done) {
		size_t key;

		sc_ws(sc);
		if (sc->i >= sc->len)
			return sc_fail(sc, sc->i,
				       "the file ends inside an object; close it with '}'");
		if (sc->s[sc->i] == '}')
			return sc_fail(sc, sc->i, "a comma before '}'; remove the trailing comma");
		if (sc->s[sc->i] == '\'')
			return sc_fail(sc, sc->i,
				       "a key in single quotes; JSON takes double quotes");
		if (sc->s[sc->i] != '"')
			return sc_fail(sc, sc->i,
				       "expected a key in double quotes, got '%c'; write "
				       "\"key\": value",
				       shown(sc->s[sc->i]));
		key = sc->i;
		if (!sc_string(sc))
			return false;
		old = pdk_config_append(
		    sc->path, sizeof(sc->path), "%s%.*s", sc->path[0] ? "." : "",
		    (int)(sc->i - key - 2 > 80 ? 80 : sc->i - key - 2), sc->s + key + 1);
		sc_ws(sc);
		if (sc->i >= sc->len || sc->s[sc->i] != ':')
			return sc_fail(sc, sc->i,
				       "expected ':' after the key; write \"key\": value");
		sc->i++;
		if (!sc_member(sc, key, old, '}', "an object", &done))
			return false;
	}
	return true;
}

static bool sc_array(struct scanner *sc)
{
	bool done = false;

	sc->i++;
	sc_ws(sc);
	if (sc->i < sc->len && sc->s[sc->i] == ']') {
		sc->i++;
		return true;
	}
	for (size_t n = 0; !done; n++) {
		size_t old;

		sc_ws(sc);
		if (sc->i < sc->len && sc->s[sc->i] == ']' && n > 0)
			return sc_fail(sc, sc->i, "a comma before ']'; remove the trailing comma");
		old = pdk_config_append(sc->path, sizeof(sc->path), "[%zu]", n);
		if (!sc_member(sc, SIZE_MAX, old, ']', "a list", &done))
			return false;
	}
	return true;
}

static bool sc_value(struct scanner *sc, size_t key)
{
	static const char *const words[] = {"null", "false", "true"};
	bool ok;

	sc_ws(sc);
	if (sc->i >= sc->len)
		return sc_fail(sc, sc->i,
			       "the file ends where a value should be; finish the value "
			       "and close every [ and {");
	if (!sc_record(sc, key))
		return false;
	switch (sc->s[sc->i]) {
	case '{':
	case '[':
		if (++sc->depth > NESTING_LIMIT)
			return sc_fail(sc, sc->i, "nested deeper than %d levels; flatten it",
				       NESTING_LIMIT);
		ok = sc->s[sc->i] == '{' ? sc_object(sc) : sc_array(sc);
		sc->depth--;
		return ok;
	case '"':
		return sc_string(sc);
	case '\'':
		return sc_fail(sc, sc->i, "a string in single quotes; JSON takes double quotes");
	}
	if (sc->s[sc->i] == '-' || (sc->s[sc->i] >= '0' && sc->s[sc->i] <= '9')) {
		/* As cJSON reads a number: the bytes of [0-9+-.eE] (at most 63), then strtod. */
		char num[64], *end;
		size_t k = 0;

		while (k < sizeof(num) - 1 && sc->i + k < sc->len &&
		       strchr("0123456789+-.eE", sc->s[sc->i + k]) && sc->s[sc->i + k])
			num[k] = sc->s[sc->i + k], k++;
		num[k] = '\0';
		strtod(num, &end);
		if (end == num)
			return sc_fail(sc, sc->i, "not a number; write digits, e.g. -1.5 or 120");
		sc->i += (size_t)(end - num);
		return true;
	}
	for (size_t k = 0; k < PDK_ARRAY_SIZE(words); k++) {
		size_t n = strlen(words[k]);

		if (sc->len - sc->i >= n && memcmp(sc->s + sc->i, words[k], n) == 0) {
			sc->i += n;
			return true;
		}
	}
	return sc_fail(sc, sc->i,
		       "expected a value, got '%c'; write a string in double "
		       "quotes, a number, true, false, null, [...] or {...}",
		       shown(sc->s[sc->i]));
}

static void sc_document(struct scanner *sc)
{
	if (sc->len >= 3 && memcmp(sc->s, "\xef\xbb\xbf", 3) == 0)
		sc->i = 3; /* a UTF-8 byte order mark, which cJSON skips too */
	sc_ws(sc);
	if (sc->i >= sc->len) {
		sc_fail(sc, sc->i, "the file is empty; an empty configuration is written {}");
		return;
	}
	if (!sc_value(sc, SIZE_MAX))
		return;
	sc_ws(sc);
	if (sc->i < sc->len)
		sc_fail(sc, sc->i, "'%c' after the end of the top-level object; remove it",
			shown(sc->s[sc->i]));
}

/* Pair nodes with positions: both lists are in pre-order. */
static void pos_assign(struct scanner *sc, const cJSON *node, size_t *k)
{
	for (; node; node = node->next) {
		if (*k < sc->n)
			sc->pos[*k].node = node;
		(*k)++;
		if (cJSON_IsArray(node) || cJSON_IsObject(node))
			pos_assign(sc, node->child, k);
	}
}

/* ---- places and messages ---- */

static void line_col(struct pdk_config_loader *ld, size_t off, int *line, int *col)
{
	/* Lookups come mostly in document order: go on from the last one. */
	size_t i = 0;

	*line = 1;
	*col = 1;
	if (ld->lc_off <= off && ld->lc_line) {
		i = ld->lc_off;
		*line = ld->lc_line;
		*col = ld->lc_col;
	}
	for (; i < off && i < ld->len; i++) {
		if (ld->text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
	ld->lc_off = i;
	ld->lc_line = *line;
	ld->lc_col = *col;
}

/* "FILE:LINE:COL" of a node's value (or of its key). */
void pdk_config_where(struct pdk_config_loader *ld, const cJSON *node, bool at_key, char *buf,
		      size_t n)
{
	int line, col;

	for (size_t k = 0; ld->pos && k < ld->n_pos; k++) {
		size_t i = (ld->pos_hint + k) % ld->n_pos, off;

		if (ld->pos[i].node != node)
			continue;
		ld->pos_hint = i;
		off = at_key && ld->pos[i].key != SIZE_MAX ? ld->pos[i].key : ld->pos[i].val;
		line_col(ld, off, &line, &col);
		snprintf(buf, n, "%s:%d:%d", ld->file, line, col);
		return;
	}
	snprintf(buf, n, "%s", ld->file);
}

int pdk_config_fail(struct pdk_config_loader *ld, const cJSON *at, const char *path,
		    const char *fmt, ...)
{
	char w[PDK_CONFIG_WHERE_LEN], msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pdk_config_where(ld, at ? at : ld->root, false, w, sizeof(w));
	if (ld->why && ld->why_len)
		snprintf(ld->why, ld->why_len, "%s: %s%s%s", w, path, path[0] ? ": " : "", msg);
	return -EINVAL;
}

int pdk_config_warn(struct pdk_config_loader *ld, const cJSON *at, const char *fmt, ...)
{
	char w[PDK_CONFIG_WHERE_LEN];
	_cleanup_free_ char *msg = NULL, *line = NULL;
	va_list ap;
	int r;

	if (!ld->warn)
		return 0;
	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	pdk_config_where(ld, at, true, w, sizeof(w));
	if (asprintf(&line, "%s: %s", w, msg) < 0)
		return -ENOMEM;
	ld->warn(ld->ctx, line);
	return 0;
}

/* A user's text for a message: one line, printable, not too long. */
const char *pdk_config_clean(char *buf, size_t n, const char *s)
{
	size_t k = 0, len = strlen(s);

	if (len + 1 <= n) {
		for (; k < len; k++)
			buf[k] = shown(s[k]);
	} else {
		for (; k + 4 < n; k++)
			buf[k] = shown(s[k]);
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k] = '\0';
	return buf;
}

/* ---- the text into a tree ---- */

int pdk_config_parse(struct pdk_config_loader *ld)
{
	struct scanner sc = {.s = ld->text, .len = ld->len};
	const char *text = ld->text, *end = NULL, *nul = memchr(text, '\0', ld->len);
	cJSON *root;
	size_t k = 0;

	if (nul) {
		/* cJSON stops at a NUL byte; the file must not hide anything behind one. */
		int line, col;

		line_col(ld, (size_t)(nul - text), &line, &col);
		snprintf(ld->why, ld->why_len,
			 "%s:%d:%d: invalid JSON: a NUL byte; the file must be "
			 "text",
			 ld->file, line, col);
		return -EINVAL;
	}
	sc_document(&sc);
	if (sc.nomem) {
		free(sc.pos);
		return -ENOMEM;
	}
	root = cJSON_ParseWithOpts(text, &end, true);
	if (!root) {
		/* cJSON decides; the scanner's position and reason are the more exact when it
		 * failed too (cJSON points past a trailing comma, for one). */
		size_t off = sc.failed ? sc.err_off : end ? (size_t)(end - text) : 0;
		char shown_path[PDK_CONFIG_PATH_LEN];
		int line, col;

		line_col(ld, off, &line, &col);
		if (sc.failed)
			snprintf(ld->why, ld->why_len, "%s:%d:%d: %s%sinvalid JSON: %s", ld->file,
				 line, col,
				 pdk_config_clean(shown_path, sizeof(shown_path), sc.err_path),
				 sc.err_path[0] ? ": " : "", sc.err);
		else
			snprintf(ld->why, ld->why_len,
				 "%s:%d:%d: invalid JSON at '%c'; check the quotes, "
				 "commas and escapes there",
				 ld->file, line, col, off < ld->len ? shown(text[off]) : ' ');
		free(sc.pos);
		return -EINVAL;
	}
	ld->root = root;
	if (!sc.failed) {
		pos_assign(&sc, root, &k);
		if (k == sc.n) {
			ld->pos = steal_pointer(&sc.pos);
			ld->n_pos = sc.n;
		}
	}
	free(sc.pos);
	return 0;
}
