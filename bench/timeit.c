/* timeit.c - times commands side by side for `make bench`: fork/exec each one directly (no
 * shell), rounds interleaved, then medians, ratios and peak RSS as a Markdown table. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CMDS 16
#define MAX_STAGES 4
#define MAX_VS 4
#define HWM_RUNS 3
#define MAX_RMDIR 128

static const char usage[] =
	"usage: timeit [-n ROUNDS] [-w WARMUP] [-s] [-t TITLE] CMD...\n"
	"  CMD: :: LABEL [as=NAME] [vs=LABEL|NAME[@RATIO]]... [rss[@KIB]] [fd=N:FILE] [wfd=N:FILE]\n"
	"         [rm=PATH]... -- ARGV [| ARGV]...\n"
	"Each round runs every command once, starting one command later than the round\n"
	"before; stdout goes to /dev/null, stderr is inherited. fd=N:FILE opens FILE afresh\n"
	"as fd N for each run (wfd=: for writing); rm=PATH, an empty file or directory, is removed after each run (untimed).\n"
	"A ratio is this command's median over the other's, then (paired) the median of\n"
	"the per-round ratios; @RATIO is the target, judged on the first. rss@KIB: peak RSS\n"
	"target. -s: exit 2 when a target is missed.\n";

struct vs {
	const char *label;
	int idx;
	double target; /* 0: no target */
};

struct cmd {
	const char *label;
	const char *as;           /* shorter name for ratio cells, or NULL */
	char **stage[MAX_STAGES]; /* pipeline, each a NULL-terminated argv */
	int n_stages;
	struct vs vs[MAX_VS];
	int n_vs;
	bool rss;
	long rss_target_kib; /* 0: no target */
	const char *rmdir[MAX_RMDIR]; /* removed (when empty) after each run, untimed */
	int n_rmdir;
	int fd_num;          /* -1: none */
	const char *fd_file;
	int wfd_num;         /* the same, opened for writing */
	const char *wfd_file;
	double *secs;        /* one per round, in round order */
	double *sorted;      /* the same, sorted */
	long *rss_kib;       /* one per round: max ru_maxrss over the pipeline */
	long hwm_kib;        /* first stage's own VmHWM, max over HWM_RUNS; -1: unknown */
};

static struct cmd cmds[MAX_CMDS];
static int n_cmds;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("timeit: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* VmHWM of a live process in KiB, or -1 (gone, or not readable). */
static long vm_hwm_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/*
 * Run c once; returns wall seconds from the first fork to the last reap. With ret_hwm, the
 * first stage's own VmHWM is sampled every 2 ms until it exits (a lower bound of its peak,
 * which ru_maxrss cannot give apart from the children it reaps); such runs are not timed.
 */
static double run_once(const struct cmd *c, int devnull, long *ret_rss, long *ret_hwm)
{
	pid_t pid[MAX_STAGES];
	int extra = -1, wextra = -1, in = -1;
	long rss = 0;
	double t0, t1;

	/* A fresh open per run: a reader such as bwrap --seccomp consumes it. */
	if (c->fd_file) {
		int fd = open(c->fd_file, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die("%s: %s", c->fd_file, strerror(errno));
		extra = fcntl(fd, F_DUPFD_CLOEXEC, 100);
		close(fd);
		if (extra < 0)
			die("fcntl: %s", strerror(errno));
	}
	if (c->wfd_file) {
		int fd = open(c->wfd_file, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd < 0)
			die("%s: %s", c->wfd_file, strerror(errno));
		wextra = fcntl(fd, F_DUPFD_CLOEXEC, 101);
		close(fd);
		if (wextra < 0)
			die("fcntl: %s", strerror(errno));
	}
	t0 = now();
	for (int s = 0; s < c->n_stages; s++) {
		int p[2] = { -1, -1 };
		bool last = s == c->n_stages - 1;

		if (!last && pipe2(p, O_CLOEXEC) < 0)
			die("pipe: %s", strerror(errno));
		pid[s] = fork();
		if (pid[s] < 0)
			die("fork: %s", strerror(errno));
		if (pid[s] == 0) {
			/* dup2 clears close-on-exec on the target only. */
			if (dup2(in >= 0 ? in : devnull, 0) < 0)
				_exit(126);
			if (dup2(last ? devnull : p[1], 1) < 0)
				_exit(126);
			if (extra >= 0 && dup2(extra, c->fd_num) < 0)
				_exit(126);
			if (wextra >= 0 && dup2(wextra, c->wfd_num) < 0)
				_exit(126);
			execvp(c->stage[s][0], c->stage[s]);
			_exit(errno == ENOENT ? 127 : 126);
		}
		if (in >= 0)
			close(in);
		if (!last) {
			close(p[1]);
			in = p[0];
		}
	}
	for (int s = 0; s < c->n_stages; s++) {
		struct rusage ru;
		int status;

		if (s == 0 && ret_hwm) {
			*ret_hwm = -1;
			for (;;) {
				long h = vm_hwm_kib(pid[0]);
				struct timespec nap = { 0, 2000000 };
				pid_t r = wait4(pid[0], &status, WNOHANG, &ru);

				if (r == pid[0])
					goto reaped;
				if (r < 0 && errno != EINTR)
					die("wait4: %s", strerror(errno));
				if (h > *ret_hwm)
					*ret_hwm = h;
				nanosleep(&nap, NULL);
			}
		}
		while (wait4(pid[s], &status, 0, &ru) < 0)
			if (errno != EINTR)
				die("wait4: %s", strerror(errno));
reaped:
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			die("%s: stage %d (%s) ended with %s %d", c->label, s + 1, c->stage[s][0],
			    WIFEXITED(status) ? "exit status" : "signal",
			    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		/* ru_maxrss of a reaped child covers it and its own reaped children. */
		if (ru.ru_maxrss > rss)
			rss = ru.ru_maxrss;
	}
	t1 = now();
	if (extra >= 0)
		close(extra);
	if (wextra >= 0)
		close(wextra);
	/* Mount points a wrapper left behind: removed only while empty. */
	for (int i = 0; i < c->n_rmdir; i++) {
		struct stat st;

		if (lstat(c->rmdir[i], &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode))
			(void)rmdir(c->rmdir[i]);
		else if (S_ISREG(st.st_mode) && st.st_size == 0)
			(void)unlink(c->rmdir[i]);
	}
	*ret_rss = rss;
	return t1 - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Quantile q of n sorted values, interpolated between neighbours. */
static double quantile(const double *v, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

/* s in the unit chosen for the median ref, so a row's figures compare at a glance. */
static void fmt_time(char *buf, size_t len, double s, double ref, bool unit)
{
	if (ref >= 1)
		snprintf(buf, len, "%.3f%s", s, unit ? " s" : "");
	else
		snprintf(buf, len, "%.2f%s", s * 1e3, unit ? " ms" : "");
}

/* A table cell: '|' would end it, so it is escaped (GitHub Markdown reads \| in code too). */
static void put_cell(const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			putchar('\\');
		putchar(*s);
	}
}

static void fmt_kib(char *buf, size_t len, double kib)
{
	snprintf(buf, len, "%.1f MiB", kib / 1024);
}

static const char *base(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static int find_label(const char *label)
{
	for (int i = 0; i < n_cmds; i++)
		if (!strcmp(cmds[i].label, label) || (cmds[i].as && !strcmp(cmds[i].as, label)))
			return i;
	return -1;
}

/* Parse one ":: LABEL OPT... -- ARGV [| ARGV]..." starting at argv[i]. */
static int parse_cmd(char **argv, int i, int argc)
{
	struct cmd *c;

	if (n_cmds == MAX_CMDS)
		die("more than %d commands", MAX_CMDS);
	c = &cmds[n_cmds++];
	c->fd_num = c->wfd_num = -1;
	if (++i >= argc)
		die("':: ' needs a label");
	c->label = argv[i++];
	for (; i < argc && strcmp(argv[i], "--"); i++) {
		const char *o = argv[i];
		char *end;

		if (!strncmp(o, "as=", 3)) {
			c->as = o + 3;
		} else if (!strncmp(o, "vs=", 3)) {
			struct vs *v;
			char *at;

			if (c->n_vs == MAX_VS)
				die("%s: more than %d vs=", c->label, MAX_VS);
			v = &c->vs[c->n_vs++];
			v->label = strdup(o + 3);
			at = strrchr((char *)v->label, '@');
			if (at) {
				*at = '\0';
				v->target = strtod(at + 1, &end);
				if (*end || v->target <= 0)
					die("%s: bad target in %s", c->label, o);
			}
		} else if (!strcmp(o, "rss") || !strncmp(o, "rss@", 4)) {
			c->rss = true;
			if (o[3] == '@') {
				c->rss_target_kib = strtol(o + 4, &end, 10);
				if (*end || c->rss_target_kib <= 0)
					die("%s: bad target in %s", c->label, o);
			}
		} else if (!strncmp(o, "rm=", 3)) {
			if (c->n_rmdir == MAX_RMDIR)
				die("%s: more than %d rm=", c->label, MAX_RMDIR);
			c->rmdir[c->n_rmdir++] = o + 3;
		} else if (!strncmp(o, "fd=", 3)) {
			c->fd_num = (int)strtol(o + 3, &end, 10);
			if (*end != ':' || c->fd_num < 3 || c->fd_num >= 100)
				die("%s: fd= wants N:FILE with 3 <= N < 100", c->label);
			c->fd_file = end + 1;
		} else if (!strncmp(o, "wfd=", 4)) {
			c->wfd_num = (int)strtol(o + 4, &end, 10);
			if (*end != ':' || c->wfd_num < 3 || c->wfd_num >= 100)
				die("%s: wfd= wants N:FILE with 3 <= N < 100", c->label);
			c->wfd_file = end + 1;
		} else {
			die("%s: unknown option %s\n%s", c->label, o, usage);
		}
	}
	if (i >= argc)
		die("%s: no '--' before the command", c->label);
	i++;
	for (;;) {
		if (c->n_stages == MAX_STAGES)
			die("%s: more than %d stages", c->label, MAX_STAGES);
		c->stage[c->n_stages++] = &argv[i];
		while (i < argc && strcmp(argv[i], "|") && strcmp(argv[i], "::"))
			i++;
		if (c->stage[c->n_stages - 1] == &argv[i])
			die("%s: empty command", c->label);
		if (i >= argc || !strcmp(argv[i], "::"))
			break;
		argv[i++] = NULL; /* ends the stage's argv */
	}
	return i;
}

int main(int argc, char **argv)
{
	int rounds = 100, warmup = 3, opt, devnull, missed = 0;
	bool strict = false;
	double *ratios;
	const char *title = NULL;
	char **cmdv;
	int cmdc;

	while ((opt = getopt(argc, argv, "+n:w:st:h")) != -1) {
		switch (opt) {
		case 'n':
			rounds = atoi(optarg);
			break;
		case 'w':
			warmup = atoi(optarg);
			break;
		case 's':
			strict = true;
			break;
		case 't':
			title = optarg;
			break;
		default:
			fputs(usage, opt == 'h' ? stdout : stderr);
			return opt == 'h' ? 0 : 1;
		}
	}
	if (rounds < 1 || warmup < 0)
		die("ROUNDS must be at least 1 and WARMUP at least 0");
	cmdv = argv + optind;
	cmdc = argc - optind;
	for (int i = 0; i < cmdc;) {
		if (strcmp(cmdv[i], "::"))
			die("expected '::' at '%s'\n%s", cmdv[i], usage);
		i = parse_cmd(cmdv, i, cmdc);
	}
	if (!n_cmds)
		die("no command\n%s", usage);
	/* A stage's argv ends at the next "::" (or at argv's own NULL). */
	for (int i = 0; i < cmdc; i++)
		if (cmdv[i] && !strcmp(cmdv[i], "::"))
			cmdv[i] = NULL;
	for (int i = 0; i < n_cmds; i++) {
		cmds[i].secs = calloc(rounds, sizeof(double));
		cmds[i].sorted = calloc(rounds, sizeof(double));
		cmds[i].rss_kib = calloc(rounds, sizeof(long));
		if (!cmds[i].secs || !cmds[i].sorted || !cmds[i].rss_kib)
			die("out of memory");
		for (int k = 0; k < cmds[i].n_vs; k++) {
			cmds[i].vs[k].idx = find_label(cmds[i].vs[k].label);
			if (cmds[i].vs[k].idx < 0)
				die("%s: vs=%s names no command", cmds[i].label, cmds[i].vs[k].label);
		}
	}
	/* Every command reads /dev/null and writes its output there. */
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull < 0)
		die("/dev/null: %s", strerror(errno));
	signal(SIGPIPE, SIG_DFL);

	for (int r = -warmup; r < rounds; r++) {
		/* Rotate the start so no command always follows the same one. */
		int first = (r + warmup) % n_cmds;

		for (int k = 0; k < n_cmds; k++) {
			struct cmd *c = &cmds[(first + k) % n_cmds];
			long rss;
			double t = run_once(c, devnull, &rss, NULL);

			if (r >= 0) {
				c->secs[r] = t;
				c->rss_kib[r] = rss;
			}
		}
	}

	/* Untimed: sample the first stage's own high-water mark apart from its children. */
	for (int i = 0; i < n_cmds; i++) {
		struct cmd *c = &cmds[i];

		c->hwm_kib = -1;
		for (int r = 0; c->rss && r < HWM_RUNS; r++) {
			long rss, hwm;

			run_once(c, devnull, &rss, &hwm);
			if (hwm > c->hwm_kib)
				c->hwm_kib = hwm;
		}
	}

	ratios = calloc(rounds, sizeof(double));
	if (!ratios)
		die("out of memory");
	if (title)
		printf("%s\n\n", title);
	printf("| command | median | p10-p90 | ratio | target |\n");
	printf("|---|--:|--:|---|---|\n");
	for (int i = 0; i < n_cmds; i++) {
		struct cmd *c = &cmds[i];

		memcpy(c->sorted, c->secs, rounds * sizeof(double));
		qsort(c->sorted, rounds, sizeof(double), cmp_double);
	}
	for (int i = 0; i < n_cmds; i++) {
		struct cmd *c = &cmds[i];
		double m = quantile(c->sorted, rounds, 0.5);
		char med[32], lo[32], hi[32], ratio[512] = "", target[128] = "";
		size_t rl = 0, tl = 0;

		fmt_time(med, sizeof(med), m, m, true);
		fmt_time(lo, sizeof(lo), quantile(c->sorted, rounds, 0.1), m, false);
		fmt_time(hi, sizeof(hi), quantile(c->sorted, rounds, 0.9), m, true);
		for (int k = 0; k < c->n_vs; k++) {
			const struct vs *v = &c->vs[k];
			const struct cmd *ref = &cmds[v->idx];
			double x = m / quantile(ref->sorted, rounds, 0.5);
			double paired;

			/* Rounds run close together, so a per-round ratio cancels slow drift. */
			for (int r = 0; r < rounds; r++)
				ratios[r] = c->secs[r] / ref->secs[r];
			qsort(ratios, rounds, sizeof(double), cmp_double);
			paired = quantile(ratios, rounds, 0.5);
			rl += snprintf(ratio + rl, sizeof(ratio) - rl, "%s%.2fx %s (paired %.2fx)",
				       k ? "; " : "", x, ref->as ? ref->as : ref->label, paired);
			if (v->target > 0) {
				bool ok = x <= v->target;
				missed += !ok;
				tl += snprintf(target + tl, sizeof(target) - tl, "%s<= %.2fx: %s",
					       tl ? "; " : "", v->target, ok ? "met" : "MISSED");
			}
		}
		printf("| ");
		put_cell(c->label);
		printf(" | %s | %s - %s | ", med, lo, hi);
		put_cell(ratio);
		printf(" | %s |\n", target);
	}
	for (int i = 0; i < n_cmds; i++) {
		struct cmd *c = &cmds[i];
		double *kib;
		char med[32], lo[32], hi[32], target[64] = "";

		if (!c->rss)
			continue;
		kib = calloc(rounds, sizeof(double));
		if (!kib)
			die("out of memory");
		for (int r = 0; r < rounds; r++)
			kib[r] = c->rss_kib[r];
		qsort(kib, rounds, sizeof(double), cmp_double);
		fmt_kib(med, sizeof(med), quantile(kib, rounds, 0.5));
		snprintf(lo, sizeof(lo), "%.1f", kib[0] / 1024);
		fmt_kib(hi, sizeof(hi), kib[rounds - 1]);
		if (c->rss_target_kib) {
			bool ok = kib[rounds - 1] < c->rss_target_kib;
			missed += !ok;
			snprintf(target, sizeof(target), "< %.0f MiB (max): %s",
				 c->rss_target_kib / 1024.0, ok ? "met" : "MISSED");
		}
		printf("| peak RSS, ");
		put_cell(c->as ? c->as : c->label);
		printf(" (ru_maxrss, with its children) | %s | %s - %s (min - max) | | %s |\n", med, lo,
		       hi, target);
		if (c->hwm_kib >= 0) {
			fmt_kib(med, sizeof(med), c->hwm_kib);
			printf("| peak RSS, %s alone (VmHWM sampled, max of %d runs) | %s | | | |\n",
			       base(c->stage[0][0]), HWM_RUNS, med);
		}
		free(kib);
	}
	printf("\n%d rounds of %d command%s, interleaved, after %d warm-up round%s.\n", rounds,
	       n_cmds, n_cmds == 1 ? "" : "s", warmup, warmup == 1 ? "" : "s");
	free(ratios);
	fflush(stdout);
	return strict && missed ? 2 : 0;
}
