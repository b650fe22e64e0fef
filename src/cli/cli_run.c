/* cli_run.c - `paddock run`: parse, confine, run, render, and exit with the
 * command's own status. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "confine/backend.h"
#include "cli.h"
#include "cli_call.h"
#include "core/path.h"
#include "confine/refusal.h"
#include "output/render.h"
#include "trash/rmshim.h"
#include "run/runner.h"
#include "confine/sandbox.h"
#include "gate/session.h"
#include "output/store.h"
#include "trash/trash.h"
#include "core/util.h"

extern char **environ;

bool pdk_cli_run_text_too;

static const char run_usage[] =
	"usage: paddock run [OPTIONS] -- PROGRAM [ARG...]\n"
	"  -t, --timeout SECONDS  kill the command after this long (default 120, at most 1800)\n"
	"      --bound BYTES      the most the result may take (default 16K, 1K to 1M)\n"
	"      --json             print the result as one JSON object\n"
	"      --request FILE     take the call as one JSON object (run_command's arguments)\n"
	"                         from FILE, or - for stdin; print the JSON result\n"
	"  -C, --cwd DIR          run the command in DIR (does not change what it may write)\n"
	"  -w, --write PATH       also let the command write under PATH\n"
	"  -n, --network          let the command reach the network\n"
	"      --allow-domain D   let it reach domain D only, through paddock's proxy (repeatable)\n"
	"      --root DIR         the writable project directory (default: the current one)\n"
	"      --backend NAME     confine with this backend (see 'paddock doctor')\n"
	"      --print-profile    print the confinement that would apply, run nothing\n"
	"      --no-sandbox       run unconfined (only when a person asks for it)\n"
	"      --outside-sandbox  ask the person to run this one call unconfined\n"
	"      --yes              approve what the confirm gate would ask\n"
	"      --config FILE      read only this configuration file\n"
	"Special: 'cd DIR' sets the session's directory; 'rm ...' moves files to the trash.\n";

static int exit_code_of(int status)
{
	return status < 0 ? 128 - status : status;
}

/* The note for a timeout names what can be asked for instead. */
static void timeout_notes(const struct pdk_request *o, const struct pdk_run_status *st,
			  char *buf, size_t len, const char **notes, size_t *n)
{
	if (st->timed_out) {
		if (o->timeout >= o->timeout_cap)
			snprintf(buf, len, "timed out: the command was killed after %g s, the most "
					   "allowed%s; run a shorter step, or one that prints progress "
					   "and stops by itself",
				 o->timeout, o->timeout_clamped ? " (the --timeout asked for was "
								   "clamped to the cap)" : "");
		else
			snprintf(buf, len, "timed out: the command was killed after %g s; ask for up "
					   "to %g s with --timeout",
				 o->timeout, o->timeout_cap);
		notes[(*n)++] = buf;
	} else if (o->timeout_clamped) {
		snprintf(buf, len, "note: --timeout %g was clamped to the cap of %g s", o->timeout_asked,
			 o->timeout_cap);
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

/* Nothing ran: one line saying why and what to do instead. */
static int refuse(const struct pdk_cli_call *c)
{
	if (c->o.json) {
		cJSON *o = cJSON_CreateObject();
		char *text = NULL;
		if (o && cJSON_AddFalseToObject(o, "ran") &&
		    cJSON_AddStringToObject(o, "error", c->refusal) &&
		    cJSON_AddStringToObject(o, "risk", pdk_risk_name(c->d.risk)) &&
		    cJSON_AddStringToObject(o, "rule", c->d.rule ? c->d.rule : ""))
			text = cJSON_PrintUnformatted(o);
		cJSON_Delete(o);
		if (!text) {
			pdk_cli_error("run: out of memory");
			return PDK_EXIT_FAILURE;
		}
		puts(text);
		free(text);
	} else {
		pdk_cli_error("error: %s", c->refusal);
	}
	return PDK_EXIT_FAILURE;
}

static bool is_cd(char *const *argv)
{
	return strcmp(argv[0], "cd") == 0;
}

/* `cd DIR`: runs nothing; the session's later calls start in DIR. */
static int cd_main(struct pdk_cli_call *c, struct pdk_capture *out, struct pdk_capture *err)
{
	char *const *argv = c->o.argv;
	_cleanup_free_ char *joined = NULL, *real = NULL;
	char line[4200];
	struct stat st = {0};
	int r;

	if (!argv[1] || argv[2]) {
		snprintf(line, sizeof(line), "cd: give exactly one directory, as in [\"cd\", \"src\"]\n");
		pdk_capture_feed(err, line, strlen(line));
		return 1;
	}
	joined = argv[1][0] == '/' ? strdup(argv[1]) : pdk_path_join(c->cwd, argv[1]);
	if (!joined)
		return -ENOMEM;
	real = realpath(joined, NULL);
	if (!real || stat(real, &st) < 0 || !S_ISDIR(st.st_mode) || access(real, X_OK) < 0) {
		int e = errno;
		const char *why = real && S_ISDIR(st.st_mode) ? strerror(e)
				  : real			 ? "not a directory"
				  : e == ENOENT			 ? "no such directory"
								 : strerror(e);
		snprintf(line, sizeof(line), "cd: %s: %s; still in %s\n", argv[1], why, c->cwd);
		pdk_capture_feed(err, line, strlen(line));
		return 1;
	}
	r = pdk_session_cwd_set(c->session, real);
	if (r < 0) {
		snprintf(line, sizeof(line), "cd: cannot keep the session's directory: %s\n",
			 strerror(-r));
		pdk_capture_feed(err, line, strlen(line));
		return 1;
	}
	snprintf(line, sizeof(line), "now in %s\n", real);
	pdk_capture_feed(out, line, strlen(line));
	return 0;
}

/* An argv `rm`: paddock moves the files to the trash itself, outside the
 * sandbox, after checking each lies inside a writable root. */
static int rm_main(const struct pdk_sandbox *sb, char *const *argv, struct pdk_capture *err)
{
	static const char *const everywhere[] = {"/"};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int n, code;

	if (!f)
		return -ENOMEM;
	for (n = 0; argv[n]; n++)
		;
	if (sb->backend)
		code = pdk_rm_main(n, argv, sb->policy.roots, sb->policy.n_roots, f);
	else
		code = pdk_rm_main(n, argv, everywhere, 1, f);
	if (fclose(f) == 0)
		pdk_capture_feed(err, text, len);
	free(text);
	return code;
}

/* Does an rm run anywhere in the call, after wrappers? */
static bool runs_rm(const struct pdk_decision *d)
{
	for (size_t i = 0; i < d->n_steps; i++)
		if (d->steps[i].program && strcmp(d->steps[i].program, "rm") == 0)
			return true;
	return false;
}

/* Unconfined, rm still goes to the trash: the shim first on PATH, told to
 * trash at once. */
static int unconfined_rm(struct pdk_sandbox *sb, const char *shim_dir)
{
	_cleanup_free_ char *p = pdk_rmshim_path_env(shim_dir, getenv("PATH"));

	if (!p)
		return -ENOMEM;
	return pdk_sandbox_setenv(sb, (const char *const[]){p, PDK_RMSHIM_ENV_DIRECT "=1", NULL});
}

/* Result lines about the decision: who approved what, and the session's
 * directory when it had to be left. */
static void decision_notes(const struct pdk_cli_call *c, char *buf, size_t len,
			   const char **notes, size_t *n)
{
	if (c->g.approved) {
		snprintf(buf, len, "approved: %s, by %s%s", c->d.ask ? c->d.ask : c->line,
			 c->g.by ? c->g.by : "the confirm gate",
			 c->g.remembered ? "; remembered for this session" : "");
		notes[(*n)++] = buf;
	} else if (c->stale_cwd) {
		snprintf(buf, len, "note: the session's directory %s is gone; ran in %s",
			 c->session_cwd, c->cwd);
		notes[(*n)++] = buf;
	}
}

int pdk_cli_finish_main(int argc, char **argv)
{
	char *end;
	long fd = argc == 2 ? strtol(argv[1], &end, 10) : -1;

	if (fd < 3 || fd > INT_MAX || *end) {
		pdk_cli_error("__finish: give the descriptor of a run journal; this is for a "
			      "run's guardian, not for people");
		return PDK_EXIT_FAILURE;
	}
	return pdk_vet_finish_fd((int)fd) < 0 ? PDK_EXIT_FAILURE : 0;
}

int pdk_cli_run_main(int argc, char **argv)
{
	struct pdk_cli_call c;
	struct pdk_sandbox sb = {0};
	struct pdk_store_config scfg = {.prune = PDK_STORE_PRUNE_DEFAULT};
	struct pdk_store_entry *store = NULL;
	struct pdk_capture out = {0}, err = {0};
	struct pdk_run_status st = {0};
	struct pdk_render_out res = {0};
	struct pdk_rmshim shim = {0};
	_cleanup_free_ char *path = NULL, *store_dir = NULL, *sweep_note = NULL, *made_note = NULL;
	_cleanup_free_ char *shim_dir = NULL, *shim_note = NULL;
	_cleanup_free_ char *killed_note = NULL;
	char why[1024], tnote[256], dnote[1200], snote[160];
	const char *notes[16];
	size_t n_notes = 0;
	bool outside, special;
	int r, code = PDK_EXIT_FAILURE;

	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(run_usage, stdout);
		return 0;
	}
	if ((r = pdk_cli_request_find(argc, argv)) > 0)
		return pdk_cli_request_main(argc, argv, r);
	if (pdk_cli_call_init(&c, "run", argc, argv) < 0)
		goto out;
	special = is_cd(c.o.argv) || strcmp(c.o.argv[0], "rm") == 0;
	if (!is_cd(c.o.argv) && !c.o.print_profile) {
		if ((r = pdk_cli_call_decide(&c)) < 0 || (!c.refusal && (r = pdk_cli_call_gate(&c)) < 0)) {
			pdk_cli_error("run: deciding: %s", strerror(-r));
			goto out;
		}
		if (c.refusal) {
			code = refuse(&c);
			goto out;
		}
	}
	/* Approved to run outside: unconfined, this once. */
	outside = c.o.outside_sandbox;
	if (outside)
		c.o.no_sandbox = true;
	c.o.cwd = c.cwd;
	if (!is_cd(c.o.argv)) {
		r = pdk_find_program(c.o.argv[0], &path);
		if (r < 0) {
			if (r == -ENOENT && !strchr(c.o.argv[0], '/'))
				pdk_cli_error("%s: command not found", c.o.argv[0]);
			else
				pdk_cli_error("%s: %s", c.o.argv[0], strerror(-r));
			code = r == -ENOENT || r == -ENOTDIR ? PDK_EXIT_NOTFOUND : PDK_EXIT_NOEXEC;
			goto out;
		}
	}
	/* The shim must exist before the sandbox is set up, or a state
	 * directory made later would be hidden from the command. */
	if (!special && !c.o.print_profile && (r = pdk_rmshim_install(&shim_dir)) < 0) {
		if (runs_rm(&c.d)) {
			pdk_cli_error("run: rm cannot reach the trash here: its shim in paddock's "
				      "state directory could not be set up (%s); give paddock a "
				      "writable $XDG_STATE_HOME, or leave rm out",
				      strerror(-r));
			goto out;
		}
		if (asprintf(&shim_note, "note: rm could not be pointed at the trash (paddock's "
					 "state directory: %s): any rm this command ran deleted for good",
			     strerror(-r)) < 0)
			shim_note = NULL;
	}
	if (!is_cd(c.o.argv)) {
		r = pdk_sandbox_setup(&c.o, &c.cfg, path, environ, &sb, why, sizeof(why));
		if (r < 0) {
			pdk_cli_error("run: %s", why);
			goto out;
		}
	}
	if (c.o.print_profile) {
		r = pdk_sandbox_describe(&sb, stdout);
		code = r < 0 ? PDK_EXIT_FAILURE : 0;
		goto out;
	}
	scfg.session = c.session;
	scfg.cap = c.cfg.store_cap;
	scfg.dir = store_dir = pdk_cli_store_dir("run", &c.cfg);
	if (!store_dir)
		goto out;
	if (pdk_store_entry_new(&scfg, &store) < 0 ||
	    pdk_capture_init(&out, 1, c.o.bound, store) < 0 ||
	    pdk_capture_init(&err, 2, c.o.bound, store) < 0) {
		pdk_cli_error("run: out of memory");
		goto out;
	}

	if (is_cd(c.o.argv)) {
		r = st.exit_status = cd_main(&c, &out, &err);
	} else if (special) {
		r = chdir(c.cwd) < 0 ? -errno : 0;
		if (r == 0)
			r = st.exit_status = rm_main(&sb, c.o.argv, &err);
	} else {
		r = 0;
		if (shim_dir)
			r = sb.backend ? pdk_rmshim_prepare(&sb, &shim) : unconfined_rm(&sb, shim_dir);
		if (r < 0) {
			pdk_cli_error("run: setting up rm: %s", strerror(-r));
			goto out;
		}
		r = pdk_sandbox_run(&sb, &out, &err, &st);
		if (sb.backend && shim_dir)
			pdk_rmshim_sweep(&sb, &shim, &sweep_note);
		/* Whatever became of the run: what it made at protected names goes. */
		if (sb.backend && pdk_sandbox_undo_made(&sb, &made_note, &killed_note) < 0 && r == 0)
			r = -ENOMEM;
	}
	if (r < 0) {
		pdk_cli_error("run: %s", sb.why[0] ? sb.why : strerror(-r));
		goto out;
	}
	if (st.exec_errno) {
		code = exec_failure(c.o.argv[0], &st);
		goto out;
	}

	timeout_notes(&c.o, &st, tnote, sizeof(tnote), notes, &n_notes);
	if (st.stopped) {
		snprintf(snote, sizeof(snote), "stopped: paddock received %s and stopped the command",
			 strsignal(st.stop_signal));
		notes[n_notes++] = snote;
	}
	char pnote[512];
	if (pdk_run_procs_note(&st, pnote, sizeof(pnote)) > 0)
		notes[n_notes++] = pnote;
	decision_notes(&c, dnote, sizeof(dnote), notes, &n_notes);
	if (sweep_note)
		notes[n_notes++] = sweep_note;
	if (made_note)
		notes[n_notes++] = made_note;
	if (killed_note)
		notes[n_notes++] = killed_note;
	if (shim_note)
		notes[n_notes++] = shim_note;
	for (size_t i = 0; !outside && i < sb.n_notes && n_notes < PDK_ARRAY_SIZE(notes); i++)
		notes[n_notes++] = sb.notes[i];
	char hints[PDK_REFUSAL_MAX][768];
	const char *hint_lines[PDK_REFUSAL_MAX];
	size_t n_hints = 0;
	if (sb.backend && st.exit_status != 0 && !special)
		n_hints = refusal_hints(&sb, &out, &err, hints);
	for (size_t i = 0; i < n_hints; i++)
		hint_lines[i] = hints[i];
	if (outside)
		notes[n_notes++] = "sandbox: ran outside the sandbox, as the person approved, "
				   "this once";

	struct pdk_render_in in = {
		.out = &out,
		.err = &err,
		.exit_status = st.exit_status,
		.timed_out = st.timed_out,
		.stopped = st.stopped,
		.duration = st.duration,
		.notes = notes,
		.n_notes = n_notes,
		.hints = hint_lines,
		.n_hints = n_hints,
		.bound = c.o.bound,
		.json = c.o.json,
		.network = outside ? NULL : pdk_sandbox_network(&sb),
		.domains = (const char *const *)sb.domains,
		.n_domains = pdk_sandbox_network(&sb) && !strcmp(pdk_sandbox_network(&sb), "domains")
				 ? sb.n_domains
				 : 0,
		.refused_domains = (const char *const *)sb.refused,
		.n_refused_domains = sb.n_refused,
		.store = store,
	};
	r = pdk_render(&in, &res);
	if (r < 0) {
		pdk_cli_error("run: rendering the result: %s", strerror(-r));
		goto out;
	}
	if (fwrite(res.text, 1, res.len, stdout) != res.len) {
		pdk_cli_error("run: writing the result: %s", strerror(errno));
		goto out;
	}
	/* The MCP server wants both renderings of one run, naming one kept copy. */
	if (in.json && pdk_cli_run_text_too) {
		struct pdk_render_out text = {0};

		in.json = false;
		in.kept = res.stored ? &res.stored_as : NULL;
		r = pdk_render(&in, &text);
		if (r < 0) {
			pdk_cli_error("run: rendering the result: %s", strerror(-r));
			goto out;
		}
		fwrite(text.text, 1, text.len, stdout);
		pdk_render_out_release(&text);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		pdk_cli_error("run: writing the result: %s", strerror(errno));
		goto out;
	}
	code = exit_code_of(st.exit_status);
out:
	pdk_render_out_release(&res);
	pdk_capture_release(&out);
	pdk_capture_release(&err);
	pdk_store_entry_free(store);
	pdk_rmshim_release(&shim);
	pdk_sandbox_release(&sb);
	pdk_cli_call_release(&c);
	return code;
}
