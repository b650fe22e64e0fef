/* shparse_int.h - what the sh parser's files share (shparse.c, shparse_lex.c,
 * shparse_heredoc.c, shparse_grammar.c): tokens, the lexer and parser state,
 * the character accessors every part inlines. Not part of the API in shparse.h. */
#ifndef PDK_SHPARSE_INT_H
#define PDK_SHPARSE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "shparse.h"

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
	char **arith; /* the arithmetic texts, in the order they were read */
	size_t narith, arithcap;
	struct pdk_sh_arith_src *arith_src; /* one each, strings owned */
	size_t arithsrccap;
	struct pdk_sh_word *loopvals; /* NAME=WORD of for and select loops */
	size_t nloopvals, loopvalcap;
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
	size_t trial_budget; /* bytes pdk_sh_arith_trial() may still look ahead */
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

/* ---- the character accessors every part inlines ---- */

static inline size_t orig(const struct lexer *lx, size_t i)
{
	if (i > lx->len)
		i = lx->len;
	return lx->map ? lx->map[i] : lx->base + i;
}

static inline bool is_name_start(int c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline bool is_name_char(int c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
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
static inline size_t skip_cont_at(const struct lexer *lx, size_t i)
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

static inline int la(const struct lexer *lx, int k)
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

/* shparse.c: errors, nesting, buffers, and what the parts share */
int pdk_sh_nomem(struct parser *p);
int pdk_sh_fail(struct parser *p, const struct lexer *lx, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int pdk_sh_fail_match(struct parser *p, size_t pos, const char *want, const char *opener,
		      size_t open_off);
int pdk_sh_enter(struct parser *p, const struct lexer *lx, size_t pos);
void pdk_sh_leave(struct parser *p);
int pdk_sh_grow(void **arr, size_t *cap, size_t need, size_t size);
int pdk_sh_wb_putn(struct wbuf *w, const char *s, size_t n);
int pdk_sh_wb_putc(struct wbuf *w, char c);
void pdk_sh_wb_init(struct wbuf *w);
bool pdk_sh_is_name(const char *s);
void pdk_sh_tok_clear(struct token *t);
void pdk_sh_lexer_done(struct lexer *lx);

/* shparse_lex.c: words and tokens */
const char *pdk_sh_squote_end(struct parser *p, const struct lexer *lx);
int pdk_sh_arith_trial(struct parser *p, const struct lexer *lx, size_t i);
/* Keeps len bytes of s as one of the script's arithmetic texts. */
int pdk_sh_add_arith(struct parser *p, const char *s, size_t len);
/* ... as part of the construct `where` (wlen bytes), a subscript of array
 * (alen bytes; NULL: none), code: see struct pdk_sh_arith_src. */
int pdk_sh_add_arith_src(struct parser *p, const char *s, size_t len, const char *where,
			 size_t wlen, const char *array, size_t alen, bool code);
int pdk_sh_scan_arith(struct parser *p, struct lexer *lx, size_t start, struct wbuf *scratch,
		      bool bracket);
int pdk_sh_lex_dollar(struct parser *p, struct lexer *lx, struct wbuf *w, bool in_dq);
int pdk_sh_lex_backtick(struct parser *p, struct lexer *lx, struct wbuf *w, bool in_dq);
int pdk_sh_lex_dquote(struct parser *p, struct lexer *lx, struct wbuf *w);
int pdk_sh_peek(struct parser *p, struct token **ret);
void pdk_sh_consume(struct parser *p);
const char *pdk_sh_tok_desc(const struct token *t, char *buf, size_t n);
int pdk_sh_unexpected(struct parser *p, const struct token *t);

/* shparse_heredoc.c: the bodies waiting for the next newline */
int pdk_sh_read_heredocs(struct parser *p, struct lexer *lx);

/* shparse_grammar.c: the recursive descent */
void pdk_sh_node_free(struct node *n);
int pdk_sh_parse_list(struct parser *p, size_t *count);

#endif
