/* shparse_heredoc.c - the sh parser's here-documents: bodies read at the
 * next newline, unquoted ones scanned for the substitutions the shell runs. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "shparse_int.h"

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
			r = pdk_sh_lex_dollar(p, body, w, true);
		else if (c == '`')
			r = pdk_sh_lex_backtick(p, body, w, false);
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

	pdk_sh_wb_init(&body);
	for (;;) {
		size_t ls = lx->pos, le;
		const char *nl;

		if (ls >= lx->len) {
			free(body.s);
			return pdk_sh_fail(p, lx, h->op_pos,
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
		if (pdk_sh_wb_putn(&body, lx->s + ls, le - ls) < 0 || (nl && pdk_sh_wb_putc(&body, '\n') < 0)) {
			free(body.s);
			return pdk_sh_nomem(p);
		}
		lx->pos = nl ? le + 1 : le;
	}
	if (!body.s && pdk_sh_wb_putn(&body, "", 0) < 0)
		return pdk_sh_nomem(p);

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
		pdk_sh_wb_init(&scratch);
		p->ctx = h->ctx | PDK_SH_IN_HEREDOC;
		p->subst_depth = h->subst_depth;
		p->hd_owner = h->owner;
		r = scan_heredoc_body(p, &sub, &scratch);
		p->ctx = saved_ctx;
		p->subst_depth = saved_sd;
		p->hd_owner = saved_owner;
		flags = scratch.flags & (PDK_SH_EXPANSION | PDK_SH_SUBST | PDK_SH_ARITH);
		free(scratch.s);
		pdk_sh_lexer_done(&sub);
	}
	if (r >= 0 && h->owner) {
		struct pdk_sh_redir *rd = &h->owner->c.redirs[h->ridx];

		rd->heredoc = steal_pointer(&body.s);
		rd->heredoc_flags = flags;
	}
	free(body.s);
	return r;
}

int pdk_sh_read_heredocs(struct parser *p, struct lexer *lx)
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
