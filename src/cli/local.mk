# src/cli/local.mk - the verbs and their option parsing: faces of the program
# and of libpaddock (src/api), never of the internal libpaddock.a.
FACES_SOURCES += src/cli/cli.h src/cli/cli_opts.c src/cli/cli_call.c src/cli/cli_call.h \
	src/cli/cli_run.c src/cli/cli_check.c src/cli/cli_recall.c src/cli/cli_doctor.c \
	src/cli/cli_mcp.c src/cli/cli_request.c src/cli/cli_approvals.c src/cli/cli_pkg.c \
	src/cli/cli_audit.c src/cli/cli_audit.h src/cli/cli_log.c
