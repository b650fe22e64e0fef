/* recall.h - reading a stored output back: paging by line, filtering with a
 * PCRE2 pattern, and the notable lines, each bounded like a result. */
#ifndef PDK_RECALL_H
#define PDK_RECALL_H

#include <stddef.h>
#include <stdint.h>

#include "core/fmt.h"
#include "core/util.h"

enum pdk_recall_mode { PDK_RECALL_PAGE, PDK_RECALL_MATCH, PDK_RECALL_SUMMARY };

struct pdk_recall_opts {
	const char *id;
	enum pdk_recall_mode mode;
	uint64_t from;    /* first line, 1-based */
	uint64_t lines;   /* at most this many lines; 0: as many as fit */
	const char *pattern;
	size_t bound;
};

/* Render the recall of the stored output open on fd into out. Errors:
 * -EINVAL (bad pattern: err says where), -ERANGE (from past the end: err
 * says how many lines there are). */
int pdk_recall(int fd, const struct pdk_recall_opts *o, struct pdk_buf *out, struct pdk_error *err);

#endif
