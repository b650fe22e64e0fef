/* audit.h - the audit log: one JSON line for each decision, approval and outcome
 * of a call, in paddock's state directory, rotated by size; and reading it back. */
#ifndef PDK_AUDIT_H
#define PDK_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cJSON;

#define PDK_AUDIT_FILE	  "audit.log"
#define PDK_AUDIT_ID_LEN  8
#define PDK_AUDIT_TIME_LEN 24 /* 2026-12-02T07:40:12.345Z */

/* A new call id: 8 hex digits from the system's entropy. 0 or -errno. */
int pdk_audit_new_id(char id[PDK_AUDIT_ID_LEN + 1]);

/*
 * Append event, a JSON object, to DIR/audit.log as one line, with "time" (UTC, to the
 * millisecond) put first. DIR is made (0700) when missing; the file is 0600. A file that
 * has reached max bytes is rotated first: audit.log.1 becomes .2 and so on up to keep,
 * the oldest goes. An flock on DIR/audit.lock orders parallel writers, so that no line is
 * interleaved with another and none is lost at a rotation. 0 or -errno.
 */
int pdk_audit_append(const char *dir, struct cJSON *event, uint64_t max, unsigned keep);

/* What to read back; every field left zero matches everything. */
struct pdk_audit_filter {
	const char *session;
	const char *call;
	/* "run", "ask" or "refuse": only the calls whose decision was this (all of
	 * their events) */
	const char *verdict;
	double since, until; /* seconds since the epoch; 0: open */
};

/*
 * Each event that passes f, oldest first, over the rotated files (up to keep) and the
 * current one; fn returning non-zero stops. A line that is not a JSON object with a
 * time is skipped and counted in *ret_bad (may be NULL). 0 (also when there is no log
 * yet), fn's non-zero value, or -errno.
 */
int pdk_audit_read(const char *dir, unsigned keep, const struct pdk_audit_filter *f,
		   int (*fn)(const struct cJSON *event, void *ctx), void *ctx, size_t *ret_bad);

/*
 * A time for a filter: "2026-12-02", "2026-12-02T07:40", "2026-12-02T07:40:12" (UTC,
 * a trailing Z allowed), or an age before now: "90s", "30m", "2h", "7d". 0, or -EINVAL.
 */
int pdk_audit_time_parse(const char *s, double now, double *ret);

#endif
