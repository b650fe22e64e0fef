/* policy.c - the decision before anything runs: each program the call would
 * run passes deny, sudo, watcher, read-only and risk rules; the call raises. */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "core/fmt.h"
#include "core/path.h"
#include "policy_int.h"

/* prefix + s, for the rule name every step gets: a format costs several
 * times as much, which a 1,000-command script feels. */
static char *cat2(const char *prefix, const char *s)
{
	size_t a = strlen(prefix), b = strlen(s);
	char *r = malloc(a + b + 1);

	if (r) {
		memcpy(r, prefix, a);
		memcpy(r + a, s, b + 1);
	}
	return r;
}

/* The program's words joined, the program by its bare name: what rules match. */
static char *plain_text(const struct pdk_pcmd *c)
{
	size_t len = strlen(c->program) + 1;
	char *s, *o;

	for (size_t i = 1; i < c->argc; i++)
		len += strlen(c->argv[i]) + 1;
	if (!(o = s = malloc(len)))
		return NULL;
	o = stpcpy(o, c->program);
	for (size_t i = 1; i < c->argc; i++) {
		*o++ = ' ';
		o = stpcpy(o, c->argv[i]);
	}
	return s;
}

static const struct pdk_pattern *match_any(const struct pdk_pattern *p, size_t n, const char *t1,
					   const char *t2)
{
	for (size_t i = 0; i < n; i++)
		if (pdk_pattern_match(&p[i], t1, strlen(t1)) ||
		    (t2 && pdk_pattern_match(&p[i], t2, strlen(t2))))
			return &p[i];
	return NULL;
}

/* "prog", "prog w1", "prog w1 w2": the longest that is listed. */
static bool listed_prefix(const struct pdk_pcmd *c, size_t min_k, size_t max_k,
			  bool (*found)(const char *, const void *), const void *ctx, char *ret,
			  size_t size)
{
	for (size_t k = c->argc < max_k ? c->argc : max_k; k >= min_k && k >= 1; k--) {
		size_t o = 0;
		bool fits = true;

		for (size_t i = 0; i < k && fits; i++) {
			const char *w = i ? c->argv[i] : c->program;
			size_t l = strlen(w);

			if (o + l + 2 > size) {
				fits = false;
				break;
			}
			if (i)
				ret[o++] = ' ';
			memcpy(ret + o, w, l);
			o += l;
		}
		if (!fits)
			continue;
		ret[o] = '\0';
		if (found(ret, ctx))
			return true;
	}
	return false;
}

static bool in_strv(const char *key, const void *ctx)
{
	const struct pdk_strv *sv = ctx;

	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], key))
			return true;
	return false;
}

static bool in_shipped(const char *key, const void *ctx)
{
	return pdk_policy_read_only_lookup(key);
}

struct judge_ctx {
	const struct pdk_config *cfg;
	const struct pdk_policy_call *call;
	void *md;
	const struct pdk_shipped_rule *rules;
	size_t n_rules;
	bool cwd_plain;
	const char *taint; /* what changed PATH or sourced a file, or NULL */
	/* sensitivePaths less those that hold HOME, cwd or a root: a secret
	 * holder, never the place the project lives */
	struct pdk_strv sensitive;
};
/* Is the argument a path: it contains a slash, or names a file here? */
static bool is_path_arg(const struct pdk_policy_call *call, const char *a)
{
	char buf[4096];
	struct stat st;

	if (strchr(a, '/'))
		return true;
	if (!call->cwd || snprintf(buf, sizeof(buf), "%s/%s", call->cwd, a) >= (int)sizeof(buf))
		return false;
	return lstat(buf, &st) == 0;
}

/* The first sensitive path among the arguments and redirect targets. */
static const char *sensitive_arg(const struct judge_ctx *j, const struct pdk_pcmd *c,
				 const char **ret_arg)
{
	const struct pdk_policy_call *call = j->call;
	bool cwd_plain = j->cwd_plain;
	char buf[4096], tilde[4096];

	for (size_t i = 0; i < c->argc + c->npaths; i++) {
		const char *a = i < c->argc ? c->argv[i] : c->paths[i - c->argc], *r;

		if (i == 0)
			continue;
		if (i < c->argc && a[0] == '-') {
			if (!(a = strchr(a, '=')))
				continue;
			a++;
		}
		if (!strncmp(a, "$HOME/", 6) || !strncmp(a, "${HOME}/", 8)) {
			snprintf(tilde, sizeof(tilde), "~/%s", strchr(a, '/') + 1);
			a = tilde;
		}
		/* Only known when it runs: its literal components still tell
		 * (`$h/.ssh/id_rsa`), by name. */
		if (strchr(a, '$')) {
			char lit[4096];
			size_t k = 0;

			for (const char *p = a; *p && k + 1 < sizeof(lit);) {
				size_t l = strcspn(p, "/");
				if (!memchr(p, '$', l) && k + l + 1 < sizeof(lit)) {
					memcpy(lit + k, p, l);
					k += l;
					lit[k++] = '/';
				}
				p += l;
				while (*p == '/')
					p++;
			}
			lit[k] = '\0';
			if ((r = pdk_policy_sensitive_name(lit))) {
				*ret_arg = i < c->argc ? c->argv[i] : c->paths[i - c->argc];
				return r;
			}
			continue;
		}
		/* a word that is no path is not read as one (`git status`) */
		if (i < c->argc && a[0] != '~' && !is_path_arg(call, a))
			continue;
		if (cwd_plain && a[0] != '/' && a[0] != '~' && !strstr(a, "..")) {
			r = pdk_policy_sensitive_name(a);
		} else {
			if (!pdk_policy_abs_path(a, call->cwd, call->home, buf, sizeof(buf)))
				continue;
			r = pdk_policy_sensitive(buf, call->home, &j->sensitive);
		}
		if (r) {
			*ret_arg = i < c->argc ? c->argv[i] : c->paths[i - c->argc];
			return r;
		}
	}
	return NULL;
}

/* The class a rule gave the step, with the rule's name and why (taken over). */
static void set_risk(struct pdk_policy_step *st, enum pdk_risk risk, char *rule, char *why)
{
	free(st->rule);
	free(st->why);
	st->risk = risk;
	st->rule = rule;
	st->why = why;
}

/* Does s hold an array subscript whose text bash would run: a '[' followed
 * by $( ${ or a backquote before its ']'? Quoted, the parser saw a literal;
 * bash evaluates the subscript when it takes the word as a variable name. */
static bool code_subscript(const char *s)
{
	for (const char *b = strchr(s, '['); b; b = strchr(b + 1, '[')) {
		const char *e = strrchr(b, ']');

		for (const char *p = b + 1; p < (e ? e : b + strlen(b)); p++)
			if (*p == '`' || (*p == '$' && (p[1] == '(' || p[1] == '{')))
				return true;
	}
	return false;
}

/*
 * Constructs that make bash run text the parser took as data: the construct
 * named, or NULL. Variable names with a code subscript given to the builtins
 * that take names (declare 'a[$(rm -rf x)]=1', printf -v, read, unset,
 * test -v, let), the callbacks of compgen, complete and mapfile (-C, -F),
 * and ${x@P}, which expands a value as a prompt, command substitutions and all.
 */
static const char *code_in_data(const struct pdk_pcmd *c, const char *text)
{
	static const char *const namers[] = {
	    "declare", "typeset", "local", "readonly", "export", "unset", "read", "printf",
	    "test",    "[",	  "let",   "mapfile",  "readarray", NULL,
	};
	const char *prog = c->program;

	if (text && strstr(text, "@P}"))
		return "${NAME@P} (expands a value as a prompt, running what it holds)";
	if (!strcmp(prog, "compgen") || !strcmp(prog, "complete") || !strcmp(prog, "mapfile") ||
	    !strcmp(prog, "readarray"))
		for (size_t i = 1; i < c->argc; i++)
			if (!strncmp(c->argv[i], "-C", 2) || !strncmp(c->argv[i], "-F", 2) ||
			    (c->argv[i][0] == '-' && c->argv[i][1] != '-' &&
			     strpbrk(c->argv[i] + 1, "CF")))
				return "a callback given with -C or -F, which bash runs as code";
	if (!pdk_policy_in_list(prog, namers))
		return NULL;
	for (size_t i = 1; i < c->argc; i++)
		if (code_subscript(c->argv[i]))
			return "an array subscript holding $(...), ${...} or `...` in a variable "
			       "name, which bash runs when it evaluates the subscript";
	return NULL;
}

/* The shipped rules of the program that this call is the dry-run form of
 * (bit i: rule i), and whether every such dry run only reads. */
static unsigned long long dry_runs(const struct judge_ctx *j, const struct pdk_prog_class *cls,
				   const struct pdk_pcmd *c, bool *ret_reads_only)
{
	unsigned long long mask = 0;

	*ret_reads_only = true;
	for (size_t i = 0; cls && i < j->n_rules; i++) {
		bool ro = false;

		if ((cls->rules & (1ull << i)) &&
		    pdk_policy_dry_run(j->rules[i].name, c->argv, c->argc, &ro)) {
			mask |= 1ull << i;
			*ret_reads_only &= ro;
		}
	}
	return mask;
}

/* One program being judged: what judge_step's steps share. */
struct step {
	const struct judge_ctx *j;
	const struct pdk_config *cfg;
	struct pdk_pcmd *c;
	struct pdk_policy_step *st;
	char **ret_msg;
	const struct pdk_prog_class *cls;
	unsigned kind;		/* cls's PDK_PK_*, less what a project program hides */
	char *plain;		/* owned: the words joined, when a rule needs them */
	const char *sens, *sens_arg; /* a sensitive path among the arguments */
	const char *code;	/* code hidden in data, by the builtin's arguments */
	const char *cancel;	/* why a listed command is not read-only here */
	unsigned long long dry; /* shipped rules this is the dry-run form of */
	bool dry_ro;
	char key[512], cancel_buf[300], wide_buf[400];
};

/* What a step says: go on, the program is refused (*ret_msg and the rule are
 * set), or it is decided. */
enum { STEP_NEXT, STEP_REFUSED, STEP_DONE };

/* The step's fields from the collected command, and its kind. */
static int step_start(struct step *s)
{
	struct pdk_pcmd *c = s->c;
	struct pdk_policy_step *st = s->st;
	const struct pdk_config *cfg = s->cfg;

	st->text = steal_pointer(&c->text);
	st->program = c->program;
	st->argv = c->argv;
	st->line = c->line;
	st->column = c->column;
	st->depth = c->depth;
	st->risk = PDK_RISK_SAFE;
	st->path_changed = c->flags & PDK_PCMD_TAINTED;
	if (c->refuse) {
		/* the collector refused it already */
		*s->ret_msg = steal_pointer(&c->refuse);
		st->rule = steal_pointer(&c->refuse_rule);
		return STEP_REFUSED;
	}
	s->cls = pdk_policy_classify(st->program);
	s->kind = s->cls ? s->cls->kind : 0;
	if (!(c->flags & PDK_PCMD_PROJECT))
		s->dry = dry_runs(s->j, s->cls, c, &s->dry_ro);
	/* A program of the project is not the one its name is known for:
	 * only deny, privilege and watcher rules see its name. */
	if (c->flags & PDK_PCMD_PROJECT)
		s->kind &= PDK_PK_DENIED | PDK_PK_PRIVILEGE | PDK_PK_WATCHER;
	if ((cfg->n_deny || cfg->n_allow || cfg->n_risk_rules || (s->cls && s->cls->rules)) &&
	    !(s->plain = plain_text(c)))
		return -ENOMEM;
	return STEP_NEXT;
}

/* 1. denied_command (built-in or configured) and deny patterns */
static int step_denied(struct step *s)
{
	const struct pdk_config *cfg = s->cfg;
	struct pdk_policy_step *st = s->st;
	const struct pdk_pattern *p;

	if ((s->kind & PDK_PK_DENIED) ||
	    (cfg->denied_command.n &&
	     listed_prefix(s->c, 1, 3, in_strv, &cfg->denied_command, s->key, sizeof(s->key)))) {
		bool builtin = s->kind & PDK_PK_DENIED;

		*s->ret_msg = pdk_asprintf(
		    "command denied by policy: `%.300s` runs %s, which is on denied_command "
		    "(%s): do this another way, or ask the person to change the "
		    "configuration",
		    st->text, builtin ? st->program : s->key, builtin ? "built-in" : "configuration");
		st->rule = pdk_asprintf("denied_command: %s", builtin ? st->program : s->key);
		return STEP_REFUSED;
	}
	if (cfg->n_deny && (p = match_any(cfg->deny, cfg->n_deny, st->text, s->plain))) {
		*s->ret_msg = pdk_asprintf(
		    "command denied by policy: `%.300s` matches %s (%s): do this another "
		    "way, or ask the person to change commandPolicy.deny",
		    st->text, p->source, p->where);
		st->rule = pdk_asprintf("deny: %s", p->source);
		return STEP_REFUSED;
	}
	return STEP_NEXT;
}

/* 2. privileges, and a shell fed its commands through a pipe */
static int step_privilege(struct step *s)
{
	struct pdk_policy_step *st = s->st;

	if (s->kind & PDK_PK_PRIVILEGE) {
		*s->ret_msg = pdk_asprintf(
		    "command denied by policy: `%.300s` uses %s, which cannot gain "
		    "privileges here: drop %s and ask for the paths it must write with "
		    "--write PATH instead (a person confirms those)",
		    st->text, st->program, st->program);
		st->rule = pdk_asprintf("privilege: %s", st->program);
		return STEP_REFUSED;
	}
	if ((s->c->flags & PDK_PCMD_STDIN_SCRIPT) && !(s->c->flags & PDK_PCMD_FED_BY_DOWNLOADER)) {
		*s->ret_msg =
		    pdk_asprintf("`%.300s` reads its commands from a pipe or here-document, which "
				 "paddock cannot check: pass them as %s -c 'SCRIPT' or write them "
				 "into the script itself",
				 st->text, st->program);
		st->rule = strdup("sh-stdin");
		return STEP_REFUSED;
	}
	return STEP_NEXT;
}

/* 3. watchers */
static int step_watcher(struct step *s)
{
	const struct pdk_pcmd *c = s->c;
	char *msg = NULL, *rule = NULL;
	int r;

	for (size_t i = 1; i < c->argc && !(s->kind & PDK_PK_WATCHER); i++)
		if (!strncmp(c->argv[i], "--watch", 7))
			s->kind |= PDK_PK_WATCHER;
	if (!(s->kind & PDK_PK_WATCHER))
		return STEP_NEXT;
	r = pdk_watch_check(s->st->argv, c->argc, s->j->call->cwd, &msg, &rule);
	if (r <= 0)
		return r < 0 ? r : STEP_NEXT;
	*s->ret_msg = msg;
	s->st->rule = rule;
	return STEP_REFUSED;
}

/* Why a command on the read-only list is, or is not, read-only here. */
static const char *ro_note(const struct step *s, const char *listed)
{
	const struct pdk_pcmd *c = s->c;

	if (s->st->read_only)
		return listed;
	if (s->cancel)
		return "on the read-only list, but an option or prefix here executes, "
		       "writes or reads configuration";
	if (c->flags & PDK_PCMD_WRITES)
		return "on the read-only list, but it writes a file here";
	if (c->flags & PDK_PCMD_COMPUTED)
		return "on the read-only list, but a word of it is known only when it runs";
	if (!s->sens)
		return "on the read-only list, but an option here writes a file";
	return NULL; /* the sensitive path says why */
}

/* 4. read-only: an allow rule, the shipped or configured list, or a dry run;
 * then code hidden in data, which no list makes read-only */
static int step_read_only(struct step *s)
{
	const struct pdk_config *cfg = s->cfg;
	const struct pdk_pcmd *c = s->c;
	struct pdk_policy_step *st = s->st;
	const struct pdk_pattern *p;
	unsigned kind = s->kind;

	s->sens = sensitive_arg(s->j, c, &s->sens_arg);
	if (c->flags & (PDK_PCMD_PROJECT | PDK_PCMD_TAINTED)) {
		/* never read-only by its name alone: an allow rule may name the path */
		if (!(c->flags & PDK_PCMD_TAINTED) && cfg->n_allow &&
		    (p = match_any(cfg->allow, cfg->n_allow, st->text, NULL))) {
			st->read_only = !s->sens;
			st->rule = cat2("allow: ", p->source);
			st->note = "an allow rule of the configuration names it";
		}
	} else if (cfg->n_allow && (p = match_any(cfg->allow, cfg->n_allow, st->text, s->plain))) {
		st->read_only = !s->sens;
		st->rule = cat2("allow: ", p->source);
		st->note = "an allow rule of the configuration names it";
	} else if (((kind & PDK_PK_RO_TRIPLE) && c->argc > 2 &&
		    listed_prefix(c, 3, 3, in_shipped, NULL, s->key, sizeof(s->key))) ||
		   ((kind & PDK_PK_RO_MULTI) && c->argc > 1 &&
		    listed_prefix(c, 2, 2, in_shipped, NULL, s->key, sizeof(s->key))) ||
		   ((kind & PDK_PK_RO_SINGLE) &&
		    listed_prefix(c, 1, 1, in_shipped, NULL, s->key, sizeof(s->key))) ||
		   (cfg->read_only_command.n && listed_prefix(c, 1, 3, in_strv,
							      &cfg->read_only_command, s->key,
							      sizeof(s->key)))) {
		s->cancel = pdk_policy_ro_cancelled(s->key, st->argv, c->argc, st->text,
						    s->cancel_buf, sizeof(s->cancel_buf));
		st->read_only = !s->sens && !(c->flags & (PDK_PCMD_WRITES | PDK_PCMD_COMPUTED)) &&
				!pdk_policy_writes_by_options(s->key, st->argv, c->argc) &&
				!s->cancel;
		if (st->read_only)
			st->rule = cat2("read_only_command: ", s->key);
		st->note = ro_note(s, "on the read-only list");
	} else if (s->dry && s->dry_ro && !(c->flags & PDK_PCMD_TAINTED)) {
		/* the dry run of a risky command is judged like the read-only list's entries */
		s->cancel = pdk_policy_ro_cancelled(st->program, st->argv, c->argc, st->text,
						    s->cancel_buf, sizeof(s->cancel_buf));
		st->read_only =
		    !s->sens && !(c->flags & (PDK_PCMD_WRITES | PDK_PCMD_COMPUTED)) && !s->cancel;
		if (st->read_only)
			st->rule = cat2("dry-run: ", st->text);
		st->note = ro_note(s, "a dry run, judged like the read-only list");
	}
	if (c->code_rule || (s->code = code_in_data(c, st->text))) {
		/* never read-only, and at least moderate, saying why (below) */
		st->read_only = false;
	}
	if (st->read_only)
		return st->rule ? STEP_DONE : -ENOMEM;
	free(st->rule);
	st->rule = NULL;
	return STEP_NEXT;
}

/* 5. risk: the highest class of every rule that matches, configured ones first */
static int step_risk_rules(struct step *s)
{
	const struct pdk_config *cfg = s->cfg;
	const struct judge_ctx *j = s->j;
	struct pdk_policy_step *st = s->st;
	/* plain is made only when some rule needs it */
	size_t tlen = strlen(st->text), plen = s->plain ? strlen(s->plain) : 0;

	for (size_t i = 0; i < cfg->n_risk_rules; i++) {
		const struct pdk_risk_rule *rr = &cfg->risk_rules[i];

		if ((rr->risk > st->risk || !st->rule) &&
		    (pdk_pattern_match(&rr->match, st->text, tlen) ||
		     pdk_pattern_match(&rr->match, s->plain, plen)))
			set_risk(st, rr->risk, cat2("risk: ", rr->name),
				 rr->why ? strdup(rr->why) : NULL);
	}
	for (size_t i = 0; s->cls && i < j->n_rules; i++) {
		const struct pdk_shipped_rule *sr = &j->rules[i];

		if (!(s->cls->rules & (1ull << i)) || (s->dry & (1ull << i)) ||
		    (st->rule && sr->risk <= st->risk))
			continue;
		if (pdk_policy_shipped_match(i, s->plain, plen, j->md))
			set_risk(st, sr->risk, cat2("risk: ", sr->name), strdup(sr->why));
	}
	/* A recursive rm goes to the trash: moderate, unless what it takes is too
	 * big to leave to the trash (/, HOME, a whole root, outside the roots). */
	if (st->rule && !strcmp(st->rule, "risk: rm-recursive") && st->risk < PDK_RISK_DANGEROUS &&
	    pdk_policy_rm_wide(j->call, st->argv, s->c->argc, s->wide_buf, sizeof(s->wide_buf)))
		set_risk(st, PDK_RISK_DANGEROUS, strdup("risk: rm-recursive-wide"),
			 strdup(s->wide_buf));
	return STEP_NEXT;
}

/* 6. what raises a program whatever the rules said: a download piped into
 * it, code hidden in data, a sensitive path, an rm after PATH changed */
static int step_raises(struct step *s)
{
	struct pdk_pcmd *c = s->c;
	struct pdk_policy_step *st = s->st;
	const char *taint = s->j->taint;

	if ((c->flags & PDK_PCMD_FED_BY_DOWNLOADER) && st->risk < PDK_RISK_DANGEROUS)
		set_risk(st, PDK_RISK_DANGEROUS, strdup("risk: download-to-shell"),
			 strdup("runs a script fetched from the network, unread"));
	if (c->code_rule && st->risk < PDK_RISK_MODERATE)
		set_risk(st, PDK_RISK_MODERATE, cat2("code-in-data: ", c->code_rule),
			 steal_pointer(&c->code_why));
	else if (s->code && st->risk < PDK_RISK_MODERATE)
		set_risk(st, PDK_RISK_MODERATE, pdk_asprintf("code-in-data: %s", st->program),
			 pdk_asprintf("bash runs text hidden in data here: %s", s->code));
	if (s->sens && st->risk < PDK_RISK_MODERATE)
		set_risk(st, PDK_RISK_MODERATE, pdk_asprintf("sensitive-path: %s", s->sens),
			 pdk_asprintf("touches %s, a sensitive path", s->sens_arg));
	/* After PATH changed, rm may no longer be the one that moves to the trash. */
	if ((c->flags & PDK_PCMD_TAINTED) && !(c->flags & PDK_PCMD_PROJECT) &&
	    !strcmp(st->program, "rm") && st->risk < PDK_RISK_MODERATE)
		set_risk(st, PDK_RISK_MODERATE, strdup("risk: rm-after-path-change"),
			 taint ? pdk_asprintf("runs after `%.200s`, so rm may not move files "
					      "to the trash",
					      taint)
			       : strdup("runs with a PATH of its own, so rm may not move files "
					"to the trash"));
	return STEP_NEXT;
}

/* 7. the rule's name when no rule matched */
static int step_default_rule(struct step *s)
{
	const struct pdk_pcmd *c = s->c;
	struct pdk_policy_step *st = s->st;
	const char *taint = s->j->taint;

	if (!st->rule && s->cancel)
		st->rule = pdk_asprintf("not read-only: %s", s->cancel);
	if (!st->rule && (c->flags & PDK_PCMD_PROJECT))
		st->rule = pdk_asprintf("project-program: %.300s", st->argv[0]);
	else if (!st->rule && (c->flags & PDK_PCMD_TAINTED))
		st->rule = taint ? pdk_asprintf("project-program: %s (runs after `%.200s`)",
						st->program, taint)
				 : pdk_asprintf("project-program: %s (with a PATH of its own)",
						st->program);
	if (!st->rule)
		st->rule = strdup("default");
	if (!st->note)
		st->note = (c->flags & PDK_PCMD_PROJECT)
				   ? "the project's own program, whose name says nothing of what "
				     "it does"
			   : (c->flags & PDK_PCMD_TAINTED)
				   ? "found after PATH changed or a file was sourced, so its name "
				     "says nothing of what it does"
				   : "not on the read-only list";
	return st->rule ? STEP_DONE : -ENOMEM;
}

/* One program: fills st; returns 1 with *ret_msg when it is refused. The
 * steps run in order until one refuses or decides. */
static int judge_step(const struct judge_ctx *j, struct pdk_pcmd *c, struct pdk_policy_step *st,
		      char **ret_msg)
{
	static int (*const steps[])(struct step *) = {
	    step_start,	     step_denied,     step_privilege, step_watcher,
	    step_read_only,  step_risk_rules, step_raises,    step_default_rule,
	};
	struct step s = {.j = j, .cfg = j->cfg, .c = c, .st = st, .ret_msg = ret_msg};
	int r = STEP_NEXT;

	for (size_t i = 0; i < PDK_ARRAY_SIZE(steps) && r == STEP_NEXT; i++)
		r = steps[i](&s);
	free(s.plain);
	if (r == STEP_REFUSED && (!*ret_msg || !st->rule))
		return -ENOMEM;
	return r < 0 ? r : r == STEP_REFUSED;
}

/* Messages are one line: control characters are shown escaped. */
static int one_line(char **s)
{
	size_t n = 0;
	char *r, *o;

	if (!*s || !strpbrk(*s, "\n\r\t"))
		return 0;
	for (const char *p = *s; *p; p++)
		n += (*p == '\n' || *p == '\r' || *p == '\t') ? 2 : 1;
	if (!(o = r = malloc(n + 1)))
		return -ENOMEM;
	for (const char *p = *s; *p; p++) {
		if (*p == '\n' || *p == '\r' || *p == '\t') {
			*o++ = '\\';
			*o++ = *p == '\n' ? 'n' : *p == '\r' ? 'r' : 't';
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	free(*s);
	*s = r;
	return 0;
}

static int push_unique(struct pdk_strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return 0;
	return pdk_strv_push(sv, s);
}

static char *call_text(const struct pdk_policy_call *call)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; call->argv && call->argv[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", call->argv[i]);
	return fclose(f) == 0 ? buf : NULL;
}

static int conclude(const struct pdk_config *cfg, const struct pdk_policy_call *call,
		    struct pdk_decision *d)
{
	const struct pdk_policy_step *top = NULL;
	bool all_ro = true;
	char *ask = NULL;
	size_t len = 0;
	FILE *f;
	int r = 0;

	for (size_t i = 0; i < d->n_steps; i++) {
		const struct pdk_policy_step *st = &d->steps[i];

		all_ro &= st->read_only;
		if (!st->read_only && (!top || st->risk > top->risk))
			top = st;
	}
	d->risk = top ? top->risk : PDK_RISK_SAFE;
	if (call->outside_sandbox)
		r |= pdk_strv_push(&d->raises, "runs outside the sandbox");
	if (call->network)
		r |= pdk_strv_push(&d->raises, "network on");
	for (size_t i = 0; !call->network && i < call->n_domains; i++) {
		char buf[300];

		snprintf(buf, sizeof(buf), "reaches %.256s", call->domains[i]);
		r |= pdk_strv_push(&d->raises, buf);
	}
	for (size_t i = 0; call->writes && i < call->n_writes; i++) {
		_cleanup_free_ char *w = pdk_asprintf("writes %s", call->writes[i]);

		r |= w ? pdk_strv_push(&d->raises, w) : -ENOMEM;
	}
	if (call->n_writes && !call->writes) {
		char buf[64];

		snprintf(buf, sizeof(buf), "writes %zu extra path%s", call->n_writes,
			 call->n_writes > 1 ? "s" : "");
		r |= pdk_strv_push(&d->raises, buf);
	}
	for (size_t i = 0; i < call->n_widen; i++)
		r |= pdk_strv_push(&d->raises, call->widen[i]);
	if (r < 0)
		return -ENOMEM;
	if (d->raises.n && d->risk < PDK_RISK_MODERATE)
		d->risk = PDK_RISK_MODERATE;
	d->read_only = all_ro && !d->raises.n;
	if (call->outside_sandbox)
		d->verdict = PDK_VERDICT_ASK;
	else if (d->read_only || d->risk < cfg->threshold)
		d->verdict = PDK_VERDICT_RUN;
	else
		d->verdict = PDK_VERDICT_ASK;

	if (d->verdict == PDK_VERDICT_RUN) {
		if (d->read_only)
			d->rule = d->n_steps == 1
				      ? strdup(d->steps[0].rule)
				      : pdk_asprintf("read-only: all %zu commands", d->n_steps);
		else
			d->rule = strdup(top && top->risk == d->risk ? top->rule : "default");
		return d->rule ? 0 : -ENOMEM;
	}
	/* ASK: the part that needs a yes, and why */
	if (!(f = open_memstream(&ask, &len)))
		return -ENOMEM;
	for (size_t i = 0, k = 0; i < d->n_steps; i++) {
		const struct pdk_policy_step *st = &d->steps[i];

		if (st->read_only || st->risk < cfg->threshold || st->risk == PDK_RISK_SAFE)
			continue;
		fprintf(f, "%s`%.300s`: %s (%s)%s%s", k++ ? "; " : "", st->text,
			pdk_risk_name(st->risk), st->rule, st->why ? ": " : "",
			st->why ? st->why : "");
		r |= push_unique(&d->programs, st->program);
	}
	if (!d->programs.n) {
		_cleanup_free_ char *t = call_text(call);

		fprintf(f, "`%.300s`: %s", t ? t : "", pdk_risk_name(d->risk));
		for (size_t i = 0; i < d->n_steps; i++)
			if (*d->steps[i].program)
				r |= push_unique(&d->programs, d->steps[i].program);
	}
	for (size_t i = 0; i < d->raises.n; i++)
		fprintf(f, "%s%s", i ? ", " : "; raised: ", d->raises.v[i]);
	for (size_t i = 0; !call->sandbox_off && !call->outside_sandbox && i < call->n_sockets; i++)
		fprintf(f, "%s%s", i ? ", " : "; reaches the unix socket ", call->sockets[i]);
	if (fclose(f) != 0 || r < 0) {
		free(ask);
		return -ENOMEM;
	}
	d->ask = ask;
	if (call->outside_sandbox)
		d->rule = strdup("outside-sandbox: a person approves every run");
	else if (top && top->risk >= cfg->threshold && top->risk > PDK_RISK_SAFE)
		d->rule = strdup(top->rule);
	else
		d->rule = pdk_asprintf("raise: %s", d->raises.n ? d->raises.v[0] : "threshold");
	return d->rule ? 0 : -ENOMEM;
}

/* The configured sensitive paths that hold secrets, not the project: one that
 * is HOME, cwd, a writable root or a parent of one is left out. */
static int sensitive_list(const struct pdk_config *cfg, const struct pdk_policy_call *call,
			  struct pdk_strv *ret)
{
	for (size_t i = 0; i < cfg->sensitive_paths.n; i++) {
		const char *e = cfg->sensitive_paths.v[i];
		bool holds = !strpbrk(e, "*?[") && ((call->home && pdk_path_under(call->home, e)) ||
						    (call->cwd && pdk_path_under(call->cwd, e)));

		for (size_t k = 0; !holds && k < call->n_roots; k++)
			holds = !strpbrk(e, "*?[") && pdk_path_under(call->roots[k], e);
		if (!holds && pdk_strv_push(ret, e) < 0)
			return -ENOMEM;
	}
	return 0;
}

int pdk_policy_decide(const struct pdk_config *cfg, const struct pdk_policy_call *call,
		      struct pdk_decision *ret)
{
	struct pdk_decision d = {.verdict = PDK_VERDICT_RUN,
				 .unconfined = call->sandbox_off || call->outside_sandbox};
	struct pdk_pcmd_list l = {0};
	struct judge_ctx j = {.cfg = cfg, .call = call};
	int r;

	r = pdk_policy_collect(call, &l, &d.shell);
	if (r < 0)
		goto fail;
	j.rules = pdk_policy_shipped_rules(&j.n_rules);
	j.taint = l.taint;
	r = -ENOMEM;
	if (sensitive_list(cfg, call, &j.sensitive) < 0)
		goto fail;
	j.cwd_plain = pdk_policy_cwd_plain(call->cwd, call->home, &j.sensitive);
	if (!(j.md = pdk_policy_match_data()))
		goto fail;
	if (l.n && !(d.steps = calloc(l.n, sizeof(*d.steps))))
		goto fail;
	for (size_t i = 0; i < l.n; i++) {
		char *msg = NULL;

		d.n_steps++;
		r = judge_step(&j, &l.v[i], &d.steps[i], &msg);
		/* the step owns these now */
		l.v[i].program = NULL;
		l.v[i].argv = NULL;
		if (r < 0) {
			free(msg);
			goto fail;
		}
		if (r > 0) {
			d.verdict = PDK_VERDICT_REFUSE;
			d.message = msg;
			d.rule = strdup(d.steps[i].rule);
			d.risk = d.steps[i].risk;
			if (!d.rule)
				goto fail;
			break;
		}
	}
	if (d.verdict != PDK_VERDICT_REFUSE && (r = conclude(cfg, call, &d)) < 0)
		goto fail;
	if (one_line(&d.message) < 0 || one_line(&d.ask) < 0)
		goto fail;
	pdk_policy_match_data_free(j.md);
	pdk_strv_release(&j.sensitive);
	pdk_pcmd_list_release(&l);
	*ret = d;
	return 0;
fail:
	pdk_strv_release(&j.sensitive);
	pdk_policy_match_data_free(j.md);
	pdk_pcmd_list_release(&l);
	pdk_decision_release(&d);
	return r < 0 ? r : -ENOMEM;
}

void pdk_decision_release(struct pdk_decision *d)
{
	if (!d)
		return;
	for (size_t i = 0; d->steps && i < d->n_steps; i++) {
		struct pdk_policy_step *st = &d->steps[i];

		free(st->text);
		free(st->argv); /* one allocation: the words and program too */
		free(st->rule);
		free(st->why);
	}
	free(d->steps);
	free(d->rule);
	free(d->message);
	free(d->ask);
	pdk_strv_release(&d->programs);
	pdk_strv_release(&d->raises);
	memset(d, 0, sizeof(*d));
}

const char *pdk_verdict_name(enum pdk_verdict v)
{
	return v == PDK_VERDICT_RUN ? "run" : v == PDK_VERDICT_ASK ? "ask" : "refuse";
}

/* Was step i the one refused? A refusal ends the steps with the refused
 * one; a refusal of the whole call (running outside the sandbox) has a rule
 * of its own and refuses no step. */
static bool step_refused(const struct pdk_decision *d, size_t i)
{
	const struct pdk_policy_step *st = &d->steps[i];

	return d->verdict == PDK_VERDICT_REFUSE && i + 1 == d->n_steps &&
	       (!d->rule || !st->rule || !strcmp(d->rule, st->rule));
}

bool pdk_policy_has_subcommands(const char *program)
{
	const struct pdk_prog_class *cls = program ? pdk_policy_classify(program) : NULL;

	return cls && (cls->kind & (PDK_PK_RO_MULTI | PDK_PK_RO_TRIPLE));
}

const char *pdk_step_reason(const struct pdk_decision *d, size_t i, char *buf, size_t size)
{
	const struct pdk_policy_step *st = &d->steps[i];

	if (step_refused(d, i))
		snprintf(buf, size, "%s", d->message ? d->message : "refused by the policy");
	else if (st->why)
		snprintf(buf, size, "%s", st->why);
	else if (st->read_only)
		snprintf(buf, size, "%s", st->note ? st->note : "on the read-only list");
	else
		snprintf(buf, size, "%s: runs %s", st->note ? st->note : "no rule matched",
			 d->unconfined ? "without the sandbox" : "confined");
	return buf;
}

int pdk_decision_print(const struct pdk_decision *d, FILE *out)
{
	char why[1024];

	fprintf(out, "verdict: %s\n", pdk_verdict_name(d->verdict));
	if (d->verdict != PDK_VERDICT_REFUSE)
		fprintf(out, "risk: %s%s\n", pdk_risk_name(d->risk),
			d->read_only ? " (read-only)" : "");
	fprintf(out, "rule: %s\n", d->rule ? d->rule : "default");
	if (d->message)
		fprintf(out, "error: %s\n", d->message);
	if (d->ask)
		fprintf(out, "ask: %s\n", d->ask);
	if (d->programs.n) {
		fprintf(out, "programs:");
		for (size_t i = 0; i < d->programs.n; i++)
			fprintf(out, " %s", d->programs.v[i]);
		fputc('\n', out);
	}
	for (size_t i = 0; i < d->raises.n; i++)
		fprintf(out, "raised: %s\n", d->raises.v[i]);
	for (size_t i = 0; i < d->n_steps; i++) {
		const struct pdk_policy_step *st = &d->steps[i];

		fprintf(out, "command %zu", i + 1);
		if (st->line)
			fprintf(out, " at %d:%d", st->line, st->column);
		if (st->depth)
			fprintf(out, " (nested sh -c, depth %u)", st->depth);
		fprintf(out, ": `%s`: runs %s: %s, %s: %s\n", st->text,
			st->program && *st->program ? st->program : "-",
			step_refused(d, i)					? "refused"
			: st->read_only						? "read-only"
					: pdk_risk_name(st->risk),
			st->rule ? st->rule : "default", pdk_step_reason(d, i, why, sizeof(why)));
	}
	return ferror(out) ? -EIO : 0;
}

cJSON *pdk_decision_json(const struct pdk_decision *d)
{
	cJSON *o = cJSON_CreateObject(), *a, *s;
	char why[1024];
	bool ok = o != NULL;

	if (!o)
		return NULL;
	ok &= cJSON_AddStringToObject(o, "verdict", pdk_verdict_name(d->verdict)) != NULL;
	ok &= cJSON_AddStringToObject(o, "risk", pdk_risk_name(d->risk)) != NULL;
	ok &= cJSON_AddBoolToObject(o, "read_only", d->read_only) != NULL;
	ok &= cJSON_AddBoolToObject(o, "shell", d->shell) != NULL;
	ok &= cJSON_AddStringToObject(o, "rule", d->rule ? d->rule : "default") != NULL;
	if (d->message)
		ok &= cJSON_AddStringToObject(o, "message", d->message) != NULL;
	if (d->ask)
		ok &= cJSON_AddStringToObject(o, "ask", d->ask) != NULL;
	ok &= (a = cJSON_AddArrayToObject(o, "programs")) != NULL;
	for (size_t i = 0; ok && i < d->programs.n; i++)
		ok &= cJSON_AddItemToArray(a, cJSON_CreateString(d->programs.v[i]));
	ok &= (a = cJSON_AddArrayToObject(o, "raises")) != NULL;
	for (size_t i = 0; ok && i < d->raises.n; i++)
		ok &= cJSON_AddItemToArray(a, cJSON_CreateString(d->raises.v[i]));
	ok &= (a = cJSON_AddArrayToObject(o, "commands")) != NULL;
	for (size_t i = 0; ok && i < d->n_steps; i++) {
		const struct pdk_policy_step *st = &d->steps[i];
		cJSON *av;

		ok &= (s = cJSON_CreateObject()) != NULL && cJSON_AddItemToArray(a, s);
		if (!ok)
			break;
		ok &= cJSON_AddStringToObject(s, "text", st->text ? st->text : "") != NULL;
		ok &= cJSON_AddStringToObject(s, "program", st->program ? st->program : "") != NULL;
		ok &= (av = cJSON_AddArrayToObject(s, "argv")) != NULL;
		for (char **w = st->argv; ok && w && *w; w++)
			ok &= cJSON_AddItemToArray(av, cJSON_CreateString(*w));
		ok &= cJSON_AddNumberToObject(s, "line", st->line) != NULL;
		ok &= cJSON_AddNumberToObject(s, "column", st->column) != NULL;
		ok &= cJSON_AddNumberToObject(s, "depth", st->depth) != NULL;
		ok &= cJSON_AddBoolToObject(s, "read_only", st->read_only) != NULL;
		ok &= cJSON_AddBoolToObject(s, "refused", step_refused(d, i)) != NULL;
		ok &= cJSON_AddStringToObject(s, "risk", pdk_risk_name(st->risk)) != NULL;
		ok &= cJSON_AddStringToObject(s, "rule", st->rule ? st->rule : "default") != NULL;
		if (st->why)
			ok &= cJSON_AddStringToObject(s, "why", st->why) != NULL;
		ok &= cJSON_AddStringToObject(s, "reason", pdk_step_reason(d, i, why, sizeof(why))) !=
		      NULL;
	}
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}
