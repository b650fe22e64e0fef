/* policy_arith.c - code in data through arithmetic. bash evaluates a variable
 * named in arithmetic by evaluating its value as an expression in turn, array
 * subscripts and the command substitutions in them included: after
 * x='a[$(rm -rf d)]', each of $((x)), ((x)), let x and [[ $x -eq 1 ]] runs rm.
 *
 * The rule: an arithmetic context that names a variable (bare, or as $x) which
 * the script gives a value that is not a plain number makes the call moderate,
 * "code-in-data: arithmetic on x". A plain number is a literal integer (with a
 * sign, 0x or BASE#), an arithmetic expansion, ${#...}, a copy ($y, ${y},
 * ${y:-N}) of a name that is itself a plain number or not set by the script,
 * or a value known only when it runs: the whole output of one command
 * substitution, the environment, read and mapfile. Everyday arithmetic
 * (for ((i=0;i<n;i++)), n=$(wc -l <f); $((n+1))) stays as it was; a name
 * given literal text (x=y, x='a[...]'), or text mixed with expansions, does
 * not. Not caught: a value that holds code only at run time (read from a file
 * or a command's output). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_int.h"
#include "shparse/shparse.h"

#define NAME_MAX_LEN 64

enum { AV_NUMBER, AV_RUNTIME, AV_COPY, AV_TEXT };

static bool name_start(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool name_char(char c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* An integer as bash's arithmetic reads one: blanks, a sign, then digits,
 * 0xHEX or BASE#DIGITS; empty is 0. */
static bool is_number(const char *s)
{
	size_t n;

	s += strspn(s, " \t\n");
	if (*s == '+' || *s == '-')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2 + strspn(s + 2, "0123456789abcdefABCDEF");
	else if ((n = strspn(s, "0123456789")) && s[n] == '#' && s[n + 1])
		s += n + 1 + strspn(s + n + 1, "0123456789abcdefghijklmnopqrstuvwxyz"
						"ABCDEFGHIJKLMNOPQRSTUVWXYZ@_");
	else
		s += strspn(s, "0123456789");
	return s[strspn(s, " \t\n")] == '\0';
}

/* Past the ')' matching the '(' at s (quotes and backslashes skipped), or NULL. */
static const char *match_paren(const char *s)
{
	int depth = 0;

	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
		} else if (*s == '\'' || *s == '"') {
			const char *e = strchr(s + 1, *s);

			if (!e)
				return NULL;
			s = e;
		} else if (*s == '(') {
			depth++;
		} else if (*s == ')' && --depth == 0) {
			return s + 1;
		}
	}
	return NULL;
}

/* Is v exactly $name, ${name} or ${name:-N} / ${name:=N}? The name into copy. */
static bool is_copy(const char *v, char copy[NAME_MAX_LEN])
{
	bool brace = v[1] == '{';
	const char *p = v + 1 + brace, *e = p;

	if (v[0] != '$' || !name_start(*p))
		return false;
	while (name_char(*e))
		e++;
	if ((size_t)(e - p) >= NAME_MAX_LEN)
		return false;
	if (brace && (e[0] == ':' && (e[1] == '-' || e[1] == '=') && is_digit(e[2]))) {
		e += 2 + strspn(e + 2, "0123456789");
		if (strcmp(e, "}"))
			return false;
	} else if (brace ? strcmp(e, "}") : *e != '\0') {
		return false;
	}
	memcpy(copy, p, (size_t)(strcspn(p, "}:")));
	copy[strcspn(p, "}:")] = '\0';
	return true;
}

/* What one value (the text after NAME=, quotes removed, expansions as written;
 * flags: the word's) gives arithmetic. */
static int classify_one(const char *v, unsigned flags, char copy[NAME_MAX_LEN])
{
	size_t len = strlen(v);
	const char *e;

	if (!(flags & (PDK_SH_EXPANSION | PDK_SH_SUBST | PDK_SH_ARITH)) || !strpbrk(v, "$`"))
		return is_number(v) ? AV_NUMBER : AV_TEXT;
	if (!strncmp(v, "$((", 3) && (e = match_paren(v + 1)) && !*e)
		return AV_NUMBER;
	if (!strncmp(v, "$[", 2) && v[len - 1] == ']' && !strchr(v + 2, '$'))
		return AV_NUMBER;
	if (!strncmp(v, "${#", 3) && v[len - 1] == '}' && !strpbrk(v + 3, "$`"))
		return AV_NUMBER;
	if (!strncmp(v, "$(", 2) && (e = match_paren(v + 1)) && !*e)
		return AV_RUNTIME;
	if (v[0] == '`' && len > 1 && v[len - 1] == '`' && !memchr(v + 1, '`', len - 2))
		return AV_RUNTIME;
	if (is_copy(v, copy))
		return AV_COPY;
	return AV_TEXT;
}

int pdk_arith_assign(struct pdk_arith *a, const char *word, unsigned flags)
{
	size_t l = strcspn(word, "+=[");
	const char *v = strchr(word, '=');
	char copy[NAME_MAX_LEN] = "";
	int cls;

	if (!v || !pdk_policy_is_assignment_name(word, l) || l >= NAME_MAX_LEN)
		return 0;
	v++;
	if (v[0] == '(' && v[strlen(v) - 1] == ')') {
		/* an array: the worst of its elements */
		_cleanup_free_ char *els = strndup(v + 1, strlen(v) - 2);
		char *save = NULL;

		if (!els)
			return -ENOMEM;
		cls = AV_NUMBER;
		for (char *el = strtok_r(els, " \t\n", &save); el && cls != AV_TEXT;
		     el = strtok_r(NULL, " \t\n", &save)) {
			char c2[NAME_MAX_LEN] = "";
			int k;

			if (el[0] == '[' && strstr(el, "]="))
				el = strstr(el, "]=") + 2;
			k = classify_one(el, strpbrk(el, "$`") ? flags : 0, c2);
			cls = k == AV_COPY || k == AV_TEXT ? AV_TEXT : cls;
		}
	} else {
		cls = classify_one(v, flags, copy);
	}
	if (cls == AV_NUMBER || cls == AV_RUNTIME)
		return 0;
	struct pdk_arith_var *nv = realloc(a->vars, (a->nvars + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	a->vars = nv;
	nv = &a->vars[a->nvars];
	memset(nv, 0, sizeof(*nv));
	if (!(nv->name = strndup(word, l)) || !(nv->value = strdup(v)) ||
	    (cls == AV_COPY && !(nv->copies = strdup(copy)))) {
		free(nv->name);
		free(nv->value);
		return -ENOMEM;
	}
	nv->suspect = cls == AV_TEXT;
	a->nvars++;
	return 0;
}

static int add_use(struct pdk_arith *a, const char *name, size_t len,
		   const struct pdk_arith_where *at)
{
	struct pdk_arith_use *u;

	for (size_t i = 0; i < a->nuses; i++)
		if (strlen(a->uses[i].name) == len && !strncmp(a->uses[i].name, name, len))
			return 0; /* the first use of a name is the one shown */
	if (!(u = realloc(a->uses, (a->nuses + 1) * sizeof(*u))))
		return -ENOMEM;
	a->uses = u;
	u = &a->uses[a->nuses];
	u->at = *at;
	u->name = strndup(name, len);
	u->at.text = strdup(at->text);
	if (!u->name || !u->at.text) {
		free(u->name);
		free(u->at.text);
		return -ENOMEM;
	}
	a->nuses++;
	return 0;
}

int pdk_arith_uses(struct pdk_arith *a, const char *text, const struct pdk_arith_where *at)
{
	for (const char *s = text; *s;) {
		const char *e;

		if (s[0] == '$' && s[1] == '(' && s[2] != '(') {
			/* a command substitution: its words are a command's, not names */
			e = match_paren(s + 1);
			s = e ? e : s + strlen(s);
		} else if (s[0] == '`') {
			e = strchr(s + 1, '`');
			s = e ? e + 1 : s + strlen(s);
		} else if (s[0] == '$' && s[1] == '{' && s[2] == '#') {
			s += 3; /* ${#name}: a length */
			while (name_char(*s))
				s++;
		} else if (is_digit(*s)) {
			/* a number, 0xff, or 16#ff whose digits look like names */
			while (name_char(*s))
				s++;
			if (*s == '#')
				for (s++; name_char(*s) || *s == '@'; s++)
					;
		} else if (name_start(*s)) {
			for (e = s; name_char(*e); e++)
				;
			if (add_use(a, s, (size_t)(e - s), at) < 0)
				return -ENOMEM;
			s = e;
		} else {
			s++;
		}
	}
	return 0;
}

/* Does the name get, somewhere in the call, a value that is not a plain
 * number, by itself or through the names it copies? */
static const struct pdk_arith_var *suspect(const struct pdk_arith *a, const char *name,
					   unsigned hops)
{
	if (hops > 16)
		return NULL;
	for (size_t i = 0; i < a->nvars; i++) {
		const struct pdk_arith_var *v = &a->vars[i], *via;

		if (strcmp(v->name, name))
			continue;
		if (v->suspect)
			return v;
		if (v->copies && strcmp(v->copies, name) && (via = suspect(a, v->copies, hops + 1)))
			return via;
	}
	return NULL;
}

size_t pdk_arith_next(const struct pdk_arith *a, size_t from, const char **ret_value)
{
	for (size_t i = from; i < a->nuses; i++) {
		const struct pdk_arith_var *v = suspect(a, a->uses[i].name, 0);

		if (v) {
			*ret_value = v->value;
			return i;
		}
	}
	return SIZE_MAX;
}

void pdk_arith_release(struct pdk_arith *a)
{
	for (size_t i = 0; i < a->nvars; i++) {
		free(a->vars[i].name);
		free(a->vars[i].value);
		free(a->vars[i].copies);
	}
	for (size_t i = 0; i < a->nuses; i++) {
		free(a->uses[i].name);
		free(a->uses[i].at.text);
	}
	free(a->vars);
	free(a->uses);
	memset(a, 0, sizeof(*a));
}
