/* policy_rm.c - the rm a call names itself (its argv, or a simple command of its sh -c
 * script, through wrappers and nested scripts) rewritten to paddock's trash rm, by path;
 * rm run by the programs the call starts (configure, make, npm scripts) is left theirs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_int.h"
#include "shparse/shparse.h"

#define NONLITERAL                                                                                 \
	(PDK_SH_EXPANSION | PDK_SH_SUBST | PDK_SH_ARITH | PDK_SH_GLOB | PDK_SH_TILDE | PDK_SH_BRACE)

/* One word where it can be replaced: an argv slot, or a span of a script. */
struct rword {
	const char *s;
	unsigned flags;
	size_t argi;	  /* argv: its index */
	size_t off, len;  /* script: where it is */
};

struct edit {
	size_t at, off, len; /* argv index, or span in the script */
	char *text;
};

struct rctx {
	const char *rm_path;
	bool script;	  /* words are spans of a script (else argv slots) */
	const char *src;  /* the script */
	struct edit *v;
	size_t n;
	char *why;
	size_t why_len;
};

static int rewrite_script(const char *rm_path, const char *s, size_t len, unsigned depth,
			  char **ret, char *why, size_t why_len);

/* 'text', with the quotes inside escaped as '\'' */
static char *sh_quote(const char *text)
{
	size_t n = 3;
	char *q, *p;

	for (const char *c = text; *c; c++)
		n += *c == '\'' ? 4 : 1;
	if (!(q = p = malloc(n)))
		return NULL;
	*p++ = '\'';
	for (const char *c = text; *c; c++) {
		if (*c == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = *c;
		}
	}
	*p++ = '\'';
	*p = '\0';
	return q;
}

/* Replace word w by text (raw: an argv value, quoted for a script). */
static int replace(struct rctx *x, const struct rword *w, const char *raw)
{
	struct edit *v = realloc(x->v, (x->n + 1) * sizeof(*v));
	char *text;

	if (!v)
		return -ENOMEM;
	x->v = v;
	text = x->script ? sh_quote(raw) : strdup(raw);
	if (!text)
		return -ENOMEM;
	v[x->n++] = (struct edit){.at = w->argi, .off = w->off, .len = w->len, .text = text};
	return 0;
}

/* The script span is the word rm however quoted (\rm, "rm", r''m): what the parser said. */
static bool span_is_rm(const struct rctx *x, const struct rword *w)
{
	char buf[8];
	size_t k = 0;

	if (!x->script)
		return true;
	for (size_t i = 0; i < w->len && k < sizeof(buf) - 1; i++)
		if (!strchr("'\"\\", x->src[w->off + i]))
			buf[k++] = x->src[w->off + i];
	buf[k] = '\0';
	return !strcmp(buf, "rm");
}

/* A nested script: its rm rewritten, then the whole word replaced by it, quoted. */
static int nested(struct rctx *x, const struct rword *w, unsigned depth)
{
	_cleanup_free_ char *inner = NULL;
	int r;

	if (w->flags & NONLITERAL || depth > PDK_POLICY_MAX_SH_DEPTH)
		return 0; /* the policy refuses these */
	r = rewrite_script(x->rm_path, w->s, strlen(w->s), depth, &inner, x->why, x->why_len);
	if (r < 0)
		return r;
	return inner ? replace(x, w, inner) : 0; /* nothing rewritten, nothing to replace */
}

static int walk(struct rctx *x, const struct rword *w, size_t n, unsigned depth);

static int walk_shell(struct rctx *x, const struct rword *w, size_t n, unsigned depth)
{
	bool has_c = false;
	size_t i = 1;

	for (int k; i < n; i += (size_t)k)
		if ((k = pdk_policy_shell_option(w[i].s, !(w[i].flags & NONLITERAL), &has_c)) <= 0) {
			i += k < 0;
			break;
		}
	return has_c && i < n ? nested(x, &w[i], depth + 1) : 0;
}

static int walk_find(struct rctx *x, const struct rword *w, size_t n, unsigned depth)
{
	for (size_t i = 1; i < n; i++) {
		const char *s = w[i].s;
		size_t j;
		int r;

		if (pdk_policy_find_takes_pattern(s) || !strncmp(s, "-fprint", 7) ||
		    !strcmp(s, "-fls")) {
			i += !strcmp(s, "-fprintf") ? 2 : 1;
			continue;
		}
		if (strcmp(s, "-exec") && strcmp(s, "-execdir") && strcmp(s, "-ok") &&
		    strcmp(s, "-okdir"))
			continue;
		for (j = i + 1; j < n; j++)
			if (!strcmp(w[j].s, ";") ||
			    (!strcmp(w[j].s, "+") && j > i + 1 && !strcmp(w[j - 1].s, "{}")))
				break;
		if (j > i + 1 && (r = walk(x, w + i + 1, j - i - 1, depth)) < 0)
			return r;
		i = j;
	}
	return 0;
}

/* The program of w (after wrappers), as the policy's judge() finds it. */
static int walk(struct rctx *x, const struct rword *w, size_t n, unsigned depth)
{
	for (;;) {
		const struct pdk_wrapper *wr;
		const struct pdk_prog_class *cls;
		const char *prog;
		unsigned kind;
		size_t k, optarg_at = SIZE_MAX;
		bool seen[128] = {false};
		struct pdk_pword pw[64];

		if (!n || (w[0].flags & NONLITERAL) || !*w[0].s)
			return 0;
		prog = pdk_policy_base_name(w[0].s);
		if (!strcmp(w[0].s, "rm")) {
			if (!span_is_rm(x, &w[0])) {
				/* Run as written, it would be the system's rm: refused. */
				snprintf(x->why, x->why_len,
					 "the rm at byte %zu of the script is spelled so that "
					 "paddock cannot point it at the trash ($'...' quoting, or "
					 "a backslash-newline inside the word), and as written it "
					 "would delete for good, so nothing ran: write it as plain "
					 "`rm` ('rm', \\rm and \"rm\" are fine too)",
					 w[0].off + 1);
				return -EINVAL;
			}
			return replace(x, &w[0], x->rm_path);
		}
		cls = pdk_policy_classify(prog);
		kind = cls ? cls->kind : 0;
		if ((kind & PDK_PK_INDIRECT) && !strcmp(prog, "trap") && n > 2) {
			size_t a = !strcmp(w[1].s, "--") ? 2 : 1;

			if (a == 1 && w[1].s[0] == '-' && strcmp(w[1].s, "-"))
				return 0;
			return a < n && *w[a].s && strcmp(w[a].s, "-") ? nested(x, &w[a], depth + 1)
								       : 0;
		}
		if (kind & PDK_PK_SHELL)
			return walk_shell(x, w, n, depth);
		if (kind & PDK_PK_FIND)
			return walk_find(x, w, n, depth);
		if (!(kind & PDK_PK_WRAPPER) || !(wr = pdk_policy_wrapper(prog)))
			return 0;
		if (n > PDK_ARRAY_SIZE(pw))
			return 0;
		for (size_t i = 0; i < n; i++)
			pw[i] = (struct pdk_pword){w[i].s, w[i].flags};
		k = pdk_policy_wrapper_skip(wr, pw, n, seen, &optarg_at);
		if (!strcmp(prog, "command") && (seen['v'] || seen['V']))
			return 0;
		if ((wr->flags & PDK_W_PID) && seen['p'])
			return 0;
		if (!strcmp(prog, "flock") && k < n &&
		    (!strcmp(w[k].s, "-c") || !strcmp(w[k].s, "--command"))) {
			seen['c'] = true;
			optarg_at = k + 1;
		}
		if (!strcmp(prog, "flock") && seen['c'])
			return optarg_at < n ? nested(x, &w[optarg_at], depth + 1) : 0;
		if (!strcmp(prog, "parallel")) {
			size_t end = k;

			while (end < n && strncmp(w[end].s, ":::", 3))
				end++;
			if (end == k + 1 && strpbrk(w[k].s, " \t\n;|&"))
				return nested(x, &w[k], depth + 1);
			n = end;
		}
		if (k >= n)
			return 0;
		w += k;
		n -= k;
	}
}

static int cmp_edit(const void *a, const void *b)
{
	const struct edit *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* 1 with *ret the script rewritten, 0 when it names no rm, or -errno. */
static int rewrite_script(const char *rm_path, const char *s, size_t len, unsigned depth,
			  char **ret, char *why, size_t why_len)
{
	struct rctx x = {.rm_path = rm_path, .script = true, .src = s, .why = why,
			 .why_len = why_len};
	struct pdk_sh_script *sc = NULL;
	int r;

	if (pdk_sh_parse(s, len, &sc, NULL) < 0)
		return 0; /* the policy refused it */
	r = 0;
	for (size_t i = 0; r >= 0 && i < pdk_sh_ncommands(sc); i++) {
		const struct pdk_sh_command *c = pdk_sh_command_at(sc, i);
		struct rword *w = calloc(c->nwords + 1, sizeof(*w));

		if (!w) {
			r = -ENOMEM;
			break;
		}
		for (size_t j = 0; j < c->nwords; j++)
			w[j] = (struct rword){.s = c->words[j].text, .flags = c->words[j].flags,
					      .off = c->words[j].offset, .len = c->words[j].length};
		r = walk(&x, w, c->nwords, depth);
		free(w);
	}
	if (r >= 0 && x.n) {
		/* Edits of nested words may cover an outer one's span: none overlap, since a
		 * command's words are disjoint and a nested script is one word. */
		FILE *f;
		char *out = NULL;
		size_t out_len = 0, at = 0;

		qsort(x.v, x.n, sizeof(*x.v), cmp_edit);
		if (!(f = open_memstream(&out, &out_len))) {
			r = -ENOMEM;
		} else {
			for (size_t i = 0; i < x.n; i++) {
				if (x.v[i].off < at)
					continue;
				fwrite(s + at, 1, x.v[i].off - at, f);
				fputs(x.v[i].text, f);
				at = x.v[i].off + x.v[i].len;
			}
			fwrite(s + at, 1, len - at, f);
			if (fclose(f) != 0) {
				free(out);
				r = -ENOMEM;
			} else {
				*ret = out;
				r = 1;
			}
		}
	}
	for (size_t i = 0; i < x.n; i++)
		free(x.v[i].text);
	free(x.v);
	pdk_sh_script_free(sc);
	return r;
}

int pdk_policy_rm_rewrite(char *const *argv, const char *rm_path, char ***ret_argv, char *why,
			  size_t why_len)
{
	struct rctx x = {.rm_path = rm_path, .why = why, .why_len = why_len};
	_cleanup_free_ struct rword *w = NULL;
	size_t argc = 0;
	char **out;
	int r;

	*ret_argv = NULL;
	while (argv[argc])
		argc++;
	if (!(w = calloc(argc + 1, sizeof(*w))))
		return -ENOMEM;
	for (size_t i = 0; i < argc; i++)
		w[i] = (struct rword){.s = argv[i], .argi = i};
	/* An argv rm itself is carried out by paddock; only what it starts is looked at. */
	if (argc && !strcmp(argv[0], "rm"))
		return 0;
	r = walk(&x, w, argc, 0);
	if (r >= 0 && x.n) {
		if (!(out = calloc(argc + 1, sizeof(*out)))) {
			r = -ENOMEM;
		} else {
			for (size_t i = 0; i < x.n; i++)
				out[x.v[i].at] = x.v[i].text, x.v[i].text = NULL;
			for (size_t i = 0; i < argc; i++)
				if (!out[i] && !(out[i] = strdup(argv[i])))
					r = -ENOMEM;
			if (r < 0)
				pdk_strv_freep(&out);
			else
				*ret_argv = out, r = 1;
		}
	}
	for (size_t i = 0; i < x.n; i++)
		free(x.v[i].text);
	free(x.v);
	return r;
}
