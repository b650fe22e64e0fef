/* cli_run.c - `paddock run`: parse, confine, run, render, and exit with the
 * command's own status. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "confine/backend.h"
#include "cli.h"
#include "cli_audit.h"
#include "cli_call.h"
#include "core/path.h"
#include "confine/nobody.h"
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
	"      --allow-git-hooks  let it install git hooks (a hook manager's install step; asked)\n"
	"      --ssh-agent        let it reach your ssh-agent ($SSH_AUTH_SOCK; asked)\n"
	"      --docker           let it reach Docker's or Podman's socket (root; asked)\n"
	"      --gpu              let it use the GPU's device nodes (asked)\n"
	"      --allow-agent-config  let it write agent and editor configuration (.claude,\n"
	"                         .vscode, .mcp.json, ...; asked)\n"
	"      --root DIR         the writable project directory (default: the current one)\n"
	"      --backend NAME     confine with this backend (see 'paddock doctor')\n"
	"      --print-profile    print the confinement that would apply, run nothing\n"
	"      --no-sandbox       run unconfined (only when a person asks for it)\n"
	"      --outside-sandbox  ask the person to run this one call unconfined\n"
	"      --yes              approve what the confirm gate would ask\n"
	"      --config FILE      read only this configuration file\n"
	"Special: 'cd DIR' moves the session's later calls started in this directory to DIR\n"
	"('cd' alone comes back); 'rm ...' moves files to the trash.\n";

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
 * (and sockets) the sandbox refused. */
static size_t refusal_hints(const struct pdk_config *cfg, const struct pdk_sandbox *sb,
			    const struct pdk_capture *out, const struct pdk_capture *err,
			    char hints[][768])
{
	const struct pdk_capture *caps[] = {err, out};
	char cwd[4096];
	size_t k = 0, n_never = 0;
	/* Never offered to --write: the protected paths (paddock's own among
	 * them) and the sensitive ones. */
	_cleanup_free_ const char **never =
	    calloc(sb->policy.n_protect + cfg->sensitive_paths.n + 1, sizeof(*never));
	struct pdk_refusal_scope scope = {
	    .roots = sb->policy.roots,
	    .n_roots = sb->policy.n_roots,
	    .outside_ok = cfg->allow_outside_sandbox,
	    .network = pdk_sandbox_network(sb),
	    .secrets = &sb->secrets,
	};

	if (!never || !getcwd(cwd, sizeof(cwd)))
		return 0;
	for (size_t i = 0; i < sb->policy.n_protect; i++)
		never[n_never++] = sb->policy.protect[i];
	for (size_t i = 0; i < cfg->sensitive_paths.n; i++)
		if (!strpbrk(cfg->sensitive_paths.v[i], "*?["))
			never[n_never++] = cfg->sensitive_paths.v[i];
	scope.cwd = sb->policy.cwd ? sb->policy.cwd : cwd;
	scope.never = never;
	scope.n_never = n_never;
	/* Only a backend that holds protected paths makes them refuse a write. */
	if (sb->backend && sb->backend->enforces_protect) {
		scope.held = sb->policy.protect;
		scope.n_held = sb->policy.n_protect;
	}
	for (size_t i = 0; i < 2 && k < PDK_REFUSAL_MAX; i++) {
		char *buf = pdk_capture_join(caps[i]);
		if (!buf)
			break;
		k += pdk_refusal_hints(buf, caps[i]->head_len + caps[i]->ring_len, &scope, hints + k,
				       PDK_REFUSAL_MAX - k);
		free(buf);
	}
	return k;
}

static bool is_cd(char *const *argv)
{
	return strcmp(argv[0], "cd") == 0;
}

/* `cd DIR`: runs nothing; the session's later calls launched from the same
 * directory start in DIR. A bare `cd` goes back to that launch directory. */
static int cd_main(struct pdk_cli_call *c, struct pdk_capture *out, struct pdk_capture *err)
{
	char *const *argv = c->o.argv;
	_cleanup_free_ char *joined = NULL, *real = NULL;
	char line[4200];
	struct stat st = {0};
	int r;

	if (argv[1] && argv[2]) {
		snprintf(line, sizeof(line), "cd: give one directory, as in [\"cd\", \"src\"], or "
					     "none to go back to %s\n",
			 c->launch);
		pdk_capture_feed(err, line, strlen(line));
		return 1;
	}
	if (!argv[1])
		joined = strdup(c->launch);
	else
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
		snprintf(line, sizeof(line), "cd: %s: %s; still in %s\n", argv[1] ? argv[1] : joined,
			 why, c->cwd);
		pdk_capture_feed(err, line, strlen(line));
		return 1;
	}
	r = pdk_session_cwd_set(c->session, c->launch, real);
	if (r < 0) {
		snprintf(line, sizeof(line), "cd: cannot keep the session's directory: %s\n",
			 strerror(-r));
		pdk_capture_feed(err, line, strlen(line));
		return 1;
	}
	snprintf(line, sizeof(line), "now in %s\n", real);
	pdk_capture_feed(out, line, strlen(line));
	/* The result says where the session now is. */
	free(c->cwd);
	c->o.cwd = c->cwd = steal_pointer(&real);
	return 0;
}

/* An argv `rm`: paddock moves the files to the trash itself, outside the
 * sandbox, after checking each lies inside a writable root. What it says
 * goes into the result like a command's output. */
static int rm_main(const struct pdk_sandbox *sb, char *const *argv, struct pdk_capture *out,
		   struct pdk_capture *err)
{
	static const char *const everywhere[] = {"/"};
	_cleanup_free_ char *otext = NULL, *etext = NULL;
	size_t olen = 0, elen = 0;
	FILE *of = open_memstream(&otext, &olen), *ef = open_memstream(&etext, &elen);
	int n, code;

	if (!of || !ef) {
		if (of)
			fclose(of);
		if (ef)
			fclose(ef);
		return -ENOMEM;
	}
	for (n = 0; argv[n]; n++)
		;
	if (sb->backend)
		code = pdk_rm_main_out(n, argv, sb->policy.roots, sb->policy.n_roots, of, ef);
	else
		code = pdk_rm_main_out(n, argv, everywhere, 1, of, ef);
	if (fclose(of) == 0)
		pdk_capture_feed(out, otext, olen);
	if (fclose(ef) == 0)
		pdk_capture_feed(err, etext, elen);
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

/* Unconfined, rm still goes to the trash: the shim is told to trash at once. */
static int unconfined_rm(struct pdk_sandbox *sb)
{
	return pdk_sandbox_setenv(sb, (const char *const[]){PDK_RMSHIM_ENV_DIRECT "=1", NULL});
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

/*
 * One call of `run`, from its options to its result. Each step below fills in
 * part of it and says why when it cannot go on; run_release() frees all of it,
 * whichever step stopped.
 */
struct run {
	struct pdk_cli_call c;
	const struct pdk_cli_preset *preset; /* paddock pkg's call; NULL for run */
	bool parsed;		/* c holds a parsed call */
	bool special;		/* cd or rm: paddock does it itself, no sandbox */
	bool cd;
	bool outside;		/* unconfined this once, as a person approved */
	char *path;		/* the program, resolved */
	char *shim_dir, *shim_note, *sweep_note, *made_note, *killed_note;
	struct pdk_rmshim shim;
	/* The argv with the rm it names pointed at the shim, and the one given. */
	char **rm_argv, **argv_given;
	struct pdk_sandbox sb;
	char *store_dir;
	struct pdk_store_entry *store;
	struct pdk_capture out, err;
	struct pdk_run_status st;
	/* The result's note lines (borrowed, or in the buffers below). */
	const char *notes[16];
	size_t n_notes;
	char tnote[256], dnote[1200], snote[160], pnote[512], anote[400];
	char hints[PDK_REFUSAL_MAX][768];
	const char *hint_lines[PDK_REFUSAL_MAX];
	size_t n_hints;
	/* Set by fail(): nothing ran (or paddock failed), and why. */
	enum pdk_failure failure;
	char error[1400];
	const char *error_prefix; /* text only: "error: " for refusals */
	int code;		  /* what paddock exits with */
	bool done;		  /* --print-profile printed what was asked */
};

static int __attribute__((format(printf, 4, 5)))
fail(struct run *x, enum pdk_failure f, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->error, sizeof(x->error), fmt, ap);
	va_end(ap);
	x->failure = f;
	x->code = code;
	return -1;
}

/* What to do about a fault of the host's, after its errno's own text: paddock's state directory
 * full or not writable (when state says the failing step wrote there), too few descriptors, too
 * little memory. "" for any other. */
static const char *fault_advice(int r, bool state, char *buf, size_t len)
{
	_cleanup_free_ char *dir = pdk_state_dir();
	const char *d = dir ? dir : "$XDG_STATE_HOME/paddock";

	if (r == -ENOSPC || r == -EDQUOT)
		snprintf(buf, len,
			 "; the disk is full (paddock's state directory is %s): free space there "
			 "(old outputs can go: rm -r %s/output) or set XDG_STATE_HOME to a directory "
			 "on a disk with room",
			 d, d);
	else if (state && (r == -EROFS || r == -EACCES || r == -EPERM || r == -ENOTDIR))
		snprintf(buf, len,
			 "; paddock's state directory %s must be this user's and writable: fix its "
			 "owner or mode, or set XDG_STATE_HOME to a directory of this user's own",
			 d);
	else if (r == -EMFILE || r == -ENFILE)
		snprintf(buf, len, "; paddock needs about 64 file descriptors: raise the limit "
				   "(ulimit -n 1024) and call again");
	else if (r == -ENOMEM)
		snprintf(buf, len, "; paddock is out of memory: raise the limit (ulimit -v) or free "
				   "memory, and call again");
	else
		buf[0] = '\0';
	return buf;
}

static int exit_code_of(int status)
{
	return status < 0 ? 128 - status : status;
}

/* The call from its request, or from argv when req is NULL. */
static int run_parse(struct run *x, struct pdk_request *req, int argc, char **argv,
		     const struct pdk_cli_face *face)
{
	if ((req ? pdk_cli_call_init(&x->c, "run", req, face)
		 : pdk_cli_call_init_argv(&x->c, "run", argc, argv, face)) < 0)
		return fail(x, PDK_FAIL_BAD_REQUEST, PDK_EXIT_FAILURE, "%s", x->c.why);
	x->parsed = true;
	x->cd = is_cd(x->c.o.argv);
	x->special = x->cd || strcmp(x->c.o.argv[0], "rm") == 0;
	return 0;
}

/* A call paddock composed: its maker's decision, the gate when it asks, then
 * whatever must hold before it starts; unconfined, outside the sandbox. */
static int run_decide_preset(struct run *x)
{
	const struct pdk_cli_preset *p = x->preset;
	struct pdk_cli_call *c = &x->c;
	char why[1024];
	int r;

	if ((r = pdk_cli_call_decide_preset(c, p->ask, p->what)) < 0)
		return fail(x, PDK_FAIL_INTERNAL, PDK_EXIT_FAILURE, "pkg: deciding: %s",
			    strerror(-r));
	pdk_cli_audit_decision(c);
	if (!c->refusal && (r = pdk_cli_call_gate(c)) < 0)
		return fail(x, PDK_FAIL_INTERNAL, PDK_EXIT_FAILURE, "pkg: deciding: %s",
			    strerror(-r));
	pdk_cli_audit_approval(c);
	if (c->refusal) {
		x->error_prefix = "error: ";
		return fail(x, PDK_FAIL_NOT_APPROVED, PDK_EXIT_FAILURE, "%s", c->refusal);
	}
	if (p->before && p->before(p->ctx, why, sizeof(why)) != 0)
		return fail(x, PDK_FAIL_INTERNAL, PDK_EXIT_FAILURE, "%s", why);
	x->outside = c->o.no_sandbox = true;
	return 0;
}

/* The decision and, when it needs one, a person's yes. */
static int run_decide(struct run *x)
{
	struct pdk_cli_call *c = &x->c;
	int r;

	if (x->cd || c->o.print_profile)
		return 0;
	if (x->preset)
		return run_decide_preset(x);
	if ((r = pdk_cli_call_decide(c)) < 0)
		return fail(x, PDK_FAIL_INTERNAL, PDK_EXIT_FAILURE, "run: deciding: %s",
			    strerror(-r));
	pdk_cli_audit_decision(c);
	if (!c->refusal && (r = pdk_cli_call_gate(c)) < 0)
		return fail(x, PDK_FAIL_INTERNAL, PDK_EXIT_FAILURE, "run: asking: %s",
			    strerror(-r));
	pdk_cli_audit_approval(c);
	if (c->refusal) {
		x->error_prefix = "error: ";
		return fail(x, c->d.verdict == PDK_VERDICT_REFUSE ? PDK_FAIL_REFUSED
								   : PDK_FAIL_NOT_APPROVED,
			    PDK_EXIT_FAILURE, "%s", c->refusal);
	}
	/* Approved to run outside: unconfined, this once. */
	x->outside = c->o.outside_sandbox;
	if (x->outside)
		c->o.no_sandbox = true;
	return 0;
}

static int run_locate(struct run *x)
{
	const char *prog = x->c.o.argv[0];
	int r;

	x->c.o.cwd = x->c.cwd;
	if (x->cd)
		return 0;
	r = pdk_find_program(prog, &x->path);
	if (r == -ENOENT && !strchr(prog, '/'))
		return fail(x, PDK_FAIL_NOT_FOUND, PDK_EXIT_NOTFOUND, "%s: command not found", prog);
	if (r == -ENOENT || r == -ENOTDIR)
		return fail(x, PDK_FAIL_NOT_FOUND, PDK_EXIT_NOTFOUND, "%s: %s", prog, strerror(-r));
	if (r < 0)
		return fail(x, PDK_FAIL_NOT_EXECUTABLE, PDK_EXIT_NOEXEC, "%s: %s", prog,
			    strerror(-r));
	return 0;
}

/* The rm the call names itself runs the shim by its path; rm run by the
 * programs it starts stays theirs. */
static int point_rm(struct run *x)
{
	_cleanup_free_ char *rm_path = pdk_path_join(x->shim_dir, "rm");
	char why[600];
	int r;

	if (!rm_path)
		return fail(x, PDK_FAIL_INTERNAL, PDK_EXIT_FAILURE, "run: out of memory");
	r = pdk_policy_rm_rewrite(x->c.o.argv, rm_path, &x->rm_argv, why, sizeof(why));
	if (r == -EINVAL)
		return fail(x, PDK_FAIL_BAD_REQUEST, PDK_EXIT_FAILURE, "run: %s", why);
	if (r < 0)
		return fail(x, PDK_FAIL_INTERNAL, PDK_EXIT_FAILURE,
			    "run: pointing rm at the trash: %s", strerror(-r));
	if (x->rm_argv) {
		x->argv_given = x->c.o.argv;
		x->c.o.argv = x->rm_argv;
	}
	return 0;
}

/* The shim must exist before the sandbox is set up, or a state directory
 * made later would be hidden from the command. */
static int run_shim(struct run *x)
{
	int r;

	/* A package manager's own scripts delete what they mean to. */
	if (x->special || x->c.o.print_profile || x->preset)
		return 0;
	if ((r = pdk_rmshim_install(&x->shim_dir)) >= 0)
		return point_rm(x);
	if (runs_rm(&x->c.d))
		return fail(x, PDK_FAIL_INTERNAL, PDK_EXIT_FAILURE,
			    "run: rm cannot reach the trash here: its shim in paddock's state "
			    "directory could not be set up (%s); give paddock a writable "
			    "$XDG_STATE_HOME, or leave rm out",
			    strerror(-r));
	if (asprintf(&x->shim_note, "note: rm could not be pointed at the trash (paddock's "
				    "state directory: %s): any rm this command ran deleted for good",
		     strerror(-r)) < 0)
		x->shim_note = NULL;
	return 0;
}

static int run_confine(struct run *x)
{
	char why[1024];
	int r;

	if (x->cd)
		return 0;
	r = pdk_sandbox_setup(&x->c.o, &x->c.cfg, x->path, environ, &x->sb, why, sizeof(why));
	if (r < 0) {
		char advice[400];

		return fail(x, PDK_FAIL_INTERNAL, PDK_EXIT_FAILURE, "run: %s%s", why,
			    fault_advice(r, false, advice, sizeof(advice)));
	}
	if (x->c.o.print_profile) {
		if (pdk_sandbox_describe(&x->sb, stdout) < 0)
			return fail(x, PDK_FAIL_INTERNAL, PDK_EXIT_FAILURE,
				    "run: printing the profile: %s", strerror(errno));
		x->done = true;
	}
	return 0;
}

static int run_open_store(struct run *x)
{
	struct pdk_store_config scfg = {.prune = PDK_STORE_PRUNE_DEFAULT};
	char why[1200];

	scfg.session = x->c.session;
	scfg.cap = x->c.cfg.store_cap;
	scfg.dir = x->store_dir = pdk_cli_store_dir_why("run", &x->c.cfg, why, sizeof(why));
	if (!x->store_dir)
		return fail(x, PDK_FAIL_INTERNAL, PDK_EXIT_FAILURE, "%s", why);
	if (pdk_store_entry_new(&scfg, &x->store) < 0 ||
	    pdk_capture_init(&x->out, 1, x->c.o.bound, x->store) < 0 ||
	    pdk_capture_init(&x->err, 2, x->c.o.bound, x->store) < 0)
		return fail(x, PDK_FAIL_INTERNAL, PDK_EXIT_FAILURE, "run: out of memory");
	return 0;
}

/* The command could not be started in the child. */
static int exec_failure(struct run *x)
{
	const char *prog = x->c.o.argv[0];
	int e = x->st.exec_errno;

	if (strcmp(x->st.exec_stage, "exec") != 0)
		return fail(x, PDK_FAIL_INTERNAL, PDK_EXIT_FAILURE,
			    "%s: cannot start the command (%s): %s", prog, x->st.exec_stage,
			    strerror(e));
	if (e == ENOENT)
		return fail(x, PDK_FAIL_NOT_FOUND, PDK_EXIT_NOTFOUND, "%s: %s", prog, strerror(e));
	return fail(x, PDK_FAIL_NOT_EXECUTABLE, PDK_EXIT_NOEXEC, "%s: %s", prog, strerror(e));
}

/* A call whose rm goes to the trash first lets the trash's oldest entries of paddock's own go,
 * at most once a day (paddock(1), REMOVING FILES). What cannot go stays for the next time. */
static void run_expire(struct run *x)
{
	struct pdk_trash_expiry e = {
	    .max_age_days = x->c.cfg.trash_max_age_days,
	    .max_size = x->c.cfg.trash_max_size,
	};

	if (x->cd || x->preset || !runs_rm(&x->c.d))
		return;
	(void)pdk_trash_expire(&e, time(NULL), false, NULL);
}

static int run_execute(struct run *x)
{
	struct pdk_sandbox *sb = &x->sb;
	char advice[400];
	int r;

	run_expire(x);
	if (x->cd) {
		r = x->st.exit_status = cd_main(&x->c, &x->out, &x->err);
	} else if (x->special) {
		r = chdir(x->c.cwd) < 0 ? -errno : 0;
		if (r == 0)
			r = x->st.exit_status = rm_main(sb, x->c.o.argv, &x->out, &x->err);
	} else {
		_cleanup_strv_ char **nobody = NULL;

		/* No terminal, stdin /dev/null: an editor or a prompt would wait
		 * until the timeout for a person who cannot answer. */
		if ((r = pdk_nobody_env(&nobody)) < 0 ||
		    (r = pdk_sandbox_setenv(sb, (const char *const *)nobody)) < 0)
			return fail(x, PDK_FAIL_INTERNAL, PDK_EXIT_FAILURE,
				    "run: the command's environment: %s", strerror(-r));
		if (x->shim_dir && sb->backend) {
			r = pdk_rmshim_prepare(sb, &x->shim);
			if (r == 0)
				r = pdk_sandbox_setenv(sb, (const char *const *)x->shim.env);
		} else if (x->shim_dir) {
			r = unconfined_rm(sb);
		}
		if (r < 0)
			return fail(x, PDK_FAIL_INTERNAL, PDK_EXIT_FAILURE, "run: setting up rm: %s%s",
				    strerror(-r), fault_advice(r, true, advice, sizeof(advice)));
		r = pdk_sandbox_run(sb, &x->out, &x->err, &x->st);
		if (sb->backend && x->shim_dir)
			pdk_rmshim_sweep(sb, &x->shim, &x->sweep_note);
		/* Whatever became of the run: what it made at protected names goes. */
		if (sb->backend && pdk_sandbox_undo_made(sb, &x->made_note, &x->killed_note) < 0 &&
		    r == 0)
			r = -ENOMEM;
	}
	if (r < 0)
		return fail(x, PDK_FAIL_INTERNAL, PDK_EXIT_FAILURE, "run: %s%s",
			    sb->why[0] ? sb->why : strerror(-r),
			    sb->why[0] ? "" : fault_advice(r, false, advice, sizeof(advice)));
	if (x->st.exec_errno)
		return exec_failure(x);
	return 0;
}

static void add_note(struct run *x, const char *line)
{
	if (line && x->n_notes < PDK_ARRAY_SIZE(x->notes))
		x->notes[x->n_notes++] = line;
}

/* The result's lines after the streams, in the order paddock(1) gives. */
static void run_notes(struct run *x)
{
	struct pdk_sandbox *sb = &x->sb;

	timeout_notes(&x->c.o, &x->st, x->tnote, sizeof(x->tnote), x->notes, &x->n_notes);
	if (x->st.stopped) {
		snprintf(x->snote, sizeof(x->snote),
			 "stopped: paddock received %s and stopped the command",
			 strsignal(x->st.stop_signal));
		add_note(x, x->snote);
	}
	if (pdk_run_procs_note(&x->st, x->pnote, sizeof(x->pnote)) > 0)
		add_note(x, x->pnote);
	decision_notes(&x->c, x->dnote, sizeof(x->dnote), x->notes, &x->n_notes);
	add_note(x, x->sweep_note);
	add_note(x, x->made_note);
	add_note(x, x->killed_note);
	add_note(x, x->shim_note);
	for (size_t i = 0; !x->outside && i < sb->n_notes; i++)
		add_note(x, sb->notes[i]);
	if (sb->backend && x->st.exit_status != 0 && !x->special)
		x->n_hints = refusal_hints(&x->c.cfg, sb, &x->out, &x->err, x->hints);
	for (size_t i = 0; i < x->n_hints; i++)
		x->hint_lines[i] = x->hints[i];
	if (x->outside)
		add_note(x, x->preset ? x->preset->note
				      : "sandbox: ran outside the sandbox, as the person approved, "
					"this once");
}

/* The outcome for the audit log, whatever stopped or ended the call. */
static void run_audit(struct run *x)
{
	struct pdk_sandbox *sb = &x->sb;
	struct pdk_cli_outcome o = {
	    .failure = x->failure,
	    .error = x->error,
	    .st = &x->st,
	    .backend = sb->backend && !x->outside ? sb->backend->name : NULL,
	    .network = x->outside ? NULL : pdk_sandbox_network(sb),
	    .refusals = x->hint_lines,
	    .n_refusals = x->n_hints,
	    .notes = x->outside ? NULL : sb->notes,
	    .n_notes = x->outside ? 0 : sb->n_notes,
	};

	o.confinement = x->special	 ? "paddock"
			: x->outside	 ? "outside"
			: !sb->backend	 ? "none"
			: sb->nested	 ? "nested"
					 : "sandbox";
	/* Nothing was confined when nothing ran. */
	if (x->failure != PDK_FAIL_NONE)
		o.confinement = o.backend = o.network = NULL;
	pdk_cli_audit_outcome(&x->c, &o);
	/* A call that did not run says only why; one that ran says the log failed. */
	if (x->c.audit_why[0] && x->failure == PDK_FAIL_NONE) {
		snprintf(x->anote, sizeof(x->anote), "note: the audit log was not written: %s",
			 x->c.audit_why);
		add_note(x, x->anote);
	}
}

/* The one result on standard output: the command's, or, with --json, the
 * failure's too; a failure in text is one line on standard error. */
static int run_report(struct run *x)
{
	struct pdk_cli_call *c = &x->c;
	bool failed = x->failure != PDK_FAIL_NONE;
	struct pdk_render_out res = {0};
	struct pdk_render_in in = {
	    .out = failed ? NULL : &x->out,
	    .err = failed ? NULL : &x->err,
	    .failure = x->failure,
	    .error = x->error,
	    .cwd = c->cwd,
	    /* Every result not run where paddock was started says where it ran;
	     * cd's own result says it already. */
	    .show_cwd = !x->cd && c->launch && c->cwd && strcmp(c->cwd, c->launch) != 0,
	    .exit_code = failed ? x->code : exit_code_of(x->st.exit_status),
	    .exit_status = x->st.exit_status,
	    .timed_out = x->st.timed_out,
	    .stopped = x->st.stopped,
	    .duration = x->st.duration,
	    .notes = x->notes,
	    .n_notes = x->n_notes,
	    .hints = x->hint_lines,
	    .n_hints = x->n_hints,
	    .bound = c->o.bound,
	    .json = c->o.json,
	    .store = x->store,
	    .network = x->outside || failed ? NULL : pdk_sandbox_network(&x->sb),
	    .domains = (const char *const *)x->sb.net.domains,
	    .n_domains = pdk_sandbox_network(&x->sb) &&
			     !strcmp(pdk_sandbox_network(&x->sb), "domains")
			 ? x->sb.net.n_domains
			 : 0,
	    .refused_domains = (const char *const *)x->sb.net.refused,
	    .n_refused_domains = x->sb.net.n_refused,
	};
	int r;

	in.n_unix_sockets = pdk_sandbox_unix_sockets(&x->sb, &in.unix_sockets);

	if (failed && (x->failure == PDK_FAIL_REFUSED || x->failure == PDK_FAIL_NOT_APPROVED)) {
		in.risk = pdk_risk_name(c->d.risk);
		in.rule = c->d.rule ? c->d.rule : "";
	}
	if (failed && !c->o.json) {
		pdk_cli_error("%s%s", x->error_prefix ? x->error_prefix : "", x->error);
		return x->code;
	}
	r = pdk_render(&in, &res);
	if (r < 0) {
		pdk_cli_error("run: rendering the result: %s", strerror(-r));
		return PDK_EXIT_FAILURE;
	}
	if (fwrite(res.text, 1, res.len, stdout) != res.len) {
		pdk_cli_error("run: writing the result: %s", strerror(errno));
		pdk_render_out_release(&res);
		return PDK_EXIT_FAILURE;
	}
	/* The MCP server wants both renderings of one run, naming one kept copy. */
	if (in.json && x->c.face && x->c.face->text_too) {
		struct pdk_render_out text = {0};

		in.json = false;
		in.kept = res.stored ? &res.stored_as : NULL;
		r = pdk_render(&in, &text);
		if (r < 0) {
			pdk_cli_error("run: rendering the result: %s", strerror(-r));
			pdk_render_out_release(&res);
			return PDK_EXIT_FAILURE;
		}
		fwrite(text.text, 1, text.len, stdout);
		pdk_render_out_release(&text);
	}
	pdk_render_out_release(&res);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		pdk_cli_error("run: writing the result: %s", strerror(errno));
		return PDK_EXIT_FAILURE;
	}
	return in.exit_code;
}

static void run_release(struct run *x)
{
	if (x->rm_argv) {
		x->c.o.argv = x->argv_given;
		pdk_strv_freep(&x->rm_argv);
	}
	pdk_capture_release(&x->out);
	pdk_capture_release(&x->err);
	pdk_store_entry_free(x->store);
	pdk_rmshim_release(&x->shim);
	pdk_sandbox_release(&x->sb);
	pdk_cli_call_release(&x->c);
	free(x->path);
	free(x->store_dir);
	free(x->shim_dir);
	free(x->shim_note);
	free(x->sweep_note);
	free(x->made_note);
	free(x->killed_note);
}

int pdk_cli_run_main(int argc, char **argv)
{
	int at;

	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(run_usage, stdout);
		return 0;
	}
	if ((at = pdk_cli_request_find(argc, argv)) > 0)
		return pdk_cli_request_main(argc, argv, at);
	return pdk_cli_run_preset(argc, argv, NULL, NULL);
}

/* Every run, whichever face: from the request, or from argv when req is NULL. */
static int run_one(struct pdk_request *req, int argc, char **argv,
		   const struct pdk_cli_face *face, const struct pdk_cli_preset *preset)
{
	struct run x = {.preset = preset};
	int code;

	if (run_parse(&x, req, argc, argv, face) == 0 && run_decide(&x) == 0 &&
	    run_locate(&x) == 0 && run_shim(&x) == 0 && run_confine(&x) == 0 && !x.done &&
	    run_open_store(&x) == 0 && run_execute(&x) == 0)
		run_notes(&x);
	if (!x.done)
		run_audit(&x);
	code = x.done ? 0 : run_report(&x);
	run_release(&x);
	return code;
}

int pdk_cli_run_request(struct pdk_request *req, const struct pdk_cli_face *face)
{
	return run_one(req, 0, NULL, face, NULL);
}

int pdk_cli_run_preset(int argc, char **argv, const struct pdk_cli_face *face,
		       const struct pdk_cli_preset *preset)
{
	return run_one(NULL, argc, argv, face, preset);
}
