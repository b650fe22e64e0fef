/* policy_cmd.c - finds every program a call would run: sh -c scripts (parsed,
 * nested ones too) and wrappers looked through, each program as a pcmd. */
#include <glob.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/fmt.h"
#include "policy_int.h"
#include "shparse/shparse.h"

#define NONLITERAL                                                                                 \
	(PDK_SH_EXPANSION | PDK_SH_SUBST | PDK_SH_ARITH | PDK_SH_GLOB | PDK_SH_TILDE | PDK_SH_BRACE)
#define GLOB_MATCH_MAX 64

struct ctx {
	const struct pdk_policy_call *call;
	struct pdk_pcmd_list *out;
	unsigned next_script_id;
	/* The programs from out->v[taint_at] on run after PATH changed or a file
	 * was sourced (SIZE_MAX: none); taint_all: all of them do (a loop may
	 * run the earlier ones again). */
	size_t taint_at;
	bool taint_all;
	/* what the scripts' arithmetic reads, and what they assign */
	struct pdk_arith arith;
};

/* The simple command being looked at. */
struct origin {
	const char *text;
	int line, column;
	unsigned depth;
	bool script; /* words come from a script: the bare-name rule applies */
	unsigned context; /* PDK_SH_IN_* of the script command */
	unsigned flags;
	bool stdin_redirected;
	bool piped_in;
	char **paths;
	size_t npaths;
	unsigned script_id;
};

static int parse_script(struct ctx *x, const char *script, size_t len, unsigned depth,
			const struct origin *outer);

static struct pdk_pcmd *push(struct ctx *x, const struct origin *o)
{
	struct pdk_pcmd_list *l = x->out;
	struct pdk_pcmd *c;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct pdk_pcmd *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		l->v = v;
		l->cap = cap;
	}
	c = &l->v[l->n];
	memset(c, 0, sizeof(*c));
	c->text = strdup(o->text);
	c->paths = o->npaths ? calloc(o->npaths + 1, sizeof(char *)) : NULL;
	if (!c->text || (o->npaths && !c->paths)) {
		free(c->text);
		free(c->paths);
		return NULL;
	}
	for (size_t i = 0; i < o->npaths; i++)
		if (o->paths[i] && !(c->paths[c->npaths++] = strdup(o->paths[i])))
			goto fail;
	c->line = o->line;
	c->column = o->column;
	c->depth = o->depth;
	c->flags = o->flags;
	c->script_id = o->script_id;
	l->n++;
	return c;
fail:
	for (size_t i = 0; i < c->npaths; i++)
		free(c->paths[i]);
	free(c->paths);
	free(c->text);
	return NULL;
}

/* argv, its strings and the program's bare name live in one allocation. */
static int emit(struct ctx *x, const struct origin *o, const struct pdk_pword *w, size_t n,
		unsigned flags)
{
	struct pdk_pcmd *c = push(x, o);
	size_t len = 1, ptrs = (n + 1) * sizeof(char *);
	const char *prog = n ? pdk_policy_base_name(w[0].s) : "";
	char *p;

	if (!c)
		return -ENOMEM;
	c->flags |= flags;
	c->argc = n;
	for (size_t i = 0; i < n; i++)
		len += strlen(w[i].s) + 1;
	len += strlen(prog);
	if (!(c->argv = malloc(ptrs + len)))
		return -ENOMEM;
	p = (char *)c->argv + ptrs;
	for (size_t i = 0; i < n; i++) {
		c->argv[i] = p;
		p = stpcpy(p, w[i].s) + 1;
		if (i && (w[i].flags & (PDK_SH_EXPANSION | PDK_SH_SUBST | PDK_SH_ARITH)))
			c->flags |= PDK_PCMD_COMPUTED;
	}
	c->argv[n] = NULL;
	c->program = p;
	strcpy(p, prog);
	return 0;
}

static int __attribute__((format(printf, 5, 6)))
refuse(struct ctx *x, const struct origin *o, const struct pdk_pword *w, const char *rule,
       const char *fmt, ...)
{
	struct pdk_pcmd *c;
	va_list ap;
	int r;

	if ((r = emit(x, o, w, w ? 1 : 0, 0)) < 0)
		return r;
	c = &x->out->v[x->out->n - 1];
	va_start(ap, fmt);
	r = vasprintf(&c->refuse, fmt, ap);
	va_end(ap);
	if (r < 0) {
		c->refuse = NULL;
		return -ENOMEM;
	}
	return (c->refuse_rule = strdup(rule)) ? 0 : -ENOMEM;
}

/* From here on a bare name may run something else: PATH changed, or a file
 * was sourced. Inside a loop or a function, earlier commands may run after it. */
static int taint(struct ctx *x, const struct origin *o)
{
	if (o->context & (PDK_SH_IN_COMPOUND | PDK_SH_IN_FUNCTION))
		x->taint_all = true;
	if (x->out->taint)
		return 0;
	x->taint_at = x->out->n;
	return (x->out->taint = strdup(o->text)) ? 0 : -ENOMEM;
}

/* PATH=, PATH+=: a program of the project may now answer to a bare name. */
static bool sets_path(const char *a)
{
	return !strncmp(a, "PATH=", 5) || !strncmp(a, "PATH+=", 6);
}

/* env's options in w[1..k): do they clear PATH (-i, -, -u PATH)? */
static bool env_clears_path(const struct pdk_pword *w, size_t k)
{
	for (size_t i = 1; i < k; i++) {
		const char *a = w[i].s;

		if (!strcmp(a, "-") || !strcmp(a, "--ignore-environment") ||
		    !strcmp(a, "--unset=PATH") || !strcmp(a, "-uPATH"))
			return true;
		if ((!strcmp(a, "-u") || !strcmp(a, "--unset")) && i + 1 < k &&
		    !strcmp(w[i + 1].s, "PATH"))
			return true;
		if (a[0] == '-' && a[1] != '-') {
			/* short flags bundled: -iv; stop at the first that takes an argument */
			for (const char *p = a + 1; *p && !strchr("uCS", *p); p++)
				if (*p == 'i')
					return true;
		}
	}
	return false;
}

static int refuse_steering(struct ctx *x, const struct origin *o, const char *a);

bool pdk_policy_find_takes_pattern(const char *s)
{
	static const char *const preds[] = {
	    "-name",  "-iname",	  "-path",     "-ipath",     "-wholename",   "-iwholename",
	    "-regex", "-iregex",  "-lname",    "-ilname",    "-user",	     "-group",
	    "-type",  "-xtype",	  "-size",     "-perm",	     "-mtime",	     "-mmin",
	    "-atime", "-amin",	  "-ctime",    "-cmin",	     "-maxdepth",    "-mindepth",
	    "-links", "-inum",	  "-samefile", "-fstype",    "-uid",	     "-gid",
	    "-used",  "-context", "-printf",   "-regextype", "-files0-from", NULL,
	};

	if (s[0] != '-' || !s[1] || s[1] == 'e' || s[1] == 'o' || s[1] == 'd')
		return false; /* -exec, -ok, -delete, -o: none take a pattern */
	return pdk_policy_in_list(s, preds) || !strncmp(s, "-newer", 6);
}

static int judge(struct ctx *x, const struct origin *o, const struct pdk_pword *w, size_t n);

static int judge_find(struct ctx *x, const struct origin *o, const struct pdk_pword *w, size_t n)
{
	unsigned flags = 0;
	bool execs = false;
	int r;

	for (size_t i = 1; i < n; i++) {
		const char *s = w[i].s;

		if (!strcmp(s, "-delete"))
			return refuse(x, o, w, "find-delete",
				      "find -delete removes files without the trash: use `find ... "
				      "-exec rm {} +` instead, which moves them to the trash");
		if (!strncmp(s, "-fprint", 7) || !strcmp(s, "-fls"))
			flags |= PDK_PCMD_WRITES;
		if (!strcmp(s, "-fprintf"))
			i++;
		if (pdk_policy_find_takes_pattern(s) || !strncmp(s, "-fprint", 7) ||
		    !strcmp(s, "-fls")) {
			i++;
			continue;
		}
	}
	for (size_t i = 1; i < n; i++) {
		const char *s = w[i].s;
		size_t j;

		if (pdk_policy_find_takes_pattern(s) || !strncmp(s, "-fprint", 7) ||
		    !strcmp(s, "-fls")) {
			i += !strcmp(s, "-fprintf") ? 2 : 1;
			continue;
		}
		if (strcmp(s, "-exec") && strcmp(s, "-execdir") && strcmp(s, "-ok") &&
		    strcmp(s, "-okdir"))
			continue;
		for (j = i + 1; j < n; j++)
			if (!strcmp(w[j].s, ";") ||
			    (!strcmp(w[j].s, "+") && j > i + 1 && !strcmp(w[j - 1].s, "{}")))
				break;
		if (j > i + 1) {
			struct origin sub = *o;

			sub.flags |= flags;
			execs = true;
			if ((r = judge(x, &sub, w + i + 1, j - i - 1)) < 0)
				return r;
		}
		i = j;
	}
	return execs ? 0 : emit(x, o, w, n, flags);
}

int pdk_policy_shell_option(const char *s, bool literal, bool *has_c)
{
	int arg = 0;

	if (!strcmp(s, "--") || !strcmp(s, "-"))
		return -1;
	if ((s[0] != '-' && s[0] != '+') || !s[1] || !literal)
		return 0;
	if (s[1] == '-')
		return !strcmp(s, "--rcfile") || !strcmp(s, "--init-file") ? 2 : 1;
	for (const char *c = s + 1; *c; c++) {
		*has_c |= *c == 'c';
		arg |= *c == 'o' || *c == 'O';
	}
	return 1 + arg;
}

/* bash/dash/sh/zsh: the -c script, a script file, or commands from stdin. */
static int judge_shell(struct ctx *x, const struct origin *o, const struct pdk_pword *w, size_t n)
{
	bool has_c = false;
	size_t i = 1;

	for (int k; i < n; i += (size_t)k)
		if ((k = pdk_policy_shell_option(w[i].s, !(w[i].flags & NONLITERAL), &has_c)) <= 0) {
			i += k < 0;
			break;
		}
	if (has_c) {
		if (i >= n)
			return refuse(x, o, w, "sh-c",
				      "`%s -c` has no script: give the script as the word after -c",
				      w[0].s);
		if (w[i].flags & NONLITERAL)
			return refuse(x, o, w, "sh-computed",
				      "the script given to `%s -c` is computed when it runs, so "
				      "paddock cannot check it: write the script out literally",
				      w[0].s);
		if (o->depth + (o->script ? 1 : 0) > PDK_POLICY_MAX_SH_DEPTH)
			return refuse(x, o, w, "sh-depth",
				      "sh -c scripts nested more than %d deep: flatten the script",
				      PDK_POLICY_MAX_SH_DEPTH);
		return parse_script(x, w[i].s, strlen(w[i].s), o->depth + (o->script ? 1 : 0), o);
	}
	return emit(x, o, w, n,
		    i >= n && (o->stdin_redirected || o->piped_in) ? PDK_PCMD_STDIN_SCRIPT : 0);
}

/* Is w exactly a steering variable's name, or NAME[...]? */
static bool steering_word(const char *w)
{
	size_t l = strcspn(w, "[");

	return (w[l] == '\0' || w[l] == '[') && pdk_policy_is_assignment_name(w, l) &&
	       pdk_policy_steering_name(w, l);
}

/* Builtins that set or drop a variable named by a word, not by NAME=: read,
 * mapfile, readarray, getopts and unset; printf -v; export, declare, typeset
 * and local with -n (unexport, or a name reference). Returns the word that
 * names a steering variable, or NULL. */
static const char *sets_steering(const char *prog, const struct pdk_pword *w, size_t n)
{
	static const char *const by_name[] = {"read", "mapfile", "readarray", "getopts", "unset",
					      NULL};
	static const char *const with_n[] = {"export", "declare", "typeset", "local", NULL};
	bool named = pdk_policy_in_list(prog, by_name), opt_n = false;

	if (!strcmp(prog, "printf")) {
		for (size_t i = 1; i < n; i++) {
			const char *a = w[i].s;
			if (!strcmp(a, "-v") && i + 1 < n && steering_word(w[i + 1].s))
				return w[i + 1].s;
			if (!strncmp(a, "-v", 2) && a[2] && steering_word(a + 2))
				return a;
		}
		return NULL;
	}
	if (!named && pdk_policy_in_list(prog, with_n))
		for (size_t i = 1; i < n && !opt_n; i++)
			opt_n = w[i].s[0] == '-' && strchr(w[i].s, 'n');
	if (!named && !opt_n)
		return NULL;
	for (size_t i = 1; i < n; i++) {
		const char *a = w[i].s, *eq = strchr(a, '=');

		if (steering_word(a) || (opt_n && eq && steering_word(eq + 1)))
			return a;
	}
	return NULL;
}

/* A for or select loop whose variable steers lookup (`for PATH in /bin`): the
 * parser keeps no loop variables, so the script's text is looked at. */
static const char *loop_steering(const char *s, size_t len, size_t *ret_len)
{
	static const char *const kw[] = {"for", "select"};

	for (size_t i = 0; i < len; i++) {
		if ((s[i] != 'f' && s[i] != 's') || (i && !strchr(" \t\n;&|(){!", s[i - 1])))
			continue;
		for (size_t k = 0; k < 2; k++) {
			size_t kl = strlen(kw[k]), j = i + kl, v;

			if (len - i <= kl || strncmp(s + i, kw[k], kl) || !strchr(" \t", s[j]))
				continue;
			while (j < len && strchr(" \t", s[j]))
				j++;
			for (v = j; v < len && !strchr(" \t\n;", s[v]); v++)
				;
			if (pdk_policy_is_assignment_name(s + j, v - j) &&
			    pdk_policy_steering_name(s + j, v - j)) {
				*ret_len = v - j;
				return s + j;
			}
		}
	}
	return NULL;
}

/* The simple command judge() is looking through: its words from the program
 * on, where it came from, and what the program is. */
struct look {
	struct ctx *x;
	struct origin cur;
	const struct pdk_pword *w;
	size_t n;
	const char *name, *prog; /* as written, and its bare name */
	unsigned kind;		 /* PDK_PK_* */
};

/* A step of judge() returns LOOK_NEXT to go on; anything else is judge()'s
 * result (0, or a negative errno). LOOK_THROUGH: a wrapper was skipped, and
 * the program it runs is looked at from the start. */
enum { LOOK_NEXT = 1, LOOK_THROUGH = 2 };

/* The program's name must be a bare name written out: not computed, not
 * empty, not zsh's =name, and rm never by a path. A program of the project
 * runs as itself. */
static int look_name(struct look *l)
{
	struct ctx *x = l->x;
	const char *name = l->name;

	if (l->w[0].flags & NONLITERAL)
		return refuse(x, &l->cur, l->w, "bare-name",
			      "the program name `%.200s` is computed when the script runs, so "
			      "paddock cannot check it: write the program's bare name",
			      name);
	if (!*name)
		return refuse(x, &l->cur, l->w, "bare-name",
			      "the program name is empty: write the program's bare name");
	if (name[0] == '=' && l->cur.script)
		return refuse(x, &l->cur, l->w, "bare-name",
			      "`%.200s` has zsh look a program up by its full path: write the "
			      "program's bare name",
			      name);
	l->prog = pdk_policy_base_name(name);
	/* A program of the project runs as itself; one elsewhere is judged
	 * as its name would be, except rm, which would miss the trash. */
	if (strchr(name, '/') && pdk_policy_in_roots(x->call, name))
		return emit(x, &l->cur, l->w, l->n, PDK_PCMD_PROJECT);
	if (strchr(name, '/') && !strcmp(l->prog, "rm"))
		return refuse(x, &l->cur, l->w, "bare-name",
			      "`%.200s` names rm by a path, which deletes for good: call it "
			      "as `rm`, which moves files to the trash",
			      name);
	const struct pdk_prog_class *cls = pdk_policy_classify(l->prog);
	l->kind = cls ? cls->kind : 0;
	return LOOK_NEXT;
}

/* eval, and . or source: a file of the project by its path runs unjudged,
 * like a Makefile's recipes; anything else is refused. */
static int look_eval_source(struct look *l)
{
	struct ctx *x = l->x;
	const struct pdk_pword *w = l->w;
	size_t n = l->n;

	if (l->kind & PDK_PK_EVAL)
		return refuse(x, &l->cur, w, "eval",
			      "eval runs text that paddock cannot check: write the commands "
			      "themselves into the script");
	if (!(l->kind & PDK_PK_SOURCE))
		return LOOK_NEXT;
	const char *f = n > 1 && strcmp(w[1].s, "--") ? w[1].s : n > 2 ? w[2].s : "";
	size_t fi = n > 1 && strcmp(w[1].s, "--") ? 1 : 2;

	/* A file of the project, named by its path (a bare name is looked
	 * up on PATH first): its commands run confined, unjudged, like a
	 * Makefile's recipes. */
	if (fi < n && !(w[fi].flags & NONLITERAL) && strchr(f, '/') && pdk_policy_in_roots(x->call, f)) {
		int r = taint(x, &l->cur);

		return r < 0 ? r : emit(x, &l->cur, w, n, PDK_PCMD_PROJECT);
	}
	if (fi < n && !(w[fi].flags & NONLITERAL) && *f && !strchr(f, '/'))
		return refuse(x, &l->cur, w, "source",
			      "`%s %.200s` looks the file up on PATH first: name it by "
			      "its path, `%s ./%.200s`",
			      l->name, f, l->name, f);
	return refuse(x, &l->cur, w, "source",
		      "`%.200s` runs the commands of a file outside the writable roots (or "
		      "one "
		      "named only when it runs), which paddock cannot check: source a file "
		      "of "
		      "the project by its path, or put the commands into the script itself",
		      l->cur.text);
}

/* export, declare, env...: NAME=VALUE arguments that steer lookup are
 * refused; PATH= taints what follows. read, unset, printf -v...: a steering
 * variable set by name is refused. */
static int look_variables(struct look *l)
{
	struct ctx *x = l->x;
	const char *setter;

	if (l->kind & PDK_PK_DECLARE) {
		bool path = false;

		for (size_t i = 1; i < l->n; i++) {
			if (sets_path(l->w[i].s))
				path = true;
			else if (pdk_policy_steering_assignment(l->w[i].s))
				return refuse_steering(x, &l->cur, l->w[i].s);
		}
		/* env PATH=... runs its program with it; export PATH=... and
		 * the like change it for the rest of the script. */
		if (path && !strcmp(l->prog, "env")) {
			l->cur.flags |= PDK_PCMD_TAINTED;
		} else if (path) {
			int r = taint(x, &l->cur);

			if (r < 0)
				return r;
		}
	}
	setter = l->kind & PDK_PK_SETVAR ? sets_steering(l->prog, l->w, l->n) : NULL;
	if (setter)
		return refuse(x, &l->cur, l->w, "env-steering",
			      "`%.200s` sets or drops `%.*s` by name, which changes what a "
			      "bare name runs, past paddock's check: leave it as it is and "
			      "call programs by their bare names",
			      l->cur.text, (int)strcspn(setter + (setter[0] == '-' ? 2 : 0), "=["),
			      setter + (setter[0] == '-' ? 2 : 0));
	return LOOK_NEXT;
}

/* alias, enable -f, hash -p: refused; trap ACTION: the trap is a step of its
 * own, and its action is judged as a script that may run later. */
static int look_indirect(struct look *l)
{
	struct ctx *x = l->x;
	const struct pdk_pword *w = l->w;
	size_t n = l->n;
	const char *prog = l->prog;

	if (!(l->kind & PDK_PK_INDIRECT))
		return LOOK_NEXT;
	if ((!strcmp(prog, "alias") && n > 1 && strchr(w[n - 1].s, '=')) ||
	    (!strcmp(prog, "enable") && n > 1 && !strncmp(w[1].s, "-f", 2)) ||
	    (!strcmp(prog, "hash") && n > 1 && !strncmp(w[1].s, "-p", 2)))
		return refuse(x, &l->cur, w, "indirect",
			      "`%.200s` makes a name run something paddock cannot check: call "
			      "programs by their bare names and write functions out",
			      l->cur.text);
	if (strcmp(prog, "trap") || n <= 2)
		return LOOK_NEXT;
	/* trap [--] ACTION SIGNAL...; -l and -p only list. */
	size_t a = !strcmp(w[1].s, "--") ? 2 : 1;
	struct pdk_pword sh[3] = {{"sh", 0}, {"-c", 0}, {"", 0}};

	if (a == 1 && w[1].s[0] == '-' && strcmp(w[1].s, "-"))
		return emit(x, &l->cur, w, n, 0);
	if (a >= n || !*w[a].s || !strcmp(w[a].s, "-"))
		return LOOK_NEXT;
	/* The trap itself is code in data: its action runs later, at exit, on a
	 * signal or before each command (DEBUG), in the state the script left.
	 * Its commands are judged too, as ones that may run after a change of
	 * PATH. */
	int r = emit(x, &l->cur, w, n, 0);
	struct pdk_pcmd *c = &x->out->v[x->out->n - 1];

	if (r < 0 || !(c->code_rule = strdup("trap")) ||
	    !(c->code_why = strdup("trap's action is code bash runs later (at exit, on a "
				   "signal, or before each command for DEBUG), with the "
				   "variables and PATH of that moment")))
		return -ENOMEM;
	sh[2] = w[a];
	l->cur.flags |= PDK_PCMD_IN_FUNCTION;
	return judge_shell(x, &l->cur, sh, 3);
}

/* Shells and find have their own readers; any other program that is no
 * wrapper is the one that runs. */
static int look_program(struct look *l)
{
	if (l->kind & PDK_PK_SHELL)
		return judge_shell(l->x, &l->cur, l->w, l->n);
	if (l->kind & PDK_PK_FIND)
		return judge_find(l->x, &l->cur, l->w, l->n);
	if (!(l->kind & PDK_PK_WRAPPER) || !pdk_policy_wrapper(l->prog))
		return emit(l->x, &l->cur, l->w, l->n, 0);
	return LOOK_NEXT;
}

/* A wrapper (env, nice, xargs, flock...): its options skipped, what they say
 * checked, then the program it runs is looked at (LOOK_THROUGH). */
static int look_wrapper(struct look *l)
{
	struct ctx *x = l->x;
	const struct pdk_wrapper *wr = pdk_policy_wrapper(l->prog);
	const struct pdk_pword *w = l->w;
	const char *prog = l->prog;
	size_t n = l->n, k, optarg_at = SIZE_MAX;
	bool seen[128] = {false};
	struct pdk_pword sh[3] = {{"sh", 0}, {"-c", 0}, {"", 0}};

	k = pdk_policy_wrapper_skip(wr, w, n, seen, &optarg_at);
	if ((!strcmp(prog, "busybox") || !strcmp(prog, "toybox")) && k < n &&
	    !strcmp(pdk_policy_base_name(w[k].s), "rm"))
		return refuse(x, &l->cur, w, "bare-name",
			      "%s's own rm deletes for good: call rm by its bare name, which "
			      "moves files to the trash",
			      prog);
	if (!strcmp(prog, "env") && env_clears_path(w, k))
		return refuse(x, &l->cur, w, "env-steering",
			      "`env -i` or `env -u PATH` leaves a bare name to a default "
			      "PATH, past paddock's own (where rm goes to the trash): keep "
			      "PATH, and unset only the variables you mean with -u NAME");
	if (!strcmp(prog, "env") && seen['S'])
		return refuse(x, &l->cur, w, "env-split",
			      "env -S splits a string into a command that paddock cannot "
			      "check: write the words out as separate arguments");
	if (!strcmp(prog, "command") && seen['p'])
		return refuse(x, &l->cur, w, "command-p",
			      "command -p looks the program up on a default PATH, past "
			      "paddock's: call the program by its bare name");
	if (!strcmp(prog, "command") && (seen['v'] || seen['V']))
		return emit(x, &l->cur, w, n, 0);
	if ((wr->flags & PDK_W_PID) && seen['p'])
		return emit(x, &l->cur, w, n, 0);
	if (wr->flags & PDK_W_WRITES)
		l->cur.flags |= PDK_PCMD_WRITES;
	if (!strcmp(prog, "time") && seen['o'])
		l->cur.flags |= PDK_PCMD_WRITES;
	if (!strcmp(prog, "flock") && k < n &&
	    (!strcmp(w[k].s, "-c") || !strcmp(w[k].s, "--command"))) {
		seen['c'] = true;
		optarg_at = k + 1;
	}
	if (!strcmp(prog, "flock") && seen['c']) {
		/* flock FILE -c CMD runs CMD with sh -c */
		if (optarg_at == SIZE_MAX || optarg_at >= n)
			return refuse(x, &l->cur, w, "sh-c",
				      "write flock's command as `flock FILE -c 'COMMAND'`");
		sh[2] = w[optarg_at];
		return judge_shell(x, &l->cur, sh, 3);
	}
	if (!strcmp(prog, "parallel")) {
		size_t end = k;

		while (end < n && strncmp(w[end].s, ":::", 3))
			end++;
		if (end == k)
			return refuse(x, &l->cur, w, "parallel-stdin",
				      "parallel without a command runs the lines of its input, "
				      "which paddock cannot check: name the command, e.g. "
				      "`parallel gzip ::: a b`");
		if (end == k + 1 && strpbrk(w[k].s, " \t\n;|&")) {
			sh[2] = w[k];
			return judge_shell(x, &l->cur, sh, 3);
		}
		n = end;
	}
	if (k >= n)
		return emit(x, &l->cur, w, n, 0);
	l->w = w + k;
	l->n = n - k;
	return LOOK_THROUGH;
}

/* Every program a simple command runs: the steps look at its program in
 * turn, until one decides (a refusal, a pcmd, a nested script); a wrapper
 * starts them again on the program it runs. */
static int judge(struct ctx *x, const struct origin *o, const struct pdk_pword *w, size_t n)
{
	static int (*const steps[])(struct look *) = {
	    look_name, look_eval_source, look_variables, look_indirect, look_program, look_wrapper,
	};
	struct look l = {.x = x, .cur = *o, .w = w, .n = n};
	int r = LOOK_THROUGH;

	while (r == LOOK_THROUGH) {
		if (!l.n)
			return 0;
		l.name = l.w[0].s;
		l.kind = 0;
		r = LOOK_NEXT;
		for (size_t i = 0; i < PDK_ARRAY_SIZE(steps) && r == LOOK_NEXT; i++)
			r = steps[i](&l);
	}
	return r;
}

static int refuse_steering(struct ctx *x, const struct origin *o, const char *a)
{
	return refuse(x, o, NULL, "env-steering",
		      "`%.*s` changes which program a bare name runs or what a shell runs "
		      "first, past paddock's check: leave it as it is and call programs by "
		      "their bare names",
		      (int)strcspn(a, "+="), a);
}

/* Redirections of a script command: files it writes and paths to check. */
static int scan_redirs(const struct pdk_sh_command *c, struct origin *o)
{
	if (!c->nredirs)
		return 0;
	o->paths = calloc(c->nredirs + 1, sizeof(char *));
	if (!o->paths)
		return -ENOMEM;
	for (size_t i = 0; i < c->nredirs; i++) {
		const struct pdk_sh_redir *r = &c->redirs[i];
		const char *t = r->target.text;
		bool out = false;

		switch (r->op) {
		case PDK_SH_REDIR_HEREDOC:
		case PDK_SH_REDIR_HEREDOC_STRIP:
		case PDK_SH_REDIR_HERESTRING:
			o->stdin_redirected = true;
			continue;
		case PDK_SH_REDIR_DUPIN:
		case PDK_SH_REDIR_DUPOUT:
			if (!*t || strspn(t, "0123456789-") == strlen(t))
				continue;
			out = r->op == PDK_SH_REDIR_DUPOUT;
			break;
		case PDK_SH_REDIR_IN:
			break;
		default:
			out = true;
		}
		if (r->target.flags & (PDK_SH_EXPANSION | PDK_SH_SUBST | PDK_SH_ARITH))
			o->flags |= PDK_PCMD_COMPUTED;
		if (out && strcmp(t, "/dev/null"))
			o->flags |= PDK_PCMD_WRITES;
		o->paths[o->npaths++] = (char *)t;
	}
	return 0;
}

/* Glob words of a script command: the files they match are checked as paths. */
static int glob_words(const struct pdk_sh_command *c, const char *cwd, struct pdk_strv *sv)
{
	for (size_t i = 1; i < c->nwords; i++) {
		const struct pdk_sh_word *wd = &c->words[i];
		char pat[4096];
		glob_t g;

		if ((wd->flags & (PDK_SH_GLOB | PDK_SH_EXPANSION | PDK_SH_SUBST)) != PDK_SH_GLOB)
			continue;
		if (wd->text[0] == '/' || !cwd)
			snprintf(pat, sizeof(pat), "%s", wd->text);
		else
			snprintf(pat, sizeof(pat), "%s/%s", cwd, wd->text);
		if (glob(pat, GLOB_NOSORT, NULL, &g) != 0)
			continue;
		for (size_t j = 0; j < g.gl_pathc && j < GLOB_MATCH_MAX; j++)
			if (pdk_strv_push(sv, g.gl_pathv[j]) < 0) {
				globfree(&g);
				return -ENOMEM;
			}
		globfree(&g);
	}
	return 0;
}

/* Where a command's output goes: the next command of its pipeline, or SIZE_MAX. */
static size_t pipe_next(const char *s, size_t len, const struct pdk_sh_script *sc, size_t i,
			size_t n)
{
	const struct pdk_sh_command *c = pdk_sh_command_at(sc, i);
	size_t pos = c->offset + c->length;

	if (!(c->context & PDK_SH_IN_PIPELINE))
		return SIZE_MAX;
	while (pos < len && (s[pos] == ' ' || s[pos] == '\t' ||
			     (s[pos] == '\\' && pos + 1 < len && s[pos + 1] == '\n')))
		pos += s[pos] == '\\' ? 2 : 1;
	if (pos >= len || s[pos] != '|' || (pos + 1 < len && s[pos + 1] == '|'))
		return SIZE_MAX;
	for (size_t j = i + 1; j < n; j++) {
		const struct pdk_sh_command *d = pdk_sh_command_at(sc, j);

		if (d->offset > pos && d->subst_depth == c->subst_depth)
			return j;
	}
	return SIZE_MAX;
}

/* NAME[SUBSCRIPT] at the start of s (a name given to a builtin, NAME[SUB]=V,
 * or [SUB]=V in the value of the array `array`): bash evaluates an indexed
 * array's subscript as arithmetic. Adds the subscript's names as uses. */
static int subscript_uses(struct ctx *x, const char *s, struct pdk_arith_where *at,
			  const char *array)
{
	const char *b = s, *e;
	_cleanup_free_ char *name = NULL, *sub = NULL;
	int r;

	while (*b == '_' || (*b >= 'a' && *b <= 'z') || (*b >= 'A' && *b <= 'Z') ||
	       (b > s && *b >= '0' && *b <= '9'))
		b++;
	if (*b != '[' || !(e = strchr(b, ']')))
		return 0;
	if (!(name = strndup(s, (size_t)(b - s))) || !(sub = strndup(b + 1, (size_t)(e - b - 1))))
		return -ENOMEM;
	at->array = b > s ? name : (char *)array;
	r = pdk_arith_uses(&x->arith, sub, at);
	at->array = NULL;
	return r < 0 ? -ENOMEM : 0;
}

/* NAME=([SUB]=V ...): each element's subscript is arithmetic too. */
static int element_uses(struct ctx *x, const char *t, struct pdk_arith_where *at)
{
	const char *v = strchr(t, '=');
	_cleanup_free_ char *arr = strndup(t, strcspn(t, "+=["));

	if (!arr)
		return -ENOMEM;
	for (const char *el = v && v[1] == '(' ? strchr(v, '[') : NULL; el;
	     el = strchr(el + 1, '['))
		if ((el[-1] == '(' || el[-1] == ' ') && subscript_uses(x, el, at, arr) < 0)
			return -ENOMEM;
	return 0;
}

/* The builtins that take a variable name, which may carry a subscript. */
static const char *namer(const char *prog)
{
	static const char *const namers[] = {"declare", "typeset", "local",   "readonly",
					     "export",  "unset",   "read",    "printf",
					     "test",    "[",	   "mapfile", "readarray", NULL};

	for (size_t i = 0; namers[i]; i++)
		if (!strcmp(prog, namers[i]))
			return namers[i];
	return NULL;
}

/* What a script command gives arithmetic: its assignments (NAME=VALUE before
 * it, or as words of declare and the like), the names let and declare -i
 * evaluate. */
static int arith_command(struct ctx *x, const struct pdk_sh_command *c, unsigned depth,
			 unsigned id)
{
	static const char *const declares[] = {"declare", "typeset", "local", "export",
					       "readonly", NULL};
	struct pdk_arith_where at = {.line = c->line, .column = c->column, .depth = depth,
				     .script_id = id};
	const char *prog = c->nwords && !(c->words[0].flags & NONLITERAL) ? c->words[0].text : "";
	bool integer = false, declare = pdk_policy_in_list(prog, declares);

	const char *nm = namer(prog);

	for (size_t j = 0; j < c->nassigns; j++) {
		const char *t = c->assigns[j].text;

		if (pdk_arith_assign(&x->arith, t, c->assigns[j].flags) < 0)
			return -ENOMEM;
		at.text = (char *)t;
		at.opener = "NAME[...]=";
		if (subscript_uses(x, t, &at, NULL) < 0 || element_uses(x, t, &at) < 0)
			return -ENOMEM;
	}
	/* the names a builtin takes: declare 'a[x]=1', unset 'a[x]', printf -v 'a[x]' */
	for (size_t j = 1; nm && j < c->nwords; j++) {
		const char *t = c->words[j].text;
		bool takes = (nm[0] == 'p' || nm[0] == 't' || nm[0] == '[')
				 ? !strcmp(c->words[j - 1].text, "-v")
				 : t[0] != '-' && t[0] != '+';

		at.text = c->text;
		at.opener = nm;
		if (takes && subscript_uses(x, t, &at, NULL) < 0)
			return -ENOMEM;
		/* declare -a b=([SUB]=V ...) */
		if (declare && takes && element_uses(x, t, &at) < 0)
			return -ENOMEM;
	}
	if (c->nwords && *prog) {
		_cleanup_free_ const char **w = calloc(c->nwords, sizeof(*w));
		_cleanup_free_ unsigned *f = calloc(c->nwords, sizeof(*f));

		if (!w || !f)
			return -ENOMEM;
		for (size_t j = 0; j < c->nwords; j++) {
			w[j] = c->words[j].text;
			f[j] = c->words[j].flags;
		}
		if (pdk_arith_builtin(&x->arith, w, f, c->nwords) < 0)
			return -ENOMEM;
	}
	for (size_t j = 1; j < c->nwords; j++) {
		const struct pdk_sh_word *wd = &c->words[j];

		if (declare && wd->text[0] == '-' && strchr(wd->text, 'i'))
			integer = true;
		if (declare && strchr(wd->text, '=') &&
		    pdk_arith_assign(&x->arith, wd->text, wd->flags) < 0)
			return -ENOMEM;
	}
	for (size_t j = 1; j < c->nwords; j++) {
		const struct pdk_sh_word *wd = &c->words[j];

		at.text = c->text;
		if (!strcmp(prog, "let"))
			at.opener = "let";
		else if (integer && wd->text[0] != '-')
			at.opener = "declare -i";
		else
			continue;
		/* declare -i x=VALUE evaluates VALUE, and what x holds later */
		if (pdk_arith_uses(&x->arith, wd->text, &at) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The script's arithmetic texts and loop values. */
static int arith_script(struct ctx *x, const struct pdk_sh_script *sc, unsigned depth,
			unsigned id)
{
	for (size_t i = 0; i < pdk_sh_narith(sc); i++) {
		const char *t = pdk_sh_arith_at(sc, i);
		const struct pdk_sh_arith_src *src = pdk_sh_arith_src_at(sc, i);
		struct pdk_arith_where at = {
		    .text = (char *)(src->where ? src->where : t),
		    .opener = src->where ? (src->where[0] == '$' ? "${" : "[[ -v")
			      : !strncmp(t, "$((", 3) ? "$(("
			      : !strncmp(t, "$[", 2)  ? "$["
			      : !strncmp(t, "((", 2)  ? "(("
						      : "[[",
		    .array = (char *)src->array,
		    .depth = depth,
		    .script_id = id,
		};

		if (src->code) {
			/* [[ -v 'a[$(cmd)]' ]]: no command to the parser, code to bash */
			struct origin o = {.text = at.text, .depth = depth, .script = true,
					   .script_id = id};
			struct pdk_pword w = {"[[", 0};
			struct pdk_pcmd *c;

			if (emit(x, &o, &w, 1, 0) < 0)
				return -ENOMEM;
			c = &x->out->v[x->out->n - 1];
			c->code_rule = strdup("[[ -v with a subscript holding code");
			c->code_why = pdk_asprintf(
			    "bash evaluates the subscript in `%.200s` and runs the $(...), ${...} "
			    "or `...` it holds",
			    at.text);
			if (!c->code_rule || !c->code_why)
				return -ENOMEM;
			continue;
		}
		if (pdk_arith_uses(&x->arith, t, &at) < 0)
			return -ENOMEM;
	}
	for (size_t i = 0; i < pdk_sh_nloopvals(sc); i++) {
		const struct pdk_sh_word *w = pdk_sh_loopval_at(sc, i);

		if (pdk_arith_assign(&x->arith, w->text, w->flags) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* A step for each name arithmetic reads that may hold code. */
static int arith_steps(struct ctx *x)
{
	const struct pdk_arith_var *v;

	for (size_t i = 0; (i = pdk_arith_next(&x->arith, i, &v)) != SIZE_MAX; i++) {
		/* pdk_arith_next returns only an index of uses, which then exist */
		PDK_ANALYZER_ASSUME(x->arith.uses != NULL);
		const struct pdk_arith_use *u = &x->arith.uses[i];
		struct origin o = {.text = u->at.text, .line = u->at.line, .column = u->at.column,
				   .depth = u->at.depth, .script = true,
				   .script_id = u->at.script_id};
		struct pdk_pword w = {u->at.opener, 0};
		struct pdk_pcmd *c;

		if (emit(x, &o, &w, 1, 0) < 0)
			return -ENOMEM;
		c = &x->out->v[x->out->n - 1];
		if (v->unknown) {
			c->code_rule = pdk_asprintf(
			    "arithmetic on %s (its value is known only when it runs)", u->name);
			c->code_why = pdk_asprintf(
			    "bash evaluates the value of %s as an expression, and the script sets "
			    "it from `%.100s`, which may hold anything: an array subscript there "
			    "runs what it holds",
			    u->name, v->value);
		} else {
			c->code_rule = pdk_asprintf("arithmetic on %s", u->name);
			c->code_why = pdk_asprintf(
			    "bash evaluates the value of %s as an expression, and the script gives "
			    "it `%.100s`, not a number: an array subscript there runs what it holds",
			    u->name, v->value);
		}
		if (!c->code_rule || !c->code_why)
			return -ENOMEM;
	}
	return 0;
}

static int parse_script(struct ctx *x, const char *script, size_t len, unsigned depth,
			const struct origin *outer)
{
	struct pdk_sh_script *sc = NULL;
	struct pdk_error err = {0};
	_cleanup_free_ size_t *next = NULL, *first = NULL, *end = NULL;
	_cleanup_free_ bool *piped = NULL;
	unsigned id = x->next_script_id++;
	size_t n;
	int r;

	r = pdk_sh_parse(script, len, &sc, &err);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		if (outer && outer->script)
			return refuse(x, outer, NULL, "sh-parse",
				      "cannot parse the nested sh -c script (at %d:%d of the outer "
				      "script) at %d:%d: %s: fix the script and try again",
				      outer->line, outer->column, err.line, err.column,
				      err.message);
		return refuse(x, outer, NULL, "sh-parse",
			      "cannot parse the sh -c script at %d:%d: %s: fix the script "
			      "(quotes, here-document ends) and try again",
			      err.line, err.column, err.message);
	}
	size_t vlen;
	const char *var = loop_steering(script, len, &vlen);
	if (var) {
		pdk_sh_script_free(sc);
		return refuse(x, outer, NULL, "env-steering",
			      "a loop over `%.*s` changes what a bare name runs, past paddock's "
			      "check: name the loop variable something else",
			      (int)vlen, var);
	}
	n = pdk_sh_ncommands(sc);
	next = malloc((n + 1) * sizeof(*next));
	first = malloc((n + 1) * sizeof(*first));
	end = malloc((n + 1) * sizeof(*end));
	piped = calloc(n + 1, sizeof(*piped));
	if (!next || !first || !end || !piped) {
		pdk_sh_script_free(sc);
		return -ENOMEM;
	}
	if (x->out->cap < x->out->n + n) {
		/* room for the usual one program per command, in one step */
		struct pdk_pcmd *v = realloc(x->out->v, (x->out->n + n) * sizeof(*v));

		if (v) {
			x->out->v = v;
			x->out->cap = x->out->n + n;
		}
	}
	for (size_t i = 0; i < n; i++) {
		next[i] = pipe_next(script, len, sc, i, n);
		if (next[i] != SIZE_MAX)
			piped[next[i]] = true;
	}
	for (size_t i = 0; i < n; i++) {
		const struct pdk_sh_command *c = pdk_sh_command_at(sc, i);
		struct pdk_strv globs = {0};
		_cleanup_free_ struct pdk_pword *heap = NULL;
		struct pdk_pword stack[16], *w = stack;
		struct origin o = {
		    .text = c->text,
		    .line = c->line,
		    .column = c->column,
		    .depth = depth,
		    .script = true,
		    .context = c->context | (outer ? outer->context : 0),
		    .flags = outer ? outer->flags & (PDK_PCMD_TAINTED | PDK_PCMD_IN_FUNCTION) : 0,
		    .piped_in = piped[i],
		    .script_id = id,
		};

		if (c->context & PDK_SH_IN_FUNCTION)
			o.flags |= PDK_PCMD_IN_FUNCTION;
		first[i] = end[i] = x->out->n;
		if ((r = arith_command(x, c, depth, id)) < 0) {
			pdk_sh_script_free(sc);
			return r;
		}
		for (size_t j = 0; j < c->nassigns && r >= 0; j++) {
			const char *a = c->assigns[j].text;

			/* PATH=... alone changes it for what follows; before a
			 * command, for that command */
			if (sets_path(a) && c->nwords)
				o.flags |= PDK_PCMD_TAINTED;
			else if (sets_path(a))
				r = taint(x, &o);
			else if (pdk_policy_steering_assignment(a))
				r = refuse_steering(x, &o, a);
		}
		if (r < 0 || x->out->n > first[i]) {
			end[i] = x->out->n;
			if (r < 0) {
				pdk_sh_script_free(sc);
				return r;
			}
			continue;
		}
		if (!c->nwords)
			continue;
		if (c->nwords > PDK_ARRAY_SIZE(stack)) {
			heap = malloc(c->nwords * sizeof(*w));
			w = heap;
		}
		if (!w || scan_redirs(c, &o) < 0 || glob_words(c, x->call->cwd, &globs) < 0) {
			free(o.paths);
			pdk_strv_release(&globs);
			pdk_sh_script_free(sc);
			return -ENOMEM;
		}
		for (size_t j = 0; j < c->nwords; j++)
			w[j] = (struct pdk_pword){c->words[j].text, c->words[j].flags};
		if (globs.n) {
			char **p = realloc(o.paths, (o.npaths + globs.n + 1) * sizeof(*p));

			if (!p) {
				r = -ENOMEM;
			} else {
				o.paths = p;
				for (size_t j = 0; j < globs.n; j++)
					o.paths[o.npaths++] = globs.v[j];
			}
		}
		if (r >= 0)
			r = judge(x, &o, w, c->nwords);
		free(o.paths);
		pdk_strv_release(&globs);
		if (r < 0) {
			pdk_sh_script_free(sc);
			return r;
		}
		end[i] = x->out->n;
	}
	if ((r = arith_script(x, sc, depth, id)) < 0) {
		pdk_sh_script_free(sc);
		return r;
	}
	/* A downloader whose output reaches a shell or an interpreter. */
	for (size_t i = 0; i < n; i++) {
		size_t hops = 0;

		if (first[i] == end[i] || !pdk_policy_is_downloader(x->out->v[first[i]].program))
			continue;
		for (size_t j = next[i]; j != SIZE_MAX && hops++ < n; j = next[j])
			for (size_t k = first[j]; k < end[j]; k++)
				if (x->out->v[k].script_id == id &&
				    pdk_policy_is_interpreter(x->out->v[k].program))
					x->out->v[k].flags |= PDK_PCMD_FED_BY_DOWNLOADER;
	}
	pdk_sh_script_free(sc);
	return 0;
}

int pdk_policy_collect(const struct pdk_policy_call *call, struct pdk_pcmd_list *out,
		       bool *ret_shell)
{
	struct ctx x = {.call = call, .out = out, .taint_at = SIZE_MAX};
	_cleanup_free_ struct pdk_pword *w = NULL;
	_cleanup_free_ char *text = NULL;
	size_t argc = 0, len = 0;
	struct origin o = {0};
	int r;

	*ret_shell = false;
	while (call->argv && call->argv[argc])
		len += strlen(call->argv[argc++]) + 1;
	if (!(text = malloc(len + 1)) || !(w = calloc(argc + 1, sizeof(*w))))
		return -ENOMEM;
	text[0] = '\0';
	for (size_t i = 0, o2 = 0; i < argc; i++) {
		size_t l = strlen(call->argv[i]);

		if (i)
			text[o2++] = ' ';
		memcpy(text + o2, call->argv[i], l + 1);
		o2 += l;
		w[i] = (struct pdk_pword){call->argv[i], 0};
	}
	o.text = text;
	if (!argc)
		return refuse(&x, &o, NULL, "empty",
			      "the command is empty: pass the program and its arguments as argv");
	if (pdk_policy_is_shell(pdk_policy_base_name(call->argv[0]))) {
		for (size_t i = 1; i < argc && call->argv[i][0] == '-'; i++)
			if (call->argv[i][1] != '-' && strchr(call->argv[i], 'c'))
				*ret_shell = true;
	}
	if (!*ret_shell) {
		_cleanup_free_ char *msg = NULL;
		const char *rule = NULL;

		r = pdk_policy_argv_first(call->argv, argc, call->cwd, &msg, &rule);
		if (r < 0)
			return r;
		if (r > 0)
			return refuse(&x, &o, NULL, rule, "%s", msg);
	}
	r = judge(&x, &o, w, argc);
	if (r >= 0)
		r = arith_steps(&x);
	pdk_arith_release(&x.arith);
	if (r < 0)
		return r;
	for (size_t i = 0; out->taint && i < out->n; i++)
		if (x.taint_all || i >= x.taint_at || (out->v[i].flags & PDK_PCMD_IN_FUNCTION))
			out->v[i].flags |= PDK_PCMD_TAINTED;
	return 0;
}

void pdk_pcmd_list_release(struct pdk_pcmd_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct pdk_pcmd *c = &l->v[i];

		free(c->argv); /* program lies inside it */
		for (size_t j = 0; j < c->npaths; j++)
			free(c->paths[j]);
		free(c->paths);
		free(c->text);
		free(c->refuse);
		free(c->refuse_rule);
		free(c->code_rule);
		free(c->code_why);
	}
	free(l->v);
	free(l->taint);
	l->v = NULL;
	l->taint = NULL;
	l->n = l->cap = 0;
}
