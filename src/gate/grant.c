/* grant.c - what an "a" (yes for the rest of the session) covers, exactly: the
 * program files by path and identity, each with its subcommand and risk class,
 * the widenings of the call, the project and the call's risk class. A later call
 * passes unasked only when every part of it is one that was approved, no riskier,
 * with the same or fewer widenings, in the same project. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/fmt.h"
#include "core/path.h"
#include "core/util.h"
#include "gate_int.h"
#include "session.h"

/* Options that take the next word as their value, so that the word after is
 * the subcommand (git -C DIR stash, make -C DIR install, npm --prefix D run). */
static bool takes_value(const char *a)
{
	static const char *const opts[] = {"-C",	  "-c",		 "-f",	       "--git-dir",
					   "--work-tree", "--namespace", "--prefix",   "-I",
					   "--file",	  "--directory", "--manifest-path", NULL};

	for (size_t i = 0; opts[i]; i++)
		if (!strcmp(a, opts[i]))
			return true;
	return false;
}

/* The first word that is not an option: git *stash* drop, make *install*; "" for
 * none, or for a program without subcommands (rm -rf d1: d1 is an operand). */
static const char *subcommand(const char *program, char *const *argv)
{
	if (!pdk_policy_has_subcommands(program))
		return "";
	for (size_t i = 1; argv && argv[0] && argv[i]; i++) {
		if (!strcmp(argv[i], "--"))
			return argv[i + 1] ? argv[i + 1] : "";
		if (argv[i][0] != '-')
			return argv[i];
		if (takes_value(argv[i]) && argv[i + 1])
			i++;
	}
	return "";
}

/* The program file a step runs, resolved (a bare name through PATH, a path
 * from cwd), or NULL when it cannot be told: then no "a" can cover the call. */
static char *program_file(const char *name, const char *cwd)
{
	_cleanup_free_ char *joined = NULL;
	const char *path = getenv("PATH");

	if (!name || !*name)
		return NULL;
	if (strchr(name, '/')) {
		if (name[0] == '/')
			return pdk_path_resolve(name);
		if (!cwd || !(joined = pdk_path_join(cwd, name)))
			return NULL;
		return pdk_path_resolve(joined);
	}
	for (const char *p = path ? path : "/usr/bin:/bin"; p;) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		_cleanup_free_ char *dir = len ? strndup(p, len) : NULL, *file = NULL;

		/* an empty or relative PATH entry depends on where it runs: not told */
		if (!dir || dir[0] != '/')
			return NULL;
		if (!(file = pdk_path_join(dir, name)))
			return NULL;
		if (access(file, X_OK) == 0)
			return pdk_path_resolve(file);
		p = colon ? colon + 1 : NULL;
	}
	return NULL;
}

/* Which file it is, not only where: replaced or rewritten, it is another. */
static bool identity(const char *file, char *buf, size_t len)
{
	struct stat st;

	if (stat(file, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
#ifdef __APPLE__
	const struct timespec *m = &st.st_mtimespec, *c = &st.st_ctimespec;
#else
	const struct timespec *m = &st.st_mtim, *c = &st.st_ctim;
#endif
	snprintf(buf, len, "%llu:%llu:%lld:%lld.%09ld:%lld.%09ld", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino, (long long)st.st_size, (long long)m->tv_sec,
		 (long)m->tv_nsec, (long long)c->tv_sec, (long)c->tv_nsec);
	return true;
}

/* The steps a grant is about: every one that is not read-only (those run anyway). */
static bool counts(const struct pdk_policy_step *st)
{
	return !st->read_only && st->program && *st->program;
}

/*
 * The grant the request would make, as a JSON object, or NULL when none can be
 * made (*err: -ENOMEM, or -EINVAL when some part cannot be pinned down: a
 * program that is not a file found here, a PATH the call changes itself).
 */
static cJSON *grant_of(const struct pdk_gate_request *rq, int *err)
{
	const struct pdk_decision *d = rq->d;
	const char *project = rq->project ? rq->project : rq->cwd;
	cJSON *g = cJSON_CreateObject(), *items, *widen;
	size_t n = 0;

	*err = -ENOMEM;
	if (!g || !(items = cJSON_AddArrayToObject(g, "items")) ||
	    !(widen = cJSON_AddArrayToObject(g, "widen")) ||
	    !cJSON_AddNumberToObject(g, "risk", d->risk) ||
	    !cJSON_AddStringToObject(g, "project", project ? project : ""))
		goto fail;
	for (size_t i = 0; i < d->n_steps; i++) {
		const struct pdk_policy_step *st = &d->steps[i];
		_cleanup_free_ char *file = NULL;
		char id[160];
		cJSON *it;

		if (!counts(st))
			continue;
		*err = -EINVAL;
		if (st->path_changed || !st->argv || !st->argv[0] ||
		    !(file = program_file(st->argv[0], rq->cwd)) || !identity(file, id, sizeof(id)))
			goto fail;
		*err = -ENOMEM;
		if (!(it = cJSON_CreateObject()) || !cJSON_AddItemToArray(items, it) ||
		    !cJSON_AddStringToObject(it, "program", st->program) ||
		    !cJSON_AddStringToObject(it, "file", file) ||
		    !cJSON_AddStringToObject(it, "id", id) ||
		    !cJSON_AddStringToObject(it, "sub", subcommand(st->program, st->argv)) ||
		    !cJSON_AddNumberToObject(it, "risk", st->risk))
			goto fail;
		n++;
	}
	*err = -EINVAL;
	if (!n)
		goto fail;
	*err = -ENOMEM;
	for (size_t i = 0; i < d->raises.n; i++)
		if (!cJSON_AddItemToArray(widen, cJSON_CreateString(d->raises.v[i])))
			goto fail;
	*err = 0;
	return g;
fail:
	cJSON_Delete(g);
	return NULL;
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A risk class; missing, it is above every class in a call and below every
 * class in a grant, so that a damaged line covers nothing. */
static double num(const cJSON *o, const char *key, double missing)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : missing;
}

static bool same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* Does the stored grant have cover for the call's grant? */
static bool covers(const cJSON *stored, const cJSON *want)
{
	const cJSON *it, *w;

	if (!same(str(stored, "project"), str(want, "project")) ||
	    num(want, "risk", 1e9) > num(stored, "risk", -1))
		return false;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(want, "items"))
	{
		bool found = false;
		const cJSON *s;

		cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(stored, "items"))
		    found |= same(str(s, "file"), str(it, "file")) &&
			     same(str(s, "id"), str(it, "id")) &&
			     same(str(s, "sub"), str(it, "sub")) && num(it, "risk", 1e9) <= num(s, "risk", -1);
		if (!found)
			return false;
	}
	cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(want, "widen"))
	{
		bool found = false;
		const cJSON *s;

		cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(stored, "widen"))
		    found |= cJSON_IsString(s) && cJSON_IsString(w) &&
			     !strcmp(s->valuestring, w->valuestring);
		if (!found)
			return false;
	}
	return true;
}

bool pdk_gate_grant_possible(const struct pdk_gate_request *rq)
{
	int err;
	cJSON *g;

	if (rq->outside_sandbox || rq->n_password_paths || !rq->d)
		return false;
	g = grant_of(rq, &err);
	cJSON_Delete(g);
	return g != NULL;
}

int pdk_gate_session_covers(const struct pdk_gate_request *rq)
{
	_cleanup_free_ char *text = NULL;
	cJSON *want;
	int r, err;

	if (!rq || !rq->d || rq->outside_sandbox || rq->n_password_paths)
		return 0;
	if (!(want = grant_of(rq, &err)))
		return err == -EINVAL ? 0 : err;
	r = pdk_session_approvals(rq->session, &text);
	if (r == -ENOENT) {
		cJSON_Delete(want);
		return 0;
	}
	if (r < 0) {
		cJSON_Delete(want);
		return r;
	}
	r = 0;
	for (char *line = text, *nl; line && *line && !r; line = nl ? nl + 1 : NULL) {
		cJSON *stored;

		if ((nl = strchr(line, '\n')))
			*nl = '\0';
		/* lines of another form (a bare program name from an older paddock)
		 * cover nothing */
		if (line[0] != '{' || !(stored = cJSON_Parse(line)))
			continue;
		r = covers(stored, want);
		cJSON_Delete(stored);
	}
	cJSON_Delete(want);
	return r;
}

int pdk_gate_grant_remember(const struct pdk_gate_request *rq)
{
	_cleanup_free_ char *line = NULL;
	cJSON *g;
	int err;

	if (!(g = grant_of(rq, &err)))
		return err;
	line = cJSON_PrintUnformatted(g);
	cJSON_Delete(g);
	if (!line)
		return -ENOMEM;
	return pdk_session_approve(rq->session, line);
}

/* "`git stash`" or "`git stash`, `./build.sh`": what an "a" covers, by the
 * commands as the person knows them; the rest is said by the prompt. */
char *pdk_gate_grant_heads(const struct pdk_gate_request *rq)
{
	const struct pdk_decision *d = rq->d;
	struct pdk_buf b = {0};
	size_t k = 0;

	for (size_t i = 0; i < d->n_steps; i++) {
		const struct pdk_policy_step *st = &d->steps[i];
		const char *sub;
		bool dup = false;

		if (!counts(st) || !st->argv || !st->argv[0])
			continue;
		sub = subcommand(st->program, st->argv);
		for (size_t j = 0; j < i && !dup; j++)
			dup = counts(&d->steps[j]) && d->steps[j].argv && d->steps[j].argv[0] &&
			      !strcmp(d->steps[j].argv[0], st->argv[0]) &&
			      !strcmp(subcommand(d->steps[j].program, d->steps[j].argv), sub);
		if (dup)
			continue;
		pdk_buf_printf(&b, "%s`%s%s%s`", k++ ? ", " : "", st->argv[0], *sub ? " " : "",
			       sub);
	}
	pdk_buf_add(&b, "", 0);
	if (b.oom) {
		pdk_buf_free(&b);
		return NULL;
	}
	return b.data ? b.data : strdup("");
}
