/* backend-exec.c - test driver: runs one command under a confinement backend
 * through the backend API alone, so the escape tests need no runner. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <libgen.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "confine/confine.h"
#include "core/util.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef __NR_close_range
#define __NR_close_range 436
#endif

extern const struct pdk_backend pdk_backend_landlock;
#ifdef HAVE_BWRAP
extern const struct pdk_backend pdk_backend_bwrap;
#endif

static const struct pdk_backend *const backends[] = {
	&pdk_backend_landlock,
#ifdef HAVE_BWRAP
	&pdk_backend_bwrap,
#endif
};

/* What the child reports over the pipe when it cannot exec. */
struct child_err {
	int stage; /* 0 chdir, 1 enter, 2 exec */
	int err;
};

static char *roots[64], *protect[64];

static void free_paths(void)
{
	for (size_t i = 0; i < 64; i++) {
		free(roots[i]);
		free(protect[i]);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: backend-exec [--backend NAME] [--root DIR]... [--protect PATH]... "
			"[--network] [--cwd DIR] [--max-procs N] [--print] [--inject-bind DIR] -- "
			"PROGRAM [ARG...]\n");
	exit(125);
}

/* realpath, or for a path that does not exist yet, its existing parent's. */
static char *resolve(const char *path)
{
	char *r = realpath(path, NULL);
	_cleanup_free_ char *d = NULL, *b = NULL, *dr = NULL;

	if (r || errno != ENOENT)
		return r;
	d = strdup(path);
	b = strdup(path);
	if (!d || !b)
		return NULL;
	dr = realpath(dirname(d), NULL);
	if (!dr)
		return NULL;
	if (asprintf(&r, "%s/%s", strcmp(dr, "/") ? dr : "", basename(b)) < 0)
		return NULL;
	return r;
}

static void child_fail(int fd, int stage, int err)
{
	struct child_err ce = { stage, err };

	(void)!write(fd, &ce, sizeof(ce));
	_exit(stage == 2 && err == ENOENT ? 127 : stage == 2 ? 126 : 125);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"backend", required_argument, NULL, 'b'},
	    {"root", required_argument, NULL, 'r'},
	    {"protect", required_argument, NULL, 'p'},
	    {"network", no_argument, NULL, 'n'},
	    {"cwd", required_argument, NULL, 'C'},
	    {"max-procs", required_argument, NULL, 'm'},
	    {"print", no_argument, NULL, 'P'},
	    /* A wrapper's helper given one more writable bind of DIR, as if a
	     * directory had been swapped while it set up: the backend's check
	     * must stop the command. */
	    {"inject-bind", required_argument, NULL, 'I'},
	    {0},
	};
	const struct pdk_backend *be = backends[0];
	struct pdk_confine policy = { 0 };
	char why[1024] = "";
	char **cmd, **wrapped = NULL;
	void *state = NULL;
	bool print = false;
	const char *inject = NULL;
	int c, r, pfd[2], status, code;
	struct child_err ce;
	pid_t pid;
	ssize_t n;

	atexit(free_paths);
	while ((c = getopt_long(argc, argv, "+b:r:p:nC:m:PI:", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			be = NULL;
			for (size_t i = 0; i < PDK_ARRAY_SIZE(backends); i++)
				if (!strcmp(backends[i]->name, optarg))
					be = backends[i];
			if (!be) {
				fprintf(stderr, "backend-exec: backend %s not compiled in\n", optarg);
				return 125;
			}
			break;
		case 'r':
		case 'p': {
			char *p = resolve(optarg);
			size_t *count = c == 'r' ? &policy.n_roots : &policy.n_protect;

			if (!p || *count >= 64) {
				fprintf(stderr, "backend-exec: %s: %s\n", optarg, strerror(errno));
				return 125;
			}
			(c == 'r' ? roots : protect)[(*count)++] = p;
			break;
		}
		case 'n':
			policy.network = true;
			break;
		case 'C':
			policy.cwd = optarg;
			break;
		case 'm':
			policy.max_procs = strtoul(optarg, NULL, 10);
			break;
		case 'P':
			print = true;
			break;
		case 'I':
			inject = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	cmd = argv + optind;
	policy.roots = (const char *const *)roots;
	policy.protect = (const char *const *)protect;

	r = be->probe(why, sizeof(why));
	if (r < 0) {
		fprintf(stderr, "backend-exec: %s: %s\n", be->name, why);
		return 125;
	}
	r = be->prepare(&policy, &state);
	if (r < 0) {
		fprintf(stderr, "backend-exec: %s: prepare: %s\n", be->name, strerror(-r));
		be->release(state);
		return 125;
	}
	if (be->wrap_argv) {
		r = be->wrap_argv(state, cmd, &wrapped);
		if (r < 0) {
			fprintf(stderr, "backend-exec: %s: wrap: %s\n", be->name, strerror(-r));
			be->release(state);
			return 125;
		}
		cmd = wrapped;
	}
	if (inject && wrapped) {
		size_t k = 0, at;
		char **v;

		while (wrapped[k])
			k++;
		for (at = 1; at < k && strcmp(wrapped[at], "--"); at++)
			;
		if (!(v = realloc(wrapped, (k + 4) * sizeof(*v))))
			return 125;
		/* Last of the options, so that no later bind covers it. */
		memmove(v + at + 3, v + at, (k + 1 - at) * sizeof(*v));
		v[at] = strdup("--bind");
		v[at + 1] = strdup(inject);
		v[at + 2] = strdup(inject);
		cmd = wrapped = v;
	}
	if (print) {
		r = be->describe ? be->describe(state, cmd, stdout) : -ENOTSUP;
		be->release(state);
		return r < 0 ? 125 : 0;
	}

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		perror("backend-exec: pipe");
		return 125;
	}
	fflush(NULL);
	/* As the runner does: the connect supervisor, made before the fork. */
	if (be->before_fork && (r = be->before_fork(state)) < 0) {
		fprintf(stderr, "backend-exec: %s: %s\n", be->name, strerror(-r));
		return 125;
	}
	pid = fork();
	if (pid < 0) {
		perror("backend-exec: fork");
		return 125;
	}
	if (pid == 0) {
		syscall(__NR_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
		if (policy.cwd && chdir(policy.cwd) < 0)
			child_fail(pfd[1], 0, errno);
		r = be->enter ? be->enter(state) : 0;
		if (r < 0)
			child_fail(pfd[1], 1, -r);
		if (cmd[0][0] == '/')
			execv(cmd[0], cmd);
		else
			execvp(cmd[0], cmd);
		child_fail(pfd[1], 2, errno);
	}
	close(pfd[1]);
	do
		n = read(pfd[0], &ce, sizeof(ce));
	while (n < 0 && errno == EINTR);
	/* As the runner does: the backend may stop the command before it starts. */
	if (n == 0 && be->spawned && (r = be->spawned(state, why, sizeof(why))) < 0) {
		kill(pid, SIGKILL);
		fprintf(stderr, "backend-exec: %s: the command was stopped before it started: %s\n",
			be->name, why[0] ? why : strerror(-r));
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 125;
	code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	/* As the runner does: a wrapper's 128+N may be a death by signal N. */
	if (n == 0 && be->exit_status && (!be->started || be->started(state) != 0))
		code = be->exit_status(state, code);
	be->release(state);
	pdk_strv_freep(&wrapped);
	if (n == sizeof(ce)) {
		static const char *const stage[] = { "chdir", "enter", "exec" };

		fprintf(stderr, "backend-exec: %s: %s: %s\n", be->name, stage[ce.stage],
			strerror(ce.err));
	}
	if (code < 0) {
		fprintf(stderr, "backend-exec: %s: the command was killed by signal %d\n", be->name,
			-code);
		return 128 - code;
	}
	return code;
}
