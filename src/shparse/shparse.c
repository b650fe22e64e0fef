/* shparse.c - hand-written lexer and recursive-descent parser for sh -c
 * scripts, reporting every simple command so the policy can judge each one.
 * This file: the entry point, the script's commands, and the helpers every
 * part uses (errors, nesting, buffers); words and tokens are in shparse_lex.c,
 * here-documents in shparse_heredoc.c, the grammar in shparse_grammar.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "shparse_int.h"

/* ---- small helpers ---------------------------------------------------- */

int pdk_sh_nomem(struct parser *p)
{
	if (!p->failed) {
		p->failed = true;
		p->rc = -ENOMEM;
		p->err_off = 0;
		snprintf(p->err_msg, sizeof(p->err_msg), "out of memory");
	}
	return -ENOMEM;
}

__attribute__((format(printf, 4, 5))) int pdk_sh_fail(struct parser *p, const struct lexer *lx,
						      size_t pos, const char *fmt, ...)
{
	if (!p->failed) {
		va_list ap;

		p->failed = true;
		p->rc = -EINVAL;
		p->err_off = orig(lx, pos);
		va_start(ap, fmt);
		vsnprintf(p->err_msg, sizeof(p->err_msg), fmt, ap);
		va_end(ap);
	}
	return p->rc;
}

static void line_col(const char *s, size_t len, size_t off, int *line, int *col)
{
	size_t ls = 0;
	int l = 1;

	if (off > len)
		off = len;
	for (size_t i = 0; i < off; i++)
		if (s[i] == '\n') {
			l++;
			ls = i + 1;
		}
	*line = l;
	*col = (int)(off - ls + 1);
}

/* "expected 'fi' to match 'if' at 1:1": where the construct began helps more
 * than where the parser gave up. */
int pdk_sh_fail_match(struct parser *p, size_t pos, const char *want, const char *opener,
		      size_t open_off)
{
	int l, c;

	line_col(p->script, p->script_len, open_off, &l, &c);
	return pdk_sh_fail(p, p->lx, pos, "expected '%s' to match '%s' at %d:%d", want, opener, l, c);
}

int pdk_sh_enter(struct parser *p, const struct lexer *lx, size_t pos)
{
	if (++p->depth > PDK_SH_MAX_DEPTH)
		return pdk_sh_fail(p, lx, pos, "nested too deeply (limit %d)", PDK_SH_MAX_DEPTH);
	return 0;
}

void pdk_sh_leave(struct parser *p)
{
	p->depth--;
}

int pdk_sh_grow(void **arr, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 16;
	while (ncap < need)
		ncap *= 2;
	void *n = realloc(*arr, ncap * size);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

int pdk_sh_wb_putn(struct wbuf *w, const char *s, size_t n)
{
	if (pdk_sh_grow((void **)&w->s, &w->cap, w->len + n + 1, 1) < 0)
		return -ENOMEM;
	memcpy(w->s + w->len, s, n);
	w->len += n;
	w->s[w->len] = '\0';
	return 0;
}

int pdk_sh_wb_putc(struct wbuf *w, char c)
{
	return pdk_sh_wb_putn(w, &c, 1);
}

void pdk_sh_wb_init(struct wbuf *w)
{
	memset(w, 0, sizeof(*w));
	w->lit = true;
	w->eq = SIZE_MAX;
}

bool pdk_sh_is_name(const char *s)
{
	if (!is_name_start((unsigned char)*s))
		return false;
	while (*++s)
		if (!is_name_char((unsigned char)*s))
			return false;
	return true;
}

static void word_clear(struct pdk_sh_word *w)
{
	free(w->text);
	w->text = NULL;
}

void pdk_sh_tok_clear(struct token *t)
{
	if (t->kind == TK_WORD)
		word_clear(&t->w);
	t->kind = TK_NONE;
}

void pdk_sh_lexer_done(struct lexer *lx)
{
	pdk_sh_tok_clear(&lx->tok);
	for (size_t i = 0; i < lx->nhd; i++)
		free(lx->hd[i].delim);
	free(lx->hd);
}

/* ---- public API -------------------------------------------------------- */

void pdk_sh_script_free(struct pdk_sh_script *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		pdk_sh_node_free(s->cmds[i]);
	free(s->cmds);
	for (size_t i = 0; i < s->narith; i++) {
		free(s->arith[i]);
		free((char *)s->arith_src[i].where);
		free((char *)s->arith_src[i].array);
	}
	free(s->arith);
	free(s->arith_src);
	for (size_t i = 0; i < s->nloopvals; i++)
		free(s->loopvals[i].text);
	free(s->loopvals);
	free(s);
}

static inline void script_freep(struct pdk_sh_script **s)
{
	pdk_sh_script_free(*s);
}

size_t pdk_sh_ncommands(const struct pdk_sh_script *s)
{
	return s ? s->n : 0;
}

const struct pdk_sh_command *pdk_sh_command_at(const struct pdk_sh_script *s, size_t i)
{
	if (!s || i >= s->n)
		return NULL;
	return &s->cmds[i]->c;
}

int pdk_sh_add_arith_src(struct parser *p, const char *s, size_t len, const char *where,
			 size_t wlen, const char *array, size_t alen, bool code)
{
	struct pdk_sh_script *o = p->out;
	char *t, *w = NULL, *a = NULL;

	if (pdk_sh_grow((void **)&o->arith, &o->arithcap, o->narith + 1, sizeof(*o->arith)) < 0 ||
	    pdk_sh_grow((void **)&o->arith_src, &o->arithsrccap, o->narith + 1,
			sizeof(*o->arith_src)) < 0 ||
	    !(t = strndup(s, len)))
		return pdk_sh_nomem(p);
	if ((where && !(w = strndup(where, wlen))) || (array && !(a = strndup(array, alen)))) {
		free(t);
		free(w);
		return pdk_sh_nomem(p);
	}
	o->arith_src[o->narith] = (struct pdk_sh_arith_src){.where = w, .array = a, .code = code};
	o->arith[o->narith++] = t;
	return 0;
}

int pdk_sh_add_arith(struct parser *p, const char *s, size_t len)
{
	return pdk_sh_add_arith_src(p, s, len, NULL, 0, NULL, 0, false);
}

size_t pdk_sh_narith(const struct pdk_sh_script *s)
{
	return s ? s->narith : 0;
}

const char *pdk_sh_arith_at(const struct pdk_sh_script *s, size_t i)
{
	return s && i < s->narith ? s->arith[i] : NULL;
}

const struct pdk_sh_arith_src *pdk_sh_arith_src_at(const struct pdk_sh_script *s, size_t i)
{
	return s && i < s->narith ? &s->arith_src[i] : NULL;
}

size_t pdk_sh_nloopvals(const struct pdk_sh_script *s)
{
	return s ? s->nloopvals : 0;
}

const struct pdk_sh_word *pdk_sh_loopval_at(const struct pdk_sh_script *s, size_t i)
{
	return s && i < s->nloopvals ? &s->loopvals[i] : NULL;
}

static int cmp_node(const void *a, const void *b)
{
	const struct node *x = *(const struct node *const *)a, *y = *(const struct node *const *)b;

	if (x->c.offset != y->c.offset)
		return x->c.offset < y->c.offset ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int pdk_sh_parse(const char *script, size_t len, struct pdk_sh_script **ret,
		 struct pdk_error *err)
{
	__attribute__((cleanup(script_freep))) struct pdk_sh_script *out = NULL;
	struct lexer lx = { 0 };
	struct parser p = { 0 };
	struct token *t;
	size_t n;
	int r;

	if (!script && len)
		return -EINVAL;
	out = calloc(1, sizeof(*out));
	if (!out)
		return -ENOMEM;
	lx.s = script ? script : "";
	lx.len = len;
	p.out = out;
	p.lx = &lx;
	p.script = lx.s;
	p.script_len = len;
	p.trial_budget = 8 * len + 65536;
	r = pdk_sh_parse_list(&p, &n);
	if (r >= 0) {
		r = pdk_sh_peek(&p, &t);
		if (r >= 0 && t->kind != TK_EOF)
			r = pdk_sh_unexpected(&p, t);
	}
	pdk_sh_lexer_done(&lx);
	if (r < 0) {
		if (err) {
			memset(err, 0, sizeof(*err));
			if (r == -EINVAL)
				line_col(lx.s, len, p.err_off, &err->line, &err->column);
			snprintf(err->message, sizeof(err->message), "%s", p.err_msg);
		}
		return r;
	}

	/* Pipelines and & seen after a here-document was read reach its
	 * commands through the command that holds the redirection. */
	for (size_t i = 0; i < out->n; i++) {
		struct node *nd = out->cmds[i];

		if (nd->owner)
			nd->c.context |= nd->owner->c.context &
					 (PDK_SH_IN_PIPELINE | PDK_SH_IN_BACKGROUND);
	}
	if (out->n)
		qsort(out->cmds, out->n, sizeof(*out->cmds), cmp_node);

	/* Line and column in one pass over the sorted offsets. */
	size_t at = 0, ls = 0;
	int line = 1;
	for (size_t i = 0; i < out->n; i++) {
		struct pdk_sh_command *c = &out->cmds[i]->c;

		for (; at < c->offset && at < len; at++)
			if (lx.s[at] == '\n') {
				line++;
				ls = at + 1;
			}
		c->line = line;
		c->column = (int)(c->offset - ls + 1);
	}
	*ret = steal_pointer(&out);
	return 0;
}

int pdk_sh_parse_bytes(const uint8_t *data, size_t size)
{
	struct pdk_sh_script *s = NULL;
	struct pdk_error err;
	int r = pdk_sh_parse((const char *)data, size, &s, &err);

	if (r >= 0) {
		/* touch everything the policy would read */
		for (size_t i = 0; i < pdk_sh_ncommands(s); i++) {
			const struct pdk_sh_command *c = pdk_sh_command_at(s, i);

			if (!c || c->text == NULL || (c->nwords && c->words[0].text == NULL))
				abort();
		}
		for (size_t i = 0; s && i < s->narith; i++)
			if (!s->arith[i] || (s->arith_src[i].where && !*s->arith_src[i].where))
				abort();
		pdk_sh_script_free(s);
	}
	return r;
}
