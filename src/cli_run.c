/* cli_run.c - `paddock run`: parse, confine, run, render, and exit with the
 * command's own status. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "refusal.h"
#include "render.h"
#include "runner.h"
#include "sandbox.h"
#include "store.h"
#include "util.h"

extern char **environ;

static const char run_usage[] =
	"usage: paddock run [OPTIONS] -- PROGRAM [ARG...]\n"
	"  -t, --timeout SECONDS  kill the command after this long (default 120, at most 1800)\n"
	"      --bound BYTES      the most the result may take (default 16K, 1K to 1M)\n"
	"      --json             print the result as one JSON object\n"
	"  -C, --cwd DIR          run the command in DIR (does not change what it may write)\n"
	"  -w, --write PATH       also let the command write under PATH\n"
	"  -n, --network          let the command reach the network\n"
	"      --root DIR         the writable project directory (default: the current one)\n"
	"      --backend NAME     confine with this backend (see 'paddock doctor')\n"
	"      --print-profile    print the confinement that would apply, run nothing\n"
	"      --no-sandbox       run unconfined (only when a person asks for it)\n";

static int exit_code_of(int status)
{
	return status < 0 ? 128 - status : status;
}

/* The note for a timeout names what can be asked for instead. */
static void timeout_notes(const struct pdk_request *o, const struct pdk_run_status *st,
			  char *buf, size_t len, const char **notes, size_t *n)
{
	if (st->timed_out) {
		if (o->timeout >= PDK_TIMEOUT_CAP)
			snprintf(buf, len, "timed out: the command was killed after %g s, the most "
					   "allowed%s; run a shorter step, or one that prints progress "
					   "and stops by itself",
				 o->timeout, o->timeout_clamped ? " (the --timeout asked for was "
								   "clamped to the cap)" : "");
		else
			snprintf(buf, len, "timed out: the command was killed after %g s; ask for up "
					   "to %g s with --timeout",
				 o->timeout, PDK_TIMEOUT_CAP);
		notes[(*n)++] = buf;
	} else if (o->timeout_clamped) {
		snprintf(buf, len, "note: --timeout %g was clamped to the cap of %g s", o->timeout_asked,
			 PDK_TIMEOUT_CAP);
		notes[(*n)++] = buf;
	}
}

/* What the command printed that paddock still holds, scanned for writes
 * the sandbox refused. */
static size_t refusal_hints(const struct pdk_sandbox *sb, const struct pdk_capture *out,
			    const struct pdk_capture *err, char hints[][768])
{
	const struct pdk_capture *caps[] = {err, out};
	char cwd[4096];
	size_t k = 0;

	if (!getcwd(cwd, sizeof(cwd)))
		return 0;
	for (size_t i = 0; i < 2 && k < PDK_REFUSAL_MAX; i++) {
		char *buf = pdk_capture_join(caps[i]);
		if (!buf)
			break;
		k += pdk_refusal_hints(buf, caps[i]->head_len + caps[i]->ring_len,
				       sb->policy.cwd ? sb->policy.cwd : cwd, sb->policy.roots,
				       sb->policy.n_roots, hints + k, PDK_REFUSAL_MAX - k);
		free(buf);
	}
	return k;
}

static int exec_failure(const char *program, const struct pdk_run_status *st)
{
	int e = st->exec_errno;

	if (strcmp(st->exec_stage, "exec") != 0) {
		pdk_cli_error("%s: cannot start the command (%s): %s", program, st->exec_stage,
			      strerror(e));
		return PDK_EXIT_FAILURE;
	}
	pdk_cli_error("%s: %s", program, strerror(e));
	return e == ENOENT ? PDK_EXIT_NOTFOUND : PDK_EXIT_NOEXEC;
}

int pdk_cli_run_main(int argc, char **argv)
{
	struct pdk_request o;
	struct pdk_sandbox sb = {0};
	struct pdk_store_config scfg = {.cap = PDK_STORE_CAP_DEFAULT,
					.prune = PDK_STORE_PRUNE_DEFAULT};
	struct pdk_store_entry *store = NULL;
	struct pdk_capture out = {0}, err = {0};
	struct pdk_run_status st;
	struct pdk_render_out res = {0};
	_cleanup_free_ char *path = NULL, *store_dir = NULL;
	char why[512], tnote[256];
	const char *notes[8];
	size_t n_notes = 0;
	int r, code = PDK_EXIT_FAILURE;

	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(run_usage, stdout);
		return 0;
	}
	if (pdk_cli_parse_run(argc, argv, &o, why, sizeof(why)) < 0) {
		pdk_cli_error("run: %s", why);
		return PDK_EXIT_FAILURE;
	}
	r = pdk_session_name(&scfg.session);
	if (r < 0) {
		pdk_cli_error("run: PADDOCK_SESSION must be 1 to 64 of A-Z a-z 0-9 . _ -; "
			      "set it to such a name or unset it");
		goto out;
	}
	r = pdk_find_program(o.argv[0], &path);
	if (r < 0) {
		if (r == -ENOENT && !strchr(o.argv[0], '/'))
			pdk_cli_error("%s: command not found", o.argv[0]);
		else
			pdk_cli_error("%s: %s", o.argv[0], strerror(-r));
		code = r == -ENOENT || r == -ENOTDIR ? PDK_EXIT_NOTFOUND : PDK_EXIT_NOEXEC;
		goto out;
	}
	r = pdk_sandbox_setup(&o, path, environ, &sb, why, sizeof(why));
	if (r < 0) {
		pdk_cli_error("run: %s", why);
		goto out;
	}
	if (o.print_profile) {
		r = pdk_sandbox_describe(&sb, stdout);
		code = r < 0 ? PDK_EXIT_FAILURE : 0;
		goto out;
	}
	scfg.dir = store_dir = pdk_store_default_dir();
	if (pdk_store_entry_new(&scfg, &store) < 0 ||
	    pdk_capture_init(&out, 1, o.bound, store) < 0 ||
	    pdk_capture_init(&err, 2, o.bound, store) < 0) {
		pdk_cli_error("run: out of memory");
		goto out;
	}

	r = pdk_run(&sb.spec, &out, &err, &st);
	if (r < 0) {
		pdk_cli_error("run: %s", strerror(-r));
		goto out;
	}
	if (st.exec_errno) {
		code = exec_failure(o.argv[0], &st);
		goto out;
	}

	timeout_notes(&o, &st, tnote, sizeof(tnote), notes, &n_notes);
	char snote[160];
	if (st.stopped) {
		snprintf(snote, sizeof(snote), "stopped: paddock received %s and stopped the command",
			 strsignal(st.stop_signal));
		notes[n_notes++] = snote;
	}
	for (size_t i = 0; i < sb.n_notes && n_notes < PDK_ARRAY_SIZE(notes); i++)
		notes[n_notes++] = sb.notes[i];
	char hints[PDK_REFUSAL_MAX][768];
	if (sb.backend && st.exit_status != 0) {
		size_t k = refusal_hints(&sb, &out, &err, hints);
		for (size_t i = 0; i < k && n_notes < PDK_ARRAY_SIZE(notes); i++)
			notes[n_notes++] = hints[i];
	}

	struct pdk_render_in in = {
		.out = &out,
		.err = &err,
		.exit_status = st.exit_status,
		.timed_out = st.timed_out,
		.stopped = st.stopped,
		.duration = st.duration,
		.notes = notes,
		.n_notes = n_notes,
		.bound = o.bound,
		.json = o.json,
		.store = store,
	};
	r = pdk_render(&in, &res);
	if (r < 0) {
		pdk_cli_error("run: rendering the result: %s", strerror(-r));
		goto out;
	}
	if (fwrite(res.text, 1, res.len, stdout) != res.len || fflush(stdout) != 0) {
		pdk_cli_error("run: writing the result: %s", strerror(errno));
		goto out;
	}
	code = exit_code_of(st.exit_status);
out:
	pdk_render_out_release(&res);
	pdk_capture_release(&out);
	pdk_capture_release(&err);
	pdk_store_entry_free(store);
	pdk_sandbox_release(&sb);
	pdk_request_release(&o);
	return code;
}
