/* policy_arith.c - code in data through arithmetic. bash evaluates a variable
 * named in arithmetic by evaluating its value as an expression in turn, array
 * subscripts and the command substitutions in them included: after
 * x='a[$(rm -rf d)]', each of $((x)), ((x)), let x, [[ $x -eq 1 ]], ${a[x]},
 * ${s:x} and ${s:0:x} runs rm.
 *
 * The rule: an arithmetic context that names a variable (bare, or as $x) which
 * the script gives a value that is not a plain number makes the call moderate,
 * "code-in-data: arithmetic on x". A plain number is a literal integer (with a
 * sign, 0x or BASE#), a brace range of them, an arithmetic expansion, ${#...},
 * the output of a command known to print a number (number_command() below), or
 * a copy ($y, ${y}, ${y:-N}) of a name that is itself a plain number or not
 * set by the script (the environment). A value known only when it runs (read,
 * mapfile, getopts, printf -v from data that is not literal, the output of any
 * other command, a loop over such words) may hold a subscript too: arithmetic
 * on it makes the call moderate, "arithmetic on x (its value is known only
 * when it runs)". Everyday arithmetic (for ((i=0;i<n;i++)), i=$((i+1)),
 * n=$(wc -l <f); $((n+1))) stays as it was. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_int.h"
#include "shparse/shparse.h"

#define NAME_MAX_LEN 64

/* AV_RUNTIME: known only when it runs */
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

/* {N..M} or {N..M..S}: bash makes numbers of it. */
static bool is_range(const char *v)
{
	size_t n = strlen(v);
	_cleanup_free_ char *in = NULL;
	char *dots;

	if (n < 6 || v[0] != '{' || v[n - 1] != '}' || !(in = strndup(v + 1, n - 2)))
		return false;
	for (char *p = in; (dots = strstr(p, "..")); p = dots + 2)
		dots[0] = dots[1] = ' ';
	for (char *p = in; *p; p++)
		if (!is_digit(*p) && *p != ' ' && *p != '-' && *p != '+')
			return false;
	return strchr(in, ' ') != NULL;
}

/* The word without one pair of surrounding quotes. */
static void unquote(char *w)
{
	size_t n = strlen(w);

	if (n >= 2 && (w[0] == '\'' || w[0] == '"') && w[n - 1] == w[0]) {
		memmove(w, w + 1, n - 2);
		w[n - 2] = '\0';
	}
}

/* Does the format (quotes removed) print only digits: %d, %s of date, stat? */
static bool number_format(const char *f, const char *convs)
{
	if (!*f)
		return false;
	for (; *f; f++) {
		if (f[0] == '\\' && f[1] == 'n') {
			f++;
			continue;
		}
		if (*f != '%')
			return false;
		f++;
		f += strspn(f, "0123456789");
		if (!*f || !strchr(convs, *f))
			return false;
	}
	return true;
}

/*
 * Commands known to print one number (the last of a pipeline or list decides),
 * so that n=$(CMD) is a plain number. Kept small on purpose: anything else
 * prints what it likes, a file name or a line of a file included.
 *   wc -l/-c/-w/-m       with no file operand (wc -l f prints "3 f")
 *   nproc, id -u/-g      (not -n)
 *   date +%s             (a format of numeric conversions only)
 *   stat -c/--format     (%s %Y %X %Z %i %b %h %u %g only)
 *   git rev-list --count
 *   grep -c/--count      with at most one file, not recursive
 *   expr                 with an arithmetic or comparison operator, no string one
 *   echo $((...)), printf %d ...
 *   seq                  without -f or -s; tput cols/lines/colors
 */
static bool number_command(const char *inner)
{
	_cleanup_free_ char *buf = strdup(inner);
	char *last = buf, *w[32], *save = NULL;
	size_t n = 0, ops = 0;
	const char *prog;

	if (!buf)
		return false;
	/* the last command of a pipeline or list prints the value */
	for (char *p = buf; *p; p++) {
		if (*p == '\'' || *p == '"') {
			char *q = strchr(p + 1, *p);

			if (!q)
				return false;
			p = q;
		} else if (*p == '$' || *p == '`' || *p == '(') {
			if (p[0] == '$' && p[1] == '(' && p[2] == '(')
				p += 2; /* $(( )) is a number; its parentheses are its own */
			else if (*p != '$')
				return false; /* a nested command prints what it likes */
		} else if (*p == '|' || *p == ';' || *p == '&' || *p == '\n') {
			last = p + 1;
		}
	}
	for (char *t = strtok_r(last, " \t\n", &save); t && n < PDK_ARRAY_SIZE(w);
	     t = strtok_r(NULL, " \t\n", &save)) {
		/* redirections: <f, 2>/dev/null, < f */
		size_t k = strspn(t, "0123456789");

		if (t[k] == '<' || t[k] == '>' || (t[0] == '&' && t[1] == '>')) {
			/* the target is the next word when the operator stands alone */
			if (!t[k + strspn(t + k, "<>&")])
				strtok_r(NULL, " \t\n", &save);
			continue;
		}
		unquote(t);
		w[n++] = t;
	}
	if (!n)
		return false;
	prog = pdk_policy_base_name(w[0]);
	for (size_t i = 1; i < n; i++)
		ops += w[i][0] != '-' || !w[i][1];
	if (!strcmp(prog, "wc")) {
		bool count = false;

		for (size_t i = 1; i < n; i++)
			count |= w[i][0] == '-' && w[i][1] != '-' && strpbrk(w[i], "lcwm");
		return count && ops == 0;
	}
	if (!strcmp(prog, "nproc"))
		return ops == 0;
	if (!strcmp(prog, "id")) {
		bool num = false;

		for (size_t i = 1; i < n; i++) {
			if (w[i][0] == '-' && strpbrk(w[i], "nG"))
				return false;
			num |= w[i][0] == '-' && strpbrk(w[i], "ug");
		}
		return num && ops <= 1;
	}
	if (!strcmp(prog, "date"))
		return n == 2 && w[1][0] == '+' && number_format(w[1] + 1, "sNYmdHMSjuwyVGgCk");
	if (!strcmp(prog, "stat")) {
		for (size_t i = 1; i + 1 < n; i++)
			if (!strcmp(w[i], "-c") || !strcmp(w[i], "--format"))
				return number_format(w[i + 1], "sYXZibhug");
		for (size_t i = 1; i < n; i++)
			if (!strncmp(w[i], "--format=", 9))
				return number_format(w[i] + 9, "sYXZibhug");
		return false;
	}
	if (!strcmp(prog, "git"))
		for (size_t i = 1; i + 1 < n; i++)
			if (!strcmp(w[i], "rev-list"))
				for (size_t k = i + 1; k < n; k++)
					if (!strcmp(w[k], "--count"))
						return true;
	if (!strcmp(prog, "grep") || !strcmp(prog, "egrep") || !strcmp(prog, "fgrep")) {
		bool count = false;

		for (size_t i = 1; i < n; i++) {
			if (w[i][0] != '-' || !w[i][1])
				continue;
			if (!strcmp(w[i], "--count"))
				count = true;
			else if (w[i][1] == '-' || strpbrk(w[i], "rRHeflL"))
				return false;
			else
				count |= strchr(w[i], 'c') != NULL;
		}
		return count && ops <= 2;
	}
	if (!strcmp(prog, "expr")) {
		static const char *const arith_ops[] = {"+",  "-", "*", "/",  "%",	"=",
							"!=", "<", ">", "<=", ">=", "length",
							"index", NULL};
		static const char *const string_ops[] = {"|", "&", ":", "match", "substr", NULL};
		bool num = false;

		for (size_t i = 1; i < n; i++) {
			if (pdk_policy_in_list(w[i], string_ops))
				return false;
			num |= pdk_policy_in_list(w[i], arith_ops);
		}
		return num;
	}
	if (!strcmp(prog, "echo")) /* echo $(( a + 1 )): split at its blanks */
		return n >= 2 && !strncmp(w[1], "$((", 3) && strlen(w[n - 1]) >= 2 &&
		       !strcmp(w[n - 1] + strlen(w[n - 1]) - 2, "))");
	if (!strcmp(prog, "printf"))
		return n >= 2 && number_format(w[1], "diuxXo");
	if (!strcmp(prog, "seq")) {
		for (size_t i = 1; i < n; i++)
			if (w[i][0] == '-' && (strpbrk(w[i], "fs") || strstr(w[i], "--f") ||
					       strstr(w[i], "--s")))
				return false;
		return ops >= 1;
	}
	if (!strcmp(prog, "tput"))
		return n == 2 && (!strcmp(w[1], "cols") || !strcmp(w[1], "lines") ||
				  !strcmp(w[1], "colors"));
	return false;
}

/* What one value (the text after NAME=, quotes removed, expansions as written;
 * flags: the word's) gives arithmetic. */
static int classify_one(const char *v, unsigned flags, char copy[NAME_MAX_LEN])
{
	size_t len = strlen(v);
	const char *e;

	if (!(flags & (PDK_SH_EXPANSION | PDK_SH_SUBST | PDK_SH_ARITH)) || !strpbrk(v, "$`"))
		return is_number(v) || ((flags & PDK_SH_BRACE) && is_range(v)) ? AV_NUMBER
										 : AV_TEXT;
	if (!strncmp(v, "$((", 3) && (e = match_paren(v + 1)) && !*e)
		return AV_NUMBER;
	if (!strncmp(v, "$[", 2) && v[len - 1] == ']' && !strchr(v + 2, '$'))
		return AV_NUMBER;
	if (!strncmp(v, "${#", 3) && v[len - 1] == '}' && !strpbrk(v + 3, "$`"))
		return AV_NUMBER;
	if (!strncmp(v, "$(", 2) && (e = match_paren(v + 1)) && !*e) {
		_cleanup_free_ char *in = strndup(v + 2, len - 3);

		return in && number_command(in) ? AV_NUMBER : AV_RUNTIME;
	}
	if (v[0] == '`' && len > 1 && v[len - 1] == '`' && !memchr(v + 1, '`', len - 2)) {
		_cleanup_free_ char *in = strndup(v + 1, len - 2);

		return in && number_command(in) ? AV_NUMBER : AV_RUNTIME;
	}
	if (is_copy(v, copy))
		return AV_COPY;
	return AV_TEXT;
}

static int add_var(struct pdk_arith *a, const char *name, size_t l, const char *value, int cls,
		   const char *copy);

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
	if (cls == AV_NUMBER)
		return 0;
	return add_var(a, word, l, v, cls, copy);
}

static int add_var(struct pdk_arith *a, const char *name, size_t l, const char *value, int cls,
		   const char *copy)
{
	struct pdk_arith_var *nv = realloc(a->vars, (a->nvars + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	a->vars = nv;
	nv = &a->vars[a->nvars];
	memset(nv, 0, sizeof(*nv));
	if (!(nv->name = strndup(name, l)) || !(nv->value = strdup(value)) ||
	    (cls == AV_COPY && !(nv->copies = strdup(copy)))) {
		free(nv->name);
		free(nv->value);
		return -ENOMEM;
	}
	nv->suspect = cls == AV_TEXT;
	nv->unknown = cls == AV_RUNTIME;
	a->nvars++;
	return 0;
}

/* A name set to a value known only when it runs, by the command `how`. */
static int add_unknown(struct pdk_arith *a, const char *name, const char *how)
{
	size_t l = strcspn(name, "[");

	if (!pdk_policy_is_assignment_name(name, l) || l >= NAME_MAX_LEN)
		return 0;
	return add_var(a, name, l, how, AV_RUNTIME, NULL);
}

int pdk_arith_builtin(struct pdk_arith *a, const char *const *w, const unsigned *flags, size_t n)
{
	const char *prog = n ? w[0] : "";
	_cleanup_free_ char *how = NULL;
	size_t len = 0, i;
	int r = 0;

	for (i = 0; i < n; i++)
		len += strlen(w[i]) + 1;
	if (!(how = malloc(len + 1)))
		return -ENOMEM;
	how[0] = '\0';
	for (i = 0; i < n; i++)
		strcat(strcat(how, i ? " " : ""), w[i]);
	if (!strcmp(prog, "declare") || !strcmp(prog, "typeset") || !strcmp(prog, "local")) {
		bool assoc = false;

		for (i = 1; i < n && r >= 0; i++) {
			if (w[i][0] == '-' && strchr(w[i], 'A'))
				assoc = true;
			else if (assoc && w[i][0] != '-' && w[i][0] != '+')
				r = pdk_strv_take(&a->assoc, strndup(w[i], strcspn(w[i], "=[")));
		}
		return r < 0 ? -ENOMEM : 0;
	}
	if (!strcmp(prog, "read") || !strcmp(prog, "mapfile") || !strcmp(prog, "readarray")) {
		/* options that take an argument; read -a's is the name */
		const char *argopts = !strcmp(prog, "read") ? "adinNptu" : "dnOsuCc";
		bool named = false;

		for (i = 1; i < n && r >= 0; i++) {
			const char *o = w[i];

			if (!strcmp(o, "--")) {
				i++;
				break;
			}
			if (o[0] != '-' || !o[1] || (flags[i] & PDK_SH_EXPANSION))
				break;
			for (o++; *o; o++) {
				if (!strchr(argopts, *o))
					continue;
				const char *arg = o[1] ? o + 1 : i + 1 < n ? w[++i] : "";

				if (*o == 'a' && argopts[0] == 'a') {
					r = add_unknown(a, arg, how);
					named = true;
				}
				break;
			}
		}
		for (; i < n && r >= 0; i++, named = true)
			r = add_unknown(a, w[i], how);
		if (!named && r >= 0)
			r = add_unknown(a, argopts[0] == 'a' ? "REPLY" : "MAPFILE", how);
		return r;
	}
	if (!strcmp(prog, "getopts")) {
		if (n >= 3)
			r = add_unknown(a, w[2], how);
		return r < 0 ? r : add_unknown(a, "OPTARG", how);
	}
	if (!strcmp(prog, "printf")) {
		const char *name = NULL;
		bool literal = true;

		for (i = 1; i < n; i++) {
			if (!strcmp(w[i], "--")) {
				i++;
				break;
			}
			if (!strcmp(w[i], "-v") && i + 1 < n)
				name = w[++i];
			else if (!strncmp(w[i], "-v", 2))
				name = w[i] + 2;
			else
				break;
		}
		if (!name || i >= n)
			return 0;
		for (size_t k = i; k < n; k++)
			literal &= !(flags[k] & (PDK_SH_EXPANSION | PDK_SH_SUBST | PDK_SH_ARITH |
						 PDK_SH_GLOB | PDK_SH_BRACE));
		if (number_format(w[i], "diuxXo"))
			return 0;
		if (!literal)
			return add_unknown(a, name, how);
		/* literal: the text it prints, as far as it is plain */
		{
			const char *v = !strcmp(w[i], "%s") && i + 1 < n ? w[i + 1] : w[i];
			size_t l = strcspn(name, "[");

			if (!pdk_policy_is_assignment_name(name, l) || l >= NAME_MAX_LEN ||
			    is_number(v))
				return 0;
			return add_var(a, name, l, v, AV_TEXT, NULL);
		}
	}
	return 0;
}

static int add_use(struct pdk_arith *a, const char *name, size_t len,
		   const struct pdk_arith_where *at)
{
	struct pdk_arith_use *u;

	for (size_t i = 0; i < a->nuses; i++)
		if (strlen(a->uses[i].name) == len && !strncmp(a->uses[i].name, name, len) &&
		    !a->uses[i].at.array == !at->array &&
		    (!at->array || !strcmp(a->uses[i].at.array, at->array)))
			return 0; /* the first use of a name is the one shown */
	if (!(u = realloc(a->uses, (a->nuses + 1) * sizeof(*u))))
		return -ENOMEM;
	a->uses = u;
	u = &a->uses[a->nuses];
	u->at = *at;
	u->name = strndup(name, len);
	u->at.text = strdup(at->text);
	u->at.array = at->array ? strdup(at->array) : NULL;
	if (!u->name || !u->at.text || (at->array && !u->at.array)) {
		free(u->name);
		free(u->at.text);
		free(u->at.array);
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

static bool in_assoc(const struct pdk_arith *a, const char *name)
{
	for (size_t i = 0; i < a->assoc.n; i++)
		if (!strcmp(a->assoc.v[i], name))
			return true;
	return false;
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
		if (v->suspect || v->unknown)
			return v;
		if (v->copies && strcmp(v->copies, name) && (via = suspect(a, v->copies, hops + 1)))
			return via;
	}
	return NULL;
}

size_t pdk_arith_next(const struct pdk_arith *a, size_t from,
		      const struct pdk_arith_var **ret_var)
{
	for (size_t i = from; i < a->nuses; i++) {
		const struct pdk_arith_var *v;

		/* an associative array's subscript is a string, not evaluated */
		if (a->uses[i].at.array && in_assoc(a, a->uses[i].at.array))
			continue;
		if ((v = suspect(a, a->uses[i].name, 0))) {
			*ret_var = v;
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
		free(a->uses[i].at.array);
	}
	pdk_strv_release(&a->assoc);
	free(a->vars);
	free(a->uses);
	memset(a, 0, sizeof(*a));
}
