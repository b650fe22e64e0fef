/* capture.c - one output stream of a run, held as its head and tail in
 * memory and spilled whole to the store the moment a byte would drop. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "store.h"

int pdk_capture_init(struct pdk_capture *c, int stream, size_t cap, struct pdk_store_entry *store)
{
	memset(c, 0, sizeof(*c));
	c->stream = stream;
	c->cap = cap;
	c->store = store;
	c->head = malloc(cap);
	c->ring = malloc(cap);
	if (!c->head || !c->ring) {
		pdk_capture_release(c);
		return -ENOMEM;
	}
	return 0;
}

void pdk_capture_release(struct pdk_capture *c)
{
	free(c->head);
	free(c->ring);
	c->head = c->ring = NULL;
}

static uint64_t count_newlines(const char *buf, size_t len)
{
	uint64_t n = 0;
	const char *p = buf, *end = buf + len;

	while ((p = memchr(p, '\n', (size_t)(end - p)))) {
		n++;
		p++;
	}
	return n;
}

void pdk_capture_tail(const struct pdk_capture *c, char *buf)
{
	size_t start = (c->ring_pos + c->cap - c->ring_len) % c->cap;
	size_t first = c->cap - start < c->ring_len ? c->cap - start : c->ring_len;

	memcpy(buf, c->ring + start, first);
	memcpy(buf + first, c->ring, c->ring_len - first);
}

char *pdk_capture_join(const struct pdk_capture *c)
{
	char *buf = malloc(c->head_len + c->ring_len + 1);

	if (!buf)
		return NULL;
	memcpy(buf, c->head, c->head_len);
	pdk_capture_tail(c, buf + c->head_len);
	return buf;
}

/* The whole stream so far is head + ring: write it, then go on writing. */
static void start_spill(struct pdk_capture *c)
{
	char *tail;

	c->spilling = true;
	if (!c->store || pdk_store_spill(c->store, c->stream, c->head, c->head_len) < 0)
		return;
	tail = malloc(c->ring_len);
	if (!tail) {
		/* The spill file would have a hole: stop keeping this stream. */
		pdk_store_spill(c->store, c->stream, NULL, 0);
		return;
	}
	pdk_capture_tail(c, tail);
	pdk_store_spill(c->store, c->stream, tail, c->ring_len);
	free(tail);
}

static void ring_put(struct pdk_capture *c, const char *buf, size_t len)
{
	if (len >= c->cap) {
		memcpy(c->ring, buf + len - c->cap, c->cap);
		c->ring_pos = 0;
		c->ring_len = c->cap;
		return;
	}
	size_t first = c->cap - c->ring_pos < len ? c->cap - c->ring_pos : len;
	memcpy(c->ring + c->ring_pos, buf, first);
	memcpy(c->ring, buf + first, len - first);
	c->ring_pos = (c->ring_pos + len) % c->cap;
	c->ring_len = c->ring_len + len > c->cap ? c->cap : c->ring_len + len;
}

void pdk_capture_feed(struct pdk_capture *c, const char *buf, size_t len)
{
	if (len == 0)
		return;
	c->total += len;
	c->newlines += count_newlines(buf, len);
	c->last = (unsigned char)buf[len - 1];

	if (c->head_len < c->cap) {
		size_t n = c->cap - c->head_len < len ? c->cap - c->head_len : len;
		memcpy(c->head + c->head_len, buf, n);
		c->head_len += n;
		buf += n;
		len -= n;
		if (len == 0)
			return;
	}
	if (!c->spilling && c->ring_len + len > c->cap)
		start_spill(c);
	if (c->spilling && c->store)
		pdk_store_spill(c->store, c->stream, buf, len);
	ring_put(c, buf, len);
}

uint64_t pdk_capture_lines(const struct pdk_capture *c)
{
	return c->newlines + (c->total > 0 && c->last != '\n');
}

bool pdk_capture_whole(const struct pdk_capture *c)
{
	return !c->spilling;
}
