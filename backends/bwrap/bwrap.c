/* bwrap.c - the bubblewrap backend: runs the command through the bwrap binary,
 * the policy translated into bind mounts, namespaces and a seccomp fd. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/self.h"
#include "bwrap.h"
#include "bwrap_check.h"
#include "bwrap_int.h"
#include "confine/confine.h"
#include "core/fmt.h"
#include "core/path.h"
#include "backends/seccomp/seccomp.h"
#include "net/supervise.h"
#include "core/state.h"
#include "run/reap.h"
#include "core/util.h"

/* Everything a run needs, built in the parent by prepare(). */
struct bwrap_state {
	char **prefix; /* bwrap argv up to, not including, "--" */
	size_t n_prefix;
	size_t cap_prefix;
	int seccomp_fd; /* sealed memfd; same number in parent and child */
	/* bwrap's --json-status-fd: it writes "child-pid" once it made the
	 * namespaces, and "exit-code" only when the command was executed. */
	int status_rd, status_wr;
	bool network;
	unsigned long max_procs;
	/* Domains mode: the sandbox's end of the proxy's control socket, and
	 * paddock itself, whose __proxy-listen starts the command. */
	int proxy_fd;
	char *self;
	/* Protected paths that exist but cannot be held (a symlink, unreadable). Missing ones
	 * are not held: nothing is made in the user's tree, and what the command makes at them
	 * is undone after the run (confine/vet.h). */
	char **unheld;
	size_t n_unheld;
	/* The writable roots and pins, opened through no symlink and bound by
	 * fd: a directory another run swaps for a symlink between the check and
	 * bwrap's mount cannot bring a place outside the roots in. */
	struct pdk_bwrap_bind *binds;
	size_t n_binds, cap_binds;
	/* bwrap waits on block_rd to start the command, until paddock has
	 * checked the mounts it made (bwrap_check.c) and writes block_wr. */
	int block_rd, block_wr;
	char seen[512]; /* what the check read of the status fd first */
	size_t n_seen;
	/* bwrap passes a death by signal on as the number 128+N: paddock-reap
	 * (src/run/reap.c) runs the command inside as its child and says
	 * "signal N" on reap_wr. NULL when it is not found: 128+N it is. */
	char *reaper;
	int reap_rd, reap_wr;
	/* Unix sockets: paddock's connect supervisor takes every call that
	 * names an address (connect_bpf, loaded before bwrap executes, under
	 * bwrap's own program), so that a unix socket reaches the run's own
	 * sockets and allowUnixSockets only. The paths, descriptors and roots
	 * are the policy's. */
	const char *const *roots;
	size_t n_roots;
	/* The protected paths (borrowed): the supervisor refuses to make a missing one. */
	const char *const *protect;
	size_t n_protect;
	const char *const *unix_paths;
	const int *unix_fds;
	size_t n_unix;
	bool unix_supervised;
	char unsupervised_why[128];
	struct pdk_bpf connect_bpf;
	struct pdk_netsup *sup;
};

static int push(struct bwrap_state *s, const char *arg)
{
	if (s->n_prefix + 1 >= s->cap_prefix) {
		size_t cap = s->cap_prefix ? s->cap_prefix * 2 : 32;
		char **v = realloc(s->prefix, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->prefix = v;
		s->cap_prefix = cap;
	}
	s->prefix[s->n_prefix] = strdup(arg);
	if (!s->prefix[s->n_prefix])
		return -ENOMEM;
	s->prefix[++s->n_prefix] = NULL;
	return 0;
}

static int push2(struct bwrap_state *s, const char *a, const char *b)
{
	int r = push(s, a);

	return r < 0 ? r : push(s, b);
}

static int push3(struct bwrap_state *s, const char *a, const char *b, const char *c)
{
	int r = push(s, a);

	return r < 0 ? r : push2(s, b, c);
}

static bool inside_a_root(const struct pdk_confine *policy, const char *path)
{
	for (size_t i = 0; i < policy->n_roots; i++)
		if (pdk_path_under(path, policy->roots[i]))
			return true;
	return false;
}

static int cmp_len(const void *a, const void *b)
{
	size_t la = strlen(*(char *const *)a), lb = strlen(*(char *const *)b);

	return la < lb ? -1 : la > lb;
}

/* Above 2, so the runner's dup2 onto stdio cannot clobber it, and
 * close-on-exec, so no other child of paddock inherits it. On failure the
 * fd is closed. */
static int keep_high(int fd, int *ret_fd)
{
	/* Every fd it is given is close-on-exec already. */
	if (fd < 3) {
		int hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		int e = errno;

		close(fd);
		if (hi < 0)
			return -e;
		fd = hi;
	}
	*ret_fd = fd;
	return 0;
}

/* Have bwrap bind fd (or /dev/null when fd is -1) at dest, read-only or not, and remember
 * it for the look at the sandbox before the command starts (bwrap_check.c). Takes fd. */
static int bind_fd(struct bwrap_state *s, int fd, const char *dest, bool ro)
{
	char fdbuf[16];
	int r;

	if (s->n_binds == s->cap_binds) {
		size_t cap = s->cap_binds ? s->cap_binds * 2 : 16;
		struct pdk_bwrap_bind *v = realloc(s->binds, cap * sizeof(*v));

		if (!v) {
			if (fd >= 0)
				close(fd);
			return -ENOMEM;
		}
		s->binds = v;
		s->cap_binds = cap;
	}
	if (fd >= 0 && (r = keep_high(fd, &fd)) < 0)
		return r;
	s->binds[s->n_binds] = (struct pdk_bwrap_bind){strdup(dest), fd, ro};
	if (!s->binds[s->n_binds].dest) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	s->n_binds++;
	if (fd < 0)
		return push3(s, "--ro-bind", "/dev/null", dest);
	snprintf(fdbuf, sizeof(fdbuf), "%d", fd);
	return push3(s, ro ? "--ro-bind-fd" : "--bind-fd", fdbuf, dest);
}

/* A device node (or a directory of them) bound as it is, by path: bwrap has no
 * --dev-bind-fd, and /dev is the system's. */
static int bind_dev(struct bwrap_state *s, const char *path)
{
	if (s->n_binds == s->cap_binds) {
		size_t cap = s->cap_binds ? s->cap_binds * 2 : 16;
		struct pdk_bwrap_bind *v = realloc(s->binds, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->binds = v;
		s->cap_binds = cap;
	}
	s->binds[s->n_binds] = (struct pdk_bwrap_bind){strdup(path), -1, false};
	if (!s->binds[s->n_binds].dest)
		return -ENOMEM;
	s->n_binds++;
	return push3(s, "--dev-bind", path, path);
}

/* A protected path inside a root: re-bound read-only when it exists, by a
 * descriptor opened through no symlink. A missing one is not held (no mount
 * point is made for it in the user's tree): the sandbox stage undoes what the
 * command makes there after the run. */
static int protect_path(struct bwrap_state *s, const struct pdk_confine *policy, const char *p)
{
	struct stat st;
	int fd;

	if (!inside_a_root(policy, p))
		return 0; /* read-only already through --ro-bind / / */
	if (lstat(p, &st) < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : pdk_strv_append(&s->unheld, &s->n_unheld, strdup(p));
	/* A symlink the command could point elsewhere cannot be held. */
	if (S_ISLNK(st.st_mode))
		return pdk_strv_append(&s->unheld, &s->n_unheld, strdup(p));
	fd = pdk_open_nofollow_at(AT_FDCWD, p);
	if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISLNK(st.st_mode))
		return bind_fd(s, fd, p, true);
	if (fd >= 0)
		close(fd);
	return fd == -ENOENT ? 0 : pdk_strv_append(&s->unheld, &s->n_unheld, strdup(p));
}

/* A secret: paddock's blank (an empty file or directory of mode 0) bound over it read-only, so
 * that opening it is EACCES. Only what exists is covered: nothing is made in the user's tree. */
static int hide_path(struct bwrap_state *s, const struct pdk_confine *policy, const char *p)
{
	struct stat st;
	int fd;

	if (pdk_path_under(p, "/dev") || pdk_path_under(p, "/proc") || lstat(p, &st) < 0)
		return 0;
	if (S_ISDIR(st.st_mode) && !policy->blank_dir) {
		int r = push3(s, "--perms", "0000", "--tmpfs");

		return r < 0 ? r : (r = push(s, p)) < 0 ? r : push2(s, "--remount-ro", p);
	}
	fd = pdk_open_nofollow_at(AT_FDCWD,
				  S_ISDIR(st.st_mode) ? policy->blank_dir : policy->blank);
	if (fd < 0)
		return fd;
	return bind_fd(s, fd, p, true);
}

/* Runs of earlier versions held missing protected paths with placeholder files, listed
 * under $STATE/bwrap-held; what a killed one left is removed still. */
static void remove_placeholder(const char *p)
{
	const char *name;
	_cleanup_close_ int dfd = pdk_open_parent_nofollow_at(AT_FDCWD, p, &name);
	struct stat st;

	if (dfd >= 0 && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size == 0)
		(void)unlinkat(dfd, name, 0);
}

/* The lists of placeholders runs keep: $STATE/bwrap-held/PID-RANDOM. */
static char *held_dir(void)
{
	_cleanup_free_ char *state = pdk_state_dir();
	char *dir = NULL;

	if (state && asprintf(&dir, "%s/bwrap-held", state) < 0)
		dir = NULL;
	return dir;
}

/* Remove what runs that died (their list no longer locked) left behind. */
static void sweep_held(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char buf[16384];
		ssize_t n;
		int fd;

		if (e->d_name[0] == '.')
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0 &&
		    (n = read(fd, buf, sizeof(buf) - 1)) >= 0) {
			buf[n] = '\0';
			for (char *line = buf, *nl; *line; line = nl + 1) {
				if (!(nl = strchr(line, '\n')))
					break;
				*nl = '\0';
				if (line[0] == '/')
					remove_placeholder(line);
			}
			(void)unlinkat(dirfd(d), e->d_name, 0);
		}
		close(fd);
	}
	closedir(d);
}

static void bwrap_release(void *state)
{
	struct bwrap_state *s = state;

	if (!s)
		return;
	pdk_strv_freep(&s->unheld);
	pdk_strv_freep(&s->prefix);
	for (size_t i = 0; i < s->n_binds; i++) {
		if (s->binds[i].fd >= 0)
			close(s->binds[i].fd);
		free(s->binds[i].dest);
	}
	free(s->binds);
	if (s->block_rd >= 0)
		close(s->block_rd);
	if (s->block_wr >= 0)
		close(s->block_wr);
	if (s->seccomp_fd >= 0)
		close(s->seccomp_fd);
	free(s->self);
	free(s->reaper);
	if (s->reap_rd >= 0)
		close(s->reap_rd);
	if (s->reap_wr >= 0)
		close(s->reap_wr);
	if (s->status_rd >= 0)
		close(s->status_rd);
	if (s->status_wr >= 0)
		close(s->status_wr);
	pdk_bpf_release(&s->connect_bpf);
	pdk_netsup_free(s->sup);
	free(s);
}

static int build_prefix(struct bwrap_state *s, const struct pdk_confine *policy)
{
	_cleanup_strv_ char **pins = NULL;
	_cleanup_free_ char **sorted = NULL;
	size_t n_pins = 0, n_sorted = 0;
	char fdbuf[16];
	int r;

	r = push(s, pdk_bwrap_locate());
	if (r == 0)
		r = push3(s, "--ro-bind", "/", "/");
	if (r < 0)
		return r;
	for (size_t i = 0; i < policy->n_roots; i++)
		if ((r = pdk_confine_pins(policy, policy->roots[i], &pins, &n_pins)) < 0)
			return r;
	for (size_t i = 0; i < policy->n_protect; i++)
		if ((r = pdk_confine_pins(policy, policy->protect[i], &pins, &n_pins)) < 0)
			return r;
	/* Parents before children, so a root inside another root is not
	 * hidden by the later, wider bind; all protected paths after all
	 * roots and pins, so no read-write bind covers a read-only one. */
	sorted = calloc(policy->n_roots + n_pins + 1, sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	for (size_t i = 0; i < policy->n_roots; i++)
		sorted[n_sorted++] = (char *)policy->roots[i];
	for (size_t i = 0; i < n_pins; i++)
		sorted[n_sorted++] = pins[i];
	qsort(sorted, n_sorted, sizeof(*sorted), cmp_len);
	for (size_t i = 0; i < n_sorted; i++) {
		int fd;

		/* bwrap's own /dev and /proc come later and would hide it. */
		if (pdk_path_under(sorted[i], "/dev") || pdk_path_under(sorted[i], "/proc"))
			continue;
		fd = pdk_open_dir_nofollow(sorted[i]);

		/* A pin another run removed first is no failure. */
		if (fd < 0 && pdk_strv_contains(pins, n_pins, sorted[i]))
			continue;
		if (fd < 0 || (r = bind_fd(s, fd, sorted[i], false)) < 0)
			return fd < 0 ? fd : r;
	}
	for (size_t i = 0; i < policy->n_protect; i++)
		if ((r = protect_path(s, policy, policy->protect[i])) < 0)
			return r;
	/* Over everything else, so that no later bind uncovers one. */
	for (size_t i = 0; i < policy->n_hide; i++)
		if ((r = hide_path(s, policy, policy->hide[i])) < 0)
			return r;
	/* A private /dev (its own /dev/shm) and a /proc of the new pid
	 * namespace, after the roots so a root of / or /dev cannot undo them. */
	if ((r = push2(s, "--dev", "/dev")) < 0 || (r = push2(s, "--proc", "/proc")) < 0)
		return r;
	/* --gpu: the device nodes, as they are, over the private /dev; noted
	 * as writable binds, which the check of bwrap's mounts expects. */
	for (size_t i = 0; i < policy->n_devices; i++)
		if ((r = bind_dev(s, policy->devices[i])) < 0)
			return r;
	if ((r = push(s, "--unshare-all")) < 0)
		return r;
	if (policy->network && (r = push(s, "--share-net")) < 0)
		return r;
	if ((r = push(s, "--new-session")) < 0 || (r = push(s, "--die-with-parent")) < 0 ||
	    (r = push2(s, "--cap-drop", "ALL")) < 0)
		return r;
	if (policy->cwd && (r = push2(s, "--chdir", policy->cwd)) < 0)
		return r;
	snprintf(fdbuf, sizeof(fdbuf), "%d", s->status_wr);
	if ((r = push2(s, "--json-status-fd", fdbuf)) < 0)
		return r;
	snprintf(fdbuf, sizeof(fdbuf), "%d", s->seccomp_fd);
	if ((r = push2(s, "--seccomp", fdbuf)) < 0)
		return r;
	snprintf(fdbuf, sizeof(fdbuf), "%d", s->block_rd);
	return push2(s, "--block-fd", fdbuf);
}

static enum pdk_seccomp_net bwrap_net(const struct bwrap_state *s)
{
	enum pdk_seccomp_net net = s->network ? PDK_SECCOMP_NET_FULL : PDK_SECCOMP_NET_PRIVATE;

	return s->unix_supervised ? pdk_seccomp_with_unix(net) : net;
}

static int bwrap_prepare(const struct pdk_confine *policy, void **ret_state)
{
	_cleanup_free_ char *dir = held_dir();
	struct bwrap_state *s;
	struct pdk_bpf bpf = { 0 };
	int r, fd = -1, pipefd[2];

	r = pdk_bwrap_find();
	if (r < 0)
		return r;
	/* Before the protected paths are looked at: a placeholder a killed run of
	 * an earlier version left must be gone. */
	if (dir)
		sweep_held(dir);
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->seccomp_fd = s->status_rd = s->status_wr = s->block_rd = s->block_wr = -1;
	s->reap_rd = s->reap_wr = -1;
	s->network = policy->network;
	s->max_procs = policy->max_procs;
	s->proxy_fd = -1;
	if (!policy->network && policy->n_domains) {
		char self[PATH_MAX];
		ssize_t n = pdk_self_path(self, sizeof(self));

		if (n < 0 || !(s->self = strdup(self))) {
			bwrap_release(s);
			return n < 0 ? (int)n : -ENOMEM;
		}
		s->proxy_fd = policy->proxy_fd;
	}
	s->unix_paths = policy->unix_paths;
	s->unix_fds = policy->unix_fds;
	s->n_unix = policy->n_unix;
	s->roots = policy->roots;
	s->n_roots = policy->n_roots;
	s->protect = policy->protect;
	s->n_protect = policy->n_protect;
	s->unix_supervised =
	    pdk_netsup_probe(s->unsupervised_why, sizeof(s->unsupervised_why)) == 0;
	r = 0;
	if (s->unix_supervised)
		r = pdk_seccomp_compile(PDK_SECCOMP_UNIX_NOTIFY, &s->connect_bpf);
	/* Off: bwrap's private network namespace, with nothing but its own
	 * loopback, lets inet sockets be made there. */
	if (r == 0)
		r = pdk_seccomp_compile(bwrap_net(s), &bpf);
	if (r == 0) {
		r = pdk_seccomp_memfd(&bpf, &fd);
		pdk_bpf_release(&bpf);
	}
	if (r == 0)
		r = keep_high(fd, &s->seccomp_fd);
	if (r == 0 && pipe2(pipefd, O_CLOEXEC | O_NONBLOCK) < 0)
		r = -errno;
	if (r == 0) {
		/* Only the read end stays non-blocking: bwrap writes as usual. */
		r = keep_high(pipefd[0], &s->status_rd);
		if (r == 0)
			r = keep_high(pipefd[1], &s->status_wr);
		else
			close(pipefd[1]);
	}
	if (r == 0 && fcntl(s->status_wr, F_SETFL, 0) < 0)
		r = -errno;
	if (r == 0 && pipe2(pipefd, O_CLOEXEC) < 0)
		r = -errno;
	if (r == 0) {
		r = keep_high(pipefd[0], &s->block_rd);
		if (r == 0)
			r = keep_high(pipefd[1], &s->block_wr);
		else
			close(pipefd[1]);
	}
	if (r == 0 && (s->reaper = pdk_reap_find())) {
		if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK) < 0)
			r = -errno;
		if (r == 0) {
			r = keep_high(pipefd[0], &s->reap_rd);
			if (r == 0)
				r = keep_high(pipefd[1], &s->reap_wr);
			else
				close(pipefd[1]);
		}
	}
	if (r == 0)
		r = build_prefix(s, policy);
	if (r < 0)
		goto fail;
	*ret_state = s;
	return 0;
fail:
	bwrap_release(s);
	return r;
}

static int bwrap_wrap_argv(void *state, char *const *argv, char ***ret_argv)
{
	struct bwrap_state *s = state;
	_cleanup_strv_ char **out = NULL;
	size_t n = 0, k = 0;

	if (!s || !argv || !argv[0])
		return -EINVAL;
	while (argv[n])
		n++;
	out = calloc(s->n_prefix + 1 + 4 + 3 + n + 1, sizeof(*out));
	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < s->n_prefix; i++)
		if (!(out[k++] = strdup(s->prefix[i])))
			return -ENOMEM;
	if (!(out[k++] = strdup("--")))
		return -ENOMEM;
	/* Domains mode: paddock in the sandbox listens on its loopback for
	 * the proxy, then executes the command. */
	if (s->self) {
		char fdbuf[16];

		snprintf(fdbuf, sizeof(fdbuf), "%d", s->proxy_fd);
		if (!(out[k++] = strdup(s->self)) || !(out[k++] = strdup("__proxy-listen")) ||
		    !(out[k++] = strdup(fdbuf)) || !(out[k++] = strdup("--")))
			return -ENOMEM;
	}
	/* The command's reaper: paddock-reap FD -- argv. */
	if (s->reaper) {
		char fdbuf[16];

		snprintf(fdbuf, sizeof(fdbuf), "%d", s->reap_wr);
		if (!(out[k++] = strdup(s->reaper)) || !(out[k++] = strdup(fdbuf)) ||
		    !(out[k++] = strdup("--")))
			return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (!(out[k++] = strdup(argv[i])))
			return -ENOMEM;
	*ret_argv = steal_pointer(&out);
	return 0;
}

/* Child side: only the seccomp fd crosses exec into bwrap. */
static int bwrap_enter(void *state)
{
	struct bwrap_state *s = state;

	if (!s || s->seccomp_fd < 0)
		return -EINVAL;
	/* The fd shares its offset with the parent's: rewind it, since bwrap
	 * reads the program from the current position. */
	if (lseek(s->seccomp_fd, 0, SEEK_SET) < 0)
		return -errno;
	if (fcntl(s->seccomp_fd, F_SETFD, 0) < 0 || fcntl(s->status_wr, F_SETFD, 0) < 0)
		return -errno;
	for (size_t i = 0; i < s->n_binds; i++)
		if (s->binds[i].fd >= 0 && fcntl(s->binds[i].fd, F_SETFD, 0) < 0)
			return -errno;
	if (fcntl(s->block_rd, F_SETFD, 0) < 0)
		return -errno;
	if (s->reap_wr >= 0 && fcntl(s->reap_wr, F_SETFD, 0) < 0)
		return -errno;
	if (s->proxy_fd >= 0 && fcntl(s->proxy_fd, F_SETFD, 0) < 0)
		return -errno;
	/* bwrap sets no_new_privs itself before it loads its program; this
	 * one comes first, with a listener paddock takes. The main program
	 * lets unix sockets be made on the supervisor's word: without one
	 * started for this child, nothing is run. */
	if (s->unix_supervised && !s->sup)
		return -ECHILD;
	if (s->sup) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			return -errno;
		return pdk_netsup_child(s->sup, s->connect_bpf.filter, s->connect_bpf.len, false);
	}
	return 0;
}

/* Parent side: the supervisor of unix sockets, made before the fork. */
static int bwrap_before_fork(void *state)
{
	struct bwrap_state *s = state;
	int r;

	if (!s->unix_supervised)
		return 0;
	pdk_netsup_free(s->sup);
	s->sup = NULL;
	if ((r = pdk_netsup_new(&s->sup)) < 0)
		return r;
	pdk_netsup_pass_others(s->sup);
	if ((r = pdk_netsup_allow_unix(s->sup, s->unix_paths, s->unix_fds, s->n_unix)) < 0 ||
	    (r = pdk_netsup_allow_bind(s->sup, s->roots, s->n_roots)) < 0 ||
	    (r = pdk_netsup_hold_missing(s->sup, s->protect, s->n_protect, s->roots, s->n_roots,
					 -1)) < 0)
		return r;
	/* bwrap makes its sandbox under the filter: its own calls go on until then. */
	pdk_netsup_defer_fs(s->sup);
	return pdk_netsup_listen(s->sup);
}

/* Parent side, after the run: everything bwrap wrote is in the pipe, since
 * the runner has reaped it. "exit-code" comes only after bwrap executed the
 * command; without it bwrap failed first (no namespaces, no /proc mount,
 * the exec itself), and nothing of the command ran. */
/* Before the command starts: bwrap's sandbox holds the mounts asked for and
 * no other (bwrap_check.c); then bwrap may go on. */
static int bwrap_spawned(void *state, char *why, size_t why_len)
{
	struct bwrap_state *s = state;
	char what[PATH_MAX + 64];
	long pid = 0;
	int r;

	/* bwrap holds these now; with paddock's copy of the status pipe's
	 * write end closed, bwrap's exit is an end of file there. */
	close(steal_fd(&s->block_rd));
	close(steal_fd(&s->status_wr));
	if (s->reap_wr >= 0)
		close(steal_fd(&s->reap_wr));
	/* bwrap says the sandbox's pid first: { "child-pid": N, ... }. */
	while (!strstr(s->seen, "\"child-pid\"") && s->n_seen < sizeof(s->seen) - 1) {
		struct pollfd p = {s->status_rd, POLLIN, 0};
		ssize_t n;

		int pr = poll(&p, 1, 10 * 1000);

		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			return pr < 0 ? -errno : -ETIMEDOUT;
		n = read(s->status_rd, s->seen + s->n_seen, sizeof(s->seen) - 1 - s->n_seen);
		if (n == 0)
			return 0; /* bwrap is gone: it says why itself */
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		s->n_seen += n > 0 ? (size_t)n : 0;
		s->seen[s->n_seen] = '\0';
	}
	const char *c = strstr(s->seen, "\"child-pid\"");
	if (c)
		pid = strtol(c + strcspn(c, "0123456789"), NULL, 10);
	if (pid <= 0)
		return -EPROTO;
	r = pdk_bwrap_check_mounts((pid_t)pid, s->binds, s->n_binds, 10 * 1000, what, sizeof(what));
	if (r == -ENOENT)
		return 0; /* bwrap failed in its set-up: it says why itself */
	if (r < 0) {
		/* bwrap binds its sandbox to its parent's life only after the
		 * wait: the sandbox itself goes first, then nothing reads EOF. */
		kill((pid_t)pid, SIGKILL);
		snprintf(why, why_len,
			 "bwrap did not make the sandbox asked for (%.300s): a directory in a "
			 "writable root was replaced while it set up, by another run perhaps; "
			 "nothing of the command ran; run it again",
			 what[0] ? what : strerror(-r));
		return r;
	}
	if (s->sup)
		pdk_netsup_arm_fs(s->sup);
	r = write(s->block_wr, "g", 1) == 1 ? 0 : -errno;
	close(steal_fd(&s->block_wr));
	return r;
}

static int bwrap_started(void *state)
{
	struct bwrap_state *s = state;
	char buf[4096];
	size_t len = 0;

	if (!s || s->status_rd < 0)
		return -EINVAL;
	/* What the check read first is part of it. */
	len = s->n_seen < sizeof(buf) - 1 ? s->n_seen : sizeof(buf) - 1;
	memcpy(buf, s->seen, len);
	for (;;) {
		ssize_t n = read(s->status_rd, buf + len, sizeof(buf) - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == sizeof(buf) - 1) {
			/* More than bwrap ever writes: keep the end. */
			memmove(buf, buf + len / 2, len - len / 2);
			len -= len / 2;
		}
	}
	buf[len] = '\0';
	return strstr(buf, "\"exit-code\"") ? 1 : 0;
}

/* After the run: the reaper's word on how the command ended, when a signal
 * killed it; bwrap itself says only 128+N. */
static int bwrap_exit_status(void *state, int status)
{
	struct bwrap_state *s = state;
	char buf[64];
	ssize_t n;

	if (!s || s->reap_rd < 0 || status <= 128)
		return status;
	do
		n = read(s->reap_rd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return status;
	buf[n] = '\0';
	return pdk_reap_status(buf, status);
}

/* How many arguments follow each option this backend emits. */
static int arity(const char *opt)
{
	static const char *const two[] = {"--ro-bind", "--ro-bind-try", "--bind", "--bind-fd",
					  "--ro-bind-fd"};
	static const char *const one[] = {"--dev",     "--proc",	   "--cap-drop", "--chdir",
					  "--seccomp", "--json-status-fd", "--block-fd"};

	for (size_t i = 0; i < PDK_ARRAY_SIZE(two); i++)
		if (!strcmp(opt, two[i]))
			return 2;
	for (size_t i = 0; i < PDK_ARRAY_SIZE(one); i++)
		if (!strcmp(opt, one[i]))
			return 1;
	return 0;
}

/* As pdk_fput_shell_word(), but a word with control bytes is written $'...',
 * so that the profile stays one line per option. */
static void put_quoted(const char *arg, FILE *out)
{
	const char *p;

	for (p = arg; *p && (unsigned char)*p >= 0x20 && *p != 0x7f; p++)
		;
	if (!*p) {
		pdk_fput_shell_word(out, arg);
		return;
	}
	fputs("$'", out);
	for (p = arg; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '\'' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc('\'', out);
}

/* A comment heading and the paths under it, one a line; nothing when there are none. */
static void put_paths(FILE *out, const char *heading, char *const *v, size_t n)
{
	if (n)
		fprintf(out, "# %s:\n", heading);
	for (size_t i = 0; i < n; i++) {
		fputs("#\t", out);
		put_quoted(v[i], out);
		fputc('\n', out);
	}
}

static bool is_wrapped(const struct bwrap_state *s, char *const *argv)
{
	for (size_t i = 0; i < s->n_prefix; i++)
		if (!argv[i] || strcmp(argv[i], s->prefix[i]))
			return false;
	return argv[s->n_prefix] && !strcmp(argv[s->n_prefix], "--");
}

static int bwrap_describe(void *state, char *const *argv, FILE *out)
{
	struct bwrap_state *s = state;

	if (!s)
		return -EINVAL;
	/* Given the argv wrap_argv() returned, print it once, not twice. */
	if (argv && is_wrapped(s, argv))
		argv += s->n_prefix + 1;
	fputs("# bwrap: the command runs as\n", out);
	put_quoted(s->prefix[0], out);
	for (size_t i = 1; i < s->n_prefix;) {
		int n = arity(s->prefix[i]);

		fputs(" \\\n\t", out);
		put_quoted(s->prefix[i++], out);
		for (; n > 0 && i < s->n_prefix; n--, i++) {
			fputc(' ', out);
			put_quoted(s->prefix[i], out);
		}
	}
	fputs(" \\\n\t--", out);
	for (size_t i = 0; argv && argv[i]; i++) {
		fputc(' ', out);
		put_quoted(argv[i], out);
	}
	fputc('\n', out);
	put_paths(out, "protected paths not held (a symlink, unreadable)", s->unheld, s->n_unheld);
	fprintf(out, "# bwrap reports its status (did the command start?) to fd %d\n",
		s->status_wr);
	if (s->reaper)
		fprintf(out, "# %s runs the command inside and reports a death by signal to fd %d\n",
			s->reaper, s->reap_wr);
	else
		fprintf(out, "# %s was not found: a death by signal reads as exit status 128+N\n",
			PDK_REAP_NAME);
	fprintf(out,
		"# the writable binds are directories paddock opened (--bind-fd); bwrap "
		"waits on fd %d until paddock has found them, and only them, in the sandbox\n",
		s->block_rd);
	if (s->max_procs)
		fprintf(out, "# at most %lu processes at once (set by paddock's runner)\n",
			s->max_procs);
	fprintf(out, "# seccomp program passed as fd %d:\n", s->seccomp_fd);
	if (fflush(out) == EOF || ferror(out))
		return -EIO;
	if (!s->network)
		fputs("# network off: a network namespace of the run's own, with nothing but its "
		      "loopback\n", out);
	if (s->self)
		fprintf(out, "# domains: %s __proxy-listen listens on that loopback and hands the "
			     "socket to paddock's proxy over fd %d, then executes the command\n",
			s->self, s->proxy_fd);
	if (s->unix_supervised)
		fprintf(out, "# unix sockets of every type: paddock's connect supervisor takes "
			     "connect(), bind() and addressed sends (a program loaded before "
			     "bwrap's); it binds a path beneath the writable roots only and notes "
			     "the socket file; a unix address reaches a socket the run bound (by "
			     "path, by device and inode; abstract, by name in the run's network "
			     "namespace), or one of the %zu path%s granted (allowUnixSockets, "
			     "--ssh-agent, --docker), through paddock's descriptor of it; every "
			     "other path and abstract name: EACCES\n",
			s->n_unix, s->n_unix == 1 ? "" : "s");
	else
		fprintf(out, "# unix sockets stay closed, allowUnixSockets too: no connect "
			     "supervisor here (%s)\n", s->unsupervised_why);
	return pdk_seccomp_describe(bwrap_net(s), out);
}

const struct pdk_backend pdk_backend_bwrap = {
    .name = "bwrap",
    .enforces_protect = true,
    .devices = true,
    .private_network = true,
    /* Not while bwrap waits on --block-fd: paddock's death is an end of
     * file there, which bwrap takes for "go", before its sandbox is tied
     * to its parent's life. The guardian covers that. */
    .tree_dies_with_parent = false,
    .probe = pdk_bwrap_probe, /* backend.c keeps the verdict for the process */
    .available = pdk_bwrap_available,
    .prepare = bwrap_prepare,
    .wrap_argv = bwrap_wrap_argv,
    .enter = bwrap_enter,
    .before_fork = bwrap_before_fork,
    .spawned = bwrap_spawned,
    .started = bwrap_started,
    .exit_status = bwrap_exit_status,
    .release = bwrap_release,
    .describe = bwrap_describe,
    .set_helper = pdk_bwrap_set_path,
    .helper = pdk_bwrap_locate,
};
