/* mcp-rtt.c - the resident cost for `make bench`: sequential run_command calls of `true`
 * to one `paddock mcp`, round trips interleaved with a floor command, then medians and RSS. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
	"usage: mcp-rtt [-n ROUNDS] [-w WARMUP] [-m CALLS] [-t TARGET] PADDOCK [MCP-OPTION...]\n"
	"               [:: LABEL [fd=N:FILE] [wfd=N:FILE] -- FLOOR-ARGV...]\n"
	"Each round makes one run_command call of `true` and runs the floor once; prints the\n"
	"medians and their ratio (TARGET: exit 2 above it with -s). -m: also make CALLS calls\n"
	"and compare the server's RSS after 100 and after CALLS. -c N: each round makes N calls\n"
	"at once and runs N floors at once; prints the calls' throughput against the floors'.\n";

static int to_srv = -1, from_srv = -1;
static char buf[1 << 16];
static size_t have;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void say(const char *s)
{
	size_t n = strlen(s);
	if (write(to_srv, s, n) != (ssize_t)n) {
		fprintf(stderr, "mcp-rtt: the server went away\n");
		exit(1);
	}
}

/* Read lines until the answer to id; 0, or -1 on EOF or an error answer. */
static int answer(long id)
{
	char want[32];
	snprintf(want, sizeof(want), "\"id\":%ld,", id);
	for (;;) {
		char *nl;
		while ((nl = memchr(buf, '\n', have))) {
			size_t k = (size_t)(nl + 1 - buf);
			int hit = memmem(buf, k, want, strlen(want)) != NULL;
			int bad = hit && (memmem(buf, k, "\"isError\":true", 14) || memmem(buf, k, "\"error\":{", 9));
			memmove(buf, buf + k, have - k);
			have -= k;
			if (hit)
				return bad ? -1 : 0;
		}
		if (have == sizeof(buf))
			have = 0; /* a long notification: not ours */
		ssize_t n = read(from_srv, buf + have, sizeof(buf) - have);
		if (n <= 0)
			return -1;
		have += (size_t)n;
	}
}

static long next_id = 1;
static double call_true(void)
{
	char req[256];
	long id = next_id++;
	double t0 = now();
	snprintf(req, sizeof(req),
		 "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"tools/call\",\"params\":{\"name\":"
		 "\"run_command\",\"arguments\":{\"argv\":[\"true\"]}}}\n", id);
	say(req);
	if (answer(id) < 0) {
		fprintf(stderr, "mcp-rtt: call %ld failed\n", id);
		exit(1);
	}
	return now() - t0;
}

/* N calls at once: sent together, done when N answers have come, in any order. */
static double call_batch(int k)
{
	char req[256];
	double t0 = now();
	int got = 0;

	for (int i = 0; i < k; i++) {
		snprintf(req, sizeof(req),
			 "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"tools/call\",\"params\":"
			 "{\"name\":\"run_command\",\"arguments\":{\"argv\":[\"true\"]}}}\n",
			 next_id++);
		say(req);
	}
	while (got < k) {
		char *nl;
		while (got < k && (nl = memchr(buf, '\n', have))) {
			size_t n = (size_t)(nl + 1 - buf);
			if (memmem(buf, n, "\"id\":", 5) &&
			    (memmem(buf, n, "\"result\"", 8) || memmem(buf, n, "\"error\"", 7))) {
				if (memmem(buf, n, "\"isError\":true", 14) ||
				    memmem(buf, n, "\"error\":{", 9)) {
					fprintf(stderr, "mcp-rtt: a call at once failed\n");
					exit(1);
				}
				got++;
			}
			memmove(buf, buf + n, have - n);
			have -= n;
		}
		if (got == k)
			break;
		if (have == sizeof(buf))
			have = 0;
		ssize_t n = read(from_srv, buf + have, sizeof(buf) - have);
		if (n <= 0) {
			fprintf(stderr, "mcp-rtt: the server went away\n");
			exit(1);
		}
		have += (size_t)n;
	}
	return now() - t0;
}

/* fd=N:FILE (wfd=: for writing), opened afresh for each run of the floor. */
static char **fdspecs;
static int n_fdspecs;

/* In the floor's child: stdout to /dev/null, the fd specs opened, the exec. */
static void __attribute__((noreturn)) floor_exec(char **argv)
{
	int dn = open("/dev/null", O_WRONLY);

	dup2(dn, 1);
	for (int i = 0; i < n_fdspecs; i++) {
		bool w = fdspecs[i][0] == 'w';
		char *spec = fdspecs[i] + (w ? 4 : 3), *colon = strchr(spec, ':');
		int want = atoi(spec), fd = colon ? open(colon + 1, w ? O_WRONLY : O_RDONLY) : -1;
		if (fd < 0 || dup2(fd, want) < 0)
			_exit(126);
		if (fd != want)
			close(fd);
	}
	execvp(argv[0], argv);
	_exit(127);
}

/* N floors at once (1: one floor). */
static double run_floor_batch(char **argv, int k)
{
	double t0 = now();
	pid_t *pids = calloc((size_t)k, sizeof(*pids));

	for (int i = 0; i < k; i++)
		if ((pids[i] = fork()) == 0)
			floor_exec(argv);
	for (int i = 0; i < k; i++) {
		int st;
		waitpid(pids[i], &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "mcp-rtt: the floor %s failed\n", argv[0]);
			exit(1);
		}
	}
	free(pids);
	return now() - t0;
}

static double run_floor(char **argv)
{
	return run_floor_batch(argv, 1);
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

static long rss_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

int main(int argc, char **argv)
{
	int rounds = 200, warm = 10, calls = 0, c, strict = 0, batch = 0;
	double target = 0;
	while ((c = getopt(argc, argv, "+n:w:m:t:sc:")) != -1) {
		switch (c) {
		case 'c': batch = atoi(optarg); break;
		case 'n': rounds = atoi(optarg); break;
		case 'w': warm = atoi(optarg); break;
		case 'm': calls = atoi(optarg); break;
		case 't': target = atof(optarg); break;
		case 's': strict = 1; break;
		default: fputs(usage, stderr); return 1;
		}
	}
	if (optind >= argc || rounds < 1) {
		fputs(usage, stderr);
		return 1;
	}
	char **srv = argv + optind, **floor = NULL, *label = NULL;
	for (int i = optind; i < argc; i++)
		if (strcmp(argv[i], "::") == 0) {
			argv[i] = NULL;
			label = argv[i + 1];
			int k = i + 2;
			fdspecs = argv + k;
			while (k < argc && (strncmp(argv[k], "fd=", 3) == 0 || strncmp(argv[k], "wfd=", 4) == 0))
				k++;
			n_fdspecs = (int)(argv + k - fdspecs);
			if (k + 1 < argc && strcmp(argv[k], "--") == 0)
				floor = argv + k + 1;
			break;
		}
	/* paddock mcp OPTIONS: argv[0] is paddock, then "mcp" goes in. */
	int n = 0;
	while (srv[n])
		n++;
	char **sargv = calloc((size_t)n + 2, sizeof(*sargv));
	sargv[0] = srv[0];
	sargv[1] = "mcp";
	for (int i = 1; i < n; i++)
		sargv[i + 1] = srv[i];
	/* Close-on-exec: a floor holding the server's stdin would keep it from ever seeing EOF. */
	int in[2], out[2];
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
		return 1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execv(sargv[0], sargv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	to_srv = in[1];
	from_srv = out[0];
	signal(SIGPIPE, SIG_IGN);
	say("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
	    "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"mcp-rtt\",\"version\":\"1\"}}}\n"
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
	if (answer(0) < 0) {
		fprintf(stderr, "mcp-rtt: initialize failed\n");
		return 1;
	}
	for (int i = 0; i < warm; i++) {
		call_true();
		if (floor)
			run_floor(floor);
	}
	if (batch > 0 && floor) {
		double *a = calloc((size_t)rounds, sizeof(double));
		double *b = calloc((size_t)rounds, sizeof(double));
		char opts[512] = "";
		int rc = 0;

		for (int i = 0; i < rounds; i++) {
			if (i % 2)
				b[i] = run_floor_batch(floor, batch);
			a[i] = call_batch(batch);
			if (!(i % 2))
				b[i] = run_floor_batch(floor, batch);
		}
		double ma = median(a, rounds), mb = median(b, rounds), ratio = mb / ma;
		for (int i = 2; sargv[i]; i++)
			snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts), " %s", sargv[i]);
		printf("| `paddock mcp%s`, %d run_command `true` at once | %.0f calls/s | %s: "
		       "%.0f/s | %.2fx%s |\n",
		       opts, batch, batch / ma, label, batch / mb, ratio,
		       target > 0 ? (ratio >= target ? " (target met)" : " (target missed)") : "");
		if (target > 0 && ratio < target && strict)
			rc = 2;
		close(to_srv);
		waitpid(pid, NULL, 0);
		return rc;
	}
	double *a = calloc((size_t)rounds, sizeof(double)), *b = calloc((size_t)rounds, sizeof(double));
	for (int i = 0; i < rounds; i++) {
		/* Alternate which goes first, as timeit does. */
		if (floor && i % 2)
			b[i] = run_floor(floor);
		a[i] = call_true();
		if (floor && !(i % 2))
			b[i] = run_floor(floor);
	}
	double ma = median(a, rounds), mb = floor ? median(b, rounds) : 0;
	int rc = 0;
	char opts[512] = "";
	for (int i = 2; sargv[i]; i++)
		snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts), " %s", sargv[i]);
	printf("| `paddock mcp%s`, run_command `true` | %.3f ms |", opts, ma * 1e3);
	if (floor) {
		double ratio = ma / mb;
		printf(" %s: %.3f ms | %.2fx%s |", label, mb * 1e3, ratio,
		       target > 0 ? (ratio <= target ? " (target met)" : " (target missed)") : "");
		if (target > 0 && ratio > target && strict)
			rc = 2;
	}
	printf("\n");
	if (calls > 100) {
		while (next_id - 1 < 100)
			call_true();
		long at = next_id - 1, r100 = rss_kib(pid);
		while (next_id - 1 < calls)
			call_true();
		long rn = rss_kib(pid);
		printf("| server RSS | after %ld calls: %ld KiB | after %d calls: %ld KiB | %+ld KiB%s |\n",
		       at, r100, calls, rn, rn - r100,
		       rn - r100 <= 1024 ? " (within 1 MiB)" : " (over 1 MiB)");
		if (rn - r100 > 1024 && strict)
			rc = 2;
	}
	close(to_srv);
	waitpid(pid, NULL, 0);
	return rc;
}
