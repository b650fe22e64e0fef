/* cli.h - the command-line verbs and their option parsing, kept apart from
 * the library so tests can call the parsers. Only cli*.c and main.c print. */
#ifndef PDK_CLI_H
#define PDK_CLI_H

#include <stdbool.h>
#include <stddef.h>

/* paddock's own exit codes (a command's own status passes through). */
#define PDK_EXIT_FAILURE 125  /* paddock itself failed, or bad usage */
#define PDK_EXIT_NOEXEC 126   /* found but not executable */
#define PDK_EXIT_NOTFOUND 127 /* not found */

#include "core/request.h"


/* Parse `run` options. On error returns -EINVAL with one line in why. */
int pdk_cli_parse_run(int argc, char **argv, struct pdk_request *ret, char *why, size_t why_len);
void pdk_request_release(struct pdk_request *o);
/* Does this word among run's options take the next word as its value ("-t",
 * "--allow-domain", a prefix getopt_long would take)? The one table of run's
 * options says; "--opt=value" and "-t300" hold theirs. */
bool pdk_cli_run_takes_value(const char *arg);
/* "16384", "16K", "1M" -> bytes; -EINVAL / -ERANGE. */
int pdk_cli_parse_size(const char *s, size_t *ret);
int pdk_cli_parse_seconds(const char *s, double *ret);

/* `paddock __finish FD`: finish the run journal open on FD (confine/vet.h), as a run's
 * guardian does when paddock died; prints nothing. */
int pdk_cli_finish_main(int argc, char **argv);
int pdk_cli_run_main(int argc, char **argv);
/* A call paddock composed itself (`paddock pkg`): it runs unconfined, outside
 * the sandbox, decided by its maker instead of the policy, and otherwise goes
 * the way of every run (gate, store, bounded result). */
struct pdk_cli_preset {
	bool ask;	  /* pass the confirm gate, with what as the question */
	const char *what; /* one line: what the call does, as the person should see it */
	const char *note; /* the result's sandbox: line */
	/* After the gate said yes, before the command starts: non-zero stops the
	 * call with the one line it wrote to why (exit 125, error_kind failed). */
	int (*before)(void *ctx, char *why, size_t why_len);
	void *ctx;
};
/* `run` over argv (run's own options, then -- and the command), as preset says. */
int pdk_cli_run_preset(int argc, char **argv, const struct pdk_cli_preset *preset);
int pdk_cli_pkg_main(int argc, char **argv);
/* Set in the process of one MCP call: with --json, run writes the text
 * rendering of the same run after the JSON line (both name one kept copy). */
extern bool pdk_cli_run_text_too;
int pdk_cli_recall_main(int argc, char **argv);
int pdk_cli_doctor_main(int argc, char **argv);
int pdk_cli_check_main(int argc, char **argv);
int pdk_cli_mcp_main(int argc, char **argv);
int pdk_cli_approvals_main(int argc, char **argv);
/* `paddock log`: the audit log, filtered. */
int pdk_cli_log_main(int argc, char **argv);
/* `run --request FILE|-`: where --request is among run's options, or -1. */
int pdk_cli_request_find(int argc, char **argv);
int pdk_cli_request_main(int argc, char **argv, int at);
/* Set in the process of one MCP call: the socket its approver asks the MCP
 * client through (elicitation); -1 elsewhere. */
extern int pdk_cli_remote_fd;

/* err(3)-style: "paddock: <what>: <why>" on stderr. */
void pdk_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
