/* config_value.c - each value of a configuration file read as the type its key wants: strings,
 * paths, numbers in range, names from a list, lists and patterns; a wrong one says what to write.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "net/addr.h"
#include "net/proxy.h"
#include "config_int.h"
#include "core/util.h"

const char *pdk_config_type_name(const cJSON *v)
{
	static const struct {
		cJSON_bool (*is)(const cJSON *const v);
		const char *name;
	} types[] = {
	    {cJSON_IsBool, "a boolean"},  {cJSON_IsNull, "null"},
	    {cJSON_IsNumber, "a number"}, {cJSON_IsString, "a string"},
	    {cJSON_IsArray, "an array"},  {cJSON_IsObject, "an object"},
	};

	for (size_t i = 0; i < PDK_ARRAY_SIZE(types); i++)
		if (types[i].is(v))
			return types[i].name;
	return "something else";
}

int pdk_config_type_error(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			  const char *want, const char *hint)
{
	return pdk_config_fail(ld, v, path, "expected %s, got %s; %s", want,
			       pdk_config_type_name(v), hint);
}

/* Every string paddock keeps must be one non-empty line of text. */
static int check_text(struct pdk_config_loader *ld, const cJSON *v, const char *path)
{
	const char *s = v->valuestring;

	if (!s[0])
		return pdk_config_fail(ld, v, path,
				       "the string is empty; give a value or remove the entry");
	for (size_t i = 0; s[i]; i++)
		if ((unsigned char)s[i] < 32 || s[i] == 127)
			return pdk_config_fail(ld, v, path,
					       "control character 0x%02x at byte %zu of the "
					       "string; remove it",
					       (unsigned char)s[i], i);
	return 0;
}

int pdk_config_get_string(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			  const char **ret)
{
	int r;

	if (!cJSON_IsString(v)) {
		r = pdk_config_type_error(ld, v, path, "a string", "write it in double quotes");
		return r < 0 ? r : -EINVAL; /* always negative; said where callers see it */
	}
	r = check_text(ld, v, path);
	if (r < 0)
		return r;
	*ret = v->valuestring;
	return 0;
}

/* "~" and "~/..." become $HOME and $HOME/...; anything else stays as written. */
static int expand_home(struct pdk_config_loader *ld, const cJSON *v, const char *path,
		       const char *s, char **ret)
{
	const char *home = getenv("HOME");
	char buf[96];
	size_t hl;

	if (s[0] != '~') {
		*ret = strdup(s);
		return *ret ? 0 : -ENOMEM;
	}
	if (s[1] && s[1] != '/')
		return pdk_config_fail(ld, v, path,
				       "'%s': only ~ and ~/ are expanded, not ~user; write the "
				       "full path",
				       pdk_config_clean(buf, sizeof(buf), s));
	if (!home || home[0] != '/')
		return pdk_config_fail(ld, v, path,
				       "'%s': $HOME is not an absolute path, so ~ cannot be "
				       "expanded; write the full path",
				       pdk_config_clean(buf, sizeof(buf), s));
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
int pdk_config_get_abs_path(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			    bool tilde, char **ret)
{
	_cleanup_free_ char *s = NULL;
	const char *raw;
	char buf[96];
	int r;

	r = pdk_config_get_string(ld, v, path, &raw);
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
		return pdk_config_fail(ld, v, path,
				       "'%s' is not an absolute path; write the full path%s",
				       pdk_config_clean(buf, sizeof(buf), raw),
				       tilde ? " (or one starting with ~/)" : "");
	*ret = steal_pointer(&s);
	return 0;
}

int pdk_config_get_bool(struct pdk_config_loader *ld, const cJSON *v, const char *path, bool *ret)
{
	if (!cJSON_IsBool(v))
		return pdk_config_type_error(ld, v, path, "a boolean",
					     "write true or false, without quotes");
	*ret = cJSON_IsTrue(v);
	return 0;
}

/* A number in the range; whole when range->integer. */
int pdk_config_get_number(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			  const struct pdk_config_range *range, double *ret)
{
	double min = range->min, max = range->max;
	bool min_inclusive = range->min_inclusive, integer = range->integer;
	double d;

	if (!cJSON_IsNumber(v))
		return pdk_config_type_error(ld, v, path, integer ? "a whole number" : "a number",
					     "write the number without quotes");
	d = v->valuedouble;
	/* In range first, so the cast that tests for a whole number is defined. */
	if (!isfinite(d) || d > max || (min_inclusive ? d < min : d <= min) ||
	    (integer && d != (double)(long long)d))
		return pdk_config_fail(
		    ld, v, path, "%.17g is out of range; write %s %s %.17g %s %.17g %s", d,
		    integer ? "a whole number" : "a number", min_inclusive ? "from" : "above", min,
		    min_inclusive ? "to" : "and at most", max, range->unit);
	*ret = d;
	return 0;
}

int pdk_config_get_enum(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			const char *const *names, size_t n, const char *extra, int *ret)
{
	const char *s;
	char buf[96], list[160] = "";
	int r;

	r = pdk_config_get_string(ld, v, path, &s);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(s, names[i]) == 0) {
			*ret = (int)i;
			return 0;
		}
		pdk_config_append(list, sizeof(list), "%s%s", i ? (i + 1 == n ? " or " : ", ") : "",
				  names[i]);
	}
	return pdk_config_fail(ld, v, path, "'%s' is not one of %s; write one of them%s",
			       pdk_config_clean(buf, sizeof(buf), s), list, extra);
}

/* ---- lists ---- */

static int list_hint(const cJSON *v, char *buf, size_t n)
{
	char c[64];

	if (cJSON_IsString(v))
		return snprintf(buf, n, "write a list: [\"%s\"]",
				pdk_config_clean(c, sizeof(c), v->valuestring));
	return snprintf(buf, n, "write a list: [\"...\", \"...\"]");
}

/* Every entry of an array of strings, each one line of text, to fn with its own key path. */
static int each_string(struct pdk_config_loader *ld, const cJSON *v, const char *path,
		       const char *want,
		       int (*fn)(struct pdk_config_loader *ld, const cJSON *c, const char *sub,
				 const char *s, void *target),
		       void *target)
{
	const cJSON *c;
	size_t i = 0;
	char hint[128];
	int r;

	if (!cJSON_IsArray(v)) {
		list_hint(v, hint, sizeof(hint));
		return pdk_config_type_error(ld, v, path, want, hint);
	}
	for (c = v->child; c; c = c->next, i++) {
		char sub[PDK_CONFIG_PATH_LEN];
		const char *s;

		snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
		r = pdk_config_get_string(ld, c, sub, &s);
		if (r < 0)
			return r;
		r = fn(ld, c, sub, s, target);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Checks (and may rewrite, into *ret) one entry of a list. */
typedef int (*item_fn)(struct pdk_config_loader *ld, const cJSON *v, const char *path,
		       const char *s, char **ret);

static int item_abs_or_home(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			    const char *s, char **ret)
{
	return pdk_config_get_abs_path(ld, v, path, true, ret);
}

static int item_home(struct pdk_config_loader *ld, const cJSON *v, const char *path, const char *s,
		     char **ret)
{
	return expand_home(ld, v, path, s, ret);
}

static int item_program(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			const char *s, char **ret)
{
	const char *base = strrchr(s, '/');
	char buf[96], name[64];

	if (!strpbrk(s, "/ \t"))
		return 0;
	if (base && base[1] && !strpbrk(base, " \t"))
		return pdk_config_fail(ld, v, path,
				       "'%s' is not a bare program name; write the name alone, "
				       "\"%s\" (it is refused wherever it is found)",
				       pdk_config_clean(buf, sizeof(buf), s),
				       pdk_config_clean(name, sizeof(name), base + 1));
	return pdk_config_fail(ld, v, path,
			       "'%s' is not a bare program name; write one name without '/' "
			       "or spaces per entry, e.g. \"rm\"",
			       pdk_config_clean(buf, sizeof(buf), s));
}

static int item_read_only(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			  const char *s, char **ret)
{
	char buf[96];
	int words = 1;
	bool ok = s[0] != ' ' && s[strlen(s) - 1] != ' ' && !strchr(s, '\t') && !strstr(s, "  ");

	for (const char *p = s; *p; p++)
		words += *p == ' ';
	if (!ok || words > 3)
		return pdk_config_fail(
		    ld, v, path,
		    "'%s' is not a program with at most two arguments "
		    "separated by single spaces; write e.g. \"git status\" or \"ls\"",
		    pdk_config_clean(buf, sizeof(buf), s));
	if (strcspn(s, " ") > strcspn(s, "/"))
		return pdk_config_fail(ld, v, path,
				       "'%s': the program must be a bare name without '/'; "
				       "write e.g. \"ls\" for /bin/ls",
				       pdk_config_clean(buf, sizeof(buf), s));
	return 0;
}

static int item_protected(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			  const char *s, char **ret)
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
		return pdk_config_fail(
		    ld, v, path,
		    "'%s' is not a name inside a root; write a relative path "
		    "without '.', '..' or empty parts, e.g. \".envrc\" or \".git/info\"",
		    pdk_config_clean(buf, sizeof(buf), s));
	*ret = steal_pointer(&d);
	return 0;
}

static int item_env(struct pdk_config_loader *ld, const cJSON *v, const char *path, const char *s,
		    char **ret)
{
	char buf[96];

	if (strchr(s, '='))
		return pdk_config_fail(ld, v, path,
				       "'%s': a variable-name pattern has no '='; write e.g. "
				       "\"*_TOKEN\"",
				       pdk_config_clean(buf, sizeof(buf), s));
	return 0;
}

static int item_domain(struct pdk_config_loader *ld, const cJSON *v, const char *path,
		       const char *s, char **ret)
{
	char buf[96];

	if (!pdk_domain_pattern_valid(s))
		return pdk_config_fail(ld, v, path,
				       "'%s' is not a domain; write a name such as "
				       "\"registry.npmjs.org\" or \"*.pythonhosted.org\"",
				       pdk_config_clean(buf, sizeof(buf), s));
	return 0;
}

static int item_address(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			const char *s, char **ret)
{
	struct pdk_cidr c;
	char buf[96];

	if (pdk_cidr_parse(s, &c) < 0)
		return pdk_config_fail(ld, v, path,
				       "'%s' is not an IP address or CIDR block; write e.g. "
				       "\"127.0.0.1\", \"10.0.0.0/8\" or \"fd00::/8\" (no bits set "
				       "past the prefix)",
				       pdk_config_clean(buf, sizeof(buf), s));
	return 0;
}

/* denyRead, allowRead: "/etc/app/key", "~/.config/app/token", "*.pem" in each root. */
static int item_read(struct pdk_config_loader *ld, const cJSON *v, const char *path, const char *s,
		     char **ret)
{
	if (s[0] == '/' || s[0] == '~')
		return s[0] == '/' ? 0 : expand_home(ld, v, path, s, ret);
	return item_protected(ld, v, path, s, ret);
}

struct list_target {
	struct pdk_strv *sv;
	item_fn check; /* NULL: any one line of text */
};

static int list_add(struct pdk_config_loader *ld, const cJSON *c, const char *sub, const char *s,
		    void *target)
{
	struct list_target *t = target;
	_cleanup_free_ char *checked = NULL;
	int r;

	if (t->check) {
		r = t->check(ld, c, sub, s, &checked);
		if (r < 0)
			return r;
	}
	return pdk_strv_push(t->sv, checked ? checked : s);
}

int pdk_config_get_list(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			struct pdk_strv *sv, enum pdk_config_item item)
{
	static const item_fn checks[] = {
	    [PDK_CONFIG_ITEM_TEXT] = NULL,
	    [PDK_CONFIG_ITEM_ABS_OR_HOME] = item_abs_or_home,
	    [PDK_CONFIG_ITEM_HOME] = item_home,
	    [PDK_CONFIG_ITEM_PROGRAM] = item_program,
	    [PDK_CONFIG_ITEM_READ_ONLY] = item_read_only,
	    [PDK_CONFIG_ITEM_PROTECTED] = item_protected,
	    [PDK_CONFIG_ITEM_ENV] = item_env,
	    [PDK_CONFIG_ITEM_DOMAIN] = item_domain,
	    [PDK_CONFIG_ITEM_ADDRESS] = item_address,
	    [PDK_CONFIG_ITEM_READ] = item_read,
	};
	struct list_target t = {.sv = sv, .check = checks[item]};

	return each_string(ld, v, path, "an array of strings", list_add, &t);
}

int pdk_config_get_pattern(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			   const char *src, struct pdk_pattern *p)
{
	char w[PDK_CONFIG_WHERE_LEN], msg[320];
	int r;

	/* The pattern remembers where it was written, for the decisions that cite it. */
	pdk_config_where(ld, v, false, w, sizeof(w));
	r = pdk_pattern_compile(p, src, w, msg, sizeof(msg));
	if (r == -EINVAL)
		return pdk_config_fail(ld, v, path,
				       "%s; fix the regular expression (PCRE2 syntax, see "
				       "pcre2pattern(3))",
				       msg);
	return r;
}

struct patterns_target {
	struct pdk_pattern **arr;
	size_t *n;
};

static int patterns_add(struct pdk_config_loader *ld, const cJSON *c, const char *sub,
			const char *s, void *target)
{
	struct patterns_target *t = target;
	struct pdk_pattern *p = realloc(*t->arr, (*t->n + 1) * sizeof(*p));
	int r;

	if (!p)
		return -ENOMEM;
	*t->arr = p;
	r = pdk_config_get_pattern(ld, c, sub, s, &p[*t->n]);
	if (r < 0)
		return r;
	(*t->n)++;
	return 0;
}

int pdk_config_get_patterns(struct pdk_config_loader *ld, const cJSON *v, const char *path,
			    struct pdk_pattern **arr, size_t *n)
{
	struct patterns_target t = {.arr = arr, .n = n};

	return each_string(ld, v, path, "an array of patterns", patterns_add, &t);
}
