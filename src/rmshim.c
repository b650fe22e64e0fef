/* rmshim.c - rm inside a confined command: a PATH shim that stages what it removes inside the
 * writable root it came from, and the sweep that moves staged files to the trash after the run. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "rmshim.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/random.h>
#include <sys/sysmacros.h>
#endif
#ifdef __APPLE__
#include <mach-o/dyld.h>
#endif

#include "path.h"
#include "sandbox.h"
#include "store.h"
#include "trash.h"
#include "util.h"

#define STAGE_PREFIX ".paddock-rm-"
#define RUN_ID_LEN   16
#define RECORD_MAX   16384
#define NOTE_MAX     2048

static int fail(struct pdk_error *err, int r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct pdk_error *err, int r, const char *fmt, ...)
{
	if (err) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return r;
}

static char *join(const char *a, const char *b)
{
	size_t la = strlen(a);
	char *s;

	while (la > 0 && a[la - 1] == '/')
		la--;
	if (asprintf(&s, "%.*s/%s", (int)la, a, b) < 0)
		return NULL;
	return s;
}

static void strv_free(char **v)
{
	pdk_strvfreep(&v);
}

static int strv_add(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 2) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = strdup(s);
	if (!nv[*n])
		return -ENOMEM;
	nv[++*n] = NULL;
	return 0;
}

static bool strv_has(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static bool run_id_valid(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return i == RUN_ID_LEN;
}

static bool all_digits(const char *s, size_t len)
{
	if (len == 0 || len > 9)
		return false;
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* Which mount a directory is on: st_dev alone cannot tell bind mounts of one filesystem
 * apart, and rename(2) refuses to cross those too. */
struct mount_ident {
	dev_t dev;
	uint64_t mnt_id;
	bool has_mnt_id;
};

static int mount_ident_at(int dirfd, const char *name, struct mount_ident *ret)
{
	struct stat st;
#ifdef STATX_MNT_ID
	struct statx sx;

	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_MNT_ID, &sx) == 0) {
		ret->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
		ret->has_mnt_id = (sx.stx_mask & STATX_MNT_ID) != 0;
		ret->mnt_id = sx.stx_mnt_id;
		return 0;
	}
	if (errno != ENOSYS)
		return -errno;
#endif
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	ret->dev = st.st_dev;
	ret->has_mnt_id = false;
	ret->mnt_id = 0;
	return 0;
}

static bool same_mount(const struct mount_ident *a, const struct mount_ident *b)
{
	if (a->dev != b->dev)
		return false;
	return !(a->has_mnt_id && b->has_mnt_id) || a->mnt_id == b->mnt_id;
}

static int local_date(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!localtime_r(&t, &tm) || strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		return -EINVAL;
	return 0;
}

/* ---- prepare ---- */

static char *self_exe(void)
{
#if defined(__APPLE__)
	char buf[PATH_MAX];
	uint32_t len = sizeof(buf);

	if (_NSGetExecutablePath(buf, &len) != 0)
		return NULL;
	return realpath(buf, NULL);
#else
	return realpath("/proc/self/exe", NULL);
#endif
}

static int random_hex(char *buf, size_t n_bytes)
{
	unsigned char raw[32];

	if (n_bytes > sizeof(raw))
		return -EINVAL;
#ifdef __linux__
	if (getrandom(raw, n_bytes, 0) != (ssize_t)n_bytes)
		return -errno;
#else
	arc4random_buf(raw, n_bytes);
#endif
	for (size_t i = 0; i < n_bytes; i++)
		snprintf(buf + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

/* DIR/rm -> EXE, replaced in one rename when it points anywhere else, so a run never finds
 * the shim missing while another paddock refreshes it. */
static int ensure_link(const char *dir, const char *exe)
{
	_cleanup_free_ char *link = join(dir, "rm");
	_cleanup_free_ char *tmp = NULL;
	char cur[PATH_MAX], rnd[17];
	ssize_t n;
	int r;

	if (!link)
		return -ENOMEM;
	n = readlink(link, cur, sizeof(cur) - 1);
	if (n > 0) {
		cur[n] = '\0';
		if (strcmp(cur, exe) == 0)
			return 0;
	}
	if ((r = random_hex(rnd, 8)) < 0)
		return r;
	if (asprintf(&tmp, "%s/.rm.%s", dir, rnd) < 0)
		return -ENOMEM;
	if (symlink(exe, tmp) < 0)
		return -errno;
	if (rename(tmp, link) < 0) {
		r = -errno;
		unlink(tmp);
		return r;
	}
	return 0;
}

int pdk_rmshim_install(char **ret_dir)
{
	/* Once per process: a second call finds it all in place. */
	static char *installed;
	if (installed) {
		if (ret_dir && !(*ret_dir = strdup(installed)))
			return -ENOMEM;
		return 0;
	}
	_cleanup_free_ char *state = pdk_state_dir();
	_cleanup_free_ char *exe = self_exe();
	_cleanup_free_ char *dir = NULL, *runs = NULL;
	struct stat st;
	int r;

	bool made_state;

	if (!state)
		return -ENOENT;
	if (!exe)
		return errno ? -errno : -ENOENT;
	made_state = lstat(state, &st) < 0;
	dir = join(state, "shim");
	runs = dir ? join(dir, "runs") : NULL;
	if (!runs)
		return -ENOMEM;
	if ((r = pdk_mkdir_p(runs, 0700)) < 0)
		return r;
	/* Everything the shim runs comes from here: it must be this user's own directory. */
	if (lstat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid())
		return -EPERM;
	if ((r = ensure_link(dir, exe)) < 0)
		return r;
	if (!(installed = strdup(dir)))
		return -ENOMEM;
	if (ret_dir)
		*ret_dir = steal_pointer(&dir);
	return made_state ? 1 : 0;
}

static int prepare(const char *const *roots, size_t n_roots, struct pdk_rmshim *ret)
{
	_cleanup_free_ char *runs = NULL, *joined = NULL;
	char id[RUN_ID_LEN + 1];
	size_t jlen = 0;
	int r;

	ret->lock_fd = -1;
	if ((r = pdk_rmshim_install(&ret->dir)) < 0)
		return r;
	ret->made_state = r == 1;
	runs = join(ret->dir, "runs");
	if (!runs)
		return -ENOMEM;

	for (size_t i = 0; i < n_roots; i++) {
		if (!roots[i] || roots[i][0] != '/' || strchr(roots[i], '\n'))
			continue; /* the shim reads the roots one per line */
		if (strv_has(ret->roots, ret->n_roots, roots[i]))
			continue;
		if ((r = strv_add(&ret->roots, &ret->n_roots, roots[i])) < 0)
			return r;
		jlen += strlen(roots[i]) + 1;
	}
	joined = calloc(jlen + 1, 1);
	if (!joined)
		return -ENOMEM;
	for (size_t i = 0; i < ret->n_roots; i++) {
		strcat(joined, ret->roots[i]);
		strcat(joined, "\n");
	}

	if ((r = random_hex(id, RUN_ID_LEN / 2)) < 0)
		return r;
	ret->run_id = strdup(id);
	if (asprintf(&ret->stage_name, STAGE_PREFIX "%u", (unsigned)getuid()) < 0) {
		ret->stage_name = NULL;
		return -ENOMEM;
	}
	ret->registry = join(runs, id);
	if (!ret->run_id || !ret->registry)
		return -ENOMEM;
	/* The registry names the roots to sweep should this process die before its sweep; its
	 * lock tells other paddocks that the run is still going. */
	ret->lock_fd =
	    open(ret->registry, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (ret->lock_fd < 0)
		return -errno;
	if (flock(ret->lock_fd, LOCK_EX) < 0)
		return -errno;
	if ((r = pdk_write_all(ret->lock_fd, joined, strlen(joined))) < 0)
		return r;

	ret->env = calloc(3, sizeof(char *));
	if (!ret->env)
		return -ENOMEM;
	if (asprintf(&ret->env[0], PDK_RMSHIM_ENV_STAGE "=%s/%s", ret->stage_name, id) < 0) {
		ret->env[0] = NULL;
		return -ENOMEM;
	}
	joined[jlen ? jlen - 1 : 0] = '\0';
	if (asprintf(&ret->env[1], PDK_RMSHIM_ENV_ROOTS "=%s", joined) < 0) {
		ret->env[1] = NULL;
		return -ENOMEM;
	}
	ret->prepared = 1;
	return 0;
}

int pdk_rmshim_prepare_roots(const char *const *roots, size_t n_roots, struct pdk_rmshim *ret)
{
	int r = prepare(roots, n_roots, ret);

	if (r < 0 && ret->lock_fd >= 0) {
		/* The run never started: nothing to sweep on its behalf later. */
		unlink(ret->registry);
		close(ret->lock_fd);
		ret->lock_fd = -1;
	}
	return r;
}

static bool env_is(const char *entry, const char *name)
{
	size_t n = strlen(name);

	return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

int pdk_rmshim_env(struct pdk_rmshim *shim, char *const *envp, char ***ret_envp)
{
	const char *path = NULL;
	size_t n = 0, k = 0;
	char **v;

	if (!shim->prepared)
		return -EINVAL;
	for (; envp && envp[n]; n++)
		if (env_is(envp[n], "PATH"))
			path = envp[n] + 5;
	free(shim->path_env);
	/* A PATH that is missing or empty means the default search path to execvp(3). */
	if (asprintf(&shim->path_env, "PATH=%s:%s", shim->dir,
		     path && path[0] ? path : "/usr/local/bin:/usr/bin:/bin") < 0) {
		shim->path_env = NULL;
		return -ENOMEM;
	}
	v = calloc(n + 4, sizeof(char *));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!env_is(envp[i], "PATH") && !env_is(envp[i], PDK_RMSHIM_ENV_STAGE) &&
		    !env_is(envp[i], PDK_RMSHIM_ENV_ROOTS))
			v[k++] = envp[i];
	v[k++] = shim->path_env;
	v[k++] = shim->env[0];
	v[k++] = shim->env[1];
	free(shim->envp);
	shim->envp = v;
	*ret_envp = v;
	return 0;
}

int pdk_rmshim_prepare(struct pdk_sandbox *sb, struct pdk_rmshim *ret)
{
	char **envp;
	int r;

	r = pdk_rmshim_prepare_roots(sb->policy.roots, sb->policy.n_roots, ret);
	if (r < 0)
		return r;
	/* A state directory that was missing when the sandbox was set up is held there by an
	 * empty placeholder when it lies in a root: the command would not see the shim, and its
	 * rm would be the real one. */
	for (size_t i = 0; ret->made_state && i < sb->policy.n_roots; i++)
		if (pdk_path_under(ret->dir, sb->policy.roots[i]))
			return -EAGAIN;
	r = pdk_rmshim_env(ret, sb->spec.envp, &envp);
	if (r < 0)
		return r;
	sb->spec.envp = envp;
	return 0;
}

void pdk_rmshim_release(struct pdk_rmshim *shim)
{
	if (!shim)
		return;
	if (shim->prepared && shim->lock_fd >= 0)
		close(shim->lock_fd);
	free(shim->dir);
	free(shim->run_id);
	free(shim->stage_name);
	strv_free(shim->env);
	free(shim->path_env);
	free(shim->envp);
	strv_free(shim->roots);
	free(shim->registry);
	memset(shim, 0, sizeof(*shim));
	shim->lock_fd = -1;
}

/* ---- the shim ---- */

struct stage_ctx {
	char **roots;
	size_t n_roots;
	const char *top; /* ".paddock-rm-UID" */
	const char *run_id;
	char roots_text[512]; /* for messages */
};

static int split_path(const char *path, char **ret_dir, char **ret_base)
{
	_cleanup_free_ char *copy = strdup(path);
	char *slash, *dir, *base;
	size_t len;

	if (!copy)
		return -ENOMEM;
	len = strlen(copy);
	while (len > 1 && copy[len - 1] == '/')
		copy[--len] = '\0';
	slash = strrchr(copy, '/');
	if (!slash)
		dir = strdup(".");
	else
		dir = slash == copy ? strdup("/") : strndup(copy, (size_t)(slash - copy));
	base = strdup(slash ? slash + 1 : copy);
	if (!dir || !base) {
		free(dir);
		free(base);
		return -ENOMEM;
	}
	*ret_dir = dir;
	*ret_base = base;
	return 0;
}

/* The root holding PATH: the deepest one, so that staging stays as close as it can. */
static const char *root_of(const struct stage_ctx *c, const char *path)
{
	const char *best = NULL;

	for (size_t i = 0; i < c->n_roots; i++)
		if (pdk_path_under(path, c->roots[i]) &&
		    (!best || strlen(c->roots[i]) > strlen(best)))
			best = c->roots[i];
	return best;
}

/* Where to stage a file whose directory is DIR (real) inside ROOT: the highest directory
 * between ROOT and DIR on DIR's own mount, since rename(2) never crosses mounts. */
static int stage_base(const char *root, const char *dir, char **ret)
{
	_cleanup_free_ char *cur = strdup(dir);
	struct mount_ident want, id;
	int r;

	if (!cur)
		return -ENOMEM;
	if ((r = mount_ident_at(AT_FDCWD, cur, &want)) < 0)
		return r;
	while (strcmp(cur, root) != 0) {
		char *slash = strrchr(cur, '/');
		_cleanup_free_ char *up = NULL;

		if (!slash)
			break;
		up = slash == cur ? strdup("/") : strndup(cur, (size_t)(slash - cur));
		if (!up)
			return -ENOMEM;
		if (!pdk_path_under(up, root))
			break;
		if ((r = mount_ident_at(AT_FDCWD, up, &id)) < 0)
			return r;
		if (!same_mount(&id, &want))
			break;
		free(cur);
		cur = steal_pointer(&up);
	}
	*ret = steal_pointer(&cur);
	return 0;
}

/* Open (making it when missing) NAME in DFD as a directory of this user, never through a
 * symlink. */
static int own_dir_at(int dfd, const char *name, bool *ret_made)
{
	struct stat st;
	int fd;

	for (int tries = 0; tries < 5; tries++) {
		bool made = mkdirat(dfd, name, 0700) == 0;

		if (!made && errno != EEXIST)
			return -errno;
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT)
			continue; /* a sweep removed it between the two calls */
		if (fd < 0)
			return errno == ELOOP || errno == ENOTDIR ? -ENOTDIR : -errno;
		if (fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
			close(fd);
			return -EPERM;
		}
		if (ret_made)
			*ret_made = made;
		return fd;
	}
	return -ENOENT;
}

static int write_record(int rfd, const char *name, const char *orig)
{
	_cleanup_free_ char *enc = pdk_trash_path_encode(orig);
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -1;
	char date[64];
	int len, r;

	if (!enc)
		return -ENOMEM;
	if ((r = local_date(time(NULL), date, sizeof(date))) < 0)
		return r;
	len = asprintf(&text, "[Paddock Rm]\nPath=%s\nDeletionDate=%s\n", enc, date);
	if (len < 0)
		return -ENOMEM;
	fd = openat(rfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	r = pdk_write_all(fd, text, (size_t)len);
	if (r == 0 && close(steal_fd(&fd)) < 0)
		r = -errno;
	if (r < 0)
		unlinkat(rfd, name, 0);
	return r;
}

static int stage(void *ctx, const char *path, char **ret_where, struct pdk_error *err)
{
	const struct stage_ctx *c = ctx;
	_cleanup_free_ char *dir = NULL, *base = NULL, *real = NULL, *opened = NULL;
	_cleanup_free_ char *orig = NULL, *at = NULL, *area = NULL;
	_cleanup_close_ int parent_fd = -1, dfd = -1, sfd = -1, rfd = -1;
	const char *root;
	struct stat st, pst;
	bool made = false;
	int r;

	if ((r = split_path(path, &dir, &base)) < 0)
		return fail(err, r, "%s", strerror(-r));
	if (!base[0] || !strcmp(base, ".") || !strcmp(base, ".."))
		return fail(err, -EINVAL, "'.', '..' and '/' cannot be moved to the trash");
	real = realpath(dir, NULL);
	if (!real)
		return fail(err, -errno, "%s", strerror(errno));
	parent_fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (parent_fd < 0)
		return fail(err, -errno, "%s", strerror(errno));
	opened = pdk_path_of_fd(parent_fd);
	if (opened && strcmp(opened, real) != 0) {
		free(real);
		real = steal_pointer(&opened);
	}
	root = root_of(c, real);
	if (!root)
		return fail(err, -EPERM, "outside the writable roots (%s); left in place",
			    c->roots_text);
	orig = join(real, base);
	if (!orig)
		return fail(err, -ENOMEM, "%s", strerror(ENOMEM));
	if (fstatat(parent_fd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return fail(err, -errno, "%s", strerror(errno));
	if (fstat(parent_fd, &pst) < 0)
		return fail(err, -errno, "%s", strerror(errno));
	if (S_ISDIR(st.st_mode) && st.st_dev != pst.st_dev)
		return fail(err, -EBUSY, "it is a mount point");

	if ((r = stage_base(root, real, &at)) < 0)
		return fail(err, r, "cannot find where to stage it: %s", strerror(-r));
	area = join(at, c->top);
	if (!area)
		return fail(err, -ENOMEM, "%s", strerror(ENOMEM));
	if (pdk_path_under(orig, area))
		return fail(err, -EBUSY,
			    "it holds files on their way to the trash (they go there when the run "
			    "ends); left in place");

	dfd = open(at, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return fail(err, -errno, "%s", strerror(errno));
	sfd = own_dir_at(dfd, c->top, &made);
	if (sfd < 0)
		return fail(err, sfd, "cannot stage it in %s: %s; left in place", area,
			    sfd == -EPERM ? "not a directory of this user" : strerror(-sfd));
	if (made) {
		/* git status should not list the staging area while a run goes on. */
		int g = openat(sfd, ".gitignore",
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (g >= 0) {
			(void)pdk_write_all(g, "*\n", 2);
			close(g);
		}
	}
	rfd = own_dir_at(sfd, c->run_id, NULL);
	if (rfd < 0)
		return fail(err, rfd, "cannot stage it in %s/%s: %s; left in place", area,
			    c->run_id,
			    rfd == -EPERM ? "not a directory of this user" : strerror(-rfd));

	for (unsigned n = 1; n < 1000000; n++) {
		char num[16], info[24];
		_cleanup_close_ int nfd = -1;

		snprintf(num, sizeof(num), "%u", n);
		snprintf(info, sizeof(info), "%u.info", n);
		/* The record first: a shim killed at any point leaves either the file in place,
		 * or the file staged next to its record. */
		r = write_record(rfd, info, orig);
		if (r == -EEXIST)
			continue;
		if (r < 0)
			return fail(err, r, "cannot write its record in %s: %s; left in place",
				    area, strerror(-r));
		if (mkdirat(rfd, num, 0700) < 0) {
			r = -errno;
			unlinkat(rfd, info, 0);
			if (r == -EEXIST)
				continue;
			return fail(err, r, "cannot stage it in %s: %s; left in place", area,
				    strerror(-r));
		}
		nfd = openat(rfd, num, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 || renameat(parent_fd, base, nfd, base) < 0) {
			r = -errno;
			unlinkat(rfd, num, AT_REMOVEDIR);
			unlinkat(rfd, info, 0);
			if (r == -EXDEV)
				return fail(
				    err, r,
				    "on another filesystem than its staging area %s; left in "
				    "place (files are never copied)",
				    area);
			return fail(err, r, "%s", strerror(-r));
		}
		if (ret_where && asprintf(ret_where, "%s/%s/%s/%s", area, c->run_id, num, base) < 0)
			*ret_where = NULL;
		return 0;
	}
	return fail(err, -EEXIST, "no free slot left in %s", area);
}

static bool stage_env_valid(const char *s, const char **ret_run)
{
	const char *slash = strchr(s, '/');
	size_t plen = strlen(STAGE_PREFIX);

	if (!slash || strncmp(s, STAGE_PREFIX, plen) != 0 ||
	    !all_digits(s + plen, (size_t)(slash - s) - plen) || !run_id_valid(slash + 1))
		return false;
	*ret_run = slash + 1;
	return true;
}

int pdk_rmshim_main(int argc, char **argv)
{
	const char *stage_env = getenv(PDK_RMSHIM_ENV_STAGE);
	const char *roots_env = getenv(PDK_RMSHIM_ENV_ROOTS);
	_cleanup_free_ char *top = NULL, *list = NULL;
	struct stage_ctx c = {0};
	struct pdk_rm_mover m = {.move = stage, .ctx = &c, .done = "staged for the trash"};
	char *tok, *save = NULL;
	const char *run_id;
	size_t used = 0;
	int code;

	/* An unconfined run (--no-sandbox, outside the sandbox): the trash is
	 * in reach, so the files go there at once, from wherever they are.
	 * Set inside a sandbox, this only makes rm fail: the trash lies
	 * outside the writable roots. */
	if (getenv(PDK_RMSHIM_ENV_DIRECT)) {
		static const char *const everywhere[] = {"/"};
		return pdk_rm_main(argc, argv, everywhere, 1, stderr);
	}
	if (!stage_env || !roots_env || !stage_env_valid(stage_env, &run_id)) {
		fprintf(stderr,
			"rm: this is paddock's rm, which only works for a command run by 'paddock "
			"run'; nothing was removed (use /bin/rm to delete, or 'paddock run -- rm "
			"...' to move files to the trash)\n");
		return 1;
	}
	top = strndup(stage_env, (size_t)(strchr(stage_env, '/') - stage_env));
	list = strdup(roots_env);
	if (!top || !list) {
		fprintf(stderr, "rm: %s\n", strerror(ENOMEM));
		return 1;
	}
	c.top = top;
	c.run_id = run_id;
	for (tok = strtok_r(list, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save)) {
		char *real = realpath(tok, NULL);

		if (!real)
			continue;
		if (strv_add(&c.roots, &c.n_roots, real) < 0) {
			free(real);
			fprintf(stderr, "rm: %s\n", strerror(ENOMEM));
			strv_free(c.roots);
			return 1;
		}
		if (used < sizeof(c.roots_text))
			used += (size_t)snprintf(c.roots_text + used, sizeof(c.roots_text) - used,
						 "%s%s", used ? ", " : "", real);
		free(real);
	}
	if (used >= sizeof(c.roots_text))
		strcpy(c.roots_text + sizeof(c.roots_text) - 4, "...");
	code = pdk_rm_main_with(argc, argv, &m, stderr);
	strv_free(c.roots);
	return code;
}

/* ---- the sweep ---- */

struct sweep {
	char **roots; /* trusted: this run's and those dead runs recorded */
	size_t n_roots;
	const struct pdk_rmshim *shim;
	char *runs_dir;
	int *dead_fds; /* locks held on dead runs' registries while sweeping them */
	char **dead_names;
	size_t n_dead;
	int moved;
	int left;
	char note[NOTE_MAX];
	size_t note_len;
};

static void note_add(struct sweep *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note_add(struct sweep *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->note_len >= sizeof(s->note) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(s->note + s->note_len, sizeof(s->note) - s->note_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		s->note_len += (size_t)n;
	if (s->note_len >= sizeof(s->note) - 1)
		strcpy(s->note + sizeof(s->note) - 5, "...");
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static char *percent_decode(const char *s, size_t len)
{
	char *out = malloc(len + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '%' && i + 2 < len && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
			*o++ = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		} else if (s[i] == '%') {
			free(out);
			return NULL;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	if (strlen(out) != (size_t)(o - out)) { /* an encoded NUL */
		free(out);
		return NULL;
	}
	return out;
}

/* Absolute, no empty, '.' or '..' component, no newline: a path trash-restore can use. */
static bool path_clean(const char *p)
{
	if (p[0] != '/' || strchr(p, '\n') || strstr(p, "//"))
		return false;
	for (const char *c = p; *c;) {
		const char *e;
		size_t len;

		c++;
		e = strchrnul(c, '/');
		len = (size_t)(e - c);
		if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (len == 0 && *e)
			return false;
		c = e;
	}
	return true;
}

/* The record RFD/INFO: the original path (only when it is clean and inside a trusted root)
 * and the deletion date. */
static void read_record(const struct sweep *s, int rfd, const char *info, char **ret_path,
			char *date, size_t date_len)
{
	_cleanup_close_ int fd = openat(rfd, info, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	char buf[RECORD_MAX + 1];
	struct stat st;
	ssize_t n;
	char *line, *save = NULL;

	*ret_path = NULL;
	date[0] = '\0';
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	n = read(fd, buf, RECORD_MAX);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "Path=", 5) == 0 && !*ret_path) {
			char *p = percent_decode(line + 5, strlen(line + 5));
			bool trusted = false;

			for (size_t i = 0; p && path_clean(p) && i < s->n_roots; i++)
				trusted |= pdk_path_under(p, s->roots[i]);
			if (trusted)
				*ret_path = p;
			else
				free(p);
		} else if (strncmp(line, "DeletionDate=", 13) == 0) {
			snprintf(date, date_len, "%s", line + 13);
		}
	}
}

static int list_dir(int fd, char ***ret, size_t *ret_n)
{
	int dup_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;
	struct dirent *e;
	char **v = NULL;
	size_t n = 0;
	int r = 0;

	if (dup_fd < 0)
		return -errno;
	d = fdopendir(dup_fd);
	if (!d) {
		close(dup_fd);
		return -errno;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if ((r = strv_add(&v, &n, e->d_name)) < 0)
			break;
	}
	closedir(d);
	if (r < 0) {
		strv_free(v);
		return r;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

/* DIRFD/NAME to the trash as ORIG (NULL: as where it is staged). */
static void trash_one(struct sweep *s, int dirfd, const char *name, const char *orig,
		      const char *date)
{
	_cleanup_free_ char *where = pdk_path_of_fd(dirfd);
	_cleanup_free_ char *staged = where ? join(where, name) : NULL;
	struct pdk_error err = {0};
	int r;

	if (!staged) {
		s->left++;
		note_add(s, "%s%s (staged, place unknown)", s->left > 1 ? "; " : "", name);
		return;
	}
	r = pdk_trash_put_as(dirfd, name, orig ? orig : staged, date[0] ? date : NULL, NULL, &err);
	if (r == 0) {
		s->moved++;
	} else if (r != -ENOENT) {
		s->left++;
		note_add(s, "%s%s%s%s (%s)", s->left > 1 ? "; " : "", orig ? orig : "",
			 orig ? " at " : "", staged, err.message[0] ? err.message : strerror(-r));
	}
}

/* One item slot: RFD/NUM (a directory holding the staged file) and RFD/NUM.info. */
static void sweep_slot(struct sweep *s, int rfd, const char *num, const char *area)
{
	_cleanup_close_ int nfd = openat(rfd, num, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_free_ char *orig = NULL, *where = NULL;
	_cleanup_strv_ char **items = NULL;
	char info[32], date[64];
	size_t n = 0;

	snprintf(info, sizeof(info), "%s.info", num);
	if (nfd < 0) {
		trash_one(s, rfd, num, NULL, "");
		return;
	}
	/* Opened through no symlink, but a live process could have moved things around:
	 * what is moved must still lie in the staging area. */
	where = pdk_path_of_fd(nfd);
	if (!where || !pdk_path_under(where, area)) {
		s->left++;
		note_add(s, "%s%s moved away while it was swept; left alone",
			 s->left > 1 ? "; " : "", where ? where : num);
		return;
	}
	read_record(s, rfd, info, &orig, date, sizeof(date));
	if (list_dir(nfd, &items, &n) < 0) {
		s->left++;
		note_add(s, "%s%s: cannot be read", s->left > 1 ? "; " : "", where);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const char *slash = orig ? strrchr(orig, '/') : NULL;

		/* The record speaks for the one file it was written for, by name. */
		trash_one(s, nfd, items[i], slash && !strcmp(slash + 1, items[i]) ? orig : NULL,
			  date);
	}
	if (unlinkat(rfd, num, AT_REMOVEDIR) == 0 || errno == ENOENT)
		unlinkat(rfd, info, 0);
}

/* A run's registry entry is locked while its paddock lives. */
static bool run_alive(const struct sweep *s, const char *id)
{
	_cleanup_free_ char *reg = NULL;
	_cleanup_close_ int fd = -1;

	if (s->shim && s->shim->run_id && !strcmp(id, s->shim->run_id))
		return false;
	for (size_t i = 0; i < s->n_dead; i++)
		if (!strcmp(s->dead_names[i], id))
			return false;
	if (!s->runs_dir || !(reg = join(s->runs_dir, id)))
		return true; /* cannot tell: leave it for later */
	fd = open(reg, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT;
	return flock(fd, LOCK_SH | LOCK_NB) < 0;
}

static void sweep_run(struct sweep *s, int sfd, const char *id, const char *area)
{
	_cleanup_close_ int rfd = openat(sfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_strv_ char **names = NULL;
	struct stat st;
	size_t n = 0;

	if (rfd < 0 || fstat(rfd, &st) < 0 || st.st_uid != getuid())
		return;
	if (list_dir(rfd, &names, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		const char *nm = names[i];
		size_t len = strlen(nm);

		if (all_digits(nm, len)) {
			sweep_slot(s, rfd, nm, area);
		} else if (len > 5 && !strcmp(nm + len - 5, ".info") && all_digits(nm, len - 5)) {
			continue; /* with its slot, below */
		} else {
			trash_one(s, rfd, nm, NULL, "");
		}
	}
	/* Records whose slot is gone (a shim stopped before it moved anything). */
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		char num[16];
		struct stat ignored;

		if (len <= 5 || len - 5 >= sizeof(num) || strcmp(names[i] + len - 5, ".info") ||
		    !all_digits(names[i], len - 5))
			continue;
		memcpy(num, names[i], len - 5);
		num[len - 5] = '\0';
		if (fstatat(rfd, num, &ignored, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
			unlinkat(rfd, names[i], 0);
	}
	unlinkat(sfd, id, AT_REMOVEDIR);
}

static void sweep_area(struct sweep *s, const char *base, const char *top)
{
	_cleanup_close_ int dfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int sfd = -1;
	_cleanup_free_ char *area = join(base, top);
	_cleanup_strv_ char **names = NULL;
	struct stat st;
	size_t n = 0;
	bool others = false;

	if (dfd < 0 || !area)
		return;
	sfd = openat(dfd, top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0)
		return;
	if (fstat(sfd, &st) < 0 || st.st_uid != getuid())
		return; /* not ours: someone else's name, or a trap */
	if (list_dir(sfd, &names, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		struct stat est;

		if (!strcmp(names[i], ".gitignore"))
			continue;
		if (run_id_valid(names[i]) &&
		    fstatat(sfd, names[i], &est, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(est.st_mode)) {
			if (run_alive(s, names[i]))
				others = true;
			else
				sweep_run(s, sfd, names[i], area);
		} else {
			trash_one(s, sfd, names[i], NULL, "");
		}
	}
	if (others)
		return;
	/* Empty but for the .gitignore: remove it; a shim racing us makes it again. */
	strv_free(steal_pointer(&names));
	if (list_dir(sfd, &names, &n) < 0)
		return;
	if (n == 0 || (n == 1 && !strcmp(names[0], ".gitignore"))) {
		if (n == 1)
			unlinkat(sfd, ".gitignore", 0);
		unlinkat(dfd, top, AT_REMOVEDIR);
	}
}

/* Mount points strictly below ROOT (where files on other filesystems were staged). */
static void mounts_under(const char *root, char ***v, size_t *n)
{
#ifdef __linux__
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		char *save = NULL, *field = strtok_r(line, " ", &save);
		char *mp = NULL, *o;

		for (int i = 0; field && i < 4; i++) {
			field = strtok_r(NULL, " ", &save);
			if (i == 3)
				mp = field;
		}
		if (!mp)
			continue;
		/* mountinfo escapes space, tab, newline and backslash as \ooo. */
		o = mp;
		for (char *c = mp; *c; c++) {
			if (c[0] == '\\' && c[1] >= '0' && c[1] <= '3' && c[2] >= '0' &&
			    c[2] <= '7' && c[3] >= '0' && c[3] <= '7') {
				*o++ = (char)((c[1] - '0') * 64 + (c[2] - '0') * 8 + (c[3] - '0'));
				c += 3;
			} else {
				*o++ = *c;
			}
		}
		*o = '\0';
		if (strcmp(mp, root) != 0 && pdk_path_under(mp, root) && !strv_has(*v, *n, mp))
			(void)strv_add(v, n, mp);
	}
	free(line);
	fclose(f);
#else
	(void)root;
	(void)v;
	(void)n;
#endif
}

/* Dead runs' registries: lock them (a later sweep must not race this one) and trust their
 * roots, which paddock wrote outside the sandbox. */
static void adopt_dead_runs(struct sweep *s)
{
	_cleanup_strv_ char **names = NULL;
	_cleanup_close_ int dfd = -1;
	size_t n = 0;

	dfd = open(s->runs_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || list_dir(dfd, &names, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		char buf[RECORD_MAX + 1], *tok, *save = NULL;
		int fd, *nfds;
		char **nnames;
		ssize_t len;

		if (!run_id_valid(names[i]) ||
		    (s->shim && s->shim->run_id && !strcmp(names[i], s->shim->run_id)))
			continue;
		fd = openat(dfd, names[i], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			close(fd);
			continue; /* alive */
		}
		nfds = realloc(s->dead_fds, (s->n_dead + 1) * sizeof(*nfds));
		if (nfds)
			s->dead_fds = nfds;
		nnames = realloc(s->dead_names, (s->n_dead + 1) * sizeof(*nnames));
		if (nnames)
			s->dead_names = nnames;
		if (!nfds || !nnames || !(s->dead_names[s->n_dead] = strdup(names[i]))) {
			close(fd);
			continue;
		}
		s->dead_fds[s->n_dead++] = fd;
		len = read(fd, buf, RECORD_MAX);
		buf[len > 0 ? len : 0] = '\0';
		for (tok = strtok_r(buf, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save))
			if (tok[0] == '/' && !strv_has(s->roots, s->n_roots, tok))
				(void)strv_add(&s->roots, &s->n_roots, tok);
	}
}

int pdk_rmshim_sweep_roots(const char *const *roots, size_t n_roots, struct pdk_rmshim *shim,
			   char **ret_note)
{
	_cleanup_free_ char *state = pdk_state_dir();
	_cleanup_free_ char *top = NULL;
	struct sweep s = {.shim = shim};
	char **bases = NULL;
	size_t n_bases = 0;

	if (asprintf(&top, STAGE_PREFIX "%u", (unsigned)getuid()) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n_roots; i++) {
		char *real = roots[i] ? realpath(roots[i], NULL) : NULL;

		if (real && !strv_has(s.roots, s.n_roots, real))
			(void)strv_add(&s.roots, &s.n_roots, real);
		free(real);
	}
	if (state) {
		_cleanup_free_ char *shimdir = join(state, "shim");

		s.runs_dir = shimdir ? join(shimdir, "runs") : NULL;
	}
	if (s.runs_dir)
		adopt_dead_runs(&s);

	for (size_t i = 0; i < s.n_roots; i++) {
		if (!strv_has(bases, n_bases, s.roots[i]))
			(void)strv_add(&bases, &n_bases, s.roots[i]);
		mounts_under(s.roots[i], &bases, &n_bases);
	}
	for (size_t i = 0; i < n_bases; i++)
		sweep_area(&s, bases[i], top);

	/* A registry entry goes once nothing of its run is left staged. */
	for (size_t i = 0; i < s.n_dead; i++) {
		if (s.left == 0) {
			_cleanup_free_ char *reg = join(s.runs_dir, s.dead_names[i]);

			if (reg)
				unlink(reg);
		}
		close(s.dead_fds[i]);
		free(s.dead_names[i]);
	}
	if (shim && shim->registry && s.left == 0)
		unlink(shim->registry);
	free(s.dead_fds);
	free(s.dead_names);
	strv_free(bases);
	strv_free(s.roots);
	free(s.runs_dir);

	if (ret_note) {
		*ret_note = NULL;
		if (s.left > 0 &&
		    asprintf(ret_note,
			     "rm: %d file%s could not be moved to the trash and stay%s staged, "
			     "nothing deleted: %s",
			     s.left, s.left == 1 ? "" : "s", s.left == 1 ? "s" : "", s.note) < 0)
			*ret_note = NULL;
	}
	return s.moved;
}

int pdk_rmshim_sweep(const struct pdk_sandbox *sb, struct pdk_rmshim *shim, char **ret_note)
{
	return pdk_rmshim_sweep_roots(sb->policy.roots, sb->policy.n_roots, shim, ret_note);
}
