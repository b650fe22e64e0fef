/* policy.h - the decision made before anything runs: run now, ask a person,
 * or refuse with guidance. Reads only its inputs; runs nothing. */
#ifndef PDK_POLICY_H
#define PDK_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config/config.h"

enum pdk_verdict {
	PDK_VERDICT_RUN,    /* read-only, or below the threshold */
	PDK_VERDICT_ASK,    /* at or above the threshold: the confirm gate decides */
	PDK_VERDICT_REFUSE, /* never runs; message says why and what to do instead */
};

/* What the call asks for besides its argv. */
struct pdk_policy_call {
	char *const *argv;     /* NULL-terminated */
	const char *cwd;       /* absolute: where it runs (globs, package.json) */
	const char *home;      /* $HOME, for ~ and sensitive paths; may be NULL */
	bool network;          /* the call has network on */
	/* Domains the call asks for that the configuration does not list
	 * (--allow-domain): each is reached through the proxy. */
	const char *const *domains;
	size_t n_domains;
	size_t n_writes;       /* extra write paths it asks for */
	bool outside_sandbox;  /* --outside-sandbox */
	/* Confinement is off (--no-sandbox, sandbox.enabled false): a person's
	 * choice, which raises nothing by itself; the rules still apply. */
	bool sandbox_off;
	/* The writable roots, real paths: a program named by a path inside one
	 * (./configure, .venv/bin/pytest), or a file sourced from one, is the
	 * project's own. None given: cwd is the one root. */
	const char *const *roots;
	size_t n_roots;
	/* The extra write paths by name (n_writes of them; NULL: counted only),
	 * and what else widens the call, one phrase each ("writable root /srv
	 * (--root)"): each is named in the question and raises the call. */
	const char *const *writes;
	const char *const *widen;
	size_t n_widen;
	/* The host's unix sockets the configuration opens to every confined
	 * run (allowUnixSockets): named in the question, raising nothing. */
	const char *const *sockets;
	size_t n_sockets;
};

/* One simple command and what the rules said about it. */
struct pdk_policy_step {
	char *text;            /* the command as written (for a wrapper: the whole command) */
	char *program;         /* the program that finally runs, after wrappers */
	char **argv;           /* its words (NULL-terminated), after wrappers */
	int line, column;      /* 1-based in the sh -c script; 0 for an argv call */
	unsigned depth;        /* nesting: 0 top level, 1 inside a nested sh -c, ... */
	bool read_only;
	bool path_changed;     /* runs after PATH= or a sourced file: its program
				  cannot be told from its name */
	enum pdk_risk risk;
	char *rule;            /* the rule that decided: "read_only_command: git status",
				  "risk: rm-recursive", "deny: ^curl", "default" */
	char *why;             /* one line for the person when asked; NULL otherwise */
	/* Why it is judged so when no rule gave a why ("on the read-only list",
	 * "not on the read-only list"): static text, never NULL once judged. */
	const char *note;
};

struct pdk_decision {
	enum pdk_verdict verdict;
	enum pdk_risk risk;     /* the highest over the steps, after the call's raises */
	bool read_only;         /* every step read-only and nothing raised the call */
	char *rule;             /* the rule behind the verdict */
	/* REFUSE: one line, e.g. "command denied by policy: `sudo` ...: drop sudo and
	 * ask for the paths with --write PATH instead"; always says what to do. */
	char *message;
	/* ASK: the part that needs approval and why (one line). */
	char *ask;
	/* ASK: the programs a "yes for this program" answer would cover. */
	struct pdk_strv programs;
	/* Raises that apply to the whole call ("network on", "writes outside the roots",
	 * "runs outside the sandbox"). */
	struct pdk_strv raises;
	struct pdk_policy_step *steps;
	size_t n_steps;
	bool shell;             /* the call was sh/bash/dash/zsh -c SCRIPT */
	bool unconfined;        /* --no-sandbox, sandbox.enabled false or --outside-sandbox */
};

/* Decide. Returns 0 (the verdict is in ret, refusals included) or a negative errno
 * (-ENOMEM). */
int pdk_policy_decide(const struct pdk_config *cfg, const struct pdk_policy_call *call,
		      struct pdk_decision *ret);
void pdk_decision_release(struct pdk_decision *d);

/* Does the program take a subcommand (git stash, npm run, make TARGET)?
 * Then a session approval covers only the one approved. */
bool pdk_policy_has_subcommands(const char *program);

/* For `paddock check`: "run", "ask" or "refuse"; the decision as text lines
 * (on REFUSE the steps end with the refused one; later ones were not judged;
 * returns 0 or -EIO) and as a cJSON object the caller deletes (NULL: no memory).
 * Each step is explained in one line: pdk_step_reason writes why step i was
 * judged as it was into buf and returns it. */
const char *pdk_verdict_name(enum pdk_verdict v);
const char *pdk_step_reason(const struct pdk_decision *d, size_t i, char *buf, size_t size);
int pdk_decision_print(const struct pdk_decision *d, FILE *out);
struct cJSON *pdk_decision_json(const struct pdk_decision *d);

/*
 * The rm the call names itself (its argv, or a simple command of its sh -c script, through
 * wrappers such as xargs, env, find -exec and nested scripts) replaced by rm_path, quoted as
 * needed, so that only that rm goes to the trash: rm run by the programs the call starts is
 * their own. An argv whose program is rm is left alone (paddock carries it out). Returns 1
 * with *ret_argv a new owned argv (pdk_strv_freep), 0 when the call names no rm, -ENOMEM, or
 * -EINVAL with why when an rm could not be rewritten.
 */
int pdk_policy_rm_rewrite(char *const *argv, const char *rm_path, char ***ret_argv, char *why,
			  size_t why_len);

#endif
