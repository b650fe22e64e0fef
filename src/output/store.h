/* store.h - the output store: the whole output of a run whose result held
 * something back, kept under $XDG_STATE_HOME/paddock/output/SESSION/ID. */
#ifndef PDK_STORE_H
#define PDK_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/defaults.h"
#include "core/state.h"

#define PDK_ID_LEN 8

struct pdk_store_config {
	const char *dir;     /* .../paddock/output */
	const char *session; /* validated session name */
	uint64_t cap;        /* bytes kept per output */
	uint64_t prune;      /* total size kept across outputs */
};

/* Where the store lives: $XDG_STATE_HOME/paddock/output, else
 * ~/.local/state/paddock/output. Returns a new string or NULL (no home). */
char *pdk_store_default_dir(void);
bool pdk_store_id_valid(const char *id);

/*
 * One output being written. Nothing touches the filesystem until the first
 * spill or pdk_store_commit(); a failure is remembered (pdk_store_error) and
 * the run goes on without the store.
 */
struct pdk_store_entry;

int pdk_store_entry_new(const struct pdk_store_config *cfg, struct pdk_store_entry **ret);
void pdk_store_entry_free(struct pdk_store_entry *e);
/* Append bytes of stream 1 (stdout) or 2 (stderr) to its spill file. */
int pdk_store_spill(struct pdk_store_entry *e, int stream, const void *buf, size_t len);
/* Bytes of stream spilled so far (0 when the stream never spilled). */
uint64_t pdk_store_spilled(const struct pdk_store_entry *e, int stream);
/* Read back spilled bytes of stream at offset. */
ssize_t pdk_store_spill_read(struct pdk_store_entry *e, int stream, void *buf, size_t len,
			     uint64_t off);
/* The reason the store is unusable, or NULL. */
const char *pdk_store_error(const struct pdk_store_entry *e);

/* A piece of the stored rendering: in memory, or a stream's spill file. */
struct pdk_store_part {
	const char *data; /* NULL: read from the spill file of `stream` */
	uint64_t len;
	int stream;
};

struct pdk_store_result {
	char id[PDK_ID_LEN + 1];
	uint64_t bytes;  /* bytes kept */
	uint64_t lines;  /* lines kept */
	bool truncated;  /* the per-output cap cut it */
};

/* Write the parts as one output file under a fresh unique id, then prune. */
int pdk_store_commit(struct pdk_store_entry *e, const struct pdk_store_part *parts, size_t n,
		     struct pdk_store_result *ret);

/* Delete the oldest outputs until the total is at most keep bytes. */
int pdk_store_prune(const char *dir, uint64_t keep);

/* Open a stored output for reading: searches the session first, then every
 * session. Returns an fd or -errno (-ENOENT: unknown or pruned; -EBADMSG: what is at
 * its name is not a regular file, a symlink included). */
int pdk_store_open(const char *dir, const char *session, const char *id);

#endif
