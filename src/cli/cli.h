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


/* Parse `run` options (argv[0] is the verb). On error returns -EINVAL with one line in why. */
int pdk_cli_parse_run(int argc, char **argv, struct pdk_request *ret, char *why, size_t why_len);
/* The same, for options alone (the MCP server's, those before --request): a
 * program among them is an error. */
int pdk_cli_parse_run_opts(int argc, char **argv, struct pdk_request *ret, char *why,
			   size_t why_len);
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
/*
 * What the face a call came through lends it besides its request; NULL: the
 * command line's (the configuration files read by the call, the terminal asked).
 * The MCP server gives one to each call's process.
 */
struct pdk_config;
struct pdk_cli_face {
	const struct pdk_config *config; /* read once by the server: the call takes it as is */
	int remote_fd;                   /* the approver asks the MCP client through it; -1 */
	bool text_too;                   /* with --json, the text rendering follows the JSON */
};
/* Run one request, whichever face filled it; req's allocations become the
 * call's (released however it ends). Returns the exit code. */
int pdk_cli_run_request(struct pdk_request *req, const struct pdk_cli_face *face);
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
int pdk_cli_run_preset(int argc, char **argv, const struct pdk_cli_face *face,
		       const struct pdk_cli_preset *preset);
int pdk_cli_pkg_main(int argc, char **argv, const struct pdk_cli_face *face);
int pdk_cli_recall_main(int argc, char **argv, const struct pdk_cli_face *face);
int pdk_cli_doctor_main(int argc, char **argv);
int pdk_cli_check_main(int argc, char **argv);
/* `check` of one request, whichever face filled it (req's allocations become the
 * call's). Returns check's exit status. */
int pdk_cli_check_request(struct pdk_request *req, const struct pdk_cli_face *face);
int pdk_cli_mcp_main(int argc, char **argv);
int pdk_cli_approvals_main(int argc, char **argv);
/* `paddock log`: the audit log, filtered. */
int pdk_cli_log_main(int argc, char **argv);
/* `run --request FILE|-`: where --request is among run's options, or -1. */
int pdk_cli_request_find(int argc, char **argv);
int pdk_cli_request_main(int argc, char **argv, int at);

/* err(3)-style: "paddock: <what>: <why>" on stderr. */
void pdk_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
