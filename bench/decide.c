/* decide.c - how long the command decision takes: a plain argv (`git status`)
 * and a 1,000-command sh -c script; prints the median of many runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "policy/policy.h"

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_us(const struct pdk_config *cfg, const struct pdk_policy_call *call, int runs,
			enum pdk_verdict *ret_verdict)
{
	double *t = calloc(runs, sizeof(*t)), m;

	for (int i = 0; i < runs; i++) {
		struct pdk_decision d;
		double a = now_us();

		if (pdk_policy_decide(cfg, call, &d) < 0) {
			fprintf(stderr, "decide: out of memory\n");
			exit(1);
		}
		t[i] = now_us() - a;
		*ret_verdict = d.verdict;
		pdk_decision_release(&d);
	}
	qsort(t, runs, sizeof(*t), cmp);
	m = t[runs / 2];
	free(t);
	return m;
}

int main(int argc, char **argv)
{
	static const char *const lines[] = {
	    "git status --short",
	    "grep -rn TODO src | head -20",
	    "ls -la build/ && echo done",
	    "cat notes.txt | sort | uniq -c > /dev/null",
	    "make -j2 CFLAGS=-O2",
	    "find . -name '*.o' -exec rm {} +",
	    "FOO=1 printf '%s\\n' \"$(date +%s)\"",
	    "if test -f x; then echo yes; else echo no; fi",
	    "sed -n '1,5p' README.md",
	    "rm -f tmp.txt",
	};
	char cwd[4096], *script, *plain[] = {"git", "status", NULL}, *shell[4];
	const char *home = getenv("HOME");
	int runs = argc > 1 ? atoi(argv[1]) : 2000;
	struct pdk_config cfg;
	struct pdk_policy_call call = {.home = home};
	enum pdk_verdict v1, v2;
	size_t o = 0;
	double a, b;

	if (!getcwd(cwd, sizeof(cwd)))
		return 1;
	call.cwd = cwd;
	pdk_config_init(&cfg);
	script = malloc(1000 * 64);
	for (int i = 0; i < 1000; i++)
		o += sprintf(script + o, "%s\n", lines[i % 10]);
	shell[0] = "sh";
	shell[1] = "-c";
	shell[2] = script;
	shell[3] = NULL;

	call.argv = plain;
	a = median_us(&cfg, &call, runs, &v1);
	call.argv = shell;
	b = median_us(&cfg, &call, runs < 200 ? runs : 200, &v2);
	printf("decide: plain argv `git status`: %.1f us median (target < 50 us), verdict %s\n", a,
	       pdk_verdict_name(v1));
	printf("decide: sh -c script of 1000 commands (%zu bytes): %.1f us median (target < 1000 "
	       "us), verdict %s\n",
	       o, b, pdk_verdict_name(v2));
	free(script);
	pdk_config_release(&cfg);
	return a < 50 && b < 1000 ? 0 : 1;
}
