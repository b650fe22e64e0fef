/* paddock.h - libpaddock: run one command for an AI coding agent, confined by the
 * host's own sandbox, and get back a bounded result a model can read. */
#ifndef PADDOCK_H
#define PADDOCK_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PADDOCK_API __attribute__((visibility("default")))

/*
 * Lifecycle:
 *
 *   struct paddock_session *s;
 *   struct paddock_result *res;
 *   const char *argv[] = {"make", "-j4", NULL};
 *   struct paddock_request rq = PADDOCK_REQUEST_INIT(argv);
 *   char why[512];
 *
 *   if (paddock_session_new(NULL, &s, why, sizeof(why)) < 0)    start the engine
 *           errx(1, "%s", why);
 *   if (paddock_run(s, &rq, &res, why, sizeof(why)) < 0)        one call, any number of times
 *           errx(1, "%s", why);
 *   fputs(res->text, stdout);                                    as `paddock run` prints it
 *   paddock_result_free(res);
 *   paddock_session_free(s);                                     stops what still runs
 *
 * A session is a resident engine: a process forked from the caller when the session
 * starts, which has read the configuration and found the backend once, and from which
 * each call's command is started, confined, with paddock's guardian, timeout and output
 * store, as `paddock mcp` runs it. Nothing of a call touches the caller's process: no
 * signal handler, no child of its own, no change to its environment or working
 * directory. The engine starts paddock's helpers (the rm shim, the guardian's finish,
 * bubblewrap's reaper) from the installed paddock program.
 *
 * Errors: a function that can fail returns 0 or a negative errno value, and writes one
 * line into why (when why_len > 0) saying what is wrong and what to do instead. Library
 * code never prints, never exits and never aborts on bad input.
 *
 * Threads: a session's calls are taken one at a time (a mutex); several threads may
 * share a session, or each use one of its own to run calls at once. Results belong to
 * the caller and are independent of the session.
 */

struct paddock_session;

/* What a person answers to a call that needs their yes (the confirm gate). */
enum paddock_confirm {
	PADDOCK_CONFIRM_NO = 0,      /* refuse it: the call's result says so */
	PADDOCK_CONFIRM_ONCE = 1,    /* run it, this once */
	PADDOCK_CONFIRM_SESSION = 2, /* run it, and its like for the rest of the session */
};

/* Called, on the thread inside paddock_run(), with the question as a person should see
 * it (several lines: the command, where, what it needs, its risk). */
typedef enum paddock_confirm (*paddock_confirm_fn)(void *ctx, const char *question);

struct paddock_options {
	size_t size;             /* sizeof(struct paddock_options), as PADDOCK_OPTIONS_INIT sets */
	const char *config;      /* this configuration file instead of the system's and user's */
	const char *backend;     /* "bwrap", "landlock", "seatbelt"; NULL: configured, or the
				  * first that works here */
	const char *root;        /* the writable project directory; NULL: each call's directory */
	const char *const *write_paths; /* more writable roots for every call, NULL-terminated;
					 * the program's choice: not asked */
	size_t bound;            /* bytes a result may take (1024 to 1048576); 0: configured */
	const char *state_home;  /* instead of $XDG_STATE_HOME: the output store, sessions, logs */
	const char *program;     /* the paddock program; NULL: the installed one */
	paddock_confirm_fn confirm; /* NULL: nobody can be asked; such a call is refused */
	void *confirm_ctx;
};
#define PADDOCK_OPTIONS_INIT {.size = sizeof(struct paddock_options)}

/*
 * Start a session: read and check the configuration, start the engine. opts may be NULL
 * (all defaults). On success *ret holds the session (paddock_session_free); on failure
 * *ret is untouched. -EINVAL: bad options or configuration; -ENOENT: the paddock program
 * is not there; -ENOMEM; another -errno when the engine could not start.
 */
PADDOCK_API int paddock_session_new(const struct paddock_options *opts,
				    struct paddock_session **ret, char *why, size_t why_len);
/* Stop the engine: a call still running in another thread ends as cancelled. NULL is fine. */
PADDOCK_API void paddock_session_free(struct paddock_session *s);

enum paddock_network {
	PADDOCK_NETWORK_OFF = 0, /* no network: loopback among the command's own processes */
	PADDOCK_NETWORK_DOMAINS, /* the listed domains only, through paddock's proxy */
	PADDOCK_NETWORK_FULL,    /* the network (asked of a person unless configured) */
};

/* One call. Every string is borrowed for the duration of the call. */
struct paddock_request {
	size_t size;                     /* sizeof(struct paddock_request) */
	const char *const *argv;         /* the program and its arguments, NULL-terminated */
	const char *cwd;                 /* where it runs; NULL: the session's directory */
	enum paddock_network network;
	const char *const *domains;      /* with PADDOCK_NETWORK_DOMAINS; NULL-terminated */
	const char *const *write_paths;  /* more writable paths (asked); NULL-terminated */
	unsigned timeout;                /* seconds; 0: configured (clamped to its cap) */
	bool outside_sandbox;            /* ask a person to run this one call unconfined */
	bool allow_git_hooks;            /* ask a person to let it install git hooks */
};
#define PADDOCK_REQUEST_INIT(argv_) {.size = sizeof(struct paddock_request), .argv = (argv_)}

/* What became of a call. The strings belong to the result. */
struct paddock_result {
	bool ran;                   /* the command started (false: refused or not approved) */
	int exit_code;              /* as `paddock run` exits: the command's status, 128+N for
				     * signal N, or paddock's own 125 (refused, failed) */
	int signal;                 /* the signal that ended the command, or 0 */
	bool timed_out;
	double duration;            /* seconds the command ran */
	const char *text;           /* the bounded result, as `paddock run` prints it */
	const char *json;           /* the same as one JSON object (paddock(1), JSON RESULT) */
	const char *stdout_text;    /* the bounded streams alone */
	const char *stderr_text;
	const char *output_id;      /* the kept whole output (paddock_recall), or NULL */
	const char *error;          /* why it did not run, or NULL */
	const char *error_kind;     /* "refused", "not_approved", "bad_request", ... or NULL */
	const char *const *notes;   /* the result's notes: held back, sandbox, approvals */
	size_t n_notes;
	const char *const *refusals; /* what the sandbox refused, and the grant that opens it */
	size_t n_refusals;
};

/*
 * Run one request. On success (the call was decided: run, refused or not approved) *ret
 * holds the result (paddock_result_free); a refusal is a result whose ran is false and
 * whose error says why and what to do instead. -EINVAL: bad request (empty argv, a wrong
 * field); -EPIPE: the engine is gone (start a new session); -ENOMEM.
 */
PADDOCK_API int paddock_run(struct paddock_session *s, const struct paddock_request *rq,
			    struct paddock_result **ret, char *why, size_t why_len);
PADDOCK_API void paddock_result_free(struct paddock_result *res);

enum paddock_verdict {
	PADDOCK_VERDICT_RUN = 0, /* it would run now */
	PADDOCK_VERDICT_ASK,     /* a person would be asked */
	PADDOCK_VERDICT_REFUSE,  /* it would be refused */
};

/* What paddock_run() would decide, without running or asking anything. */
struct paddock_decision {
	enum paddock_verdict verdict;
	const char *risk;  /* "safe", "moderate", "dangerous" */
	const char *rule;  /* the rule that decided, or "" */
	const char *why;   /* the question a person would be asked, or the refusal; or NULL */
	const char *json;  /* the whole decision, as `paddock check --json` prints it */
};

/* -EINVAL, -EPIPE, -ENOMEM as paddock_run(). */
PADDOCK_API int paddock_check(struct paddock_session *s, const struct paddock_request *rq,
			      struct paddock_decision **ret, char *why, size_t why_len);
PADDOCK_API void paddock_decision_free(struct paddock_decision *d);

/*
 * A page of an output a result held back: from line from (1 or more; 0: the start), or
 * the lines matching the PCRE2 pattern match (NULL: none), as `paddock recall` shows it.
 * *ret is a new string (free()). -ENOENT: no such output (kept outputs are pruned);
 * -EINVAL: a bad id or pattern; -EPIPE, -ENOMEM.
 */
PADDOCK_API int paddock_recall(struct paddock_session *s, const char *output_id, unsigned from,
			       const char *match, char **ret, char *why, size_t why_len);

/* The library's version, as "0.1.0". */
PADDOCK_API const char *paddock_version(void);

#ifdef __cplusplus
}
#endif

#endif
