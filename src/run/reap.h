/* reap.h - the command's own reaper inside a wrapper's sandbox: it runs the
 * command as its child and tells paddock how it ended, signal included,
 * which a wrapper such as bwrap passes on only as the number 128+N. */
#ifndef PDK_REAP_H
#define PDK_REAP_H

/* How paddock is started as the reaper: paddock PDK_REAP_VERB FD -- PATH ARG... */
#define PDK_REAP_VERB "__reap"

/*
 * The reaper's main: argv is {PDK_REAP_VERB, FD, "--", PATH, ARG..., NULL}.
 * Runs PATH with argv PATH ARG... as its child, waits for it, writes
 * "signal N\n" to FD when a signal killed it, and exits as a shell would:
 * the child's code, or 128+N. FD is closed on the child's exec. A PATH that
 * cannot be executed says so on stderr as "paddock: execvp PATH: why" and
 * exits 127 (not found) or 126.
 */
int pdk_reap_main(int argc, char **argv);

/* Parse what the reaper wrote to its fd: -N for signal N, else status. */
int pdk_reap_status(const char *report, int status);

#endif
