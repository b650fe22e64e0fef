/* shparse.c - hand-written lexer and recursive-descent parser for sh -c
 * scripts, reporting every simple command so the policy can judge each one. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shparse.h"
#include "core/util.h"

/* ---- tokens ------------------------------------------------------------ */

enum tok_kind { TK_NONE, TK_EOF, TK_NEWLINE, TK_WORD, TK_OP };

enum op {
	OP_AND_IF, /* && */
	OP_OR_IF,  /* || */
	OP_DSEMI,  /* ;; */
	OP_SEMI_AND,
	OP_DSEMI_AND,
	OP_PIPE,
	OP_PIPE_AND,
	OP_AMP,
	OP_SEMI,
	OP_LPAREN,
	OP_RPAREN,
	OP_REDIR, /* any redirection: see tok.redir */
};

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

struct token {
	enum tok_kind kind;
	enum op op;
	enum pdk_sh_redir_op redir;
	int fd;			/* io number before a redirection, -1 if none */
	bool assign;		/* a word of the form NAME=... or NAME+=... */
	const char *kw;		/* the reserved word this word could be, else NULL */
	size_t start, end;	/* in the lexer's source */
	struct pdk_sh_word w;	/* TK_WORD: owned until stolen */
};

/* ---- lexer and parser state -------------------------------------------- */

/* One here-document waiting for the next newline to read its body. */
struct heredoc {
	char *delim;
	bool strip, quoted;
	struct node *owner; /* simple command holding the redirection, or NULL */
	size_t ridx;
	unsigned ctx, subst_depth;
	size_t op_pos; /* in the lexer's source, for errors */
};

/*
 * A lexer reads one source buffer: the script itself, a here-document body
 * inside it, or the unescaped copy of a backtick substitution. map gives the
 * script offset of every byte (len + 1 entries) when the buffer is a copy.
 */
struct lexer {
	const char *s;
	size_t len;
	size_t base;	   /* script offset of s[0] when map is NULL */
	const size_t *map; /* else script offset of each byte */
	size_t pos;
	struct token tok; /* lookahead, kind TK_NONE when empty */
	struct heredoc *hd;
	size_t nhd, hdcap;
};

/* The public command plus what only the parser needs. */
struct node {
	struct pdk_sh_command c;
	struct node *owner; /* for here-document commands: the redirection's command */
	size_t seq;	    /* registration order, to keep sorting stable */
};

struct pdk_sh_script {
	struct node **cmds;
	size_t n, cap;
};

struct parser {
	struct pdk_sh_script *out;
	struct lexer *lx;
	unsigned depth;
	unsigned ctx;
	unsigned subst_depth;
	struct node *hd_owner; /* set while a here-document body is scanned */
	const char *script; /* the whole script, for line numbers in messages */
	size_t script_len;
	bool failed;
	int rc;
	size_t err_off;
	char err_msg[256];
	size_t trial_budget; /* bytes arith_trial() may still look ahead */
};

/* Dynamic string for word text. */
struct wbuf {
	char *s;
	size_t len, cap;
	unsigned flags;
	bool lit;	   /* nothing but unquoted literal text so far */
	size_t eq;	   /* index of the assignment '=' in s, or SIZE_MAX */
	bool bracket_open; /* an unquoted '[' seen: a later ']' makes a glob */
	int brace;	   /* 0 none, 1 '{' seen, 2 and ',' or '..' after it */
};

/* ---- small helpers ---------------------------------------------------- */

static size_t orig(const struct lexer *lx, size_t i)
{
	if (i > lx->len)
		i = lx->len;
	return lx->map ? lx->map[i] : lx->base + i;
}

static int nomem(struct parser *p)
{
	if (!p->failed) {
		p->failed = true;
		p->rc = -ENOMEM;
		p->err_off = 0;
		snprintf(p->err_msg, sizeof(p->err_msg), "out of memory");
	}
	return -ENOMEM;
}

__attribute__((format(printf, 4, 5))) static int fail(struct parser *p, const struct lexer *lx,
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
static int fail_match(struct parser *p, size_t pos, const char *want, const char *opener,
		      size_t open_off)
{
	int l, c;

	line_col(p->script, p->script_len, open_off, &l, &c);
	return fail(p, p->lx, pos, "expected '%s' to match '%s' at %d:%d", want, opener, l, c);
}

static int enter(struct parser *p, const struct lexer *lx, size_t pos)
{
	if (++p->depth > PDK_SH_MAX_DEPTH)
		return fail(p, lx, pos, "nested too deeply (limit %d)", PDK_SH_MAX_DEPTH);
	return 0;
}

static void leave(struct parser *p)
{
	p->depth--;
}

static int grow(void **arr, size_t *cap, size_t need, size_t size)
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

static int wb_putn(struct wbuf *w, const char *s, size_t n)
{
	if (grow((void **)&w->s, &w->cap, w->len + n + 1, 1) < 0)
		return -ENOMEM;
	memcpy(w->s + w->len, s, n);
	w->len += n;
	w->s[w->len] = '\0';
	return 0;
}

static int wb_putc(struct wbuf *w, char c)
{
	return wb_putn(w, &c, 1);
}

static void wb_init(struct wbuf *w)
{
	memset(w, 0, sizeof(*w));
	w->lit = true;
	w->eq = SIZE_MAX;
}

static bool is_name_start(int c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_name_char(int c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

static bool is_name(const char *s)
{
	if (!is_name_start((unsigned char)*s))
		return false;
	while (*++s)
		if (!is_name_char((unsigned char)*s))
			return false;
	return true;
}

static inline bool is_plain(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == '/' || c == '%' || c == '+' || c == '@' || c == '^';
}

static inline bool is_meta(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '<' ||
	       c == '>' || c == '(' || c == ')';
}

/* Backslash-newline vanishes everywhere outside single quotes and comments;
 * these accessors skip it so no caller has to think about it. */
static size_t skip_cont_at(const struct lexer *lx, size_t i)
{
	while (i + 1 < lx->len && lx->s[i] == '\\' && lx->s[i + 1] == '\n')
		i += 2;
	return i;
}

static inline int cur(struct lexer *lx)
{
	lx->pos = skip_cont_at(lx, lx->pos);
	return lx->pos < lx->len ? (unsigned char)lx->s[lx->pos] : -1;
}

static int la(const struct lexer *lx, int k)
{
	size_t i = skip_cont_at(lx, lx->pos);
	while (k-- > 0 && i < lx->len)
		i = skip_cont_at(lx, i + 1);
	return i < lx->len ? (unsigned char)lx->s[i] : -1;
}

static inline void adv(struct lexer *lx)
{
	lx->pos = skip_cont_at(lx, lx->pos);
	if (lx->pos < lx->len)
		lx->pos++;
}

static void word_clear(struct pdk_sh_word *w)
{
	free(w->text);
	w->text = NULL;
}

static void tok_clear(struct token *t)
{
	if (t->kind == TK_WORD)
		word_clear(&t->w);
	t->kind = TK_NONE;
}

static void lexer_done(struct lexer *lx)
{
	tok_clear(&lx->tok);
	for (size_t i = 0; i < lx->nhd; i++)
		free(lx->hd[i].delim);
	free(lx->hd);
}

/* ---- word lexing ------------------------------------------------------- */

static int parse_list(struct parser *p, size_t *count);
static int lex_dollar(struct parser *p, struct lexer *lx, struct wbuf *w, bool in_dq);
static int lex_backtick(struct parser *p, struct lexer *lx, struct wbuf *w, bool in_dq);
static int lex_dquote(struct parser *p, struct lexer *lx, struct wbuf *w);

/* At a single quote: the quote that closes it, or NULL with the failure recorded. */
static const char *squote_end(struct parser *p, const struct lexer *lx)
{
	const char *q = memchr(lx->s + lx->pos + 1, '\'', lx->len - lx->pos - 1);

	if (!q)
		fail(p, lx, lx->pos, "unterminated single quote");
	return q;
}
static int lex_word(struct parser *p, struct lexer *lx, struct wbuf *w);
static int peek(struct parser *p, struct token **ret);
static void consume(struct parser *p);
static const char *tok_desc(const struct token *t, char *buf, size_t n);

/* Appends the raw source lx->s[from, lx->pos) to w: how an expansion's text
 * is kept. */
static int put_raw(struct lexer *lx, struct wbuf *w, size_t from)
{
	return wb_putn(w, lx->s + from, lx->pos - from);
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

	r = enter(p, lx, start);
	if (r < 0)
		return r;
	adv(lx); /* ( */
	p->ctx |= ctxflag;
	p->subst_depth++;
	r = parse_list(p, &n);
	if (r >= 0)
		r = peek(p, &t);
	if (r >= 0 && !(t->kind == TK_OP && t->op == OP_RPAREN)) {
		char buf[64];

		if (t->kind == TK_EOF)
			r = fail(p, lx, start, "unterminated command substitution");
		else
			r = fail(p, lx, t->start, "syntax error near unexpected token '%s'",
				 tok_desc(t, buf, sizeof(buf)));
	}
	if (r >= 0)
		consume(p);
	p->subst_depth--;
	p->ctx = saved_ctx;
	leave(p);
	return r;
}

/*
 * Is "((" just before i the start of arithmetic? As bash decides it: only
 * when the parenthesis matching the second '(' is directly followed by ')'.
 * Returns 1 or 0. The look-ahead is charged to a budget proportional to the
 * script, so a script built to make every "((" scan to its end fails rather
 * than taking quadratic time.
 */
static int arith_trial(struct parser *p, const struct lexer *lx, size_t i)
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
				r = fail(p, lx, i, "nested too deeply (limit %d)", PDK_SH_MAX_DEPTH);
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
		return fail(p, lx, from, "too many '((' whose meaning depends on distant text");
	p->trial_budget -= i - from;
	return r;
}

/* Arithmetic text up to and including the closing "))" (or "]" for $[ ]);
 * lx->pos is just after the opening. Substitutions inside are parsed. */
static int scan_arith(struct parser *p, struct lexer *lx, size_t start, struct wbuf *scratch,
		      bool bracket)
{
	unsigned saved_ctx = p->ctx;
	int paren = 0, r = 0;

	p->ctx |= PDK_SH_IN_ARITH;
	for (;;) {
		int c = cur(lx);

		if (c < 0) {
			r = fail(p, lx, start, "unterminated arithmetic expansion");
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
					r = fail(p, lx, lx->pos, "expected '))' to end arithmetic");
					break;
				}
				adv(lx);
				adv(lx);
				break;
			}
			paren--;
		} else if (c == '$') {
			r = lex_dollar(p, lx, scratch, true);
			if (r < 0)
				break;
			continue;
		} else if (c == '`') {
			r = lex_backtick(p, lx, scratch, true);
			if (r < 0)
				break;
			continue;
		} else if (c == '"') {
			r = lex_dquote(p, lx, scratch);
			if (r < 0)
				break;
			continue;
		} else if (c == '\\') {
			lx->pos++;
		}
		if (p->depth + (unsigned)(paren > 0 ? paren : 0) > PDK_SH_MAX_DEPTH) {
			r = fail(p, lx, lx->pos, "nested too deeply (limit %d)", PDK_SH_MAX_DEPTH);
			break;
		}
		if (lx->pos < lx->len)
			lx->pos++;
	}
	p->ctx = saved_ctx;
	return r;
}

/* ${ ... }: skipped to its matching brace, substitutions inside parsed. */
static int lex_param(struct parser *p, struct lexer *lx, struct wbuf *w, bool in_dq)
{
	size_t start = lx->pos;
	struct wbuf scratch;
	int r;

	r = enter(p, lx, start);
	if (r < 0)
		return r;
	wb_init(&scratch);
	adv(lx);
	adv(lx);
	for (;;) {
		int c = cur(lx);

		if (c < 0) {
			r = fail(p, lx, start, "unterminated parameter expansion");
			break;
		}
		if (c == '}') {
			adv(lx);
			break;
		}
		if (c == '\\') {
			lx->pos += lx->pos + 1 < lx->len ? 2 : 1;
		} else if (c == '\'' && !in_dq) {
			const char *q = squote_end(p, lx);
			if (!q) {
				r = p->rc;
				break;
			}
			lx->pos = q - lx->s + 1;
		} else if (c == '"') {
			r = lex_dquote(p, lx, &scratch);
		} else if (c == '$') {
			r = lex_dollar(p, lx, &scratch, in_dq);
		} else if (c == '`') {
			r = lex_backtick(p, lx, &scratch, in_dq);
		} else {
			lx->pos++;
		}
		if (r < 0)
			break;
	}
	free(scratch.s);
	leave(p);
	if (r < 0)
		return r;
	w->flags |= PDK_SH_EXPANSION | (scratch.flags & (PDK_SH_SUBST | PDK_SH_ARITH));
	return put_raw(lx, w, start) < 0 ? nomem(p) : 0;
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
	return wb_putn(w, b, n);
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
			return fail(p, lx, start, "unterminated $'...' quote");
		char c = s[i];
		int r = 0;

		if (c == '\'') {
			i++;
			break;
		}
		if (c != '\\' || i + 1 >= lx->len) {
			r = wb_putc(w, c);
			i++;
		} else {
			char e = s[i + 1];
			unsigned long v = 0;
			int k, d;

			i += 2;
			switch (e) {
			case 'a': r = wb_putc(w, '\a'); break;
			case 'b': r = wb_putc(w, '\b'); break;
			case 'e':
			case 'E': r = wb_putc(w, 033); break;
			case 'f': r = wb_putc(w, '\f'); break;
			case 'n': r = wb_putc(w, '\n'); break;
			case 'r': r = wb_putc(w, '\r'); break;
			case 't': r = wb_putc(w, '\t'); break;
			case 'v': r = wb_putc(w, '\v'); break;
			case 'c':
				if (i < lx->len)
					r = wb_putc(w, s[i++] & 0x1f);
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
					r = wb_putc(w, '\\');
					if (r >= 0)
						r = wb_putc(w, e);
				} else if (e == 'x') {
					r = wb_putc(w, (char)v);
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
					r = wb_putc(w, (char)v);
				} else if (e == '\\' || e == '\'' || e == '"' || e == '?') {
					r = wb_putc(w, e);
				} else {
					r = wb_putc(w, '\\');
					if (r >= 0)
						r = wb_putc(w, e);
				}
			}
		}
		if (r < 0)
			return nomem(p);
	}
	lx->pos = i;
	w->flags |= PDK_SH_QUOTED;
	return 0;
}

/* lx->pos at '$'. */
static int lex_dollar(struct parser *p, struct lexer *lx, struct wbuf *w, bool in_dq)
{
	size_t start = lx->pos;
	int c1 = la(lx, 1), r;

	w->lit = false;
	if (c1 == '(') {
		if (la(lx, 2) == '(') {
			adv(lx);
			adv(lx);
			adv(lx);
			r = arith_trial(p, lx, lx->pos);
			if (r < 0)
				return r;
			if (r) {
				struct wbuf scratch;

				r = enter(p, lx, start);
				if (r < 0)
					return r;
				wb_init(&scratch);
				r = scan_arith(p, lx, start, &scratch, false);
				leave(p);
				free(scratch.s);
				if (r < 0)
					return r;
				w->flags |= PDK_SH_ARITH | (scratch.flags & PDK_SH_SUBST);
				return put_raw(lx, w, start) < 0 ? nomem(p) : 0;
			}
			lx->pos = start;
		}
		adv(lx); /* $ */
		r = lex_cmdsubst(p, lx, start, PDK_SH_IN_SUBST);
		if (r < 0)
			return r;
		w->flags |= PDK_SH_SUBST;
		return put_raw(lx, w, start) < 0 ? nomem(p) : 0;
	}
	if (c1 == '[') {
		struct wbuf scratch;

		r = enter(p, lx, start);
		if (r < 0)
			return r;
		adv(lx);
		adv(lx);
		wb_init(&scratch);
		r = scan_arith(p, lx, start, &scratch, true);
		leave(p);
		free(scratch.s);
		if (r < 0)
			return r;
		w->flags |= PDK_SH_ARITH | (scratch.flags & PDK_SH_SUBST);
		return put_raw(lx, w, start) < 0 ? nomem(p) : 0;
	}
	if (c1 == '{')
		return lex_param(p, lx, w, in_dq);
	if (c1 == '\'' && !in_dq)
		return lex_ansi_c(p, lx, w);
	if (c1 == '"' && !in_dq) {
		adv(lx); /* $"..." is a translatable string: a double quote here */
		return lex_dquote(p, lx, w);
	}
	adv(lx);
	if (is_name_start(c1)) {
		while (is_name_char(cur(lx)))
			adv(lx);
	} else if ((c1 >= '0' && c1 <= '9') || (c1 && strchr("@*#?-$!", c1))) {
		adv(lx);
	} else {
		return wb_putc(w, '$') < 0 ? nomem(p) : 0; /* a lone $ is literal */
	}
	w->flags |= PDK_SH_EXPANSION;
	return put_raw(lx, w, start) < 0 ? nomem(p) : 0;
}

/* `...`: the content, after the backslash removal backticks do, is a script
 * of its own, parsed by a second lexer whose offsets map back here. */
static int lex_backtick(struct parser *p, struct lexer *lx, struct wbuf *w, bool in_dq)
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
			return fail(p, lx, start, "unterminated backquote");
		if (lx->s[i] == '`')
			break;
		if (lx->s[i] == '\\')
			i++;
	}
	end = i;
	r = enter(p, lx, start);
	if (r < 0)
		return r;
	copy = malloc(end - start);
	map = malloc((end - start) * sizeof(*map));
	if (!copy || !map) {
		leave(p);
		return nomem(p);
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
	r = parse_list(p, &cnt);
	if (r >= 0) {
		struct token *t;

		r = peek(p, &t);
		if (r >= 0 && t->kind != TK_EOF) {
			char buf[64];
			r = fail(p, &sub, t->start, "syntax error near unexpected token '%s'",
				 tok_desc(t, buf, sizeof(buf)));
		}
	}
	p->subst_depth--;
	p->ctx = saved_ctx;
	p->lx = saved;
	lexer_done(&sub);
	leave(p);
	if (r < 0)
		return r;
	lx->pos = i + 1;
	w->lit = false;
	w->flags |= PDK_SH_SUBST;
	return put_raw(lx, w, start) < 0 ? nomem(p) : 0;
}

/* "...": lx->pos at the opening quote; the content, quotes removed, goes
 * to w. */
static int lex_dquote(struct parser *p, struct lexer *lx, struct wbuf *w)
{
	size_t start = lx->pos;
	int r = 0;

	adv(lx);
	w->lit = false;
	w->flags |= PDK_SH_QUOTED;
	for (;;) {
		int c = cur(lx);

		if (c < 0)
			return fail(p, lx, start, "unterminated double quote");
		if (c == '"') {
			adv(lx);
			return 0;
		}
		if (c == '\\' && lx->pos + 1 < lx->len) {
			char e = lx->s[lx->pos + 1];

			if (e == '$' || e == '`' || e == '"' || e == '\\') {
				lx->pos += 2;
				r = wb_putc(w, e);
			} else {
				lx->pos++;
				r = wb_putc(w, '\\');
			}
		} else if (c == '$') {
			r = lex_dollar(p, lx, w, true);
		} else if (c == '`') {
			r = lex_backtick(p, lx, w, true);
		} else {
			lx->pos++;
			r = wb_putc(w, (char)c);
		}
		if (r == -ENOMEM)
			return nomem(p);
		if (r < 0)
			return r;
	}
}

/* NAME=(a b c): a bash array assignment; lx->pos at '('. */
static int lex_array(struct parser *p, struct lexer *lx, struct wbuf *w)
{
	size_t start = lx->pos;
	int r;

	r = enter(p, lx, start);
	if (r < 0)
		return r;
	adv(lx);
	if (wb_putc(w, '(') < 0)
		return nomem(p);
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
			leave(p);
			return fail(p, lx, c < 0 ? start : lx->pos,
				    c < 0 ? "unterminated array assignment"
					  : "unexpected character in array assignment");
		}
		wb_init(&el);
		r = lex_word(p, lx, &el);
		if (r >= 0 && (wb_putn(w, el.s ? el.s : "", el.len) < 0 || wb_putc(w, ' ') < 0))
			r = nomem(p);
		w->flags |= el.flags & ~(PDK_SH_TILDE | PDK_SH_GLOB | PDK_SH_BRACE);
		free(el.s);
		if (r < 0) {
			leave(p);
			return r;
		}
	}
	leave(p);
	if (w->len && w->s[w->len - 1] == ' ')
		w->len--;
	return wb_putc(w, ')') < 0 ? nomem(p) : 0;
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
				return nomem(p);
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
				r = wb_putc(w, '\\');
			} else {
				r = wb_putc(w, lx->s[lx->pos + 1]);
				lx->pos += 2;
			}
			w->flags |= PDK_SH_QUOTED;
			w->lit = false;
			break;
		case '\'': {
			const char *q = squote_end(p, lx);

			if (!q)
				return p->rc;
			r = wb_putn(w, lx->s + lx->pos + 1, q - (lx->s + lx->pos + 1));
			lx->pos = q - lx->s + 1;
			w->flags |= PDK_SH_QUOTED;
			w->lit = false;
			break;
		}
		case '"':
			r = lex_dquote(p, lx, w);
			break;
		case '$':
			r = lex_dollar(p, lx, w, false);
			break;
		case '`':
			r = lex_backtick(p, lx, w, false);
			break;
		default:
			if (is_plain(c)) {
				/* a run of characters with no meaning to any rule below */
				size_t e = lx->pos + 1;

				while (e < lx->len && is_plain((unsigned char)lx->s[e]))
					e++;
				r = wb_putn(w, lx->s + lx->pos, e - lx->pos);
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
			r = wb_putc(w, (char)c);
		}
		if (r == -ENOMEM)
			return nomem(p);
		if (r < 0)
			return r;
	}
	if (!w->s && wb_putn(w, "", 0) < 0)
		return nomem(p);
	return 0;
}

/* ---- here-documents ---------------------------------------------------- */

/* Scans an unquoted here-document body for $ and backtick substitutions,
 * which the shell runs. */
static int scan_heredoc_body(struct parser *p, struct lexer *body, struct wbuf *w)
{
	struct lexer *saved = p->lx;
	int r = 0;

	p->lx = body;
	for (;;) {
		int c = cur(body);

		if (c < 0)
			break;
		if (c == '\\') {
			body->pos += body->pos + 1 < body->len ? 2 : 1;
			continue;
		}
		if (c == '$')
			r = lex_dollar(p, body, w, true);
		else if (c == '`')
			r = lex_backtick(p, body, w, false);
		else
			body->pos++;
		if (r < 0)
			break;
	}
	p->lx = saved;
	return r;
}

static int read_heredoc(struct parser *p, struct lexer *lx, struct heredoc *h)
{
	size_t dlen = strlen(h->delim), body_start = lx->pos, body_end;
	struct wbuf body;
	int r = 0;

	wb_init(&body);
	for (;;) {
		size_t ls = lx->pos, le;
		const char *nl;

		if (ls >= lx->len) {
			free(body.s);
			return fail(p, lx, h->op_pos,
				    "here-document not terminated (expected '%s' on a line of its "
				    "own)",
				    h->delim);
		}
		if (h->strip)
			while (ls < lx->len && lx->s[ls] == '\t')
				ls++;
		nl = memchr(lx->s + ls, '\n', lx->len - ls);
		le = nl ? (size_t)(nl - lx->s) : lx->len;
		if (le - ls == dlen && memcmp(lx->s + ls, h->delim, dlen) == 0) {
			body_end = lx->pos;
			lx->pos = nl ? le + 1 : le;
			break;
		}
		if (wb_putn(&body, lx->s + ls, le - ls) < 0 || (nl && wb_putc(&body, '\n') < 0)) {
			free(body.s);
			return nomem(p);
		}
		lx->pos = nl ? le + 1 : le;
	}
	if (!body.s && wb_putn(&body, "", 0) < 0)
		return nomem(p);

	unsigned flags = 0;
	if (!h->quoted) {
		struct lexer sub = { 0 };
		struct wbuf scratch;
		unsigned saved_ctx = p->ctx, saved_sd = p->subst_depth;
		struct node *saved_owner = p->hd_owner;

		sub.s = lx->s + body_start;
		sub.len = body_end - body_start;
		sub.base = orig(lx, body_start);
		sub.map = lx->map ? lx->map + body_start : NULL;
		wb_init(&scratch);
		p->ctx = h->ctx | PDK_SH_IN_HEREDOC;
		p->subst_depth = h->subst_depth;
		p->hd_owner = h->owner;
		r = scan_heredoc_body(p, &sub, &scratch);
		p->ctx = saved_ctx;
		p->subst_depth = saved_sd;
		p->hd_owner = saved_owner;
		flags = scratch.flags & (PDK_SH_EXPANSION | PDK_SH_SUBST | PDK_SH_ARITH);
		free(scratch.s);
		lexer_done(&sub);
	}
	if (r >= 0 && h->owner) {
		struct pdk_sh_redir *rd = &h->owner->c.redirs[h->ridx];

		rd->heredoc = steal_pointer(&body.s);
		rd->heredoc_flags = flags;
	}
	free(body.s);
	return r;
}

static int read_heredocs(struct parser *p, struct lexer *lx)
{
	int r = 0;

	/* Take the list: a body may itself hold here-documents. */
	struct heredoc *hd = steal_pointer(&lx->hd);
	size_t n = lx->nhd;

	lx->nhd = lx->hdcap = 0;
	for (size_t i = 0; i < n; i++) {
		if (r >= 0)
			r = read_heredoc(p, lx, &hd[i]);
		free(hd[i].delim);
	}
	free(hd);
	return r;
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
			return fail(p, lx, lx->hd[0].op_pos,
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
		return lx->nhd ? read_heredocs(p, lx) : 0;
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
	wb_init(&w);
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

static int peek(struct parser *p, struct token **ret)
{
	struct lexer *lx = p->lx;

	if (lx->tok.kind == TK_NONE) {
		/* Lexed aside: a word's $( ) runs the parser, which uses the slot. */
		struct token t;
		int r = next_token(p, lx, &t);

		if (r < 0)
			return r;
		tok_clear(&lx->tok);
		lx->tok = t;
	}
	*ret = &lx->tok;
	return 0;
}

static void consume(struct parser *p)
{
	tok_clear(&p->lx->tok);
}

static const char *tok_desc(const struct token *t, char *buf, size_t n)
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

static int unexpected(struct parser *p, const struct token *t)
{
	char buf[64];

	if (t->kind == TK_EOF)
		return fail(p, p->lx, t->start, "syntax error: unexpected end of file");
	return fail(p, p->lx, t->start, "syntax error near unexpected token '%s'",
		    tok_desc(t, buf, sizeof(buf)));
}

/* ---- grammar ----------------------------------------------------------- */

/* Whether the parser treats it as one depends on where it stands. */
static bool is_kw(const struct token *t, const char *kw)
{
	return t->kind == TK_WORD && t->kw && t->kw[0] == kw[0] && strcmp(t->kw, kw) == 0;
}

static bool is_op(const struct token *t, enum op op)
{
	return t->kind == TK_OP && t->op == op;
}

static bool is_list_end(const struct token *t)
{
	static const char *const ends[] = {
		"then", "else", "elif", "fi", "do", "done", "esac", "}",
	};

	if (t->kind == TK_EOF)
		return true;
	if (t->kind == TK_OP)
		return t->op == OP_RPAREN || t->op == OP_DSEMI || t->op == OP_SEMI_AND ||
		       t->op == OP_DSEMI_AND;
	for (size_t i = 0; i < PDK_ARRAY_SIZE(ends); i++)
		if (is_kw(t, ends[i]))
			return true;
	return false;
}

static int skip_newlines(struct parser *p)
{
	struct token *t;
	int r;

	while ((r = peek(p, &t)) >= 0 && t->kind == TK_NEWLINE)
		consume(p);
	return r;
}

/* Expects the reserved word kw; opener names the construct for the error. */
static int expect_kw(struct parser *p, const char *kw, const char *opener, size_t open_off)
{
	struct token *t;
	int r = peek(p, &t);

	if (r < 0)
		return r;
	if (!is_kw(t, kw))
		return fail_match(p, t->start, kw, opener, open_off);
	consume(p);
	return 0;
}

/* A compound list that must hold at least one command. */
static int parse_body(struct parser *p)
{
	struct token *t;
	size_t n;
	int r = parse_list(p, &n);

	if (r < 0)
		return r;
	if (n == 0) {
		r = peek(p, &t);
		return r < 0 ? r : unexpected(p, t);
	}
	return 0;
}

static void mark(struct parser *p, size_t from, unsigned flag)
{
	for (size_t i = from; i < p->out->n; i++)
		if (!(p->out->cmds[i]->c.context & PDK_SH_IN_HEREDOC) ||
		    !p->out->cmds[i]->owner)
			p->out->cmds[i]->c.context |= flag;
}

static void node_free(struct node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->c.nwords; i++)
		free(n->c.words[i].text);
	free(n->c.words);
	for (size_t i = 0; i < n->c.nassigns; i++)
		free(n->c.assigns[i].text);
	free(n->c.assigns);
	for (size_t i = 0; i < n->c.nredirs; i++) {
		free(n->c.redirs[i].target.text);
		free(n->c.redirs[i].heredoc);
	}
	free(n->c.redirs);
	free(n->c.text);
	free(n);
}

static inline void node_freep(struct node **n)
{
	node_free(*n);
}
#define _cleanup_node_ __attribute__((cleanup(node_freep)))

static int push_word(struct pdk_sh_word **arr, size_t *n, size_t *cap, struct pdk_sh_word *w)
{
	if (grow((void **)arr, cap, *n + 1, sizeof(**arr)) < 0)
		return -ENOMEM;
	(*arr)[(*n)++] = *w;
	w->text = NULL;
	return 0;
}

/* A redirection: the operator token is the lookahead. node NULL: the
 * redirection belongs to a compound command and is only scanned. */
static int parse_redir(struct parser *p, struct node *node, size_t *rcap)
{
	struct lexer *lx = p->lx;
	struct token *t;
	enum pdk_sh_redir_op op = lx->tok.redir;
	int fd = lx->tok.fd;
	size_t op_pos = lx->tok.start;
	struct pdk_sh_redir rd = { 0 };
	int r;

	consume(p);
	r = peek(p, &t);
	if (r < 0)
		return r;
	if (t->kind != TK_WORD) {
		char buf[64];

		return fail(p, lx, t->start, "expected a word after '%s', found '%s'",
			    redir_names[op], tok_desc(t, buf, sizeof(buf)));
	}
	rd.fd = fd;
	rd.op = op;
	rd.target = t->w;
	t->w.text = NULL;
	consume(p);
	if (op == PDK_SH_REDIR_HEREDOC || op == PDK_SH_REDIR_HEREDOC_STRIP) {
		struct heredoc *h;

		if (grow((void **)&lx->hd, &lx->hdcap, lx->nhd + 1, sizeof(*lx->hd)) < 0) {
			free(rd.target.text);
			return nomem(p);
		}
		h = &lx->hd[lx->nhd];
		memset(h, 0, sizeof(*h));
		h->delim = strdup(rd.target.text);
		if (!h->delim) {
			free(rd.target.text);
			return nomem(p);
		}
		lx->nhd++;
		h->strip = op == PDK_SH_REDIR_HEREDOC_STRIP;
		h->quoted = rd.target.flags & PDK_SH_QUOTED;
		h->owner = node;
		h->ridx = node ? node->c.nredirs : 0;
		h->ctx = p->ctx;
		h->subst_depth = p->subst_depth;
		h->op_pos = op_pos;
	}
	if (!node) {
		free(rd.target.text);
		return 0;
	}
	if (grow((void **)&node->c.redirs, rcap, node->c.nredirs + 1, sizeof(rd)) < 0) {
		free(rd.target.text);
		return nomem(p);
	}
	node->c.redirs[node->c.nredirs++] = rd;
	return 0;
}

static int push_node(struct parser *p, struct node *n)
{
	struct pdk_sh_script *s = p->out;

	if (grow((void **)&s->cmds, &s->cap, s->n + 1, sizeof(*s->cmds)) < 0)
		return nomem(p);
	n->seq = s->n;
	s->cmds[s->n++] = n;
	return 0;
}

static int parse_command(struct parser *p);

static int parse_function_body(struct parser *p)
{
	unsigned saved = p->ctx;
	struct token *t;
	int r = skip_newlines(p);

	if (r < 0)
		return r;
	r = peek(p, &t);
	if (r < 0)
		return r;
	if (!(is_op(t, OP_LPAREN) || is_kw(t, "{") || is_kw(t, "if") || is_kw(t, "while") ||
	      is_kw(t, "until") || is_kw(t, "for") || is_kw(t, "case") || is_kw(t, "select") ||
	      is_kw(t, "[[")))
		return fail(p, p->lx, t->start, "expected a compound command as function body");
	p->ctx |= PDK_SH_IN_FUNCTION;
	r = parse_command(p);
	p->ctx = saved;
	return r;
}

static int parse_simple(struct parser *p)
{
	struct lexer *lx = p->lx;
	_cleanup_node_ struct node *node = calloc(1, sizeof(*node));
	size_t wcap = 0, acap = 0, rcap = 0, start, end;
	struct token *t;
	int r;

	if (!node)
		return nomem(p);
	node->c.context = p->ctx;
	node->c.subst_depth = p->subst_depth;
	node->owner = p->hd_owner;
	r = peek(p, &t);
	if (r < 0)
		return r;
	start = end = t->start;
	for (;;) {
		r = peek(p, &t);
		if (r < 0)
			return r;
		if (t->kind == TK_WORD) {
			bool assign = node->c.nwords == 0 && t->assign;

			end = t->end;
			if (assign)
				r = push_word(&node->c.assigns, &node->c.nassigns, &acap, &t->w);
			else
				r = push_word(&node->c.words, &node->c.nwords, &wcap, &t->w);
			if (r < 0)
				return nomem(p);
			consume(p);
			if (assign || node->c.nwords != 1 || node->c.nassigns || node->c.nredirs)
				continue;
			r = peek(p, &t);
			if (r < 0)
				return r;
			if (is_op(t, OP_LPAREN)) {
				/* name() compound-command */
				const struct pdk_sh_word *name = &node->c.words[0];

				if (name->flags & (PDK_SH_QUOTED | PDK_SH_EXPANSION | PDK_SH_SUBST |
						   PDK_SH_ARITH | PDK_SH_GLOB))
					return unexpected(p, t);
				consume(p);
				r = peek(p, &t);
				if (r < 0)
					return r;
				if (!is_op(t, OP_RPAREN))
					return unexpected(p, t);
				consume(p);
				return parse_function_body(p);
			}
		} else if (t->kind == TK_OP && t->op == OP_REDIR) {
			r = parse_redir(p, node, &rcap);
			if (r < 0)
				return r;
			/* the target word ends the span */
			end = lx->pos;
		} else {
			break;
		}
	}
	if (!node->c.nwords && !node->c.nassigns && !node->c.nredirs)
		return unexpected(p, t);
	node->c.offset = orig(lx, start);
	node->c.length = orig(lx, end) - node->c.offset;
	node->c.text = strndup(lx->s + start, end - start);
	if (!node->c.text)
		return nomem(p);
	r = push_node(p, node);
	if (r < 0)
		return r;
	node = NULL;
	return 0;
}

static int parse_redirs_after_compound(struct parser *p)
{
	struct token *t;
	int r;

	while ((r = peek(p, &t)) >= 0 && t->kind == TK_OP && t->op == OP_REDIR) {
		r = parse_redir(p, NULL, NULL);
		if (r < 0)
			return r;
	}
	return r;
}

static int parse_if(struct parser *p, size_t off)
{
	struct token *t;
	int r;

	consume(p);
	r = parse_body(p);
	if (r >= 0)
		r = expect_kw(p, "then", "if", off);
	if (r >= 0)
		r = parse_body(p);
	while (r >= 0 && (r = peek(p, &t)) >= 0 && is_kw(t, "elif")) {
		consume(p);
		r = parse_body(p);
		if (r >= 0)
			r = expect_kw(p, "then", "elif", off);
		if (r >= 0)
			r = parse_body(p);
	}
	if (r >= 0 && is_kw(t, "else")) {
		consume(p);
		r = parse_body(p);
	}
	if (r >= 0)
		r = expect_kw(p, "fi", "if", off);
	return r;
}

static int parse_do_group(struct parser *p, const char *opener, size_t off)
{
	int r = expect_kw(p, "do", opener, off);

	if (r >= 0)
		r = parse_body(p);
	if (r >= 0)
		r = expect_kw(p, "done", "do", off);
	return r;
}

static int parse_while(struct parser *p, const char *kw, size_t off)
{
	int r;

	consume(p);
	r = parse_body(p);
	if (r >= 0)
		r = parse_do_group(p, kw, off);
	return r;
}

static int parse_for(struct parser *p, const char *kw, size_t off)
{
	struct lexer *lx = p->lx;
	struct token *t;
	int r;

	consume(p);
	/* bash: for ((init; cond; step)) */
	while (cur(lx) == ' ' || cur(lx) == '\t')
		lx->pos++;
	if (cur(lx) == '(' && la(lx, 1) == '(') {
		struct wbuf scratch;
		size_t start = lx->pos;

		adv(lx);
		adv(lx);
		wb_init(&scratch);
		r = scan_arith(p, lx, start, &scratch, false);
		free(scratch.s);
		if (r < 0)
			return r;
	} else {
		r = peek(p, &t);
		if (r < 0)
			return r;
		if (t->kind != TK_WORD || t->w.flags || !is_name(t->w.text))
			return fail(p, lx, t->start, "expected a variable name after '%s'", kw);
		consume(p);
		r = skip_newlines(p);
		if (r >= 0)
			r = peek(p, &t);
		if (r < 0)
			return r;
		if (is_kw(t, "in")) {
			consume(p);
			while ((r = peek(p, &t)) >= 0 && t->kind == TK_WORD)
				consume(p);
			if (r < 0)
				return r;
		}
	}
	r = peek(p, &t);
	if (r < 0)
		return r;
	if (is_op(t, OP_SEMI) || t->kind == TK_NEWLINE)
		consume(p);
	r = skip_newlines(p);
	if (r < 0)
		return r;
	r = peek(p, &t);
	if (r < 0)
		return r;
	if (is_kw(t, "{")) /* bash also takes a brace group as the body */
		return parse_command(p);
	return parse_do_group(p, kw, off);
}

static int parse_case(struct parser *p, size_t off)
{
	struct token *t;
	size_t n;
	int r;

	consume(p);
	r = peek(p, &t);
	if (r < 0)
		return r;
	if (t->kind != TK_WORD)
		return fail(p, p->lx, t->start, "expected a word after 'case'");
	consume(p);
	r = skip_newlines(p);
	if (r >= 0)
		r = expect_kw(p, "in", "case", off);
	for (;;) {
		if (r >= 0)
			r = skip_newlines(p);
		if (r >= 0)
			r = peek(p, &t);
		if (r < 0)
			return r;
		if (is_kw(t, "esac")) {
			consume(p);
			return 0;
		}
		if (is_op(t, OP_LPAREN)) {
			consume(p);
			r = peek(p, &t);
			if (r < 0)
				return r;
		}
		for (;;) {
			if (t->kind != TK_WORD) {
				if (t->kind == TK_EOF)
					return fail_match(p, t->start, "esac", "case", off);
				return unexpected(p, t);
			}
			consume(p);
			r = peek(p, &t);
			if (r < 0)
				return r;
			if (is_op(t, OP_RPAREN)) {
				consume(p);
				break;
			}
			if (!is_op(t, OP_PIPE))
				return fail(p, p->lx, t->start, "expected ')' after case pattern");
			consume(p);
			r = peek(p, &t);
			if (r < 0)
				return r;
		}
		r = parse_list(p, &n);
		if (r >= 0)
			r = peek(p, &t);
		if (r < 0)
			return r;
		if (is_op(t, OP_DSEMI) || is_op(t, OP_SEMI_AND) || is_op(t, OP_DSEMI_AND)) {
			consume(p);
			continue;
		}
		if (!is_kw(t, "esac"))
			return fail_match(p, t->start, "esac", "case", off);
	}
}

/* The right side of =~ in [[ ]]: bash reads it up to a blank outside
 * parentheses, with | ( ) < > as regex characters, not operators. */
static int lex_regex(struct parser *p, struct lexer *lx)
{
	struct wbuf scratch;
	int depth = 0, r = 0;

	while (cur(lx) == ' ' || cur(lx) == '\t')
		lx->pos++;
	wb_init(&scratch);
	for (;;) {
		int c = cur(lx);

		if (c < 0 || ((c == ' ' || c == '\t' || c == '\n') && depth == 0))
			break;
		if (c == '\\') {
			lx->pos += lx->pos + 1 < lx->len ? 2 : 1;
			continue;
		}
		if (c == '\'') {
			const char *q = squote_end(p, lx);

			if (!q) {
				r = p->rc;
				break;
			}
			lx->pos = q - lx->s + 1;
			continue;
		}
		if (c == '"')
			r = lex_dquote(p, lx, &scratch);
		else if (c == '$')
			r = lex_dollar(p, lx, &scratch, false);
		else if (c == '`')
			r = lex_backtick(p, lx, &scratch, false);
		else {
			if (c == '(' && ++depth + p->depth > PDK_SH_MAX_DEPTH) {
				r = fail(p, lx, lx->pos, "nested too deeply (limit %d)",
					 PDK_SH_MAX_DEPTH);
				break;
			}
			if (c == ')' && depth > 0)
				depth--;
			lx->pos++;
		}
		if (r < 0)
			break;
	}
	free(scratch.s);
	return r;
}

/* [[ ... ]]: no commands of its own; substitutions in its words were
 * reported while they were lexed. */
static int parse_cond(struct parser *p, size_t off)
{
	unsigned saved = p->ctx;
	bool newline_ok = true; /* as bash: only after [[ && || ( ! */
	struct token *t;
	int r;

	p->ctx |= PDK_SH_IN_ARITH;
	consume(p);
	for (;;) {
		r = peek(p, &t);
		if (r < 0)
			break;
		if (is_kw(t, "]]")) {
			consume(p);
			break;
		}
		if (t->kind == TK_EOF) {
			r = fail_match(p, t->start, "]]", "[[", off);
			break;
		}
		if (t->kind == TK_OP && !(t->op == OP_AND_IF || t->op == OP_OR_IF ||
					  t->op == OP_LPAREN || t->op == OP_RPAREN ||
					  (t->op == OP_REDIR && (t->redir == PDK_SH_REDIR_IN ||
								 t->redir == PDK_SH_REDIR_OUT)))) {
			r = unexpected(p, t);
			break;
		}
		if (t->kind == TK_NEWLINE && !newline_ok) {
			r = unexpected(p, t);
			break;
		}
		newline_ok = t->kind == TK_NEWLINE || is_op(t, OP_AND_IF) || is_op(t, OP_OR_IF) ||
			     is_op(t, OP_LPAREN) || is_kw(t, "!");

		bool regex = is_kw(t, "=~");
		consume(p);
		if (regex) {
			r = lex_regex(p, p->lx);
			if (r < 0)
				break;
		}
	}
	p->ctx = saved;
	return r;
}

static int parse_command(struct parser *p)
{
	struct lexer *lx = p->lx;
	unsigned saved = p->ctx;
	struct token *t;
	size_t off;
	int r;

	r = peek(p, &t);
	if (r < 0)
		return r;
	off = orig(lx, t->start);
	if (!is_op(t, OP_LPAREN) && t->kind != TK_WORD)
		return t->kind == TK_OP && t->op == OP_REDIR ? parse_simple(p) : unexpected(p, t);
	if (t->kind == TK_WORD && (t->w.flags & (PDK_SH_QUOTED | PDK_SH_EXPANSION | PDK_SH_SUBST |
						  PDK_SH_ARITH)))
		return parse_simple(p);

	r = enter(p, lx, t->start);
	if (r < 0)
		return r;
	if (is_op(t, OP_LPAREN)) {
		size_t start = t->start;

		bool arith = false;

		if (lx->pos < lx->len && lx->s[lx->pos] == '(') {
			r = arith_trial(p, lx, lx->pos + 1);
			if (r < 0) {
				leave(p);
				return r;
			}
			arith = r;
		}
		if (arith) {
			struct wbuf scratch;

			consume(p);
			adv(lx);
			wb_init(&scratch);
			r = scan_arith(p, lx, start, &scratch, false);
			free(scratch.s);
		} else {
			consume(p);
			p->ctx |= PDK_SH_IN_SUBSHELL;
			r = parse_body(p);
			if (r >= 0)
				r = peek(p, &t);
			if (r >= 0 && !is_op(t, OP_RPAREN))
				r = fail_match(p, t->start, ")", "(", off);
			if (r >= 0)
				consume(p);
		}
	} else if (is_kw(t, "if")) {
		p->ctx |= PDK_SH_IN_COMPOUND;
		r = parse_if(p, off);
	} else if (is_kw(t, "while") || is_kw(t, "until")) {
		p->ctx |= PDK_SH_IN_COMPOUND;
		r = parse_while(p, t->w.text[0] == 'w' ? "while" : "until", off);
	} else if (is_kw(t, "for") || is_kw(t, "select")) {
		p->ctx |= PDK_SH_IN_COMPOUND;
		r = parse_for(p, t->w.text[0] == 'f' ? "for" : "select", off);
	} else if (is_kw(t, "case")) {
		p->ctx |= PDK_SH_IN_COMPOUND;
		r = parse_case(p, off);
	} else if (is_kw(t, "{")) {
		p->ctx |= PDK_SH_IN_COMPOUND;
		consume(p);
		r = parse_body(p);
		if (r >= 0)
			r = expect_kw(p, "}", "{", off);
	} else if (is_kw(t, "[[")) {
		r = parse_cond(p, off);
	} else if (is_kw(t, "function")) {
		consume(p);
		r = peek(p, &t);
		if (r >= 0 && (t->kind != TK_WORD ||
			       (t->w.flags & (PDK_SH_QUOTED | PDK_SH_EXPANSION | PDK_SH_SUBST))))
			r = fail(p, lx, t->start, "expected a function name after 'function'");
		if (r >= 0) {
			consume(p);
			r = peek(p, &t);
		}
		if (r >= 0 && is_op(t, OP_LPAREN)) {
			consume(p);
			r = peek(p, &t);
			if (r >= 0 && !is_op(t, OP_RPAREN))
				r = unexpected(p, t);
			if (r >= 0)
				consume(p);
		}
		if (r >= 0)
			r = parse_function_body(p);
		leave(p);
		p->ctx = saved;
		return r;
	} else if (is_kw(t, "coproc")) {
		r = fail(p, lx, t->start, "'coproc' is not supported");
	} else if (is_list_end(t) || is_kw(t, "in")) {
		r = unexpected(p, t);
	} else {
		leave(p);
		return parse_simple(p);
	}
	p->ctx = saved;
	leave(p);
	if (r >= 0)
		r = parse_redirs_after_compound(p);
	return r;
}

static int parse_pipeline(struct parser *p)
{
	size_t first = p->out->n, count = 0;
	struct token *t;
	int r;

	while ((r = peek(p, &t)) >= 0 && is_kw(t, "!"))
		consume(p);
	if (r < 0)
		return r;
	for (;;) {
		r = parse_command(p);
		if (r < 0)
			return r;
		count++;
		r = peek(p, &t);
		if (r < 0)
			return r;
		if (!is_op(t, OP_PIPE) && !is_op(t, OP_PIPE_AND))
			break;
		consume(p);
		r = skip_newlines(p);
		if (r < 0)
			return r;
	}
	if (count > 1)
		mark(p, first, PDK_SH_IN_PIPELINE);
	return 0;
}

static int parse_and_or(struct parser *p)
{
	struct token *t;
	int r;

	for (;;) {
		r = parse_pipeline(p);
		if (r < 0)
			return r;
		r = peek(p, &t);
		if (r < 0)
			return r;
		if (!is_op(t, OP_AND_IF) && !is_op(t, OP_OR_IF))
			return 0;
		consume(p);
		r = skip_newlines(p);
		if (r < 0)
			return r;
	}
}

/* A list of and-or lists separated by ; & or newlines, up to a token that
 * ends it (EOF, ')', ';;', a closing reserved word); *count says how many. */
static int parse_list(struct parser *p, size_t *count)
{
	struct token *t;
	int r;

	*count = 0;
	for (;;) {
		r = skip_newlines(p);
		if (r >= 0)
			r = peek(p, &t);
		if (r < 0)
			return r;
		if (is_list_end(t))
			return 0;

		size_t first = p->out->n;
		r = parse_and_or(p);
		if (r < 0)
			return r;
		(*count)++;
		r = peek(p, &t);
		if (r < 0)
			return r;
		if (is_op(t, OP_SEMI)) {
			consume(p);
		} else if (is_op(t, OP_AMP)) {
			consume(p);
			mark(p, first, PDK_SH_IN_BACKGROUND);
		} else if (t->kind != TK_NEWLINE) {
			return 0;
		}
	}
}

/* ---- public API -------------------------------------------------------- */

void pdk_sh_script_free(struct pdk_sh_script *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		node_free(s->cmds[i]);
	free(s->cmds);
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
	r = parse_list(&p, &n);
	if (r >= 0) {
		r = peek(&p, &t);
		if (r >= 0 && t->kind != TK_EOF)
			r = unexpected(&p, t);
	}
	lexer_done(&lx);
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

			if (c->text == NULL || (c->nwords && c->words[0].text == NULL))
				abort();
		}
		pdk_sh_script_free(s);
	}
	return r;
}
