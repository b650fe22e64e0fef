/* gate_int.h - what the confirm gate's files share among themselves (gate.c, gate_text.c,
 * gate_tty.c, gate_command.c); not installed and not part of the API in gate.h. */
#ifndef PDK_GATE_INT_H
#define PDK_GATE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/fmt.h"
#include "gate.h"

/* What a refusal tells the model to do instead: no one could be asked, or someone said no. */
#define PDK_GATE_INSTEAD_NOBODY                                                                    \
	"only a person can approve it: ask them to run it themselves, to let the harness pass "    \
	"--yes, or to set approval.mode (ask on a terminal, or an approval.command)"
#define PDK_GATE_INSTEAD_SAID_NO                                                                   \
	"do not run it again as it is; ask the person what they want instead"

/* gate.c: the outcomes. Each returns 0, or -ENOMEM. */
int pdk_gate_approve(struct pdk_gate_result *ret, const char *by);
int pdk_gate_refuse_buf(struct pdk_gate_result *ret, struct pdk_buf *b);
int pdk_gate_refuse(struct pdk_gate_result *ret, const struct pdk_gate_request *rq,
		    const char *reason, const char *instead);

/* gate_text.c */
void pdk_gate_put_shown(struct pdk_buf *b, const char *text);
char *pdk_gate_utf8_clean(const char *text);
void pdk_gate_put_paths(struct pdk_buf *b, const struct pdk_gate_request *rq);

/* grant.c: what an "a" covers. Can one be given for rq; remember one (0 or
 * -errno, -EINVAL when it cannot); the commands it names ("`git stash`"). */
bool pdk_gate_grant_possible(const struct pdk_gate_request *rq);
int pdk_gate_grant_remember(const struct pdk_gate_request *rq);
char *pdk_gate_grant_heads(const struct pdk_gate_request *rq);

/* gate_tty.c: the terminal approver. */
const char *pdk_gate_tty_unusable(int tty);
int pdk_gate_ask_tty(const struct pdk_config *cfg, const struct pdk_gate_request *rq, int tty,
		     bool offer_session, struct pdk_gate_result *ret);

/* gate_remote.c: the approver over a socket (MCP elicitation), with out-of-band answers. */
int pdk_gate_ask_remote(const struct pdk_config *cfg, const struct pdk_gate_request *rq,
			bool offer_session, struct pdk_gate_result *ret);

/* gate_command.c: the approval.command approver, and the children both approvers run. */
int pdk_gate_ask_command(const struct pdk_config *cfg, const struct pdk_gate_request *rq,
			 struct pdk_gate_result *ret);
void pdk_gate_exec_child(const char *path, char *const argv[], char *const envp[], int in, int out,
			 int report, bool own_group) __attribute__((noreturn));
int pdk_gate_exec_report(int report);

#endif
