/* defaults.h - paddock's built-in defaults and limits for what the
 * configuration can change: the configuration starts from them, and the
 * stages that use them (runner, render, store) read them here too. */
#ifndef PDK_DEFAULTS_H
#define PDK_DEFAULTS_H

/* run: seconds (timeout.default, timeout.max), processes (maxProcesses) */
#define PDK_TIMEOUT_DEFAULT   120.0
#define PDK_TIMEOUT_CAP	      1800.0
#define PDK_MAX_PROCS_DEFAULT 1024 /* processes a confined run may have at once */

/* output: bytes the whole result may take (output.bound) */
#define PDK_BOUND_DEFAULT (16 * 1024)
#define PDK_BOUND_MIN	  1024
#define PDK_BOUND_MAX	  (1024 * 1024)

/* output store: bytes kept (output.storeCap per output; all outputs) */
#define PDK_STORE_CAP_DEFAULT	(16ULL << 20)
#define PDK_STORE_PRUNE_DEFAULT (256ULL << 20)

/* trash: what paddock put there expires (trash.maxAgeDays, trash.maxSize) */
#define PDK_TRASH_MAX_AGE_DEFAULT  30		/* days */
#define PDK_TRASH_MAX_AGE_MAX	   36500	/* days */
#define PDK_TRASH_MAX_SIZE_DEFAULT (1ULL << 30) /* bytes */
#define PDK_TRASH_MAX_SIZE_MAX	   (1ULL << 50) /* bytes */

/* audit log: rotated when it reaches this size; this many older files kept */
#define PDK_AUDIT_ROTATE_SIZE (4ULL << 20)
#define PDK_AUDIT_KEEP	      2

#endif
