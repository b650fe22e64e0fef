/* config.c - paddock's configuration: built-in defaults, the files and how they merge, and
 * validation that names FILE:LINE:COL and the key's path for every error and warning. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "util.h"

#ifndef PDK_SYSTEM_CONFIG
#define PDK_SYSTEM_CONFIG "/etc/paddock/config.json"
#endif

#define MAX_FILE_BYTES (4u << 20)
#define PATH_LEN       256
#define WHERE_LEN      (4096 + 32) /* "FILE:LINE:COL" */
#define NESTING_LIMIT  1000 /* cJSON's CJSON_NESTING_LIMIT */
#define MAX_TIMEOUT    31536000.0
#define MAX_PROCS      4194304.0 /* the kernel's PID_MAX_LIMIT */
#define MIN_BOUND      1024.0
#define MAX_BOUND      1048576.0
#define MAX_STORE_CAP  1099511627776.0

/* ---- small public helpers ---- */

int pdk_strv_push(struct pdk_strv *sv, const char *s)
{
	char *d = strdup(s);
	char **v;

	if (!d)
		return -ENOMEM;
	/* Kept NULL-terminated so a list can serve as an argv. */
	v = realloc(sv->v, (sv->n + 2) * sizeof(*v));
	if (!v) {
		free(d);
		return -ENOMEM;
	}
	v[sv->n++] = d;
	v[sv->n] = NULL;
	sv->v = v;
	return 0;
}

void pdk_strv_release(struct pdk_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

static const char *const risk_names[] = {
    [PDK_RISK_SAFE] = "safe",
    [PDK_RISK_MODERATE] = "moderate",
    [PDK_RISK_DANGEROUS] = "dangerous",
};

const char *pdk_risk_name(enum pdk_risk r)
{
	if ((unsigned)r < PDK_ARRAY_SIZE(risk_names))
		return risk_names[r];
	return "unknown";
}

int pdk_risk_parse(const char *s, enum pdk_risk *ret)
{
	for (size_t i = 0; s && i < PDK_ARRAY_SIZE(risk_names); i++)
		if (strcmp(s, risk_names[i]) == 0) {
			*ret = (enum pdk_risk)i;
			return 0;
		}
	return -EINVAL;
}

int pdk_pattern_compile(struct pdk_pattern *p, const char *src, const char *where, char *why,
			size_t why_len)
{
	int code;
	PCRE2_SIZE off;
	pcre2_code *re;
	char *s, *w;

	memset(p, 0, sizeof(*p));
	/* Byte semantics (no UTF): command lines are bytes, and a pattern must never fail to
	 * match because a file name is not valid UTF-8. */
	re = pcre2_compile((PCRE2_SPTR)src, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
	if (!re) {
		PCRE2_UCHAR msg[160];

		if (pcre2_get_error_message(code, msg, sizeof(msg)) < 0)
			snprintf((char *)msg, sizeof(msg), "error %d", code);
		if (why && why_len)
			snprintf(why, why_len, "invalid pattern '%.80s%s': %s at offset %zu", src,
				 strlen(src) > 80 ? "..." : "", (char *)msg, (size_t)off);
		return -EINVAL;
	}
	s = strdup(src);
	w = strdup(where ? where : "built-in");
	if (!s || !w) {
		free(s);
		free(w);
		pcre2_code_free(re);
		return -ENOMEM;
	}
	p->source = s;
	p->where = w;
	p->re = re;
	return 0;
}

void pdk_pattern_release(struct pdk_pattern *p)
{
	free(p->source);
	free(p->where);
	pcre2_code_free(p->re);
	memset(p, 0, sizeof(*p));
}

bool pdk_pattern_match(const struct pdk_pattern *p, const char *text, size_t len)
{
	/* One pair of offsets is enough to learn whether it matched; kept per thread so a
	 * decision over many commands does not allocate per match. */
	static __thread pcre2_match_data *md;
	int rc;

	if (!p->re)
		return false;
	if (!md)
		md = pcre2_match_data_create(1, NULL);
	/* A pattern that cannot decide (no memory, a match limit) counts as matching: deny
	 * and risk rules then fail closed. */
	if (!md)
		return true;
	rc = pcre2_match(p->re, (PCRE2_SPTR)(text ? text : ""), text ? len : 0, 0, 0, md, NULL);
	return rc != PCRE2_ERROR_NOMATCH;
}

/* ---- defaults and release ---- */

void pdk_config_init(struct pdk_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->sandbox_enabled = true;
	cfg->timeout_default = 120;
	cfg->timeout_cap = 1800;
	cfg->bound = 16384;
	cfg->store_cap = 16u << 20;
	cfg->approval_mode = PDK_APPROVAL_AUTO;
	cfg->threshold = PDK_RISK_MODERATE;
}

static void patterns_release(struct pdk_pattern **v, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		pdk_pattern_release(&(*v)[i]);
	free(*v);
	*v = NULL;
	*n = 0;
}

static void rule_release(struct pdk_risk_rule *r)
{
	free(r->name);
	free(r->why);
	pdk_pattern_release(&r->match);
	memset(r, 0, sizeof(*r));
}

static void rules_release(struct pdk_config *cfg)
{
	for (size_t i = 0; i < cfg->n_risk_rules; i++)
		rule_release(&cfg->risk_rules[i]);
	free(cfg->risk_rules);
	cfg->risk_rules = NULL;
	cfg->n_risk_rules = 0;
}

static void set_str(char **field, char *s)
{
	free(*field);
	*field = s;
}

void pdk_config_release(struct pdk_config *cfg)
{
	patterns_release(&cfg->deny, &cfg->n_deny);
	patterns_release(&cfg->allow, &cfg->n_allow);
	pdk_strv_release(&cfg->writable_paths);
	free(cfg->backend);
	free(cfg->bwrap);
	pdk_strv_release(&cfg->read_only_command);
	pdk_strv_release(&cfg->denied_command);
	pdk_strv_release(&cfg->sensitive_paths);
	pdk_strv_release(&cfg->protected_paths);
	pdk_strv_release(&cfg->env);
	free(cfg->store_dir);
	free(cfg->approval_command);
	rules_release(cfg);
	pdk_strv_release(&cfg->files);
	memset(cfg, 0, sizeof(*cfg));
}

/* ---- the position index ----
 *
 * cJSON keeps no positions, so a second, small scanner walks the same bytes with cJSON's own
 * grammar (its whitespace, number and literal rules) and records where each value and key
 * starts, in document order. cJSON's tree in pre-order is the same order, which pairs each
 * node with its position. On bad JSON the scanner also says what it expected, and where. */

struct pos {
	const cJSON *node;
	size_t val; /* offset of the value */
	size_t key; /* offset of its key's opening quote; SIZE_MAX when it has none */
};

struct scanner {
	const char *s;
	size_t len, i;
	struct pos *pos;
	size_t n, cap;
	int depth;
	bool nomem;
	bool failed;
	size_t err_off;
	char err[160];
	char path[PATH_LEN];	 /* the key path being scanned */
	char err_path[PATH_LEN]; /* the key path where the scan failed */
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
		struct pos *p = realloc(sc->pos, cap * sizeof(*p));

		if (!p) {
			sc->nomem = true;
			return sc_fail(sc, sc->i, "out of memory");
		}
		sc->pos = p;
		sc->cap = cap;
	}
	sc->pos[sc->n++] = (struct pos){.val = sc->i, .key = key};
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

static size_t path_push(char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static size_t path_push(char *path, const char *fmt, ...)
{
	size_t old = strlen(path);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path + old, PATH_LEN - old, fmt, ap);
	va_end(ap);
	return old;
}

static bool sc_object(struct scanner *sc)
{
	size_t old;

	sc->i++;
	sc_ws(sc);
	if (sc->i < sc->len && sc->s[sc->i] == '}') {
		sc->i++;
		return true;
	}
	for (;;) {
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
		old =
		    path_push(sc->path, "%s%.*s", sc->path[0] ? "." : "",
			      (int)(sc->i - key - 2 > 80 ? 80 : sc->i - key - 2), sc->s + key + 1);
		sc_ws(sc);
		if (sc->i >= sc->len || sc->s[sc->i] != ':')
			return sc_fail(sc, sc->i,
				       "expected ':' after the key; write \"key\": value");
		sc->i++;
		if (!sc_value(sc, key))
			return false;
		sc->path[old] = '\0';
		sc_ws(sc);
		if (sc->i >= sc->len)
			return sc_fail(sc, sc->i,
				       "the file ends inside an object; close it with '}'");
		if (sc->s[sc->i] == '}') {
			sc->i++;
			return true;
		}
		if (sc->s[sc->i] != ',')
			return sc_fail(sc, sc->i,
				       "expected ',' or '}' after a value, got '%c'; "
				       "a missing comma?",
				       shown(sc->s[sc->i]));
		sc->i++;
	}
}

static bool sc_array(struct scanner *sc)
{
	sc->i++;
	sc_ws(sc);
	if (sc->i < sc->len && sc->s[sc->i] == ']') {
		sc->i++;
		return true;
	}
	for (size_t n = 0;; n++) {
		size_t old;

		sc_ws(sc);
		if (sc->i < sc->len && sc->s[sc->i] == ']' && n > 0)
			return sc_fail(sc, sc->i, "a comma before ']'; remove the trailing comma");
		old = path_push(sc->path, "[%zu]", n);
		if (!sc_value(sc, SIZE_MAX))
			return false;
		sc->path[old] = '\0';
		sc_ws(sc);
		if (sc->i >= sc->len)
			return sc_fail(sc, sc->i, "the file ends inside a list; close it with ']'");
		if (sc->s[sc->i] == ']') {
			sc->i++;
			return true;
		}
		if (sc->s[sc->i] != ',')
			return sc_fail(sc, sc->i,
				       "expected ',' or ']' after a value, got '%c'; "
				       "a missing comma?",
				       shown(sc->s[sc->i]));
		sc->i++;
	}
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

/* ---- loading one file ---- */

struct loader {
	struct pdk_config *cfg;
	const char *file;
	const char *text;
	size_t len;
	struct pos *pos; /* NULL when positions are not known */
	size_t n_pos, pos_hint;
	size_t lc_off; /* the last offset line_col() counted to, and its line:col */
	int lc_line, lc_col;
	const cJSON *root;
	void (*warn)(void *ctx, const char *line);
	void *ctx;
	char *why;
	size_t why_len;
	/* values this file set, for the checks that span two keys */
	const cJSON *t_default, *t_cap, *bound, *store_cap, *mode;
};

static void line_col(struct loader *ld, size_t off, int *line, int *col)
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
static void where(struct loader *ld, const cJSON *node, bool at_key, char *buf, size_t n)
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

static int fail(struct loader *ld, const cJSON *at, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(struct loader *ld, const cJSON *at, const char *path, const char *fmt, ...)
{
	char w[WHERE_LEN], msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	where(ld, at ? at : ld->root, false, w, sizeof(w));
	if (ld->why && ld->why_len)
		snprintf(ld->why, ld->why_len, "%s: %s%s%s", w, path, path[0] ? ": " : "", msg);
	return -EINVAL;
}

static int warn_at(struct loader *ld, const cJSON *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int warn_at(struct loader *ld, const cJSON *at, const char *fmt, ...)
{
	char w[WHERE_LEN];
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
	where(ld, at, true, w, sizeof(w));
	if (asprintf(&line, "%s: %s", w, msg) < 0)
		return -ENOMEM;
	ld->warn(ld->ctx, line);
	return 0;
}

/* A user's text for a message: one line, printable, not too long. */
static const char *clean(char *buf, size_t n, const char *s)
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

static const char *type_name(const cJSON *v)
{
	if (cJSON_IsBool(v))
		return "a boolean";
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsArray(v))
		return "an array";
	if (cJSON_IsObject(v))
		return "an object";
	return "something else";
}

static int type_error(struct loader *ld, const cJSON *v, const char *path, const char *want,
		      const char *hint)
{
	return fail(ld, v, path, "expected %s, got %s; %s", want, type_name(v), hint);
}

/* Every string paddock keeps must be one non-empty line of text. */
static int check_text(struct loader *ld, const cJSON *v, const char *path)
{
	const char *s = v->valuestring;

	if (!s[0])
		return fail(ld, v, path, "the string is empty; give a value or remove the entry");
	for (size_t i = 0; s[i]; i++)
		if ((unsigned char)s[i] < 32 || s[i] == 127)
			return fail(ld, v, path,
				    "control character 0x%02x at byte %zu of the "
				    "string; remove it",
				    (unsigned char)s[i], i);
	return 0;
}

static int get_string(struct loader *ld, const cJSON *v, const char *path, const char **ret)
{
	int r;

	if (!cJSON_IsString(v))
		return type_error(ld, v, path, "a string", "write it in double quotes");
	r = check_text(ld, v, path);
	if (r < 0)
		return r;
	*ret = v->valuestring;
	return 0;
}

/* "~" and "~/..." become $HOME and $HOME/...; anything else stays as written. */
static int expand_home(struct loader *ld, const cJSON *v, const char *path, const char *s,
		       char **ret)
{
	const char *home = getenv("HOME");
	char buf[96];
	size_t hl;

	if (s[0] != '~') {
		*ret = strdup(s);
		return *ret ? 0 : -ENOMEM;
	}
	if (s[1] && s[1] != '/')
		return fail(ld, v, path,
			    "'%s': only ~ and ~/ are expanded, not ~user; write the "
			    "full path",
			    clean(buf, sizeof(buf), s));
	if (!home || home[0] != '/')
		return fail(ld, v, path,
			    "'%s': $HOME is not an absolute path, so ~ cannot be "
			    "expanded; write the full path",
			    clean(buf, sizeof(buf), s));
	hl = strlen(home);
	while (hl > 1 && home[hl - 1] == '/')
		hl--;
	if (hl == 1 && s[1]) /* HOME=/ */
		hl = 0;
	if (asprintf(ret, "%.*s%s", (int)hl, home, s + 1) < 0)
		return -ENOMEM;
	return 0;
}

/* An absolute path, or ~/... when tilde is true. */
static int get_abs_path(struct loader *ld, const cJSON *v, const char *path, bool tilde, char **ret)
{
	_cleanup_free_ char *s = NULL;
	const char *raw;
	char buf[96];
	int r;

	r = get_string(ld, v, path, &raw);
	if (r < 0)
		return r;
	if (tilde) {
		r = expand_home(ld, v, path, raw, &s);
		if (r < 0)
			return r;
	} else if (!(s = strdup(raw))) {
		return -ENOMEM;
	}
	if (s[0] != '/')
		return fail(ld, v, path, "'%s' is not an absolute path; write the full path%s",
			    clean(buf, sizeof(buf), raw),
			    tilde ? " (or one starting with ~/)" : "");
	*ret = steal_pointer(&s);
	return 0;
}

static int get_bool(struct loader *ld, const cJSON *v, const char *path, bool *ret)
{
	if (!cJSON_IsBool(v))
		return type_error(ld, v, path, "a boolean", "write true or false, without quotes");
	*ret = cJSON_IsTrue(v);
	return 0;
}

/* A number in (min_excl, max]; whole when integer. */
static int get_number(struct loader *ld, const cJSON *v, const char *path, double min,
		      bool min_inclusive, double max, bool integer, const char *unit, double *ret)
{
	double d;

	if (!cJSON_IsNumber(v))
		return type_error(ld, v, path, integer ? "a whole number" : "a number",
				  "write the number without quotes");
	d = v->valuedouble;
	/* In range first, so the cast that tests for a whole number is defined. */
	if (!isfinite(d) || d > max || (min_inclusive ? d < min : d <= min) ||
	    (integer && d != (double)(long long)d))
		return fail(ld, v, path, "%.17g is out of range; write %s %s %.17g %s %.17g %s", d,
			    integer ? "a whole number" : "a number",
			    min_inclusive ? "from" : "above", min,
			    min_inclusive ? "to" : "and at most", max, unit);
	*ret = d;
	return 0;
}

static int get_enum(struct loader *ld, const cJSON *v, const char *path, const char *const *names,
		    size_t n, const char *extra, int *ret)
{
	const char *s;
	char buf[96], list[160] = "";
	int r;

	r = get_string(ld, v, path, &s);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(s, names[i]) == 0) {
			*ret = (int)i;
			return 0;
		}
		path_push(list, "%s%s", i ? (i + 1 == n ? " or " : ", ") : "", names[i]);
	}
	return fail(ld, v, path, "'%s' is not one of %s; write one of them%s",
		    clean(buf, sizeof(buf), s), list, extra);
}

/* ---- lists ---- */

typedef int (*item_fn)(struct loader *ld, const cJSON *v, const char *path, const char *s,
		       char **ret);

static int list_hint(const cJSON *v, char *buf, size_t n)
{
	char c[64];

	if (cJSON_IsString(v))
		return snprintf(buf, n, "write a list: [\"%s\"]",
				clean(c, sizeof(c), v->valuestring));
	return snprintf(buf, n, "write a list: [\"...\", \"...\"]");
}

static int get_list(struct loader *ld, const cJSON *v, const char *path, struct pdk_strv *sv,
		    item_fn fn)
{
	const cJSON *c;
	size_t i = 0;
	char hint[128];
	int r;

	if (!cJSON_IsArray(v)) {
		list_hint(v, hint, sizeof(hint));
		return type_error(ld, v, path, "an array of strings", hint);
	}
	for (c = v->child; c; c = c->next, i++) {
		_cleanup_free_ char *s = NULL;
		const char *raw;
		char sub[PATH_LEN];

		snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
		r = get_string(ld, c, sub, &raw);
		if (r < 0)
			return r;
		if (fn) {
			r = fn(ld, c, sub, raw, &s);
			if (r < 0)
				return r;
		}
		r = pdk_strv_push(sv, s ? s : raw);
		if (r < 0)
			return r;
	}
	return 0;
}

static int item_abs_or_home(struct loader *ld, const cJSON *v, const char *path, const char *s,
			    char **ret)
{
	return get_abs_path(ld, v, path, true, ret);
}

static int item_home(struct loader *ld, const cJSON *v, const char *path, const char *s, char **ret)
{
	return expand_home(ld, v, path, s, ret);
}

static int item_program(struct loader *ld, const cJSON *v, const char *path, const char *s,
			char **ret)
{
	const char *base = strrchr(s, '/');
	char buf[96], name[64];

	if (!strpbrk(s, "/ \t"))
		return 0;
	if (base && base[1] && !strpbrk(base, " \t"))
		return fail(ld, v, path,
			    "'%s' is not a bare program name; write the name alone, "
			    "\"%s\" (it is refused wherever it is found)",
			    clean(buf, sizeof(buf), s), clean(name, sizeof(name), base + 1));
	return fail(ld, v, path,
		    "'%s' is not a bare program name; write one name without '/' "
		    "or spaces per entry, e.g. \"rm\"",
		    clean(buf, sizeof(buf), s));
}

static int item_read_only(struct loader *ld, const cJSON *v, const char *path, const char *s,
			  char **ret)
{
	char buf[96];
	int words = 1;
	bool ok = s[0] != ' ' && s[strlen(s) - 1] != ' ' && !strchr(s, '\t') && !strstr(s, "  ");

	for (const char *p = s; *p; p++)
		words += *p == ' ';
	if (!ok || words > 3)
		return fail(ld, v, path,
			    "'%s' is not a program with at most two arguments "
			    "separated by single spaces; write e.g. \"git status\" or \"ls\"",
			    clean(buf, sizeof(buf), s));
	if (strcspn(s, " ") > strcspn(s, "/"))
		return fail(ld, v, path,
			    "'%s': the program must be a bare name without '/'; "
			    "write e.g. \"ls\" for /bin/ls",
			    clean(buf, sizeof(buf), s));
	return 0;
}

static int item_protected(struct loader *ld, const cJSON *v, const char *path, const char *s,
			  char **ret)
{
	_cleanup_free_ char *d = strdup(s);
	char buf[96];
	size_t n;

	if (!d)
		return -ENOMEM;
	n = strlen(d);
	while (n > 1 && d[n - 1] == '/')
		d[--n] = '\0'; /* ".vscode/" names the directory .vscode */
	bool bad = d[0] == '/' || d[0] == '~';

	for (const char *c = d; !bad && c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL) {
		size_t k = strcspn(c, "/");

		bad = k == 0 || (k == 1 && c[0] == '.') || (k == 2 && c[0] == '.' && c[1] == '.');
	}
	if (bad)
		return fail(ld, v, path,
			    "'%s' is not a name inside a root; write a relative path "
			    "without '.', '..' or empty parts, e.g. \".envrc\" or \".git/info\"",
			    clean(buf, sizeof(buf), s));
	*ret = steal_pointer(&d);
	return 0;
}

static int item_env(struct loader *ld, const cJSON *v, const char *path, const char *s, char **ret)
{
	char buf[96];

	if (strchr(s, '='))
		return fail(ld, v, path,
			    "'%s': a variable-name pattern has no '='; write e.g. "
			    "\"*_TOKEN\"",
			    clean(buf, sizeof(buf), s));
	return 0;
}

static int get_patterns(struct loader *ld, const cJSON *v, const char *path,
			struct pdk_pattern **arr, size_t *n)
{
	const cJSON *c;
	size_t i = 0;
	char hint[128];
	int r;

	if (!cJSON_IsArray(v)) {
		list_hint(v, hint, sizeof(hint));
		return type_error(ld, v, path, "an array of patterns", hint);
	}
	for (c = v->child; c; c = c->next, i++) {
		char sub[PATH_LEN], w[WHERE_LEN], msg[320];
		struct pdk_pattern *p;
		const char *src;

		snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
		r = get_string(ld, c, sub, &src);
		if (r < 0)
			return r;
		p = realloc(*arr, (*n + 1) * sizeof(**arr));
		if (!p)
			return -ENOMEM;
		*arr = p;
		where(ld, c, false, w, sizeof(w));
		r = pdk_pattern_compile(&p[*n], src, w, msg, sizeof(msg));
		if (r == -EINVAL)
			return fail(ld, c, sub,
				    "%s; fix the regular expression (PCRE2 syntax, see "
				    "pcre2pattern(3))",
				    msg);
		if (r < 0)
			return r;
		(*n)++;
	}
	return 0;
}

/* ---- keys ---- */

enum key_id {
	K_SCHEMA,
	K_COMMAND_POLICY,
	K_DENY,
	K_ALLOW,
	K_SANDBOX,
	K_ENABLED,
	K_ALLOW_NETWORK,
	K_WRITABLE,
	K_OUTSIDE,
	K_BACKEND,
	K_BWRAP,
	K_MAX_PROCS,
	K_READ_ONLY,
	K_DENIED,
	K_SENSITIVE,
	K_PROTECTED,
	K_ENV,
	K_TIMEOUTS,
	K_T_DEFAULT,
	K_T_CAP,
	K_OUTPUT,
	K_BOUND,
	K_STORE_CAP,
	K_STORE_DIR,
	K_APPROVAL,
	K_MODE,
	K_THRESHOLD,
	K_COMMAND,
	K_RISK,
	R_NAME,
	R_MATCH,
	R_CLASS,
	R_WHY, /* inside one risk rule */
};

struct key {
	const char *name;
	enum key_id id;
	const struct key *sub; /* an object's keys */
	size_t n_sub;
};

#define KEY(name, id)                                                                              \
	{                                                                                          \
		name, id, NULL, 0                                                                  \
	}
#define OBJ(name, id, keys)                                                                        \
	{                                                                                          \
		name, id, keys, PDK_ARRAY_SIZE(keys)                                               \
	}

static const struct key sandbox_keys[] = {
    KEY("enabled", K_ENABLED),	      KEY("allowNetwork", K_ALLOW_NETWORK),
    KEY("writablePaths", K_WRITABLE), KEY("allowOutsideSandbox", K_OUTSIDE),
    KEY("backend", K_BACKEND),	      KEY("bwrap", K_BWRAP),
    KEY("maxProcesses", K_MAX_PROCS),
};
static const struct key policy_keys[] = {
    KEY("deny", K_DENY),
    KEY("allow", K_ALLOW),
    OBJ("sandbox", K_SANDBOX, sandbox_keys),
};
static const struct key timeout_keys[] = {KEY("default", K_T_DEFAULT), KEY("cap", K_T_CAP)};
static const struct key output_keys[] = {
    KEY("bound", K_BOUND),
    KEY("storeCap", K_STORE_CAP),
    KEY("storeDir", K_STORE_DIR),
};
static const struct key approval_keys[] = {
    KEY("mode", K_MODE),
    KEY("threshold", K_THRESHOLD),
    KEY("command", K_COMMAND),
};
static const struct key top_keys[] = {
    KEY("$schema", K_SCHEMA),
    OBJ("commandPolicy", K_COMMAND_POLICY, policy_keys),
    KEY("read_only_command", K_READ_ONLY),
    KEY("denied_command", K_DENIED),
    KEY("sensitive_paths", K_SENSITIVE),
    KEY("protected_paths", K_PROTECTED),
    KEY("env", K_ENV),
    OBJ("timeouts", K_TIMEOUTS, timeout_keys),
    OBJ("output", K_OUTPUT, output_keys),
    OBJ("approval", K_APPROVAL, approval_keys),
    KEY("risk", K_RISK),
};
static const struct key rule_keys[] = {
    KEY("name", R_NAME),
    KEY("match", R_MATCH),
    KEY("class", R_CLASS),
    KEY("why", R_WHY),
};

static const char *const backends[] = {"bwrap", "landlock", "seatbelt"};
static const char *const modes[] = {"ask", "deny", "allow", "command"};
static const enum pdk_approval_mode mode_values[] = {
    PDK_APPROVAL_ASK,
    PDK_APPROVAL_DENY,
    PDK_APPROVAL_ALLOW,
    PDK_APPROVAL_COMMAND,
};

/* null sets a key back to its built-in value (an object: every key in it; a list: empty,
 * the shipped lists still apply). */
static void reset_key(struct pdk_config *cfg, const struct key *k)
{
	struct pdk_config d;

	pdk_config_init(&d);
	for (size_t i = 0; i < k->n_sub; i++)
		reset_key(cfg, &k->sub[i]);
	switch (k->id) {
	case K_DENY:
		patterns_release(&cfg->deny, &cfg->n_deny);
		break;
	case K_ALLOW:
		patterns_release(&cfg->allow, &cfg->n_allow);
		break;
	case K_ENABLED:
		cfg->sandbox_enabled = d.sandbox_enabled;
		break;
	case K_ALLOW_NETWORK:
		cfg->allow_network = d.allow_network;
		break;
	case K_WRITABLE:
		pdk_strv_release(&cfg->writable_paths);
		break;
	case K_OUTSIDE:
		cfg->allow_outside_sandbox = d.allow_outside_sandbox;
		break;
	case K_BACKEND:
		set_str(&cfg->backend, NULL);
		break;
	case K_BWRAP:
		set_str(&cfg->bwrap, NULL);
		break;
	case K_MAX_PROCS:
		cfg->max_procs = d.max_procs;
		break;
	case K_READ_ONLY:
		pdk_strv_release(&cfg->read_only_command);
		break;
	case K_DENIED:
		pdk_strv_release(&cfg->denied_command);
		break;
	case K_SENSITIVE:
		pdk_strv_release(&cfg->sensitive_paths);
		break;
	case K_PROTECTED:
		pdk_strv_release(&cfg->protected_paths);
		break;
	case K_ENV:
		pdk_strv_release(&cfg->env);
		break;
	case K_T_DEFAULT:
		cfg->timeout_default = d.timeout_default;
		break;
	case K_T_CAP:
		cfg->timeout_cap = d.timeout_cap;
		break;
	case K_BOUND:
		cfg->bound = d.bound;
		break;
	case K_STORE_CAP:
		cfg->store_cap = d.store_cap;
		break;
	case K_STORE_DIR:
		set_str(&cfg->store_dir, NULL);
		break;
	case K_MODE:
		cfg->approval_mode = d.approval_mode;
		break;
	case K_THRESHOLD:
		cfg->threshold = d.threshold;
		break;
	case K_COMMAND:
		set_str(&cfg->approval_command, NULL);
		break;
	case K_RISK:
		rules_release(cfg);
		break;
	default:
		break;
	}
}

typedef int (*set_fn)(struct loader *ld, void *target, const struct key *k, const cJSON *v,
		      const char *path);

/* Edit distance, for "did you mean": small strings only. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[65];

	if (la > 64 || lb > 64)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], cost = diag + ((a[i - 1] | 32) != (b[j - 1] | 32));

			row[j] = cost < up + 1 ? cost : up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
		}
	}
	return row[lb];
}

static int warn_unknown(struct loader *ld, const cJSON *c, const char *path, const struct key *keys,
			size_t n)
{
	char list[512] = "", guess[96] = "", name[96], p[PATH_LEN];
	size_t best = 3;

	for (size_t i = 0; i < n; i++) {
		size_t d;

		if (keys[i].id == K_SCHEMA)
			continue;
		path_push(list, "%s%s", list[0] ? ", " : "", keys[i].name);
		d = distance(c->string, keys[i].name);
		if (d < best) {
			best = d;
			snprintf(guess, sizeof(guess), " (did you mean '%s'?)", keys[i].name);
		}
	}
	snprintf(p, sizeof(p), "%s%s", path, path[0] ? "." : "");
	return warn_at(ld, c, "unknown key '%s%s' ignored%s; the keys here are: %s", p,
		       clean(name, sizeof(name), c->string), guess, list);
}

static int walk_object(struct loader *ld, const cJSON *obj, const char *path,
		       const struct key *keys, size_t n, void *target, set_fn set)
{
	for (const cJSON *c = obj->child; c; c = c->next) {
		const struct key *k = NULL;
		const cJSON *twin = NULL;
		char sub[PATH_LEN], name[96];
		int r = 0;

		snprintf(sub, sizeof(sub), "%s%s%s", path, path[0] ? "." : "", c->string);
		for (const cJSON *t = c->next; t; t = t->next)
			if (strcmp(t->string, c->string) == 0)
				twin = t;
		if (twin) {
			char w[WHERE_LEN];

			where(ld, twin, true, w, sizeof(w));
			r = warn_at(ld, c,
				    "duplicate key '%s%s%s' ignored; the later one at %s "
				    "wins",
				    path, path[0] ? "." : "", clean(name, sizeof(name), c->string),
				    w);
			if (r < 0)
				return r;
			continue;
		}
		for (size_t i = 0; i < n && !k; i++)
			if (strcmp(keys[i].name, c->string) == 0)
				k = &keys[i];
		if (!k)
			r = warn_unknown(ld, c, path, keys, n);
		else if (k->id == K_SCHEMA)
			continue;
		else if (cJSON_IsNull(c) && target == ld->cfg)
			reset_key(ld->cfg, k);
		else if (k->sub && !cJSON_IsObject(c))
			r = type_error(ld, c, sub, "an object",
				       "write an object: { \"key\": value }");
		else if (k->sub)
			r = walk_object(ld, c, sub, k->sub, k->n_sub, target, set);
		else
			r = set(ld, target, k, c, sub);
		if (r < 0)
			return r;
	}
	return 0;
}

struct rule_build {
	struct pdk_risk_rule rule;
	bool has_match, has_class;
};

static int set_rule_key(struct loader *ld, void *target, const struct key *k, const cJSON *v,
			const char *path)
{
	struct rule_build *b = target;
	const char *s;
	char w[WHERE_LEN], msg[320];
	int r, i;

	if (cJSON_IsNull(v)) /* not set; the checks for required keys follow */
		return 0;
	switch (k->id) {
	case R_NAME:
	case R_WHY:
		r = get_string(ld, v, path, &s);
		if (r < 0)
			return r;
		s = strdup(s);
		if (!s)
			return -ENOMEM;
		set_str(k->id == R_NAME ? &b->rule.name : &b->rule.why, (char *)s);
		return 0;
	case R_MATCH:
		r = get_string(ld, v, path, &s);
		if (r < 0)
			return r;
		pdk_pattern_release(&b->rule.match);
		where(ld, v, false, w, sizeof(w));
		r = pdk_pattern_compile(&b->rule.match, s, w, msg, sizeof(msg));
		if (r == -EINVAL)
			return fail(ld, v, path,
				    "%s; fix the regular expression (PCRE2 syntax, see "
				    "pcre2pattern(3))",
				    msg);
		b->has_match = r == 0;
		return r;
	case R_CLASS:
		r = get_enum(ld, v, path, risk_names, PDK_ARRAY_SIZE(risk_names), "", &i);
		if (r < 0)
			return r;
		b->rule.risk = (enum pdk_risk)i;
		b->has_class = true;
		return 0;
	default:
		return 0;
	}
}

static int get_rules(struct loader *ld, const cJSON *v, const char *path)
{
	struct pdk_config *cfg = ld->cfg;
	const cJSON *c;
	size_t i = 0;
	int r;

	if (!cJSON_IsArray(v))
		return type_error(ld, v, path, "an array of rules",
				  "write [ { \"name\": ..., \"match\": ..., \"class\": ..., "
				  "\"why\": ... } ]");
	for (c = v->child; c; c = c->next, i++) {
		struct rule_build b = {0};
		struct pdk_risk_rule *arr;
		char sub[PATH_LEN];
		const char *missing;

		snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
		if (!cJSON_IsObject(c))
			return type_error(ld, c, sub, "an object",
					  "write { \"name\": ..., \"match\": ..., \"class\": ..., "
					  "\"why\": ... }");
		r = walk_object(ld, c, sub, rule_keys, PDK_ARRAY_SIZE(rule_keys), &b, set_rule_key);
		missing = !b.rule.name	 ? "name"
			  : !b.has_match ? "match"
			  : !b.has_class ? "class"
					 : NULL;
		if (r == 0 && missing)
			r = fail(ld, c, sub,
				 "the rule has no '%s'; every rule needs name, match and "
				 "class (why is optional)",
				 missing);
		if (r == 0 && !b.rule.why &&
		    asprintf(&b.rule.why, "matches the risk rule '%s'", b.rule.name) < 0)
			r = -ENOMEM;
		arr = r == 0 ? realloc(cfg->risk_rules, (cfg->n_risk_rules + 1) * sizeof(*arr))
			     : NULL;
		if (r == 0 && !arr)
			r = -ENOMEM;
		if (r < 0) {
			rule_release(&b.rule);
			return r;
		}
		cfg->risk_rules = arr;
		arr[cfg->n_risk_rules++] = b.rule;
	}
	return 0;
}

static int set_config_key(struct loader *ld, void *target, const struct key *k, const cJSON *v,
			  const char *path)
{
	struct pdk_config *cfg = target;
	char *s = NULL;
	double d;
	int r, i;

	switch (k->id) {
	case K_DENY:
		return get_patterns(ld, v, path, &cfg->deny, &cfg->n_deny);
	case K_ALLOW:
		return get_patterns(ld, v, path, &cfg->allow, &cfg->n_allow);
	case K_ENABLED:
		return get_bool(ld, v, path, &cfg->sandbox_enabled);
	case K_ALLOW_NETWORK:
		return get_bool(ld, v, path, &cfg->allow_network);
	case K_OUTSIDE:
		return get_bool(ld, v, path, &cfg->allow_outside_sandbox);
	case K_WRITABLE:
		return get_list(ld, v, path, &cfg->writable_paths, item_abs_or_home);
	case K_BACKEND:
		r = get_enum(ld, v, path, backends, PDK_ARRAY_SIZE(backends),
			     ", or null for the first that works here", &i);
		if (r < 0)
			return r;
		if (!(s = strdup(backends[i])))
			return -ENOMEM;
		set_str(&cfg->backend, s);
		return 0;
	case K_BWRAP:
		r = get_abs_path(ld, v, path, false, &s);
		if (r == 0)
			set_str(&cfg->bwrap, s);
		return r;
	case K_MAX_PROCS:
		r = get_number(ld, v, path, 1, true, MAX_PROCS, true, "processes", &d);
		if (r == 0)
			cfg->max_procs = (unsigned long)d;
		return r;
	case K_READ_ONLY:
		return get_list(ld, v, path, &cfg->read_only_command, item_read_only);
	case K_DENIED:
		return get_list(ld, v, path, &cfg->denied_command, item_program);
	case K_SENSITIVE:
		return get_list(ld, v, path, &cfg->sensitive_paths, item_home);
	case K_PROTECTED:
		return get_list(ld, v, path, &cfg->protected_paths, item_protected);
	case K_ENV:
		return get_list(ld, v, path, &cfg->env, item_env);
	case K_T_DEFAULT:
	case K_T_CAP:
		r = get_number(ld, v, path, 0, false, MAX_TIMEOUT, false, "seconds", &d);
		if (r < 0)
			return r;
		if (k->id == K_T_DEFAULT) {
			cfg->timeout_default = d;
			ld->t_default = v;
		} else {
			cfg->timeout_cap = d;
			ld->t_cap = v;
		}
		return 0;
	case K_BOUND:
		r = get_number(ld, v, path, MIN_BOUND, true, MAX_BOUND, true, "bytes", &d);
		if (r == 0) {
			cfg->bound = (size_t)d;
			ld->bound = v;
		}
		return r;
	case K_STORE_CAP:
		r = get_number(ld, v, path, MIN_BOUND, true, MAX_STORE_CAP, true, "bytes", &d);
		if (r == 0) {
			cfg->store_cap = (size_t)d;
			ld->store_cap = v;
		}
		return r;
	case K_STORE_DIR:
		r = get_abs_path(ld, v, path, true, &s);
		if (r == 0)
			set_str(&cfg->store_dir, s);
		return r;
	case K_MODE:
		r = get_enum(ld, v, path, modes, PDK_ARRAY_SIZE(modes), "", &i);
		if (r == 0) {
			cfg->approval_mode = mode_values[i];
			ld->mode = v;
		}
		return r;
	case K_THRESHOLD:
		r = get_enum(ld, v, path, risk_names, PDK_ARRAY_SIZE(risk_names), "", &i);
		if (r == 0)
			cfg->threshold = (enum pdk_risk)i;
		return r;
	case K_COMMAND:
		r = get_abs_path(ld, v, path, true, &s);
		if (r == 0)
			set_str(&cfg->approval_command, s);
		return r;
	case K_RISK:
		return get_rules(ld, v, path);
	default:
		return 0;
	}
}

/* The rules that span two keys, checked on the merged values after each file. */
static int check_merged(struct loader *ld)
{
	struct pdk_config *cfg = ld->cfg;

	if (cfg->timeout_default > cfg->timeout_cap) {
		/* A file that lowers only the cap lowers the default with it. */
		if (!ld->t_default)
			cfg->timeout_default = cfg->timeout_cap;
		else
			return fail(ld, ld->t_default, "timeouts.default",
				    "%g seconds is above "
				    "timeouts.cap (%g); lower the default or raise the cap",
				    cfg->timeout_default, cfg->timeout_cap);
	}
	if (cfg->store_cap < cfg->bound) {
		if (ld->store_cap)
			return fail(ld, ld->store_cap, "output.storeCap",
				    "%zu bytes is below "
				    "output.bound (%zu); keep at least one bound's worth",
				    cfg->store_cap, cfg->bound);
		return fail(ld, ld->bound, "output.bound",
			    "%zu bytes is above output.storeCap "
			    "(%zu); lower the bound or raise storeCap",
			    cfg->bound, cfg->store_cap);
	}
	if (cfg->approval_mode == PDK_APPROVAL_COMMAND && !cfg->approval_command)
		return fail(ld, ld->mode, ld->mode ? "approval.mode" : "approval.command",
			    "mode \"command\" needs approval.command, the absolute path of the "
			    "program that approves; set it or choose another mode");
	return 0;
}

static int read_all(const char *path, bool must_exist, char **ret, size_t *ret_len, char *why,
		    size_t why_len)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t len = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		int e = errno;

		if ((e == ENOENT || e == ENOTDIR) && !must_exist)
			return 0;
		snprintf(why, why_len, "%s: cannot open the configuration: %s; check the path",
			 path, strerror(e));
		return -e;
	}
	if (fstat(fd, &st) < 0) {
		int e = errno;

		snprintf(why, why_len, "%s: cannot read the configuration: %s", path, strerror(e));
		return -e;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, why_len, "%s: not a regular file; point at a JSON file", path);
		return -EINVAL;
	}
	if (st.st_size > MAX_FILE_BYTES) {
		snprintf(why, why_len, "%s: larger than %u bytes; a configuration is much smaller",
			 path, MAX_FILE_BYTES);
		return -EFBIG;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	/* Read to the end or the limit: the file may have grown since fstat. */
	for (;;) {
		ssize_t k = read(fd, buf + len, (size_t)st.st_size - len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;

			snprintf(why, why_len, "%s: cannot read the configuration: %s", path,
				 strerror(e));
			return -e;
		}
		if (k == 0 || (len += (size_t)k) == (size_t)st.st_size)
			break;
	}
	buf[len] = '\0';
	*ret = steal_pointer(&buf);
	*ret_len = len;
	return 1;
}

static int load_text(struct pdk_config *cfg, const char *file, const char *text, size_t len,
		     void (*warn)(void *ctx, const char *line), void *ctx, char *why,
		     size_t why_len)
{
	struct loader ld = {.cfg = cfg,
			    .file = file,
			    .text = text,
			    .len = len,
			    .warn = warn,
			    .ctx = ctx,
			    .why = why,
			    .why_len = why_len};
	struct scanner sc = {.s = text, .len = len};
	const char *end = NULL, *nul = memchr(text, '\0', len);
	cJSON *root;
	size_t k = 0;
	int r;

	if (nul) {
		/* cJSON stops at a NUL byte; the file must not hide anything behind one. */
		int line, col;

		line_col(&ld, (size_t)(nul - text), &line, &col);
		snprintf(why, why_len,
			 "%s:%d:%d: invalid JSON: a NUL byte; the file must be "
			 "text",
			 file, line, col);
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
		char shown_path[PATH_LEN];
		int line, col;

		line_col(&ld, off, &line, &col);
		if (sc.failed)
			snprintf(why, why_len, "%s:%d:%d: %s%sinvalid JSON: %s", file, line, col,
				 clean(shown_path, sizeof(shown_path), sc.err_path),
				 sc.err_path[0] ? ": " : "", sc.err);
		else
			snprintf(why, why_len,
				 "%s:%d:%d: invalid JSON at '%c'; check the quotes, "
				 "commas and escapes there",
				 file, line, col, off < len ? shown(text[off]) : ' ');
		free(sc.pos);
		return -EINVAL;
	}
	ld.root = root;
	if (!sc.failed) {
		pos_assign(&sc, root, &k);
		if (k == sc.n) {
			ld.pos = sc.pos;
			ld.n_pos = sc.n;
		}
	}
	if (!cJSON_IsObject(root))
		r = fail(&ld, root, "",
			 "the top level is %s; a configuration is one object: "
			 "{ \"commandPolicy\": { ... }, ... }",
			 type_name(root));
	else
		r = walk_object(&ld, root, "", top_keys, PDK_ARRAY_SIZE(top_keys), cfg,
				set_config_key);
	if (r == 0)
		r = check_merged(&ld);
	if (r == -ENOMEM)
		snprintf(why, why_len, "%s: out of memory", file);
	cJSON_Delete(root);
	free(sc.pos);
	return r;
}

int pdk_config_load_file(struct pdk_config *cfg, const char *path, bool must_exist,
			 void (*warn)(void *ctx, const char *line), void *ctx, char *why,
			 size_t why_len)
{
	_cleanup_free_ char *text = NULL;
	char dummy[1];
	size_t len = 0;
	int r;

	if (!why || !why_len) {
		why = dummy;
		why_len = sizeof(dummy);
	}
	r = read_all(path, must_exist, &text, &len, why, why_len);
	if (r <= 0)
		return r;
	r = load_text(cfg, path, text, len, warn, ctx, why, why_len);
	if (r < 0)
		return r;
	return pdk_strv_push(&cfg->files, path);
}

int pdk_config_load(struct pdk_config *cfg, const char *path,
		    void (*warn)(void *ctx, const char *line), void *ctx, char *why, size_t why_len)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	_cleanup_free_ char *user = NULL;
	int r;

	if (path)
		return pdk_config_load_file(cfg, path, true, warn, ctx, why, why_len);
	r = pdk_config_load_file(cfg, PDK_SYSTEM_CONFIG, false, warn, ctx, why, why_len);
	if (r < 0)
		return r;
	/* XDG: a relative $XDG_CONFIG_HOME is invalid and is ignored. */
	if (xdg && xdg[0] == '/')
		r = asprintf(&user, "%s/paddock/config.json", xdg);
	else if (home && home[0] == '/')
		r = asprintf(&user, "%s/.config/paddock/config.json", home);
	else
		return 0;
	if (r < 0)
		return -ENOMEM;
	return pdk_config_load_file(cfg, user, false, warn, ctx, why, why_len);
}
