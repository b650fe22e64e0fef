/* shparse_grammar.c - the sh parser's recursive descent: lists, pipelines,
 * compound commands, simple commands and their redirections. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "shparse_int.h"

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

	while ((r = pdk_sh_peek(p, &t)) >= 0 && t->kind == TK_NEWLINE)
		pdk_sh_consume(p);
	return r;
}

/* Expects the reserved word kw; opener names the construct for the error. */
static int expect_kw(struct parser *p, const char *kw, const char *opener, size_t open_off)
{
	struct token *t;
	int r = pdk_sh_peek(p, &t);

	if (r < 0)
		return r;
	if (!is_kw(t, kw))
		return pdk_sh_fail_match(p, t->start, kw, opener, open_off);
	pdk_sh_consume(p);
	return 0;
}

/* A compound list that must hold at least one command. */
static int parse_body(struct parser *p)
{
	struct token *t;
	size_t n;
	int r = pdk_sh_parse_list(p, &n);

	if (r < 0)
		return r;
	if (n == 0) {
		r = pdk_sh_peek(p, &t);
		return r < 0 ? r : pdk_sh_unexpected(p, t);
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

void pdk_sh_node_free(struct node *n)
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
	pdk_sh_node_free(*n);
}

#define _cleanup_node_ __attribute__((cleanup(node_freep)))

static int push_word(struct pdk_sh_word **arr, size_t *n, size_t *cap, struct pdk_sh_word *w)
{
	if (pdk_sh_grow((void **)arr, cap, *n + 1, sizeof(**arr)) < 0)
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

	pdk_sh_consume(p);
	r = pdk_sh_peek(p, &t);
	if (r < 0)
		return r;
	if (t->kind != TK_WORD) {
		char buf[64];

		return pdk_sh_fail(p, lx, t->start, "expected a word after '%s', found '%s'",
			    pdk_sh_redir_op_name(op), pdk_sh_tok_desc(t, buf, sizeof(buf)));
	}
	rd.fd = fd;
	rd.op = op;
	rd.target = t->w;
	t->w.text = NULL;
	pdk_sh_consume(p);
	if (op == PDK_SH_REDIR_HEREDOC || op == PDK_SH_REDIR_HEREDOC_STRIP) {
		struct heredoc *h;

		if (pdk_sh_grow((void **)&lx->hd, &lx->hdcap, lx->nhd + 1, sizeof(*lx->hd)) < 0) {
			free(rd.target.text);
			return pdk_sh_nomem(p);
		}
		h = &lx->hd[lx->nhd];
		memset(h, 0, sizeof(*h));
		h->delim = strdup(rd.target.text);
		if (!h->delim) {
			free(rd.target.text);
			return pdk_sh_nomem(p);
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
	if (pdk_sh_grow((void **)&node->c.redirs, rcap, node->c.nredirs + 1, sizeof(rd)) < 0) {
		free(rd.target.text);
		return pdk_sh_nomem(p);
	}
	node->c.redirs[node->c.nredirs++] = rd;
	return 0;
}

static int push_node(struct parser *p, struct node *n)
{
	struct pdk_sh_script *s = p->out;

	if (pdk_sh_grow((void **)&s->cmds, &s->cap, s->n + 1, sizeof(*s->cmds)) < 0)
		return pdk_sh_nomem(p);
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
	r = pdk_sh_peek(p, &t);
	if (r < 0)
		return r;
	if (!(is_op(t, OP_LPAREN) || is_kw(t, "{") || is_kw(t, "if") || is_kw(t, "while") ||
	      is_kw(t, "until") || is_kw(t, "for") || is_kw(t, "case") || is_kw(t, "select") ||
	      is_kw(t, "[[")))
		return pdk_sh_fail(p, p->lx, t->start, "expected a compound command as function body");
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
		return pdk_sh_nomem(p);
	node->c.context = p->ctx;
	node->c.subst_depth = p->subst_depth;
	node->owner = p->hd_owner;
	r = pdk_sh_peek(p, &t);
	if (r < 0)
		return r;
	start = end = t->start;
	for (;;) {
		r = pdk_sh_peek(p, &t);
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
				return pdk_sh_nomem(p);
			pdk_sh_consume(p);
			if (assign || node->c.nwords != 1 || node->c.nassigns || node->c.nredirs)
				continue;
			r = pdk_sh_peek(p, &t);
			if (r < 0)
				return r;
			if (is_op(t, OP_LPAREN)) {
				/* name() compound-command */
				const struct pdk_sh_word *name = &node->c.words[0];

				if (name->flags & (PDK_SH_QUOTED | PDK_SH_EXPANSION | PDK_SH_SUBST |
						   PDK_SH_ARITH | PDK_SH_GLOB))
					return pdk_sh_unexpected(p, t);
				pdk_sh_consume(p);
				r = pdk_sh_peek(p, &t);
				if (r < 0)
					return r;
				if (!is_op(t, OP_RPAREN))
					return pdk_sh_unexpected(p, t);
				pdk_sh_consume(p);
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
		return pdk_sh_unexpected(p, t);
	node->c.offset = orig(lx, start);
	node->c.length = orig(lx, end) - node->c.offset;
	node->c.text = strndup(lx->s + start, end - start);
	if (!node->c.text)
		return pdk_sh_nomem(p);
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

	while ((r = pdk_sh_peek(p, &t)) >= 0 && t->kind == TK_OP && t->op == OP_REDIR) {
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

	pdk_sh_consume(p);
	r = parse_body(p);
	if (r >= 0)
		r = expect_kw(p, "then", "if", off);
	if (r >= 0)
		r = parse_body(p);
	while (r >= 0 && (r = pdk_sh_peek(p, &t)) >= 0 && is_kw(t, "elif")) {
		pdk_sh_consume(p);
		r = parse_body(p);
		if (r >= 0)
			r = expect_kw(p, "then", "elif", off);
		if (r >= 0)
			r = parse_body(p);
	}
	if (r >= 0 && is_kw(t, "else")) {
		pdk_sh_consume(p);
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

	pdk_sh_consume(p);
	r = parse_body(p);
	if (r >= 0)
		r = parse_do_group(p, kw, off);
	return r;
}

/* VAR=WORD for the script's loop values. */
static int add_loopval(struct parser *p, const char *var, const struct pdk_sh_word *w, size_t off)
{
	struct pdk_sh_script *o = p->out;
	char *t;

	if (pdk_sh_grow((void **)&o->loopvals, &o->loopvalcap, o->nloopvals + 1,
			sizeof(*o->loopvals)) < 0 ||
	    asprintf(&t, "%s=%s", var, w->text) < 0)
		return pdk_sh_nomem(p);
	o->loopvals[o->nloopvals++] =
	    (struct pdk_sh_word){.text = t, .flags = w->flags, .offset = off, .length = w->length};
	return 0;
}

static int parse_for(struct parser *p, const char *kw, size_t off)
{
	struct lexer *lx = p->lx;
	struct token *t;
	int r;

	pdk_sh_consume(p);
	/* bash: for ((init; cond; step)) */
	while (cur(lx) == ' ' || cur(lx) == '\t')
		lx->pos++;
	if (cur(lx) == '(' && la(lx, 1) == '(') {
		struct wbuf scratch;
		size_t start = lx->pos;

		adv(lx);
		adv(lx);
		pdk_sh_wb_init(&scratch);
		r = pdk_sh_scan_arith(p, lx, start, &scratch, false);
		free(scratch.s);
		if (r < 0)
			return r;
	} else {
		r = pdk_sh_peek(p, &t);
		if (r < 0)
			return r;
		if (t->kind != TK_WORD || t->w.flags || !pdk_sh_is_name(t->w.text))
			return pdk_sh_fail(p, lx, t->start, "expected a variable name after '%s'", kw);
		_cleanup_free_ char *var = strdup(t->w.text);
		if (!var)
			return pdk_sh_nomem(p);
		pdk_sh_consume(p);
		r = skip_newlines(p);
		if (r >= 0)
			r = pdk_sh_peek(p, &t);
		if (r < 0)
			return r;
		if (is_kw(t, "in")) {
			pdk_sh_consume(p);
			while ((r = pdk_sh_peek(p, &t)) >= 0 && t->kind == TK_WORD) {
				if ((r = add_loopval(p, var, &t->w, orig(lx, t->start))) < 0)
					return r;
				pdk_sh_consume(p);
			}
			if (r < 0)
				return r;
		}
	}
	r = pdk_sh_peek(p, &t);
	if (r < 0)
		return r;
	if (is_op(t, OP_SEMI) || t->kind == TK_NEWLINE)
		pdk_sh_consume(p);
	r = skip_newlines(p);
	if (r < 0)
		return r;
	r = pdk_sh_peek(p, &t);
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

	pdk_sh_consume(p);
	r = pdk_sh_peek(p, &t);
	if (r < 0)
		return r;
	if (t->kind != TK_WORD)
		return pdk_sh_fail(p, p->lx, t->start, "expected a word after 'case'");
	pdk_sh_consume(p);
	r = skip_newlines(p);
	if (r >= 0)
		r = expect_kw(p, "in", "case", off);
	for (;;) {
		if (r >= 0)
			r = skip_newlines(p);
		if (r >= 0)
			r = pdk_sh_peek(p, &t);
		if (r < 0)
			return r;
		if (is_kw(t, "esac")) {
			pdk_sh_consume(p);
			return 0;
		}
		if (is_op(t, OP_LPAREN)) {
			pdk_sh_consume(p);
			r = pdk_sh_peek(p, &t);
			if (r < 0)
				return r;
		}
		for (;;) {
			if (t->kind != TK_WORD) {
				if (t->kind == TK_EOF)
					return pdk_sh_fail_match(p, t->start, "esac", "case", off);
				return pdk_sh_unexpected(p, t);
			}
			pdk_sh_consume(p);
			r = pdk_sh_peek(p, &t);
			if (r < 0)
				return r;
			if (is_op(t, OP_RPAREN)) {
				pdk_sh_consume(p);
				break;
			}
			if (!is_op(t, OP_PIPE))
				return pdk_sh_fail(p, p->lx, t->start, "expected ')' after case pattern");
			pdk_sh_consume(p);
			r = pdk_sh_peek(p, &t);
			if (r < 0)
				return r;
		}
		r = pdk_sh_parse_list(p, &n);
		if (r >= 0)
			r = pdk_sh_peek(p, &t);
		if (r < 0)
			return r;
		if (is_op(t, OP_DSEMI) || is_op(t, OP_SEMI_AND) || is_op(t, OP_DSEMI_AND)) {
			pdk_sh_consume(p);
			continue;
		}
		if (!is_kw(t, "esac"))
			return pdk_sh_fail_match(p, t->start, "esac", "case", off);
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
	pdk_sh_wb_init(&scratch);
	for (;;) {
		int c = cur(lx);

		if (c < 0 || ((c == ' ' || c == '\t' || c == '\n') && depth == 0))
			break;
		if (c == '\\') {
			lx->pos += lx->pos + 1 < lx->len ? 2 : 1;
			continue;
		}
		if (c == '\'') {
			const char *q = pdk_sh_squote_end(p, lx);

			if (!q) {
				r = p->rc;
				break;
			}
			lx->pos = q - lx->s + 1;
			continue;
		}
		if (c == '"')
			r = pdk_sh_lex_dquote(p, lx, &scratch);
		else if (c == '$')
			r = pdk_sh_lex_dollar(p, lx, &scratch, false);
		else if (c == '`')
			r = pdk_sh_lex_backtick(p, lx, &scratch, false);
		else {
			if (c == '(' && ++depth + p->depth > PDK_SH_MAX_DEPTH) {
				r = pdk_sh_fail(p, lx, lx->pos, "nested too deeply (limit %d)",
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
/* -eq, -ne, -lt, -le, -gt, -ge: [[ ]] evaluates both operands as arithmetic. */
static bool arith_test_op(const struct token *t)
{
	static const char *const ops[] = {"-eq", "-ne", "-lt", "-le", "-gt", "-ge"};

	if (t->kind != TK_WORD || t->w.flags)
		return false;
	for (size_t i = 0; i < PDK_ARRAY_SIZE(ops); i++)
		if (!strcmp(t->w.text, ops[i]))
			return true;
	return false;
}

/* [[ -v NAME[SUBSCRIPT] ]]: bash evaluates the subscript (of an indexed
 * array, as an expression). Quoted, a $(...), ${...} or `...` in it was no
 * command to the parser, yet bash runs it. */
static int cond_v(struct parser *p, const struct token *t)
{
	const char *s = t->w.text, *b = s, *e;
	_cleanup_free_ char *where = NULL;
	bool code = false;

	while (*b == '_' || isalnum((unsigned char)*b))
		b++;
	if (b == s || *b != '[' || !(e = strrchr(b, ']')) || e == b + 1)
		return 0;
	if (t->w.flags & PDK_SH_QUOTED)
		for (const char *q = b + 1; q < e && !code; q++)
			code = *q == '`' || (*q == '$' && (q[1] == '(' || q[1] == '{'));
	if (asprintf(&where, "[[ -v %s ]]", s) < 0)
		return pdk_sh_nomem(p);
	return pdk_sh_add_arith_src(p, b + 1, (size_t)(e - b - 1), where, strlen(where), s,
				    (size_t)(b - s), code);
}

static int parse_cond(struct parser *p, size_t off)
{
	unsigned saved = p->ctx;
	bool newline_ok = true; /* as bash: only after [[ && || ( ! */
	bool operand_next = false;
	_cleanup_free_ char *prev = NULL; /* the word before, a left operand */
	struct token *t;
	int r;

	p->ctx |= PDK_SH_IN_ARITH;
	pdk_sh_consume(p);
	for (;;) {
		r = pdk_sh_peek(p, &t);
		if (r < 0)
			break;
		if (is_kw(t, "]]")) {
			pdk_sh_consume(p);
			break;
		}
		if (t->kind == TK_EOF) {
			r = pdk_sh_fail_match(p, t->start, "]]", "[[", off);
			break;
		}
		if (t->kind == TK_OP && !(t->op == OP_AND_IF || t->op == OP_OR_IF ||
					  t->op == OP_LPAREN || t->op == OP_RPAREN ||
					  (t->op == OP_REDIR && (t->redir == PDK_SH_REDIR_IN ||
								 t->redir == PDK_SH_REDIR_OUT)))) {
			r = pdk_sh_unexpected(p, t);
			break;
		}
		if (t->kind == TK_NEWLINE && !newline_ok) {
			r = pdk_sh_unexpected(p, t);
			break;
		}
		newline_ok = t->kind == TK_NEWLINE || is_op(t, OP_AND_IF) || is_op(t, OP_OR_IF) ||
			     is_op(t, OP_LPAREN) || is_kw(t, "!");

		bool regex = is_kw(t, "=~");
		if (arith_test_op(t) && prev && (r = pdk_sh_add_arith(p, prev, strlen(prev))) < 0)
			break;
		if (t->kind == TK_WORD && prev && !strcmp(prev, "-v") && (r = cond_v(p, t)) < 0)
			break;
		if (t->kind == TK_WORD && operand_next &&
		    (r = pdk_sh_add_arith(p, t->w.text, strlen(t->w.text))) < 0)
			break;
		operand_next = arith_test_op(t);
		free(prev);
		prev = t->kind == TK_WORD ? strdup(t->w.text) : NULL;
		if (t->kind == TK_WORD && !prev) {
			r = pdk_sh_nomem(p);
			break;
		}
		pdk_sh_consume(p);
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

	r = pdk_sh_peek(p, &t);
	if (r < 0)
		return r;
	off = orig(lx, t->start);
	if (!is_op(t, OP_LPAREN) && t->kind != TK_WORD)
		return t->kind == TK_OP && t->op == OP_REDIR ? parse_simple(p) : pdk_sh_unexpected(p, t);
	if (t->kind == TK_WORD && (t->w.flags & (PDK_SH_QUOTED | PDK_SH_EXPANSION | PDK_SH_SUBST |
						  PDK_SH_ARITH)))
		return parse_simple(p);

	r = pdk_sh_enter(p, lx, t->start);
	if (r < 0)
		return r;
	if (is_op(t, OP_LPAREN)) {
		size_t start = t->start;

		bool arith = false;

		if (lx->pos < lx->len && lx->s[lx->pos] == '(') {
			r = pdk_sh_arith_trial(p, lx, lx->pos + 1);
			if (r < 0) {
				pdk_sh_leave(p);
				return r;
			}
			arith = r;
		}
		if (arith) {
			struct wbuf scratch;

			pdk_sh_consume(p);
			adv(lx);
			pdk_sh_wb_init(&scratch);
			r = pdk_sh_scan_arith(p, lx, start, &scratch, false);
			free(scratch.s);
		} else {
			pdk_sh_consume(p);
			p->ctx |= PDK_SH_IN_SUBSHELL;
			r = parse_body(p);
			if (r >= 0)
				r = pdk_sh_peek(p, &t);
			if (r >= 0 && !is_op(t, OP_RPAREN))
				r = pdk_sh_fail_match(p, t->start, ")", "(", off);
			if (r >= 0)
				pdk_sh_consume(p);
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
		pdk_sh_consume(p);
		r = parse_body(p);
		if (r >= 0)
			r = expect_kw(p, "}", "{", off);
	} else if (is_kw(t, "[[")) {
		r = parse_cond(p, off);
	} else if (is_kw(t, "function")) {
		pdk_sh_consume(p);
		r = pdk_sh_peek(p, &t);
		if (r >= 0 && (t->kind != TK_WORD ||
			       (t->w.flags & (PDK_SH_QUOTED | PDK_SH_EXPANSION | PDK_SH_SUBST))))
			r = pdk_sh_fail(p, lx, t->start, "expected a function name after 'function'");
		if (r >= 0) {
			pdk_sh_consume(p);
			r = pdk_sh_peek(p, &t);
		}
		if (r >= 0 && is_op(t, OP_LPAREN)) {
			pdk_sh_consume(p);
			r = pdk_sh_peek(p, &t);
			if (r >= 0 && !is_op(t, OP_RPAREN))
				r = pdk_sh_unexpected(p, t);
			if (r >= 0)
				pdk_sh_consume(p);
		}
		if (r >= 0)
			r = parse_function_body(p);
		pdk_sh_leave(p);
		p->ctx = saved;
		return r;
	} else if (is_kw(t, "coproc")) {
		r = pdk_sh_fail(p, lx, t->start, "'coproc' is not supported");
	} else if (is_list_end(t) || is_kw(t, "in")) {
		r = pdk_sh_unexpected(p, t);
	} else {
		pdk_sh_leave(p);
		return parse_simple(p);
	}
	p->ctx = saved;
	pdk_sh_leave(p);
	if (r >= 0)
		r = parse_redirs_after_compound(p);
	return r;
}

static int parse_pipeline(struct parser *p)
{
	size_t first = p->out->n, count = 0;
	struct token *t;
	int r;

	while ((r = pdk_sh_peek(p, &t)) >= 0 && is_kw(t, "!"))
		pdk_sh_consume(p);
	if (r < 0)
		return r;
	for (;;) {
		r = parse_command(p);
		if (r < 0)
			return r;
		count++;
		r = pdk_sh_peek(p, &t);
		if (r < 0)
			return r;
		if (!is_op(t, OP_PIPE) && !is_op(t, OP_PIPE_AND))
			break;
		pdk_sh_consume(p);
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
		r = pdk_sh_peek(p, &t);
		if (r < 0)
			return r;
		if (!is_op(t, OP_AND_IF) && !is_op(t, OP_OR_IF))
			return 0;
		pdk_sh_consume(p);
		r = skip_newlines(p);
		if (r < 0)
			return r;
	}
}

/* A list of and-or lists separated by ; & or newlines, up to a token that
 * ends it (EOF, ')', ';;', a closing reserved word); *count says how many. */
int pdk_sh_parse_list(struct parser *p, size_t *count)
{
	struct token *t;
	int r;

	*count = 0;
	for (;;) {
		r = skip_newlines(p);
		if (r >= 0)
			r = pdk_sh_peek(p, &t);
		if (r < 0)
			return r;
		if (is_list_end(t))
			return 0;

		size_t first = p->out->n;
		r = parse_and_or(p);
		if (r < 0)
			return r;
		(*count)++;
		r = pdk_sh_peek(p, &t);
		if (r < 0)
			return r;
		if (is_op(t, OP_SEMI)) {
			pdk_sh_consume(p);
		} else if (is_op(t, OP_AMP)) {
			pdk_sh_consume(p);
			mark(p, first, PDK_SH_IN_BACKGROUND);
		} else if (t->kind != TK_NEWLINE) {
			return 0;
		}
	}
}
