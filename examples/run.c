/* run.c - a whole program over libpaddock: run its arguments as one confined command
 * and print the bounded result as `paddock run` does; exit with the command's status.
 *
 *   cc run.c $(pkg-config --cflags --libs paddock) -o run
 *   ./run make -j4
 *
 * A call that needs a person's yes is asked on the terminal, when there is one. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "paddock.h"

/* The confirm gate's question, answered on the terminal: y once, a for the session. */
static enum paddock_confirm ask(void *ctx, const char *question)
{
	FILE *tty = ctx;
	char answer[16];

	fprintf(stderr, "%s\nrun it? [y]es once, [a]lways this session, [N]o: ", question);
	if (!fgets(answer, sizeof(answer), tty))
		return PADDOCK_CONFIRM_NO;
	return answer[0] == 'y' ? PADDOCK_CONFIRM_ONCE
	       : answer[0] == 'a' ? PADDOCK_CONFIRM_SESSION
				  : PADDOCK_CONFIRM_NO;
}

int main(int argc, char **argv)
{
	struct paddock_options opts = PADDOCK_OPTIONS_INIT;
	struct paddock_session *s;
	struct paddock_result *res;
	struct paddock_request rq = PADDOCK_REQUEST_INIT((const char *const *)argv + 1);
	FILE *tty = isatty(STDIN_FILENO) ? fopen("/dev/tty", "r") : NULL;
	char why[1024];
	int code;

	if (argc < 2) {
		fprintf(stderr, "usage: %s PROGRAM [ARG...]\n", argv[0]);
		return 125;
	}
	if (tty) {
		opts.confirm = ask;
		opts.confirm_ctx = tty;
	}
	if (paddock_session_new(&opts, &s, why, sizeof(why)) < 0) {
		fprintf(stderr, "%s: %s\n", argv[0], why);
		return 125;
	}
	if (paddock_run(s, &rq, &res, why, sizeof(why)) < 0) {
		fprintf(stderr, "%s: %s\n", argv[0], why);
		paddock_session_free(s);
		return 125;
	}
	/* A call that did not run says why on stderr, as paddock run does. */
	if (res->ran)
		fputs(res->text, stdout);
	else
		fprintf(stderr, "%s: %s\n", argv[0], res->error);
	code = res->exit_code;
	paddock_result_free(res);
	paddock_session_free(s);
	if (tty)
		fclose(tty);
	return code;
}
