/* gate_text.c - text for the confirm gate: the call made safe to show on a terminal or to
 * send as JSON, and the short forms its prompts and refusals quote. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate_int.h"
#include "core/textclean.h"

/* Characters that would let the text redraw or reorder what the person reads:
 * C1 controls, bidirectional overrides and isolates, zero-width characters. */
static bool deceptive(long cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || (cp >= 0x200b && cp <= 0x200f) ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff;
}

/*
 * Text from the call, made safe to print on the person's terminal: the model
 * wrote it, so an escape sequence in it could hide or rewrite the very line
 * being approved. Control bytes, invalid UTF-8 and deceptive characters are
 * shown escaped; a newline shows as "\n" so the call stays one line.
 */
void pdk_gate_put_shown(struct pdk_buf *b, const char *text)
{
	const unsigned char *s = (const unsigned char *)(text ? text : "");
	size_t len = strlen((const char *)s);

	for (size_t i = 0; i < len;) {
		size_t n;
		long cp = pdk_utf8_next(s + i, len - i, &n);

		if (cp < 0) {
			pdk_buf_printf(b, "\\x%02x", s[i]);
			i++;
			continue;
		}
		if (cp == '\n')
			pdk_buf_puts(b, "\\n");
		else if (cp == '\t')
			pdk_buf_puts(b, "\\t");
		else if (cp == '\\')
			pdk_buf_puts(b, "\\\\");
		else if (cp < 0x20 || cp == 0x7f)
			pdk_buf_printf(b, "\\x%02lx", cp);
		else if (deceptive(cp))
			pdk_buf_printf(b, "\\u{%04lx}", cp);
		else
			pdk_buf_add(b, s + i, n);
		i += n;
	}
}

/* The same bytes as valid UTF-8 (each invalid byte becomes U+FFFD), for JSON. */
char *pdk_gate_utf8_clean(const char *text)
{
	const unsigned char *s = (const unsigned char *)(text ? text : "");
	size_t len = strlen((const char *)s);
	struct pdk_buf b = {0};

	for (size_t i = 0; i < len;) {
		size_t n;

		if (pdk_utf8_next(s + i, len - i, &n) < 0) {
			pdk_buf_puts(&b, "\xef\xbf\xbd");
			i++;
		} else {
			pdk_buf_add(&b, s + i, n);
			i += n;
		}
	}
	pdk_buf_add(&b, "", 0);
	if (b.oom) {
		pdk_buf_free(&b);
		return NULL;
	}
	return b.data ? b.data : strdup("");
}

/* "/etc/x, /opt/y" */
void pdk_gate_put_paths(struct pdk_buf *b, const struct pdk_gate_request *rq)
{
	for (size_t i = 0; i < rq->n_password_paths; i++) {
		if (i)
			pdk_buf_puts(b, ", ");
		pdk_buf_puts(b, rq->password_paths[i]);
	}
}
