/* approvals.h - out-of-band approvals: a call waiting for a person is written
 * to paddock's state directory, where `paddock approvals` lists and answers it. */
#ifndef PDK_APPROVALS_H
#define PDK_APPROVALS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "gate.h"

/*
 * $XDG_STATE_HOME/paddock/approvals/ (0700, our own, never a symlink) holds
 * ID.json for each request waiting for a person, and ID.answer once someone
 * answered it. An answer names the request's id and its digest (SHA-256 over
 * the call's line, directory, what needs approval and what it would widen),
 * and is made with link(2), so the first answer wins and a second finds it
 * there. Nothing in a sandbox can write this directory.
 */
#define PDK_APPROVAL_ID_LEN 8
/* How often a waiting call looks for an out-of-band answer, in milliseconds. */
#define PDK_APPROVAL_POLL_MS 100

struct pdk_approval {
	char id[PDK_APPROVAL_ID_LEN + 1];
	char digest[65];
	char *dir;
};

/* Publish rq as waiting for a person. 0 and ret filled, or -errno. */
int pdk_approval_publish(const struct pdk_gate_request *rq, struct pdk_approval *ret);
/* Has someone answered? 1 approved, 0 denied, -EAGAIN not yet (an answer
 * that names another request or digest is no answer), or -errno. by gets who
 * (a static string). */
int pdk_approval_poll(const struct pdk_approval *a, const char **by);
/* Answer our own request (the dialog's answer): 0, or -EEXIST when another
 * answer came first. */
int pdk_approval_claim(const struct pdk_approval *a, bool approve);
/* Remove the request and its answer. */
void pdk_approval_withdraw(struct pdk_approval *a);

/* What `paddock approvals` lists. */
struct pdk_approval_info {
	char id[PDK_APPROVAL_ID_LEN + 1];
	char *command, *cwd, *needs, *session;
	pid_t pid;
	long long created; /* seconds since the epoch */
	bool answered;
};
/* The requests still waiting (those whose process is gone are removed),
 * oldest first. */
int pdk_approvals_list(struct pdk_approval_info **ret, size_t *n);
void pdk_approvals_list_free(struct pdk_approval_info *v, size_t n);
/* Answer request id from outside: 0; -ENOENT no such request waiting;
 * -EEXIST answered already; -EINVAL not an id. */
int pdk_approval_answer(const char *id, bool approve);
bool pdk_approval_id_valid(const char *id);

#endif
