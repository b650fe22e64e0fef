/* api-loop.c - libpaddock's resident cost for `make bench`: paddock_run() of `true` in a
 * loop, each call interleaved with a run of a floor command; medians, ratio, and the RSS of
 * the caller and of the session's engine after 100 calls and after CALLS. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "paddock.h"

static const char usage[] =
	"usage: api-loop [-n ROUNDS] [-w WARMUP] [-m CALLS] [-b BACKEND] [-t TARGET] [-s]\n"
	"                [:: LABEL -- FLOOR-ARGV...]\n"
	"Each round makes one paddock_run() of `true` and runs the floor once; prints the\n"
	"medians and their ratio (-s: exit 2 above TARGET). -m: make CALLS calls and compare\n"
	"the caller's and the engine's RSS after 100 and after CALLS.\n";

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* VmRSS of a process in KiB, or -1. */
static long rss(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/* The session's engine: this process's one child. */
static pid_t engine(void)
{
	char path[64], buf[256];
	FILE *f;
	int pid = -1;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)getpid(), (int)getpid());
	if ((f = fopen(path, "r"))) {
		if (fgets(buf, sizeof(buf), f))
			pid = atoi(buf);
		fclose(f);
	}
	return pid;
}

static int one_call(struct paddock_session *s)
{
	static const char *const argv[] = {"true", NULL};
	struct paddock_request rq = PADDOCK_REQUEST_INIT(argv);
	struct paddock_result *res;
	char why[512];

	if (paddock_run(s, &rq, &res, why, sizeof(why)) < 0) {
		fprintf(stderr, "api-loop: %s\n", why);
		return -1;
	}
	if (res->exit_code != 0) {
		fprintf(stderr, "api-loop: `true` exited %d: %s\n", res->exit_code,
			res->error ? res->error : res->text);
		paddock_result_free(res);
		return -1;
	}
	paddock_result_free(res);
	return 0;
}

static int floor_run(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct paddock_options o = PADDOCK_OPTIONS_INIT;
	struct paddock_session *s;
	int rounds = 200, warm = 5, calls = 0, c, strict = 0;
	double target = 0;
	const char *label = NULL;
	char **floor = NULL, why[512];

	while ((c = getopt(argc, argv, "+n:w:m:b:t:s")) != -1) {
		switch (c) {
		case 'n': rounds = atoi(optarg); break;
		case 'w': warm = atoi(optarg); break;
		case 'm': calls = atoi(optarg); break;
		case 'b': o.backend = optarg; break;
		case 't': target = atof(optarg); break;
		case 's': strict = 1; break;
		default: fputs(usage, stderr); return 1;
		}
	}
	if (optind < argc) {
		if (strcmp(argv[optind], "::") != 0 || optind + 3 >= argc ||
		    strcmp(argv[optind + 2], "--") != 0) {
			fputs(usage, stderr);
			return 1;
		}
		label = argv[optind + 1];
		floor = argv + optind + 3;
	}
	if (rounds < 1) {
		fputs(usage, stderr);
		return 1;
	}
	if (paddock_session_new(&o, &s, why, sizeof(why)) < 0) {
		fprintf(stderr, "api-loop: %s\n", why);
		return 1;
	}
	if (calls) {
		long caller[2], eng[2];
		for (int i = 0; i < calls; i++) {
			if (one_call(s) < 0)
				return 1;
			if (i == 99) {
				caller[0] = rss(getpid());
				eng[0] = rss(engine());
			}
		}
		caller[1] = rss(getpid());
		eng[1] = rss(engine());
		printf("| caller RSS, in-process loop | %ld KiB after 100 | %ld KiB after %d | %+ld KiB |\n",
		       caller[0], caller[1], calls, caller[1] - caller[0]);
		printf("| engine RSS | %ld KiB after 100 | %ld KiB after %d | %+ld KiB |\n", eng[0],
		       eng[1], calls, eng[1] - eng[0]);
		paddock_session_free(s);
		return 0;
	}
	double *t = calloc((size_t)rounds, sizeof(*t)), *f = calloc((size_t)rounds, sizeof(*f));
	if (!t || !f)
		return 1;
	for (int i = -warm; i < rounds; i++) {
		double t0 = now();
		if (one_call(s) < 0)
			return 1;
		double t1 = now();
		if (floor && floor_run(floor) < 0) {
			fprintf(stderr, "api-loop: the floor command failed\n");
			return 1;
		}
		double t2 = now();
		if (i >= 0) {
			t[i] = t1 - t0;
			f[i] = t2 - t1;
		}
	}
	paddock_session_free(s);
	double mt = median(t, rounds);
	if (!floor) {
		printf("| `paddock_run()` of `true` | %.2f ms | | |\n", mt * 1e3);
		return 0;
	}
	double mf = median(f, rounds), ratio = mt / mf;
	const char *zy = getenv("PADDOCK_ZYGOTE");

	printf("| `paddock_run()` of `true`, %s%s | %.2f ms | %.2f ms | %.2fx%s |\n",
	       o.backend ? o.backend : "default",
	       zy && strcmp(zy, "0") == 0 ? ", PADDOCK_ZYGOTE=0" : "", mt * 1e3, mf * 1e3, ratio,
	       target ? (ratio <= target ? ": met" : ": missed") : "");
	(void)label;
	return strict && target && ratio > target ? 2 : 0;
}
