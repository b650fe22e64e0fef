/* textclean.c - what the model sees of a raw line: terminal escape
 * sequences removed, carriage-return redraws collapsed, bad bytes escaped. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "textclean.h"

long pdk_utf8_next(const unsigned char *s, size_t n, size_t *ret_n)
{
	unsigned char c = s[0];
	size_t need;
	uint32_t cp;

	if (c < 0x80) {
		*ret_n = 1;
		return c;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		need = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 4;
		cp = c & 0x07;
	} else {
		return -1;
	}
	if (n < need)
		return -1;
	for (size_t i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((need == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (need == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return -1;
	*ret_n = need;
	return (long)cp;
}

/* Bytes of the escape sequence starting at s[0] == ESC. */
static size_t escape_len(const unsigned char *s, size_t n)
{
	size_t i;

	if (n < 2)
		return n;
	switch (s[1]) {
	case '[': /* CSI: parameters, intermediates, one final byte */
		for (i = 2; i < n; i++)
			if (s[i] >= 0x40 && s[i] <= 0x7e)
				return i + 1;
		return n;
	case ']': /* OSC ... BEL or ST */
	case 'P':
	case 'X':
	case '^':
	case '_':
		for (i = 2; i < n; i++) {
			if (s[i] == 0x07)
				return i + 1;
			if (s[i] == 0x1b && i + 1 < n && s[i + 1] == '\\')
				return i + 2;
		}
		return n;
	default:
		/* ESC ( B and friends take one more byte */
		if ((s[1] == '(' || s[1] == ')' || s[1] == '#' || s[1] == '%') && n >= 3)
			return 3;
		return 2;
	}
}

static bool needs_care(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] >= 0x7f)
			if (s[i] != '\t')
				return true;
	return false;
}

/* One visible cell: a character or an escaped byte, up to four bytes. */
struct cell {
	unsigned char b[4];
	unsigned char n;
};

static size_t put_cell(struct cell *c, const unsigned char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t l;
	long cp = pdk_utf8_next(s, n, &l);

	/* Invalid UTF-8 and control characters are escaped byte by byte: C0
	 * but the tab, DEL, and C1 (U+0080-U+009F: a terminal may take U+009B
	 * for the start of an escape sequence, as it takes ESC [). */
	if (cp < 0 || (cp < 0x20 && cp != '\t') || (cp >= 0x7f && cp < 0xa0)) {
		c->b[0] = '\\';
		c->b[1] = 'x';
		c->b[2] = hex[s[0] >> 4];
		c->b[3] = hex[s[0] & 15];
		c->n = 4;
		return 1;
	}
	memcpy(c->b, s, l);
	c->n = (unsigned char)l;
	return l;
}

static size_t emit(char *out, const struct cell *c)
{
	memcpy(out, c->b, c->n);
	return c->n;
}

size_t pdk_text_clean_line(const char *in, size_t len, char *out)
{
	const unsigned char *s = (const unsigned char *)in;
	struct cell c, *cells;
	size_t ncells = 0, cur = 0, o = 0, i;

	if (!needs_care(s, len)) {
		memcpy(out, in, len);
		return len;
	}
	/* A CRLF line ending is not a redraw. */
	while (len > 0 && s[len - 1] == '\r')
		len--;
	if (!memchr(s, '\r', len) && !memchr(s, '\b', len)) {
		for (i = 0; i < len;) {
			if (s[i] == 0x1b) {
				i += escape_len(s + i, len - i);
				continue;
			}
			i += put_cell(&c, s + i, len - i);
			o += emit(out + o, &c);
		}
		return o;
	}
	/* Redraws: replay the cursor over cells, as a terminal would. */
	cells = malloc(len * sizeof(*cells));
	if (!cells) {
		/* Out of memory: the text after the last '\r' is the best guess. */
		const unsigned char *r = s + len;
		while (r > s && r[-1] != '\r')
			r--;
		return pdk_text_clean_line((const char *)r, len - (size_t)(r - s), out);
	}
	for (i = 0; i < len;) {
		if (s[i] == 0x1b) {
			i += escape_len(s + i, len - i);
		} else if (s[i] == '\r') {
			cur = 0;
			i++;
		} else if (s[i] == '\b') {
			cur -= cur > 0;
			i++;
		} else {
			i += put_cell(&cells[cur], s + i, len - i);
			if (++cur > ncells)
				ncells = cur;
		}
	}
	for (i = 0; i < ncells; i++)
		o += emit(out + o, &cells[i]);
	free(cells);
	return o;
}

size_t pdk_text_json_len(const char *s, size_t len)
{
	size_t n = len;

	for (size_t i = 0; i < len; i++)
		if (s[i] == '"' || s[i] == '\\' || s[i] == '\t')
			n++;
	return n;
}

static bool is_cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

size_t pdk_text_prefix(const char *s, size_t len, size_t max)
{
	size_t n = max < len ? max : len;

	while (n > 0 && n < len && is_cont((unsigned char)s[n]))
		n--;
	return n;
}

size_t pdk_text_suffix_start(const char *s, size_t len, size_t max)
{
	size_t start = len > max ? len - max : 0;

	while (start < len && is_cont((unsigned char)s[start]))
		start++;
	return start;
}
