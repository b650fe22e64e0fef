/* textclean.h - what the model sees of a raw line: terminal escape
 * sequences removed, carriage-return redraws collapsed, bad bytes escaped. */
#ifndef PDK_TEXTCLEAN_H
#define PDK_TEXTCLEAN_H

#include <stdbool.h>
#include <stddef.h>

/* Room out must have for a raw line of len bytes. */
#define PDK_CLEAN_ROOM(len) ((len) * 4 + 4)

/*
 * Clean one raw line (without its '\n') into out, which has
 * PDK_CLEAN_ROOM(len) bytes. Escape sequences (CSI, OSC, DCS, two-byte ESC)
 * are removed; '\r' and '\b' move the cursor as a terminal would, so a
 * progress bar keeps its final state; other control bytes and invalid UTF-8
 * become "\xNN" (never dropped). Returns the cleaned length; out is not
 * NUL-terminated.
 */
size_t pdk_text_clean_line(const char *in, size_t len, char *out);

/* Bytes the cleaned text takes once escaped as a JSON string body. */
size_t pdk_text_json_len(const char *s, size_t len);

/* One UTF-8 character at s (n bytes left): its code point, its length in
 * *ret_n; -1 for a byte that does not start a valid, shortest-form one. */
long pdk_utf8_next(const unsigned char *s, size_t n, size_t *ret_n);

/* Length of the longest prefix of s (at most max) that ends on a UTF-8
 * character boundary of cleaned text. */
size_t pdk_text_prefix(const char *s, size_t len, size_t max);
/* Offset from which the suffix of s is at most max bytes, on a boundary. */
size_t pdk_text_suffix_start(const char *s, size_t len, size_t max);

#endif
