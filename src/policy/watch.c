/* watch.c - recognizes file watchers (which never exit) before they start,
 * following npm/pnpm/yarn/bun scripts through package.json, and names the one-shot command. */
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/fmt.h"
#include "policy_int.h"
#include "shparse/shparse.h"

/* How many package scripts deep a run is followed (the one named is level 1). */
#define WATCH_MAX_LEVELS 5
#define WATCH_MAX_SH	 8
#define PKG_MAX_SIZE	 (4 << 20)

struct pkg {
	cJSON *json;
	const cJSON *scripts;
	char *path;
};

struct found {
	char *what;    /* the watcher command as written */
	char *oneshot; /* the same without watching, or NULL */
	char *rule;
};

static const char *const watcher_programs[] = {
    "chokidar",	 "nodemon",  "onchange",    "watchexec",    "entr", "watch",
    "tsc-watch", "watchify", "cargo-watch", "chokidar-cli", NULL,
};

/* --watch=false, --watchAll=0, --no-watch: watching turned off. */
static bool watch_off(const char *a)
{
	static const char *const off[] = {"false", "0", "no", "off", NULL};
	const char *eq = strchr(a, '=');

	if (!strcmp(a, "--no-watch") || !strcmp(a, "--no-watchAll") || !strcmp(a, "--watch=") ||
	    !strcmp(a, "--watchAll="))
		return true;
	return eq && (!strncmp(a, "--watch=", 8) || !strncmp(a, "--watchAll=", 11)) &&
	       pdk_policy_in_list(eq + 1, off);
}

static bool watch_flag(const char *a)
{
	return (!strcmp(a, "--watch") || !strncmp(a, "--watch=", 8) || !strcmp(a, "--watchAll") ||
		!strncmp(a, "--watchAll=", 11)) &&
	       !watch_off(a);
}

/* Does argv watch: a watch flag, and no flag that turns watching off? */
static bool watches(char *const *argv, size_t argc)
{
	bool on = false;

	for (size_t i = 1; i < argc; i++) {
		if (watch_off(argv[i]))
			return false;
		on |= watch_flag(argv[i]);
	}
	return on;
}

static char *join(char *const *argv, size_t from, size_t to, bool skip_watch)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool first = true;

	if (!f)
		return NULL;
	for (size_t i = from; i < to; i++) {
		if (skip_watch && watch_flag(argv[i]))
			continue;
		if (!first)
			fputc(' ', f);
		pdk_fput_shell_word(f, argv[i]);
		first = false;
	}
	if (fclose(f) != 0)
		return NULL;
	return buf;
}

/* The command a watcher program would run each time, when it can be told. */
static char *oneshot_of(const char *prog, char *const *argv, size_t argc)
{
	size_t i;

	if (!strcmp(prog, "nodemon")) {
		for (i = 1; i + 1 < argc; i++)
			if (!strcmp(argv[i], "--exec") || !strcmp(argv[i], "-x"))
				return strdup(argv[i + 1]);
		for (i = 1; i < argc && argv[i][0] == '-'; i++)
			;
		if (i < argc) {
			char *rest = join(argv, i, argc, false), *r = NULL;

			if (rest && asprintf(&r, "node %s", rest) < 0)
				r = NULL;
			free(rest);
			return r;
		}
		return NULL;
	}
	if (!strcmp(prog, "chokidar") || !strcmp(prog, "chokidar-cli")) {
		for (i = 1; i + 1 < argc; i++)
			if (!strcmp(argv[i], "-c") || !strcmp(argv[i], "--command"))
				return strdup(argv[i + 1]);
		return NULL;
	}
	if (!strcmp(prog, "tsc-watch"))
		return strdup("tsc");
	if (!strcmp(prog, "cargo-watch") || (!strcmp(prog, "cargo") && argc > 1)) {
		for (i = 1; i + 1 < argc; i++) {
			char *r = NULL;

			if (!strcmp(argv[i], "-x") && asprintf(&r, "cargo %s", argv[i + 1]) >= 0)
				return r;
			if (!strcmp(argv[i], "-s"))
				return strdup(argv[i + 1]);
		}
		return strdup("cargo build");
	}
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--"))
			return i + 1 < argc ? join(argv, i + 1, argc, false) : NULL;
	if (!strcmp(prog, "watch")) {
		for (i = 1; i < argc && argv[i][0] == '-'; i++)
			if (!strcmp(argv[i], "-n") || !strcmp(argv[i], "--interval") ||
			    !strcmp(argv[i], "-q") || !strcmp(argv[i], "--equexit"))
				i++;
		return i < argc ? join(argv, i, argc, false) : NULL;
	}
	if (!strcmp(prog, "entr")) {
		for (i = 1; i < argc && argv[i][0] == '-'; i++)
			;
		return i < argc ? join(argv, i, argc, false) : NULL;
	}
	return NULL;
}

/* A watcher on its own (not through a package script)? */
/* Options of npm, pnpm, yarn and bun that take the next word as their value. */
static bool takes_value(const char *opt)
{
	static const char *const with_value[] = {"--prefix", "-C",	  "--workspace", "-w",
						 "--userconfig", "--cache", "--registry", "--filter",
						 "-F",		"--cwd",   "--dir",	  "--loglevel",
						 NULL};

	return pdk_policy_in_list(opt, with_value);
}

/* The first word after the options at argv[i...] (the option values skipped). */
static size_t past_options(char *const *argv, size_t argc, size_t i)
{
	while (i < argc && argv[i][0] == '-' && strcmp(argv[i], "--"))
		i += takes_value(argv[i]) && !strchr(argv[i], '=') ? 2 : 1;
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	return i;
}

/* npx, pnpx and bunx, `npm exec`, `npm x`, `pnpm exec`, `pnpm dlx`, `yarn exec`,
 * `yarn dlx` and `bun x` launch the program that follows: where it starts, or 0. */
static size_t launched(char *const *argv, size_t argc)
{
	static const char *const launchers[] = {"npx", "pnpx", "bunx", NULL};
	const char *prog = pdk_policy_base_name(argv[0]);
	size_t i = past_options(argv, argc, 1);

	if (pdk_policy_in_list(prog, launchers))
		;
	else if (i < argc &&
		 (((!strcmp(prog, "npm")) && (!strcmp(argv[i], "exec") || !strcmp(argv[i], "x"))) ||
		  ((!strcmp(prog, "pnpm") || !strcmp(prog, "yarn")) &&
		   (!strcmp(argv[i], "exec") || !strcmp(argv[i], "dlx"))) ||
		  (!strcmp(prog, "bun") && !strcmp(argv[i], "x"))))
		i = past_options(argv, argc, i + 1);
	else
		return 0;
	return i < argc ? i : 0;
}

static int direct(char *const *argv, size_t argc, struct found *f)
{
	size_t off = launched(argv, argc);
	const char *prog;
	bool flag = false;

	argv += off;
	argc -= off;
	prog = pdk_policy_base_name(argv[0]);

	flag = watches(argv, argc);
	if (pdk_policy_in_list(prog, watcher_programs) ||
	    (!strcmp(prog, "cargo") && argc > 1 && !strcmp(argv[1], "watch"))) {
		f->oneshot = oneshot_of(prog, argv, argc);
		if (asprintf(&f->rule, "watcher: %s", prog) < 0)
			return -ENOMEM;
	} else if (flag) {
		f->oneshot = join(argv, 0, argc, true);
		if (!(f->rule = strdup("watcher: --watch")))
			return -ENOMEM;
	} else {
		return 0;
	}
	return (f->what = join(argv, 0, argc, false)) ? 1 : -ENOMEM;
}

static int pkg_load(const char *cwd, struct pkg *p)
{
	char dir[4096];

	if (!cwd || snprintf(dir, sizeof(dir), "%s", cwd) >= (int)sizeof(dir))
		return 0;
	for (;;) {
		char path[4200];
		struct stat st;
		_cleanup_free_ char *buf = NULL;
		_cleanup_close_ int fd = -1;
		char *slash;
		ssize_t n;

		snprintf(path, sizeof(path), "%s/package.json", strcmp(dir, "/") ? dir : "");
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_size < PKG_MAX_SIZE) {
			if (!(buf = malloc(st.st_size + 1)))
				return -ENOMEM;
			n = read(fd, buf, st.st_size);
			if (n < 0)
				return 0;
			buf[n] = '\0';
			p->json = cJSON_Parse(buf);
			p->scripts = cJSON_GetObjectItemCaseSensitive(p->json, "scripts");
			p->path = strdup(path);
			return p->path ? 1 : -ENOMEM;
		}
		if (!strcmp(dir, "/") || !(slash = strrchr(dir, '/')))
			return 0;
		if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
	}
}

static const char *script_text(const struct pkg *p, const char *name)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(p->scripts, name);

	return cJSON_IsString(s) ? s->valuestring : NULL;
}

/* `npm run X`, `pnpm X`, `yarn run X`, `bun run X`: the script name, or NULL. */
static const char *run_target(char *const *argv, size_t argc, const struct pkg *p)
{
	const char *prog = pdk_policy_base_name(argv[0]);
	size_t i = past_options(argv, argc, 1);

	if (i >= argc)
		return NULL;
	if (!strcmp(prog, "npm")) {
		if (!strcmp(argv[i], "start") || !strcmp(argv[i], "restart"))
			return "start";
		if (!strcmp(argv[i], "test") || !strcmp(argv[i], "t") || !strcmp(argv[i], "tst"))
			return "test";
		if (strcmp(argv[i], "run") && strcmp(argv[i], "run-script") &&
		    strcmp(argv[i], "rum") && strcmp(argv[i], "urn"))
			return NULL;
	} else if (!strcmp(prog, "pnpm") || !strcmp(prog, "yarn") || !strcmp(prog, "bun")) {
		/* These run a script by its bare name too (`bun dev`). */
		if (strcmp(argv[i], "run"))
			return p && script_text(p, argv[i]) ? argv[i] : NULL;
	} else {
		return NULL;
	}
	i = past_options(argv, argc, i + 1);
	return i < argc ? argv[i] : NULL;
}

static int scan_script(const struct pkg *p, const char *text, unsigned level, unsigned sh,
		       struct found *f, struct pdk_strv *chain);

/* One command of a package script: a watcher, a run of another script, or sh -c. */
static int scan_words(const struct pkg *p, char **argv, size_t argc, unsigned level, unsigned sh,
		      struct found *f, struct pdk_strv *chain)
{
	static const char *const pass[] = {"npx",  "cross-env", "env",	"dotenv", "nice",
					   "time", "exec",	"pnpx", "bunx",	  NULL};
	const char *target;
	int r;

	/* look through launchers and NAME=VALUE */
	while (argc && (pdk_policy_in_list(argv[0], pass) || strchr(argv[0], '='))) {
		argv++;
		argc--;
		while (argc && argv[0][0] == '-' && strcmp(argv[0], "--")) {
			argv++;
			argc--;
		}
	}
	if (!argc)
		return 0;
	if ((r = direct(argv, argc, f)) != 0)
		return r;
	if (pdk_policy_is_shell(argv[0]) && sh < WATCH_MAX_SH) {
		for (size_t i = 1; i + 1 < argc && argv[i][0] == '-'; i++)
			if (strchr(argv[i], 'c'))
				return scan_script(p, argv[i + 1], level, sh + 1, f, chain);
		return 0;
	}
	if (!strcmp(argv[0], "concurrently") || !strcmp(argv[0], "run-p")) {
		for (size_t i = 1; i < argc; i++)
			if (argv[i][0] != '-' &&
			    (r = scan_script(p, argv[i], level, sh + 1, f, chain)) != 0)
				return r;
		return 0;
	}
	target = run_target(argv, argc, p);
	if (!target || !p)
		return 0;
	if (level >= WATCH_MAX_LEVELS)
		return 0; /* deeper chains are not followed; the run's timeout ends them */
	{
		const char *text = script_text(p, target);
		char link[300];

		if (!text)
			return 0;
		snprintf(link, sizeof(link), "scripts.%s", target);
		if (pdk_strv_push(chain, link) < 0)
			return -ENOMEM;
		r = scan_script(p, text, level + 1, sh, f, chain);
		if (r == 0) {
			free(chain->v[--chain->n]);
			chain->v[chain->n] = NULL;
		}
		return r;
	}
}

static int scan_script(const struct pkg *p, const char *text, unsigned level, unsigned sh,
		       struct found *f, struct pdk_strv *chain)
{
	struct pdk_sh_script *sc = NULL;
	int r = 0;

	if (pdk_sh_parse(text, strlen(text), &sc, NULL) < 0)
		return 0;
	for (size_t i = 0; i < pdk_sh_ncommands(sc) && r == 0; i++) {
		const struct pdk_sh_command *c = pdk_sh_command_at(sc, i);
		char **argv;

		if (!c->nwords)
			continue;
		if (!(argv = calloc(c->nwords + 1, sizeof(char *)))) {
			r = -ENOMEM;
			break;
		}
		for (size_t j = 0; j < c->nwords; j++)
			argv[j] = c->words[j].text;
		r = scan_words(p, argv, c->nwords, level, sh, f, chain);
		free(argv);
	}
	pdk_sh_script_free(sc);
	return r;
}

static char *runner_build(const char *prog)
{
	char *r = NULL;

	if (asprintf(&r, "%s run build",
		     !strcmp(prog, "pnpm") || !strcmp(prog, "yarn") || !strcmp(prog, "bun")
			 ? prog
			 : "npm") < 0)
		return NULL;
	return r;
}

/* Does the package runner run a test script (npm test, npm run test:unit, yarn t)? */
static bool test_script(char *const *argv, size_t argc)
{
	static const char *const names[] = {"test", "t", "tst", NULL};

	for (size_t i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] == '-' || !strcmp(a, "run") || !strcmp(a, "run-script"))
			continue;
		return pdk_policy_in_list(a, names) || !strncmp(a, "test:", 5);
	}
	return false;
}

int pdk_watch_check(char *const *argv, size_t argc, const char *cwd, char **ret_msg,
		    char **ret_rule)
{
	bool tests;
	struct found f = {0};
	struct pkg p = {0};
	struct pdk_strv chain = {0};
	_cleanup_free_ char *whole = NULL, *instead = NULL, *via = NULL;
	const char *prog;
	int r;

	*ret_msg = *ret_rule = NULL;
	if (!argc)
		return 0;
	prog = pdk_policy_base_name(argv[0]);
	tests = test_script(argv, argc);
	r = direct(argv, argc, &f);
	if (r == 0 && (!strcmp(prog, "npm") || !strcmp(prog, "pnpm") || !strcmp(prog, "yarn") ||
		       !strcmp(prog, "bun"))) {
		if ((r = pkg_load(cwd, &p)) < 0)
			goto out;
		r = p.scripts ? scan_words(&p, (char **)argv, argc, 0, 0, &f, &chain) : 0;
		if (r > 0) {
			const char *build = script_text(&p, "build");
			struct found bf = {0};
			struct pdk_strv bc = {0};

			/* the build script, unless it watches too; a test script's
			 * one-shot is the tests, never a build */
			if (!tests && build && scan_script(&p, build, 1, 0, &bf, &bc) == 0)
				instead = runner_build(prog);
			free(bf.what);
			free(bf.oneshot);
			free(bf.rule);
			pdk_strv_release(&bc);
		}
	}
	if (r <= 0)
		goto out;
	if (!instead && f.oneshot)
		instead = strdup(f.oneshot);
	whole = join(argv, 0, argc, false);
	if (chain.n) {
		FILE *m = open_memstream(&via, &(size_t){0});

		if (m) {
			fprintf(m, " (%s", p.path);
			for (size_t i = 0; i < chain.n; i++)
				fprintf(m, "%s%s", i ? " -> " : ": ", chain.v[i]);
			fprintf(m, ")");
			fclose(m);
		}
	}
	if (chain.n && tests)
		r = asprintf(ret_msg,
			     "`%s` runs the file watcher `%s`%s, which never exits, and paddock "
			     "waits for a command to exit: run the tests once instead%s%s%s, or "
			     "turn watching off in the script (--watch=false, --watchAll=false, "
			     "vitest run)",
			     whole ? whole : prog, f.what, via ? via : "", instead ? ": `" : "",
			     instead ? instead : "", instead ? "`" : "");
	else if (chain.n)
		r = asprintf(ret_msg,
			     "`%s` runs the file watcher `%s`%s, which never exits, and paddock "
			     "waits for a command to exit: %s%s%s",
			     whole ? whole : prog, f.what, via ? via : "",
			     instead ? "run the one-shot build instead: `"
				     : "run the build once, "
				       "without watching",
			     instead ? instead : "", instead ? "`" : "");
	else
		r = asprintf(ret_msg,
			     "`%s` is a file watcher, which never exits, and paddock waits for a "
			     "command to exit: %s%s%s",
			     f.what,
			     instead ? "run it once instead: `" : "run it once, without watching",
			     instead ? instead : "", instead ? "`" : "");
	if (r < 0) {
		*ret_msg = NULL;
		r = -ENOMEM;
		goto out;
	}
	*ret_rule = steal_pointer(&f.rule);
	r = 1;
out:
	free(f.what);
	free(f.oneshot);
	free(f.rule);
	pdk_strv_release(&chain);
	cJSON_Delete(p.json);
	free(p.path);
	return r;
}
