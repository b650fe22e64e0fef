/* capture.h - one output stream of a run, held as its head and tail in
 * memory and spilled whole to the store the moment a byte would drop. */
#ifndef PDK_CAPTURE_H
#define PDK_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pdk_store_entry;

struct pdk_capture {
	int stream;      /* 1 stdout, 2 stderr */
	size_t cap;      /* bytes kept at each end */
	char *head;      /* the first cap bytes */
	size_t head_len;
	char *ring;      /* the last cap bytes after the head */
	size_t ring_pos; /* where the next byte goes */
	size_t ring_len;
	uint64_t total;    /* bytes seen */
	uint64_t newlines; /* '\n' seen */
	unsigned char last;
	bool spilling;     /* the whole stream goes to the store */
	struct pdk_store_entry *store; /* borrowed, may be NULL */
};

int pdk_capture_init(struct pdk_capture *c, int stream, size_t cap, struct pdk_store_entry *store);
void pdk_capture_release(struct pdk_capture *c);
void pdk_capture_feed(struct pdk_capture *c, const char *buf, size_t len);
/* Lines in the stream: newlines, plus one for an unterminated last line. */
uint64_t pdk_capture_lines(const struct pdk_capture *c);
/* True when head and tail together still hold every byte. */
bool pdk_capture_whole(const struct pdk_capture *c);
/* Copy the tail (ring contents, oldest first) into buf of ring_len bytes. */
void pdk_capture_tail(const struct pdk_capture *c, char *buf);
/* What paddock holds of the stream, head then tail, in one new buffer of
 * head_len + ring_len bytes (free() it); NULL when out of memory. */
char *pdk_capture_join(const struct pdk_capture *c);

#endif
