/* rmshim_int.h - what the rm shim's files share (rmshim.c, rmshim_stage.c, rmshim_sweep.c,
 * rmshim_layout.c): the layout the shim writes and the sweep reads; not part of rmshim.h's API. */
#ifndef PDK_RMSHIM_INT_H
#define PDK_RMSHIM_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h" /* struct pdk_strv */

/*
 * Outside the sandbox, paddock's own (rmshim.c makes them, rmshim_sweep.c reads them):
 *
 *   $STATE/shim/rm             -> the paddock binary; $STATE/shim is first on the command's PATH
 *   $STATE/shim/runs/RUNID     the run's roots, one per line, flock'ed while its paddock lives
 *
 * Inside a writable root, the command's (rmshim_stage.c makes them, rmshim_sweep.c empties
 * them; the sweep trusts nothing there but the names):
 *
 *   BASE/.paddock-rm-UID/      the staging area: this user's, 0700, with a .gitignore of "*"
 *   .../RUNID/                 one run: PDK_RMSHIM_RUN_ID_LEN lowercase hex digits
 *   .../RUNID/N/NAME           slot N (decimal, from 1): the removed file under its own name
 *   .../RUNID/N.info           its record, written before the file is moved:
 *
 *     [Paddock Rm]
 *     Path=ORIGINAL            URI-escaped as a .trashinfo Path (pdk_trash_path_encode)
 *     DeletionDate=YYYY-MM-DDThh:mm:ss
 *
 * BASE is the root holding the file, or the highest directory between it and the file on the
 * file's own mount. In the second case the shim first tries to make ROOT/.paddock-rm-UID/RUNID/
 * as well, empty: the sweep looks for mounts below the roots (a read of mountinfo, which the
 * kernel formats mount by mount) only when a root holds a staging area, a root cannot be
 * written (so the mark could not be made), or a dead run's roots are swept.
 * PDK_RMSHIM_ENV_STAGE carries ".paddock-rm-UID/RUNID" to the shim.
 */
#define PDK_RMSHIM_DIR		"shim"
#define PDK_RMSHIM_RUNS		"runs"
#define PDK_RMSHIM_STAGE_PREFIX ".paddock-rm-"
#define PDK_RMSHIM_RUN_ID_LEN	16
#define PDK_RMSHIM_RECORD_HEAD	"[Paddock Rm]\n"
#define PDK_RMSHIM_RECORD_PATH	"Path="
#define PDK_RMSHIM_RECORD_DATE	"DeletionDate="
/* The record as the shim writes it, from the encoded path and the date. */
#define PDK_RMSHIM_RECORD_FMT                                                                      \
	PDK_RMSHIM_RECORD_HEAD PDK_RMSHIM_RECORD_PATH "%s\n" PDK_RMSHIM_RECORD_DATE "%s\n"

/* rmshim_layout.c */

/* ".paddock-rm-UID" for this user. NULL on ENOMEM. */
char *pdk_rmshim_stage_name(void);
/* S is a run id: exactly PDK_RMSHIM_RUN_ID_LEN lowercase hex digits. */
bool pdk_rmshim_run_id_valid(const char *s);
/* The LEN bytes at S are 1 to 9 decimal digits: a slot number or a uid. */
bool pdk_rmshim_digits(const char *s, size_t len);

#endif
