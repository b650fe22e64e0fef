/* shparse_lex.c - the sh parser's lexer: words (quotes, expansions,
 * substitutions parsed in place), operators and tokens. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "shparse_int.h"

/* ---- operator names ------------------------------------------------------ */

static const char *const op_names[] = {
	[OP_AND_IF] = "&&", [OP_OR_IF] = "||",	 [OP_DSEMI] = ";;",  [OP_SEMI_AND] = ";&",
	[OP_DSEMI_AND] = ";;&", [OP_PIPE] = "|", [OP_PIPE_AND] = "|&", [OP_AMP] = "&",
	[OP_SEMI] = ";",	[OP_LPAREN] = "(", [OP_RPAREN] = ")",
};

static const char *const redir_names[] = {
	[PDK_SH_REDIR_IN] = "<",	   [PDK_SH_REDIR_OUT] = ">",
	[PDK_SH_REDIR_APPEND] = ">>",	   [PDK_SH_REDIR_CLOBBER] = ">|",
	[PDK_SH_REDIR_RDWR] = "<>",	   [PDK_SH_REDIR_DUPIN] = "<&",
	[PDK_SH_REDIR_DUPOUT] = ">&",	   [PDK_SH_REDIR_HEREDOC] = "<<",
	[PDK_SH_REDIR_HEREDOC_STRIP] = "<<-", [PDK_SH_REDIR_HERESTRING] = "<<<",
	[PDK_SH_REDIR_OUT_ERR] = "&>",	   [PDK_SH_REDIR_APPEND_ERR] = "&>>",
};

const char *pdk_sh_redir_op_name(enum pdk_sh_redir_op op)
{
	if ((unsigned)op >= PDK_ARRAY_SIZE(redir_names))
		return "?";
	return redir_names[op];
}

/* ---- word lexing ------------------------------------------------------- */

/* At a single quote: the quote that closes it, or NULL with the failure recorded. */
const char *pdk_sh_squote_end(struct parser *p, const struct lexer *lx)
{
	const char *q = memchr(lx->s + lx->pos + 1, '\'', lx->len - lx->pos - 1);

	if (!q)
		pdk_sh_fail(p, lx, lx->pos, "unterminated single quote");
	return q;
}

static int lex_word(struct parser *p, struct lexer *lx, struct wbuf *w);

/* Appends the raw source lx->s[from, lx->pos) to w: how an expansion's text
 * is kept. */
static int put_raw(struct lexer *lx, struct wbuf *w, size_t from)
{
	return pdk_sh_wb_putn(w, lx->s + from, lx->pos - from);
}

/* $( ... ), <( ... ), >( ... ): the content is a script, parsed in place
 * with the real parser so case patterns, here-documents and nested
 * substitutions inside it behave as in a shell. lx->pos is at the '('. */
static int lex_cmdsubst(struct parser *p, struct lexer *lx, size_t start, unsigned ctxflag)
{
	unsigned saved_ctx = p->ctx;
	struct token *t;
	size_t n;
	int r;

	r = pdk_sh_enter(p, lx, start);
	if (r < 0)
		return r;
	adv(lx); /* ( */
	p->ctx |= ctxflag;
	p->subst_depth++;
	r = pdk_sh_parse_list(p, &n);
	if (r >= 0)
		r = pdk_sh_peek(p, &t);
	if (r >= 0 && !(t->kind == TK_OP && t->op == OP_RPAREN)) {
		char buf[64];

		if (t->kind == TK_EOF)
			r = pdk_sh_fail(p, lx, start, "unterminated command substitution");
		else
			r = pdk_sh_fail(p, lx, t->start, "syntax error near unexpected token '%s'",
				 pdk_sh_tok_desc(t, buf, sizeof(buf)));
	}
	if (r >= 0)
		pdk_sh_consume(p);
	p->subst_depth--;
	p->ctx = saved_ctx;
	pdk_sh_leave(p);
	return r;
}

/*
 * Is "((" just before i the start of arithmetic? As bash decides it: only
 * when the parenthesis matching the second '(' is directly followed by ')'.
 * Returns 1 or 0. The look-ahead is charged to a budget proportional to the
 * script, so a script built to make every "((" scan to its end fails rather
 * than taking quadratic time.
 */
int pdk_sh_arith_trial(struct parser *p, const struct lexer *lx, size_t i)
{
	size_t from = i;
	int depth = 0, r = 0;

	for (; i < lx->len; i++) {
		char c = lx->s[i];

		if (c == '\\') {
			i++;
		} else if (c == '\'' || c == '"') {
			while (++i < lx->len && lx->s[i] != c)
				if (c == '"' && lx->s[i] == '\\')
					i++;
		} else if (c == '(') {
			/* too deep either way, arithmetic or subshells */
			if (++depth + p->depth > PDK_SH_MAX_DEPTH) {
				r = pdk_sh_fail(p, lx, i, "nested too deeply (limit %d)", PDK_SH_MAX_DEPTH);
				break;
			}
		} else if (c == ')') {
			if (depth == 0) {
				r = i + 1 < lx->len && lx->s[i + 1] == ')';
				break;
			}
			depth--;
		}
	}
	if (r < 0)
		return r;
	if (i - from > p->trial_budget)
		return pdk_sh_fail(p, lx, from, "too many '((' whose meaning depends on distant text");
	p->trial_budget -= i - from;
	return r;
}

/* Arithmetic text up to and including the closing "))" (or "]" for $[ ]);
 * lx->pos is just after the opening. Substitutions inside are parsed. */
int pdk_sh_scan_arith(struct parser *p, struct lexer *lx, size_t start, struct wbuf *scratch,
		      bool bracket)
{
	unsigned saved_ctx = p->ctx;
	int paren = 0, r = 0;

	p->ctx |= PDK_SH_IN_ARITH;
	for (;;) {
		int c = cur(lx);

		if (c < 0) {
			r = pdk_sh_fail(p, lx, start, "unterminated arithmetic expansion");
			break;
		}
		if (bracket && c == '[') {
			paren++;
		} else if (bracket && c == ']') {
			if (paren-- == 0) {
				adv(lx);
				break;
			}
		} else if (!bracket && c == '(') {
			paren++;
		} else if (!bracket && c == ')') {
			if (paren == 0) {
				if (la(lx, 1) != ')') {
					r = pdk_sh_fail(p, lx, lx->pos, "expected '))' to end arithmetic");
					break;
				}
				adv(lx);
				adv(lx);
				break;
			}
			paren--;
		} else if (c == '$') {
			r = pdk_sh_lex_dollar(p, lx, scratch, true);
			if (r < 0)
				break;
			continue;
		} else if (c == '`') {
			r = pdk_sh_lex_backtick(p, lx, scratch, true);
			if (r < 0)
				break;
			continue;
		} else if (c == '"') {
			r = pdk_sh_lex_dquote(p, lx, scratch);
			if (r < 0)
				break;
			continue;
		} else if (c == '\\') {
			lx->pos++;
		}
		if (p->depth + (unsigned)(paren > 0 ? paren : 0) > PDK_SH_MAX_DEPTH) {
			r = pdk_sh_fail(p, lx, lx->pos, "nested too deeply (limit %d)", PDK_SH_MAX_DEPTH);
			break;
		}
		if (lx->pos < lx->len)
			lx->pos++;
	}
	p->ctx = saved_ctx;
	if (r >= 0 && lx->pos > start && lx->pos <= lx->len)
		r = pdk_sh_add_arith(p, lx->s + start, lx->pos - start);
	return r;
}

/* The first of stops in [s, e) outside quotes and brackets, or e. */
static const char *param_find(const char *s, const char *e, const char *stops)
{
	int depth = 0;

	for (; s < e; s++) {
		if (depth == 0 && strchr(stops, *s))
			return s;
		if (*s == '\\' && s + 1 < e) {
			s++;
		} else if (*s == '\'' || *s == '"') {
			const char *q = memchr(s + 1, *s, (size_t)(e - s - 1));

			s = q ? q : e - 1;
		} else if (*s == '(' || *s == '[' || *s == '{') {
			depth++;
		} else if ((*s == ')' || *s == ']' || *s == '}') && depth > 0) {
			depth--;
		}
	}
	return e;
}

/* The arithmetic in a parameter expansion ${...} (raw, len bytes): the
 * subscript of an array (not @ or *), and the offset and length of
 * ${NAME:OFFSET:LENGTH}. */
static int param_arith(struct parser *p, const char *raw, size_t len)
{
	const char *s = raw + 2, *e = raw + len - 1, *name, *c;
	size_t nlen;
	int r;

	if (len < 4 || *e != '}')
		return 0;
	if ((*s == '#' || *s == '!') && s + 1 < e && (s[1] == '_' || isalpha((unsigned char)s[1])))
		s++;
	name = s;
	while (s < e && (*s == '_' || isalnum((unsigned char)*s)))
		s++;
	if (s == name || isdigit((unsigned char)*name))
		return 0; /* positional and special parameters: no subscript */
	nlen = (size_t)(s - name);
	if (*s == '[') {
		c = param_find(s + 1, e, "]");
		if (c == e)
			return 0;
		if (!(c - s == 2 && (s[1] == '@' || s[1] == '*')) &&
		    (r = pdk_sh_add_arith_src(p, s + 1, (size_t)(c - s - 1), raw, len, name, nlen,
					      false)) < 0)
			return r;
		s = c + 1;
	}
	if (*s != ':' || s + 1 >= e || strchr("-=?+", s[1]))
		return 0;
	/* ${NAME:OFFSET} and ${NAME:OFFSET:LENGTH} */
	s++;
	c = param_find(s, e, ":");
	if ((r = pdk_sh_add_arith_src(p, s, (size_t)(c - s), raw, len, NULL, 0, false)) < 0)
		return r;
	if (c < e && (r = pdk_sh_add_arith_src(p, c + 1, (size_t)(e - c - 1), raw, len, NULL, 0,
					       false)) < 0)
		return r;
	return 0;
}

/* ${ ... }: skipped to its matching brace, substitutions inside parsed. */
static int lex_param(struct parser *p, struct lexer *lx, struct wbuf *w, bool in_dq)
{
	size_t start = lx->pos;
	struct wbuf scratch;
	int r;

	r = pdk_sh_enter(p, lx, start);
	if (r < 0)
		return r;
	pdk_sh_wb_init(&scratch);
	adv(lx);
	adv(lx);
	for (;;) {
		int c = cur(lx);

		if (c < 0) {
			r = pdk_sh_fail(p, lx, start, "unterminated parameter expansion");
			break;
		}
		if (c == '}') {
			adv(lx);
			break;
		}
		if (c == '\\') {
			lx->pos += lx->pos + 1 < lx->len ? 2 : 1;
		} else if (c == '\'' && !in_dq) {
			const char *q = pdk_sh_squote_end(p, lx);
			if (!q) {
				r = p->rc;
				break;
			}
			lx->pos = q - lx->s + 1;
		} else if (c == '"') {
			r = pdk_sh_lex_dquote(p, lx, &scratch);
		} else if (c == '$') {
			r = pdk_sh_lex_dollar(p, lx, &scratch, in_dq);
		} else if (c == '`') {
			r = pdk_sh_lex_backtick(p, lx, &scratch, in_dq);
		} else {
			lx->pos++;
		}
		if (r < 0)
			break;
	}
	free(scratch.s);
	pdk_sh_leave(p);
	if (r >= 0)
		r = param_arith(p, lx->s + start, lx->pos - start);
	if (r < 0)
		return r;
	w->flags |= PDK_SH_EXPANSION | (scratch.flags & (PDK_SH_SUBST | PDK_SH_ARITH));
	return put_raw(lx, w, start) < 0 ? pdk_sh_nomem(p) : 0;
}

static int put_utf8(struct wbuf *w, unsigned long cp)
{
	char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = 0xc0 | (cp >> 6);
		b[1] = 0x80 | (cp & 0x3f);
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = 0xe0 | (cp >> 12);
		b[1] = 0x80 | ((cp >> 6) & 0x3f);
		b[2] = 0x80 | (cp & 0x3f);
		n = 3;
	} else {
		if (cp > 0x10ffff)
			cp = 0xfffd;
		b[0] = 0xf0 | (cp >> 18);
		b[1] = 0x80 | ((cp >> 12) & 0x3f);
		b[2] = 0x80 | ((cp >> 6) & 0x3f);
		b[3] = 0x80 | (cp & 0x3f);
		n = 4;
	}
	return pdk_sh_wb_putn(w, b, n);
}

/* $'...': bash's ANSI-C quoting, decoded, so $'\x72m' is "rm". */
static int lex_ansi_c(struct parser *p, struct lexer *lx, struct wbuf *w)
{
	const char *s = lx->s;
	size_t start = lx->pos, i;

	adv(lx); /* $ */
	cur(lx);
	i = lx->pos + 1;
	for (;;) {
		if (i >= lx->len)
			return pdk_sh_fail(p, lx, start, "unterminated $'...' quote");
		char c = s[i];
		int r = 0;

		if (c == '\'') {
			i++;
			break;
		}
		if (c != '\\' || i + 1 >= lx->len) {
			r = pdk_sh_wb_putc(w, c);
			i++;
		} else {
			char e = s[i + 1];
			unsigned long v = 0;
			int k, d;

			i += 2;
			switch (e) {
			case 'a': r = pdk_sh_wb_putc(w, '\a'); break;
			case 'b': r = pdk_sh_wb_putc(w, '\b'); break;
			case 'e':
			case 'E': r = pdk_sh_wb_putc(w, 033); break;
			case 'f': r = pdk_sh_wb_putc(w, '\f'); break;
			case 'n': r = pdk_sh_wb_putc(w, '\n'); break;
			case 'r': r = pdk_sh_wb_putc(w, '\r'); break;
			case 't': r = pdk_sh_wb_putc(w, '\t'); break;
			case 'v': r = pdk_sh_wb_putc(w, '\v'); break;
			case 'c':
				if (i < lx->len)
					r = pdk_sh_wb_putc(w, s[i++] & 0x1f);
				break;
			case 'x':
			case 'u':
			case 'U':
				for (k = 0;
				     k < (e == 'x'   ? 2
					  : e == 'u' ? 4
						     : 8) &&
				     i < lx->len && (d = pdk_hexval((unsigned char)s[i])) >= 0;
				     k++, i++)
					v = v * 16 + d;
				if (k == 0) {
					r = pdk_sh_wb_putc(w, '\\');
					if (r >= 0)
						r = pdk_sh_wb_putc(w, e);
				} else if (e == 'x') {
					r = pdk_sh_wb_putc(w, (char)v);
				} else {
					r = put_utf8(w, v);
				}
				break;
			default:
				if (e >= '0' && e <= '7') {
					v = e - '0';
					for (k = 1; k < 3 && i < lx->len && s[i] >= '0' &&
						    s[i] <= '7';
					     k++, i++)
						v = v * 8 + (s[i] - '0');
					r = pdk_sh_wb_putc(w, (char)v);
				} else if (e == '\\' || e == '\'' || e == '"' || e == '?') {
					r = pdk_sh_wb_putc(w, e);
				} else {
					r = pdk_sh_wb_putc(w, '\\');
					if (r >= 0)
						r = pdk_sh_wb_putc(w, e);
				}
			}
		}
		if (r < 0)
			return pdk_sh_nomem(p);
	}
	lx->pos = i;
	w->flags |= PDK_SH_QUOTED;
	return 0;
}

/* lx->pos at '$'. */
int pdk_sh_lex_dollar(struct parser *p, struct lexer *lx, struct wbuf *w, bool in_dq)
{
	size_t start = lx->pos;
	int c1 = la(lx, 1), r;

	w->lit = false;
	if (c1 == '(') {
		if (la(lx, 2) == '(') {
			adv(lx);
			adv(lx);
			adv(lx);
			r = pdk_sh_arith_trial(p, lx, lx->pos);
			if (r < 0)
				return r;
			if (r) {
				struct wbuf scratch;

				r = pdk_sh_enter(p, lx, start);
				if (r < 0)
					return r;
				pdk_sh_wb_init(&scratch);
				r = pdk_sh_scan_arith(p, lx, start, &scratch, false);
				pdk_sh_leave(p);
				free(scratch.s);
				if (r < 0)
					return r;
				w->flags |= PDK_SH_ARITH | (scratch.flags & PDK_SH_SUBST);
				return put_raw(lx, w, start) < 0 ? pdk_sh_nomem(p) : 0;
			}
			lx->pos = start;
		}
		adv(lx); /* $ */
		r = lex_cmdsubst(p, lx, start, PDK_SH_IN_SUBST);
		if (r < 0)
			return r;
		w->flags |= PDK_SH_SUBST;
		return put_raw(lx, w, start) < 0 ? pdk_sh_nomem(p) : 0;
	}
	if (c1 == '[') {
		struct wbuf scratch;

		r = pdk_sh_enter(p, lx, start);
		if (r < 0)
			return r;
		adv(lx);
		adv(lx);
		pdk_sh_wb_init(&scratch);
		r = pdk_sh_scan_arith(p, lx, start, &scratch, true);
		pdk_sh_leave(p);
		free(scratch.s);
		if (r < 0)
			return r;
		w->flags |= PDK_SH_ARITH | (scratch.flags & PDK_SH_SUBST);
		return put_raw(lx, w, start) < 0 ? pdk_sh_nomem(p) : 0;
	}
	if (c1 == '{')
		return lex_param(p, lx, w, in_dq);
	if (c1 == '\'' && !in_dq)
		return lex_ansi_c(p, lx, w);
	if (c1 == '"' && !in_dq) {
		adv(lx); /* $"..." is a translatable string: a double quote here */
		return pdk_sh_lex_dquote(p, lx, w);
	}
	adv(lx);
	if (is_name_start(c1)) {
		while (is_name_char(cur(lx)))
			adv(lx);
	} else if ((c1 >= '0' && c1 <= '9') || (c1 && strchr("@*#?-$!", c1))) {
		adv(lx);
	} else {
		return pdk_sh_wb_putc(w, '$') < 0 ? pdk_sh_nomem(p) : 0; /* a lone $ is literal */
	}
	w->flags |= PDK_SH_EXPANSION;
	return put_raw(lx, w, start) < 0 ? pdk_sh_nomem(p) : 0;
}

/* `...`: the content, after the backslash removal backticks do, is a script
 * of its own, parsed by a second lexer whose offsets map back here. */
int pdk_sh_lex_backtick(struct parser *p, struct lexer *lx, struct wbuf *w, bool in_dq)
{
	size_t start = lx->pos, i = lx->pos + 1, n = 0, end;
	struct lexer sub = { 0 };
	struct lexer *saved = p->lx;
	unsigned saved_ctx = p->ctx;
	_cleanup_free_ char *copy = NULL;
	_cleanup_free_ size_t *map = NULL;
	size_t cnt;
	int r;

	/* find the closing backquote first, so the copy is sized to fit */
	for (;; i++) {
		if (i >= lx->len)
			return pdk_sh_fail(p, lx, start, "unterminated backquote");
		if (lx->s[i] == '`')
			break;
		if (lx->s[i] == '\\')
			i++;
	}
	end = i;
	r = pdk_sh_enter(p, lx, start);
	if (r < 0)
		return r;
	copy = malloc(end - start);
	map = malloc((end - start) * sizeof(*map));
	if (!copy || !map) {
		pdk_sh_leave(p);
		return pdk_sh_nomem(p);
	}
	for (i = start + 1; i < end; i++) {
		char c = lx->s[i];

		if (c == '\\' && i + 1 < end) {
			char e = lx->s[i + 1];

			if (e == '\\' || e == '`' || e == '$' || (in_dq && e == '"')) {
				i++;
				c = e;
			}
		}
		map[n] = orig(lx, i);
		copy[n++] = c;
	}
	i = end;
	map[n] = orig(lx, i);
	sub.s = copy;
	sub.len = n;
	sub.map = map;
	p->lx = &sub;
	p->ctx |= PDK_SH_IN_SUBST;
	p->subst_depth++;
	r = pdk_sh_parse_list(p, &cnt);
	if (r >= 0) {
		struct token *t;

		r = pdk_sh_peek(p, &t);
		if (r >= 0 && t->kind != TK_EOF) {
			char buf[64];
			r = pdk_sh_fail(p, &sub, t->start, "syntax error near unexpected token '%s'",
				 pdk_sh_tok_desc(t, buf, sizeof(buf)));
		}
	}
	p->subst_depth--;
	p->ctx = saved_ctx;
	p->lx = saved;
	pdk_sh_lexer_done(&sub);
	pdk_sh_leave(p);
	if (r < 0)
		return r;
	lx->pos = i + 1;
	w->lit = false;
	w->flags |= PDK_SH_SUBST;
	return put_raw(lx, w, start) < 0 ? pdk_sh_nomem(p) : 0;
}

/* "...": lx->pos at the opening quote; the content, quotes removed, goes
 * to w. */
int pdk_sh_lex_dquote(struct parser *p, struct lexer *lx, struct wbuf *w)
{
	size_t start = lx->pos;
	int r = 0;

	adv(lx);
	w->lit = false;
	w->flags |= PDK_SH_QUOTED;
	for (;;) {
		int c = cur(lx);

		if (c < 0)
			return pdk_sh_fail(p, lx, start, "unterminated double quote");
		if (c == '"') {
			adv(lx);
			return 0;
		}
		if (c == '\\' && lx->pos + 1 < lx->len) {
			char e = lx->s[lx->pos + 1];

			if (e == '$' || e == '`' || e == '"' || e == '\\') {
				lx->pos += 2;
				r = pdk_sh_wb_putc(w, e);
			} else {
				lx->pos++;
				r = pdk_sh_wb_putc(w, '\\');
			}
		} else if (c == '$') {
			r = pdk_sh_lex_dollar(p, lx, w, true);
		} else if (c == '`') {
			r = pdk_sh_lex_backtick(p, lx, w, true);
		} else {
			lx->pos++;
			r = pdk_sh_wb_putc(w, (char)c);
		}
		if (r == -ENOMEM)
			return pdk_sh_nomem(p);
		if (r < 0)
			return r;
	}
}

/* NAME=(a b c): a bash array assignment; lx->pos at '('. */
static int lex_array(struct parser *p, struct lexer *lx, struct wbuf *w)
{
	size_t start = lx->pos;
	int r;

	r = pdk_sh_enter(p, lx, start);
	if (r < 0)
		return r;
	adv(lx);
	if (pdk_sh_wb_putc(w, '(') < 0)
		return pdk_sh_nomem(p);
	for (;;) {
		int c = cur(lx);
		struct wbuf el;

		if (c == ' ' || c == '\t' || c == '\n') {
			adv(lx);
			continue;
		}
		if (c == '#') {
			while (lx->pos < lx->len && lx->s[lx->pos] != '\n')
				lx->pos++;
			continue;
		}
		if (c == ')') {
			adv(lx);
			break;
		}
		if (c < 0 || is_meta(c)) {
			pdk_sh_leave(p);
			return pdk_sh_fail(p, lx, c < 0 ? start : lx->pos,
				    c < 0 ? "unterminated array assignment"
					  : "unexpected character in array assignment");
		}
		pdk_sh_wb_init(&el);
		r = lex_word(p, lx, &el);
		if (r >= 0 && (pdk_sh_wb_putn(w, el.s ? el.s : "", el.len) < 0 || pdk_sh_wb_putc(w, ' ') < 0))
			r = pdk_sh_nomem(p);
		w->flags |= el.flags & ~(PDK_SH_TILDE | PDK_SH_GLOB | PDK_SH_BRACE);
		free(el.s);
		if (r < 0) {
			pdk_sh_leave(p);
			return r;
		}
	}
	pdk_sh_leave(p);
	if (w->len && w->s[w->len - 1] == ' ')
		w->len--;
	return pdk_sh_wb_putc(w, ')') < 0 ? pdk_sh_nomem(p) : 0;
}

/* One word, up to the next unquoted metacharacter. */
static int lex_word(struct parser *p, struct lexer *lx, struct wbuf *w)
{
	int r = 0;

	for (;;) {
		int c = cur(lx);
		bool was_empty = w->len == 0 && w->flags == 0;

		if (c < 0)
			break;
		if ((c == '<' || c == '>') && was_empty && la(lx, 1) == '(') {
			size_t start = lx->pos;

			adv(lx);
			r = lex_cmdsubst(p, lx, start, PDK_SH_IN_SUBST | PDK_SH_IN_PROCSUBST);
			if (r < 0)
				return r;
			w->lit = false;
			w->flags |= PDK_SH_SUBST;
			if (put_raw(lx, w, start) < 0)
				return pdk_sh_nomem(p);
			continue;
		}
		if (c == '(' && w->eq != SIZE_MAX && w->eq + 1 == w->len && w->lit) {
			r = lex_array(p, lx, w);
			if (r < 0)
				return r;
			w->lit = false;
			continue;
		}
		if (is_meta(c))
			break;
		switch (c) {
		case '\\':
			if (lx->pos + 1 >= lx->len) {
				/* a trailing backslash stands for itself */
				lx->pos++;
				r = pdk_sh_wb_putc(w, '\\');
			} else {
				r = pdk_sh_wb_putc(w, lx->s[lx->pos + 1]);
				lx->pos += 2;
			}
			w->flags |= PDK_SH_QUOTED;
			w->lit = false;
			break;
		case '\'': {
			const char *q = pdk_sh_squote_end(p, lx);

			if (!q)
				return p->rc;
			r = pdk_sh_wb_putn(w, lx->s + lx->pos + 1, q - (lx->s + lx->pos + 1));
			lx->pos = q - lx->s + 1;
			w->flags |= PDK_SH_QUOTED;
			w->lit = false;
			break;
		}
		case '"':
			r = pdk_sh_lex_dquote(p, lx, w);
			break;
		case '$':
			r = pdk_sh_lex_dollar(p, lx, w, false);
			break;
		case '`':
			r = pdk_sh_lex_backtick(p, lx, w, false);
			break;
		default:
			if (is_plain(c)) {
				/* a run of characters with no meaning to any rule below */
				size_t e = lx->pos + 1;

				while (e < lx->len && is_plain((unsigned char)lx->s[e]))
					e++;
				r = pdk_sh_wb_putn(w, lx->s + lx->pos, e - lx->pos);
				lx->pos = e;
				break;
			}
			if (c == '*' || c == '?')
				w->flags |= PDK_SH_GLOB;
			else if (c == '[')
				w->bracket_open = true;
			else if (c == ']' && w->bracket_open)
				w->flags |= PDK_SH_GLOB;
			else if (c == '{' && !w->brace)
				w->brace = 1;
			else if (w->brace == 1 && (c == ',' || (c == '.' && la(lx, 1) == '.')))
				w->brace = 2;
			else if (c == '}' && w->brace == 2)
				w->flags |= PDK_SH_BRACE;
			if (c == '~' && (was_empty || (w->lit && w->eq != SIZE_MAX &&
						       (w->s[w->len - 1] == '=' ||
							w->s[w->len - 1] == ':'))))
				w->flags |= PDK_SH_TILDE;
			if (c == '=' && w->lit && w->eq == SIZE_MAX && w->len > 0) {
				size_t n = w->len;

				if (w->s[n - 1] == '+')
					n--;
				bool name = n > 0 && is_name_start((unsigned char)w->s[0]);
				for (size_t k = 1; name && k < n; k++)
					name = is_name_char((unsigned char)w->s[k]);
				if (name)
					w->eq = w->len;
			}
			adv(lx);
			r = pdk_sh_wb_putc(w, (char)c);
		}
		if (r == -ENOMEM)
			return pdk_sh_nomem(p);
		if (r < 0)
			return r;
	}
	if (!w->s && pdk_sh_wb_putn(w, "", 0) < 0)
		return pdk_sh_nomem(p);
	return 0;
}

/* ---- tokens ------------------------------------------------------------ */

static int lex_op(struct lexer *lx, struct token *t)
{
	int c = cur(lx), c1 = la(lx, 1), c2 = la(lx, 2);
	int n = 1;

	t->kind = TK_OP;
	switch (c) {
	case '&':
		if (c1 == '&') {
			t->op = OP_AND_IF, n = 2;
		} else if (c1 == '>') {
			t->op = OP_REDIR, n = c2 == '>' ? 3 : 2;
			t->redir = c2 == '>' ? PDK_SH_REDIR_APPEND_ERR : PDK_SH_REDIR_OUT_ERR;
		} else {
			t->op = OP_AMP;
		}
		break;
	case '|':
		if (c1 == '|')
			t->op = OP_OR_IF, n = 2;
		else if (c1 == '&')
			t->op = OP_PIPE_AND, n = 2;
		else
			t->op = OP_PIPE;
		break;
	case ';':
		if (c1 == ';' && c2 == '&')
			t->op = OP_DSEMI_AND, n = 3;
		else if (c1 == ';')
			t->op = OP_DSEMI, n = 2;
		else if (c1 == '&')
			t->op = OP_SEMI_AND, n = 2;
		else
			t->op = OP_SEMI;
		break;
	case '(':
		t->op = OP_LPAREN;
		break;
	case ')':
		t->op = OP_RPAREN;
		break;
	case '<':
		t->op = OP_REDIR;
		if (c1 == '<' && c2 == '<')
			t->redir = PDK_SH_REDIR_HERESTRING, n = 3;
		else if (c1 == '<' && c2 == '-')
			t->redir = PDK_SH_REDIR_HEREDOC_STRIP, n = 3;
		else if (c1 == '<')
			t->redir = PDK_SH_REDIR_HEREDOC, n = 2;
		else if (c1 == '&')
			t->redir = PDK_SH_REDIR_DUPIN, n = 2;
		else if (c1 == '>')
			t->redir = PDK_SH_REDIR_RDWR, n = 2;
		else
			t->redir = PDK_SH_REDIR_IN;
		break;
	case '>':
		t->op = OP_REDIR;
		if (c1 == '>')
			t->redir = PDK_SH_REDIR_APPEND, n = 2;
		else if (c1 == '&')
			t->redir = PDK_SH_REDIR_DUPOUT, n = 2;
		else if (c1 == '|')
			t->redir = PDK_SH_REDIR_CLOBBER, n = 2;
		else
			t->redir = PDK_SH_REDIR_OUT;
		break;
	default:
		return -1;
	}
	while (n-- > 0)
		adv(lx);
	return 0;
}

static int next_token(struct parser *p, struct lexer *lx, struct token *t)
{
	int c, r;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	for (;;) {
		c = cur(lx);
		if (c == ' ' || c == '\t') {
			lx->pos++;
		} else if (c == '#') {
			while (lx->pos < lx->len && lx->s[lx->pos] != '\n')
				lx->pos++;
		} else {
			break;
		}
	}
	t->start = lx->pos;
	if (c < 0) {
		if (lx->nhd)
			return pdk_sh_fail(p, lx, lx->hd[0].op_pos,
				    "here-document not terminated (expected '%s' on a line of its "
				    "own)",
				    lx->hd[0].delim);
		t->kind = TK_EOF;
		t->end = lx->pos;
		return 0;
	}
	if (c == '\n') {
		lx->pos++;
		t->kind = TK_NEWLINE;
		t->end = lx->pos;
		return lx->nhd ? pdk_sh_read_heredocs(p, lx) : 0;
	}
	/* An IO number: digits directly followed by < or >. */
	if (c >= '0' && c <= '9') {
		size_t save = lx->pos, fdv = 0;

		while ((c = cur(lx)) >= '0' && c <= '9') {
			if (fdv < 100000)
				fdv = fdv * 10 + (c - '0');
			adv(lx);
		}
		if ((c == '<' || c == '>') && la(lx, 1) != '(') {
			lex_op(lx, t);
			t->fd = fdv < 100000 ? (int)fdv : 100000;
			t->end = lx->pos;
			return 0;
		}
		lx->pos = save;
		c = cur(lx);
	}
	if (is_meta(c) && !((c == '<' || c == '>') && la(lx, 1) == '(')) {
		lex_op(lx, t);
		t->end = lx->pos;
		return 0;
	}

	struct wbuf w;
	pdk_sh_wb_init(&w);
	r = lex_word(p, lx, &w);
	if (r < 0) {
		free(w.s);
		return r;
	}
	t->kind = TK_WORD;
	t->end = lx->pos;
	t->w.text = w.s;
	t->w.flags = w.flags;
	t->w.offset = orig(lx, t->start);
	t->w.length = orig(lx, t->end) - t->w.offset;
	t->assign = w.eq != SIZE_MAX;
	if (!(w.flags & (PDK_SH_QUOTED | PDK_SH_EXPANSION | PDK_SH_SUBST | PDK_SH_ARITH)) &&
	    w.len <= 8) {
		static const char *const kws[] = {
			"if",	 "then", "else", "elif",   "fi", "do", "done", "case",
			"esac",	 "while", "until", "for", "select", "in", "{", "}",
			"!",	 "[[",	 "]]",	 "function", "coproc", "=~",
		};

		for (size_t i = 0; i < PDK_ARRAY_SIZE(kws); i++)
			if (w.s[0] == kws[i][0] && strcmp(w.s, kws[i]) == 0)
				t->kw = kws[i];
	}
	return 0;
}

int pdk_sh_peek(struct parser *p, struct token **ret)
{
	struct lexer *lx = p->lx;

	if (lx->tok.kind == TK_NONE) {
		/* Lexed aside: a word's $( ) runs the parser, which uses the slot. */
		struct token t;
		int r = next_token(p, lx, &t);

		if (r < 0)
			return r;
		pdk_sh_tok_clear(&lx->tok);
		lx->tok = t;
	}
	*ret = &lx->tok;
	return 0;
}

void pdk_sh_consume(struct parser *p)
{
	pdk_sh_tok_clear(&p->lx->tok);
}

const char *pdk_sh_tok_desc(const struct token *t, char *buf, size_t n)
{
	switch (t->kind) {
	case TK_EOF:
		return "end of file";
	case TK_NEWLINE:
		return "newline";
	case TK_OP:
		return t->op == OP_REDIR ? redir_names[t->redir] : op_names[t->op];
	case TK_WORD:
		snprintf(buf, n, "%s", t->w.text);
		return buf;
	default:
		return "?";
	}
}

int pdk_sh_unexpected(struct parser *p, const struct token *t)
{
	char buf[64];

	if (t->kind == TK_EOF)
		return pdk_sh_fail(p, p->lx, t->start, "syntax error: unexpected end of file");
	return pdk_sh_fail(p, p->lx, t->start, "syntax error near unexpected token '%s'",
		    pdk_sh_tok_desc(t, buf, sizeof(buf)));
}
