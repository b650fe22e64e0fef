/* policy_argv.c - argv first: a plain argv call whose arguments only a shell
 * would act on (operators, globs that match here, ~) is refused with the sh -c meant. */
#include <cjson/cJSON.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>

#include "core/fmt.h"
#include "policy_int.h"

/* argv-first: an argument that only a shell would act on. */
static bool is_operator(const char *s)
{
	static const char *const ops[] = {"|", "||", "&&", ";", "&", "|&", ";;", NULL};
	const char *p = s;

	if (pdk_policy_in_list(s, ops))
		return true;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '&' && p == s && p[1] == '>')
		p++;
	if (*p != '<' && *p != '>')
		return false;
	p += (p[1] == *p || (p[0] == '>' && p[1] == '|') || (p[0] == '<' && p[1] == '>')) ? 2 : 1;
	if (*p == '&')
		return strspn(p + 1, "0123456789-") == strlen(p + 1);
	/* ">out.txt", "2>/dev/null": a redirect; "<div>" is not */
	return strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
			 "_./~+-") == strlen(p);
}

static bool has_glob(const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			continue;
		}
		if (*s == '*' || *s == '?' || *s == '[')
			return true;
	}
	return false;
}

static bool glob_matches_here(const char *arg, const char *cwd)
{
	char pat[4096];
	size_t o = 0;
	glob_t g;
	bool hit;

	if (arg[0] != '/' && cwd) {
		for (const char *p = cwd; *p && o + 3 < sizeof(pat); p++) {
			if (strchr("*?[\\", *p))
				pat[o++] = '\\';
			pat[o++] = *p;
		}
		pat[o++] = '/';
	}
	if (snprintf(pat + o, sizeof(pat) - o, "%s", arg) >= (int)(sizeof(pat) - o))
		return false;
	hit = glob(pat, GLOB_NOSORT, NULL, &g) == 0 && g.gl_pathc > 0;
	if (hit || g.gl_pathv)
		globfree(&g);
	return hit;
}

/* grep-like programs: where the pattern is, when no -e/-f names it. */
static size_t pattern_position(char *const *argv, size_t argc)
{
	static const char *const valued[] = {"-A",	    "-B", "-C",	    "-m", "-g",
					     "--glob",	    "-t", "--type", "-d", "-D",
					     "--max-count", "-T", NULL};

	for (size_t i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-e") || !strcmp(a, "-f") || !strncmp(a, "--regexp", 8) ||
		    !strncmp(a, "--file", 6))
			return 0;
		if (!strcmp(a, "--"))
			return i + 1 < argc ? i + 1 : 0;
		if (a[0] != '-')
			return i;
		if (pdk_policy_in_list(a, valued))
			i++;
	}
	return 0;
}

/* Arguments that programs take as patterns of their own: never expanded by us. */
static bool literal_pattern_arg(char *const *argv, size_t i, size_t pattern_pos)
{
	static const char *const greps[] = {"grep", "egrep", "fgrep",  "rg", "ag",
					    "ack",  "fd",    "fdfind", NULL};
	static const char *const opts[] = {"-g",	"--glob",	 "--iglob",
					   "-e",	"--regexp",	 "--include",
					   "--exclude", "--exclude-dir", NULL};
	const char *prog = pdk_policy_base_name(argv[0]);

	if (!strcmp(prog, "git") || argv[i][0] == '-')
		return true;
	if (pdk_policy_in_list(argv[i - 1], opts))
		return true;
	if (!strcmp(prog, "find") && pdk_policy_find_takes_pattern(argv[i - 1]))
		return true;
	return pdk_policy_in_list(prog, greps) && pattern_pos == i;
}

/* The ["sh","-c","..."] a model meant, for the refusal to suggest. */
static char *suggest_shell(char *const *argv)
{
	char *script = NULL, *r;
	cJSON *words;
	size_t len = 0;
	FILE *f = open_memstream(&script, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; argv[i]; i++) {
		const char *a = argv[i];
		bool bare = is_operator(a) ||
			    ((has_glob(a) || a[0] == '~') &&
			     strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				       "0123456789_@%+=:,./-*?[]~") == strlen(a));
		if (i)
			fputc(' ', f);
		if (bare)
			fputs(a, f);
		else
			pdk_fput_shell_word(f, a);
	}
	if (fclose(f) != 0)
		return NULL;
	words = cJSON_CreateStringArray((const char *[]){"sh", "-c", script}, 3);
	free(script);
	r = words ? cJSON_PrintUnformatted(words) : NULL;
	cJSON_Delete(words);
	return r;
}

int pdk_policy_argv_first(char *const *argv, size_t argc, const char *cwd, char **ret_msg,
			  const char **ret_rule)
{
	size_t pattern_pos = pattern_position(argv, argc);
	bool after_exec = false;

	*ret_msg = NULL;
	if (strpbrk(argv[0], " \t\n")) {
		*ret_rule = "argv-words";
		return asprintf(ret_msg,
				"the program name `%.200s` holds spaces: pass each word as its own "
				"argv element, or run [\"sh\",\"-c\",\"...\"]",
				argv[0]) < 0
			   ? -ENOMEM
			   : 1;
	}
	for (size_t i = 1; i < argc; i++) {
		const char *a = argv[i], *what = NULL;
		_cleanup_free_ char *sug = NULL;

		if (!strcmp(a, "-exec") || !strcmp(a, "-execdir") || !strcmp(a, "-ok") ||
		    !strcmp(a, "-okdir"))
			after_exec = true;
		if (is_operator(a) && !(after_exec && !strcmp(a, ";")))
			what = "is a shell operator";
		else if (a[0] == '~')
			what = "starts with ~";
		else if (has_glob(a) && !literal_pattern_arg(argv, i, pattern_pos) &&
			 glob_matches_here(a, cwd))
			what = "is a glob that matches files here";
		if (!what)
			continue;
		if (!(sug = suggest_shell(argv)))
			return -ENOMEM;
		*ret_rule = "argv-shell";
		return asprintf(ret_msg,
				"argument `%.200s` %s, but no shell runs this call: pipes, "
				"redirects and globbing need an explicit shell: run %s",
				a, what, sug) < 0
			   ? -ENOMEM
			   : 1;
	}
	return 0;
}
