/* reap.h - the command's own reaper inside a wrapper's sandbox: it runs the
 * command as its child and tells the caller how it ended, signal included,
 * which a wrapper such as bwrap passes on only as the number 128+N. It is a
 * program of its own, paddock-reap (installed in paddock's libexec folder),
 * so that every caller of the bwrap backend can start it, not only paddock. */
#ifndef PDK_REAP_H
#define PDK_REAP_H

/* The reaper's file name, next to the running program or in PDK_LIBEXECDIR. */
#define PDK_REAP_NAME "paddock-reap"

/*
 * The reaper's main: argv is {NAME, FD, "--", PROGRAM, ARG..., NULL}.
 * Runs PROGRAM (looked up on PATH when it has no slash, as bwrap does) as its
 * child, waits for it, writes "signal N\n" to FD when a signal killed it, and
 * exits as a shell would: the child's code, or 128+N. FD is closed on the
 * child's exec. A PROGRAM that cannot be executed says so on stderr as
 * "paddock-reap: execvp PROGRAM: why" and exits 127 (not found) or 126.
 */
int pdk_reap_main(int argc, char **argv);

/* Parse what the reaper wrote to its fd: -N for signal N, else status. */
int pdk_reap_status(const char *report, int status);

/* The reaper's path, for the bwrap backend: next to the running program
 * (a build tree), else in PDK_LIBEXECDIR; NULL when neither holds an
 * executable one (then a signal reads 128+N, as bwrap passes it on).
 * Free with free(). */
char *pdk_reap_find(void);

#endif
