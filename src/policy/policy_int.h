/* policy_int.h - what the policy's files share among themselves: the programs a
 * call runs (found through shells and wrappers), the shipped rules, watchers. */
#ifndef PDK_POLICY_INT_H
#define PDK_POLICY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "config/config.h"
#include "policy.h"
#include "core/util.h"

/* Nested sh -c scripts are parsed again down to this depth, then refused. */
#define PDK_POLICY_MAX_SH_DEPTH 8

enum {
	PDK_PCMD_WRITES = 1u << 0,	      /* a wrapper or redirect writes a file */
	PDK_PCMD_COMPUTED = 1u << 1,	      /* an argument is only known at run time */
	PDK_PCMD_STDIN_SCRIPT = 1u << 2,      /* a shell reads its commands from a pipe/here-doc */
	PDK_PCMD_FED_BY_DOWNLOADER = 1u << 3, /* ... and a downloader feeds that pipe */
	PDK_PCMD_PROJECT = 1u << 4,	      /* named by a path inside a writable root */
	PDK_PCMD_TAINTED = 1u << 5,	      /* runs after PATH changed or a file was sourced */
	PDK_PCMD_IN_FUNCTION = 1u << 6,	      /* inside a function body or a trap: may run later */
};

/* The program's base name: "/usr/bin/rm" is rm (a trailing slash keeps it whole). */
static inline const char *pdk_policy_base_name(const char *s)
{
	const char *b = strrchr(s, '/');

	return b && b[1] ? b + 1 : s;
}

/* Is s one of the NULL-terminated list? */
static inline bool pdk_policy_in_list(const char *s, const char *const *list)
{
	for (; list && *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

/* One program a simple command runs, after looking through wrappers. */
struct pdk_pcmd {
	char **argv; /* owned, NULL-terminated, one allocation with its strings */
	size_t argc;
	char *program; /* the basename of argv[0], inside argv's allocation */
	char *text;    /* owned: the simple command as written */
	char **paths;  /* owned, NULL-terminated: redirect targets to check */
	size_t npaths;
	int line, column; /* 0 for an argv call */
	unsigned depth;
	unsigned flags; /* PDK_PCMD_* */
	char *refuse;	/* owned: set when the command cannot be allowed as written */
	char *refuse_rule;
	/* owned: code hidden in data found by the collector ("arithmetic on x",
	 * "trap") and why, or NULL: the step is at least moderate */
	char *code_rule, *code_why;
	/* where it came from, to link pipelines */
	unsigned script_id;
};

struct pdk_pcmd_list {
	struct pdk_pcmd *v;
	size_t n, cap;
	/* The first command that changed PATH or sourced a file (owned), or NULL:
	 * the programs marked PDK_PCMD_TAINTED run after it. */
	char *taint;
};

/* policy_arith.c: variables that arithmetic would evaluate as code (see there). */
struct pdk_arith_var {
	char *name, *value; /* owned */
	char *copies;	    /* owned: the name whose value it takes ($y), or NULL */
	bool suspect;	    /* given text that is not a plain number */
	bool unknown;	    /* given a value known only when it runs (read, $(cat f)) */
};
struct pdk_arith_where {
	char *text; /* owned in a use: the arithmetic as written */
	const char *opener; /* static: "((", "$((", "[[", "let", "declare -i", "${" */
	char *array; /* owned in a use: the array whose subscript it is, or NULL */
	int line, column;
	unsigned depth, script_id;
};
struct pdk_arith_use {
	char *name; /* owned */
	struct pdk_arith_where at;
};
struct pdk_arith {
	struct pdk_arith_var *vars;
	size_t nvars;
	struct pdk_arith_use *uses; /* the first use of each name */
	size_t nuses;
	struct pdk_strv assoc; /* associative arrays: their subscripts are strings */
};
/* NAME=VALUE (a word of an assignment, quotes removed; flags: PDK_SH_*). */
int pdk_arith_assign(struct pdk_arith *a, const char *word, unsigned flags);
/* What the builtin command (its words, flags PDK_SH_*) gives arithmetic:
 * read, mapfile, getopts and printf -v set names to values known only when
 * it runs; declare -A makes an array whose subscripts are no arithmetic. */
int pdk_arith_builtin(struct pdk_arith *a, const char *const *words, const unsigned *flags,
		      size_t n);
/* The names an arithmetic text reads (at->text is copied). */
int pdk_arith_uses(struct pdk_arith *a, const char *text, const struct pdk_arith_where *at);
/* The index of the first use from `from` on whose name may hold code, with the
 * value that makes it so; SIZE_MAX when none. */
size_t pdk_arith_next(const struct pdk_arith *a, size_t from,
		      const struct pdk_arith_var **ret_var);
void pdk_arith_release(struct pdk_arith *a);

/* policy_cmd.c: every program the call runs. Returns 0 or -ENOMEM; *ret_shell
 * says whether the call itself was sh -c SCRIPT. */
int pdk_policy_collect(const struct pdk_policy_call *call, struct pdk_pcmd_list *out,
		       bool *ret_shell);
void pdk_pcmd_list_release(struct pdk_pcmd_list *l);
/* Does find take a pattern (or another value) after this predicate? */
bool pdk_policy_find_takes_pattern(const char *s);

/* A word of a command: its text and PDK_SH_* word flags (0 for argv calls). */
struct pdk_pword {
	const char *s;
	unsigned flags;
};

/* policy_wrap.c: wrappers, whose program comes after their options. */
enum {
	PDK_W_ENV = 1u << 0,	/* NAME=VALUE words come before the program */
	PDK_W_WRITES = 1u << 1, /* the wrapper itself writes a file */
	PDK_W_PID = 1u << 2,	/* -p means "act on a pid": no program follows */
};
struct pdk_wrapper {
	const char *name;
	const char *argopts;		 /* short options taking an argument */
	const char *const *long_argopts; /* long ones (the argument may follow as a word) */
	unsigned npos;			 /* positional words before the program */
	unsigned flags;
};
const struct pdk_wrapper *pdk_policy_wrapper(const char *prog);
/* Index of the program in w (n when none follows); seen[] gets the option
 * letters met, *optarg_at the word holding -c/-S's argument (SIZE_MAX: none). */
size_t pdk_policy_wrapper_skip(const struct pdk_wrapper *wr, const struct pdk_pword *w, size_t n,
			       bool seen[128], size_t *optarg_at);
bool pdk_policy_is_assignment(const char *s);
/* PATH=, LD_PRELOAD=, BASH_ENV=...: changes what a bare name runs. */
bool pdk_policy_steering_assignment(const char *s);
bool pdk_policy_steering_name(const char *s, size_t len);
bool pdk_policy_is_assignment_name(const char *s, size_t len);

/* policy_argv.c: argv first. Returns 1 with *ret_msg (one line, with the
 * ["sh","-c",...] that was meant) and *ret_rule when a shell was expected, 0
 * when not, -ENOMEM. */
int pdk_policy_argv_first(char *const *argv, size_t argc, const char *cwd, char **ret_msg,
			  const char **ret_rule);
bool pdk_policy_is_shell(const char *prog);
/* One word of a shell's (bash, dash, sh, zsh) options before its script: how many words it
 * takes (1, or 2 with the argument of -o, -O, --rcfile, --init-file), 0 when the options ended
 * before it, -1 when it ends them itself ("--", "-"). Sets *has_c on -c. A word that is not
 * literal is never an option. */
int pdk_policy_shell_option(const char *s, bool literal, bool *has_c);

/* policy_data.c: the shipped tables. */
struct pdk_shipped_rule {
	const char *name;
	const char *const *programs; /* NULL-terminated: only these programs are tested */
	const char *pattern;
	enum pdk_risk risk;
	const char *why;
};
/* Lazily compiled once per process; NULL on failure (then only config rules apply). */
const struct pdk_shipped_rule *pdk_policy_shipped_rules(size_t *ret_n);
/* Does shipped rule i match text? md is scratch from pdk_policy_match_data(). */
bool pdk_policy_shipped_match(size_t i, const char *text, size_t len, void *md);
void *pdk_policy_match_data(void);
void pdk_policy_match_data_free(void *md);

bool pdk_policy_read_only_lookup(const char *key);
/* Options that make a read-only program write (sed -i, sort -o, find -delete...). */
bool pdk_policy_writes_by_options(const char *entry, char *const *argv, size_t argc);
/* The read-only audit (read_only_audit.h): an option of the call, or an
 * environment prefix in its text, that makes the entry execute or write.
 * Returns why, written into buf ("sort --compress-program= runs ..."), or NULL. */
const char *pdk_policy_ro_cancelled(const char *entry, char *const *argv, size_t argc,
				    const char *text, char *buf, size_t len);
/* policy_risk.c: for a recursive rm, why it is dangerous (written into why):
 * it takes /, HOME, a whole writable root, a path outside the roots, or one
 * known only when it runs; NULL when it stays moderate. */
const char *pdk_policy_rm_wide(const struct pdk_policy_call *call, char *const *argv, size_t argc,
			       char *why, size_t len);
/* Is argv the dry-run form of shipped rule `rule` (git clean -n, rsync
 * --dry-run)? *reads_only: the dry run changes nothing. */
bool pdk_policy_dry_run(const char *rule, char *const *argv, size_t argc, bool *reads_only);
bool pdk_policy_is_downloader(const char *prog);
bool pdk_policy_is_interpreter(const char *prog);
/* Is abs (absolute, normalized) a sensitive path, or does it lie under one?
 * Returns the rule that matched ("~/.ssh", "*.pem") or NULL. */
const char *pdk_policy_sensitive(const char *abs, const char *home, const struct pdk_strv *extra);
/* Only the file names in path: .env, *.pem, id_rsa*... */
const char *pdk_policy_sensitive_name(const char *path);
/* No sensitive path is cwd, lies above it, or lies below it: then a relative
 * path without ".." is sensitive only by its own names. */
bool pdk_policy_cwd_plain(const char *cwd, const char *home, const struct pdk_strv *extra);
/* Lexically normalize p against cwd and home into buf; false when it is not a path. */
bool pdk_policy_abs_path(const char *p, const char *cwd, const char *home, char *buf, size_t size);
/* Does the path p (relative to the call's cwd) name a file inside one of the call's writable
 * roots, by its own place or by its directory's real path? */
bool pdk_policy_in_roots(const struct pdk_policy_call *call, const char *p);

/* What a program name is to the policy: one probe of a hash table laid out at build time. */
enum {
	PDK_PK_SHELL = 1u << 0,
	PDK_PK_FIND = 1u << 1,
	PDK_PK_EVAL = 1u << 2,
	PDK_PK_SOURCE = 1u << 3,
	PDK_PK_WRAPPER = 1u << 4,
	PDK_PK_PRIVILEGE = 1u << 5,
	PDK_PK_DENIED = 1u << 6,
	PDK_PK_DOWNLOADER = 1u << 7,
	PDK_PK_INTERPRETER = 1u << 8,
	PDK_PK_WATCHER = 1u << 9,    /* a watcher, or a package runner that may start one */
	PDK_PK_DECLARE = 1u << 10,   /* export, declare, env...: NAME=VALUE arguments */
	PDK_PK_INDIRECT = 1u << 11,  /* alias, enable, hash, trap */
	PDK_PK_RO_SINGLE = 1u << 12, /* the name alone is on the shipped read-only list */
	PDK_PK_RO_MULTI = 1u << 13,  /* "name word..." entries are on it */
	PDK_PK_RO_TRIPLE = 1u << 14, /* "name word word" entries are on it */
	PDK_PK_SETVAR = 1u << 15,    /* read, unset, printf -v...: sets a variable by name */
};
struct pdk_prog_class {
	const char *name; /* static; the program is its first len bytes */
	size_t len;
	unsigned kind;
	unsigned long long rules; /* bit i: shipped rule i applies to this program */
};
/* NULL when the name is nothing special. */
const struct pdk_prog_class *pdk_policy_classify(const char *prog);

/* watch.c: is argv (a program after wrappers) a file watcher? Returns 1 with
 * *ret_msg (one line: what it is and the one-shot to run instead) and
 * *ret_rule, 0 when it is not, -ENOMEM. */
int pdk_watch_check(char *const *argv, size_t argc, const char *cwd, char **ret_msg,
		    char **ret_rule);

#endif
