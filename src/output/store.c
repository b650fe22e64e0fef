/* store.c - the output store: the whole output of a run whose result held
 * something back, kept under $XDG_STATE_HOME/paddock/output/SESSION/ID. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __APPLE__
#include <sys/random.h>
#endif

#include "core/path.h"
#include "core/state.h"
#include "store.h"
#include "core/util.h"

struct pdk_store_entry {
	char *dir; /* the session's directory */
	char *root;
	uint64_t cap, prune;
	int spill_fd[3];
	uint64_t spilled[3];
	bool broken[3];
	char error[256];
};

char *pdk_store_default_dir(void)
{
	_cleanup_free_ char *state = pdk_state_dir();
	char *ret;

	if (!state || asprintf(&ret, "%s/output", state) < 0)
		return NULL;
	return ret;
}

bool pdk_store_id_valid(const char *id)
{
	return strlen(id) == PDK_ID_LEN && strspn(id, "0123456789abcdef") == PDK_ID_LEN;
}

int pdk_store_entry_new(const struct pdk_store_config *cfg, struct pdk_store_entry **ret)
{
	struct pdk_store_entry *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	e->spill_fd[1] = e->spill_fd[2] = -1;
	e->cap = cfg->cap;
	e->prune = cfg->prune;
	if (!cfg->dir) {
		snprintf(e->error, sizeof(e->error), "no state directory (HOME is not set)");
	} else if (asprintf(&e->dir, "%s/%s", cfg->dir, cfg->session) < 0 ||
		   !(e->root = strdup(cfg->dir))) {
		pdk_store_entry_free(e);
		return -ENOMEM;
	}
	*ret = e;
	return 0;
}

void pdk_store_entry_free(struct pdk_store_entry *e)
{
	if (!e)
		return;
	for (int i = 1; i <= 2; i++)
		if (e->spill_fd[i] >= 0)
			close(e->spill_fd[i]);
	free(e->dir);
	free(e->root);
	free(e);
}

const char *pdk_store_error(const struct pdk_store_entry *e)
{
	return e->error[0] ? e->error : NULL;
}

static void fail(struct pdk_store_entry *e, const char *what, int err)
{
	if (!e->error[0])
		snprintf(e->error, sizeof(e->error), "%s: %s", what, strerror(err));
}

/* An unnamed file in the session directory (created, then unlinked). */
static int temp_file(struct pdk_store_entry *e, bool keep_name, char **ret_path)
{
	_cleanup_free_ char *path = NULL;
	int fd, r;

	if (!e->dir)
		return -ENOENT;
	r = pdk_mkdir_p(e->dir, 0700);
	if (r < 0) {
		fail(e, e->dir, -r);
		return r;
	}
	if (asprintf(&path, "%s/.tmp-XXXXXX", e->dir) < 0)
		return -ENOMEM;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		fail(e, e->dir, errno);
		return -errno;
	}
	if (!keep_name)
		unlink(path);
	else
		*ret_path = steal_pointer(&path);
	return fd;
}

int pdk_store_spill(struct pdk_store_entry *e, int stream, const void *buf, size_t len)
{
	int r;

	if (e->broken[stream])
		return -EIO;
	if (!buf) { /* the caller lost bytes: this stream cannot be kept whole */
		e->broken[stream] = true;
		fail(e, "keeping the output", ENOMEM);
		return -EIO;
	}
	if (e->spill_fd[stream] < 0) {
		r = temp_file(e, false, NULL);
		if (r < 0) {
			e->broken[stream] = true;
			return r;
		}
		e->spill_fd[stream] = r;
	}
	if (e->spilled[stream] >= e->cap)
		return 0; /* past the per-output cap: counted, not kept */
	if (len > e->cap - e->spilled[stream])
		len = (size_t)(e->cap - e->spilled[stream]);
	r = pdk_write_all(e->spill_fd[stream], buf, len);
	if (r < 0) {
		e->broken[stream] = true;
		fail(e, "writing the output store", -r);
		return r;
	}
	e->spilled[stream] += len;
	return 0;
}

uint64_t pdk_store_spilled(const struct pdk_store_entry *e, int stream)
{
	return e->spill_fd[stream] >= 0 ? e->spilled[stream] : 0;
}

ssize_t pdk_store_spill_read(struct pdk_store_entry *e, int stream, void *buf, size_t len,
			     uint64_t off)
{
	ssize_t n;

	if (e->spill_fd[stream] < 0)
		return -ENOENT;
	do
		n = pread(e->spill_fd[stream], buf, len, (off_t)off);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

static int random_id(char id[PDK_ID_LEN + 1])
{
	unsigned char b[PDK_ID_LEN / 2];

	if (getentropy(b, sizeof(b)) < 0)
		return -errno;
	for (size_t i = 0; i < sizeof(b); i++)
		snprintf(id + 2 * i, 3, "%02x", b[i]);
	return 0;
}

/* Write one part, counting lines; stop at the cap. */
static int write_part(struct pdk_store_entry *e, int fd, const struct pdk_store_part *p,
		      struct pdk_store_result *res, unsigned char *last)
{
	char buf[65536];
	uint64_t off = 0;

	while (off < p->len) {
		size_t n = p->len - off < sizeof(buf) ? (size_t)(p->len - off) : sizeof(buf);
		const char *src;
		int r;

		if (res->bytes >= e->cap) {
			res->truncated = true;
			return 0;
		}
		if (n > e->cap - res->bytes)
			n = (size_t)(e->cap - res->bytes);
		if (p->data) {
			src = p->data + off;
		} else {
			ssize_t got = pdk_store_spill_read(e, p->stream, buf, n, off);
			if (got <= 0)
				return got < 0 ? (int)got : -EIO;
			n = (size_t)got;
			src = buf;
		}
		r = pdk_write_all(fd, src, n);
		if (r < 0)
			return r;
		for (const char *q = src; (q = memchr(q, '\n', n - (size_t)(q - src))); q++)
			res->lines++;
		*last = (unsigned char)src[n - 1];
		res->bytes += n;
		off += n;
	}
	return 0;
}

static int prune(const char *dir, uint64_t keep, const char *spare);

int pdk_store_commit(struct pdk_store_entry *e, const struct pdk_store_part *parts, size_t n,
		     struct pdk_store_result *ret)
{
	struct pdk_store_result res = {0};
	_cleanup_free_ char *tmp = NULL;
	_cleanup_close_ int fd = -1;
	unsigned char last = '\n';
	int r;

	if (e->error[0])
		return -EIO;
	for (size_t i = 0; i < n; i++)
		if (!parts[i].data && e->broken[parts[i].stream]) {
			fail(e, "keeping the output", EIO);
			return -EIO;
		}
	fd = temp_file(e, true, &tmp);
	if (fd < 0)
		return fd;
	PDK_ANALYZER_ASSUME(tmp); /* temp_file names the file it made when asked to */
	if (fchmod(fd, 0600) < 0) {
		r = -errno;
		goto unlink_tmp;
	}
	for (size_t i = 0; i < n && !res.truncated; i++) {
		r = write_part(e, fd, &parts[i], &res, &last);
		if (r < 0) {
			fail(e, "writing the output store", -r);
			goto unlink_tmp;
		}
	}
	if (res.bytes > 0 && last != '\n')
		res.lines++;
	/* A fresh name for the finished file; link() never replaces one. */
	for (int tries = 0;; tries++) {
		_cleanup_free_ char *path = NULL;

		r = random_id(res.id);
		if (r < 0)
			goto unlink_tmp;
		if (asprintf(&path, "%s/%s", e->dir, res.id) < 0) {
			r = -ENOMEM;
			goto unlink_tmp;
		}
		if (link(tmp, path) == 0)
			break;
		if (errno != EEXIST || tries > 100) {
			r = -errno;
			fail(e, e->dir, errno);
			goto unlink_tmp;
		}
	}
	unlink(tmp);
	{
		_cleanup_free_ char *spare = NULL;
		if (asprintf(&spare, "%s/%s", e->dir, res.id) >= 0)
			prune(e->root, e->prune, spare);
	}
	*ret = res;
	return 0;

unlink_tmp:
	unlink(tmp);
	return r;
}

struct old {
	char *path;
	time_t mtime;
	uint64_t size;
};

static int by_age(const void *a, const void *b)
{
	const struct old *x = a, *y = b;
	return (x->mtime > y->mtime) - (x->mtime < y->mtime);
}

/* A temp file of a commit that never finished (paddock killed while writing it) is no output:
 * nothing reads it, and once it is an hour old no commit is still writing it either. */
static void sweep_temp(int dfd, const char *name)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	    st.st_mtime < time(NULL) - 3600)
		unlinkat(dfd, name, 0);
}

static int prune(const char *dir, uint64_t keep, const char *spare)
{
	struct old *list = NULL;
	size_t n = 0, alloc = 0;
	uint64_t total = 0;
	DIR *top = opendir(dir);
	struct dirent *s;
	int r = 0;

	if (!top)
		return -errno;
	while (r == 0 && (s = readdir(top))) {
		_cleanup_free_ char *sdir = NULL;
		DIR *d;
		struct dirent *f;

		if (s->d_name[0] == '.')
			continue;
		if (asprintf(&sdir, "%s/%s", dir, s->d_name) < 0) {
			r = -ENOMEM;
			break;
		}
		if (!(d = opendir(sdir))) {
			if (errno == ENOMEM)
				r = -ENOMEM;
			continue;
		}
		while (r == 0 && (f = readdir(d))) {
			struct stat st;
			char *path;

			if (strncmp(f->d_name, ".tmp-", 5) == 0)
				sweep_temp(dirfd(d), f->d_name);
			if (f->d_name[0] == '.')
				continue;
			if (asprintf(&path, "%s/%s", sdir, f->d_name) < 0) {
				r = -ENOMEM;
				break;
			}
			if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
				free(path);
				continue;
			}
			if (n == alloc) {
				size_t more = alloc ? alloc * 2 : 64;
				struct old *nl = realloc(list, more * sizeof(*list));
				if (!nl) {
					free(path);
					r = -ENOMEM;
					break;
				}
				list = nl;
				alloc = more;
			}
			list[n++] = (struct old){path, st.st_mtime, (uint64_t)st.st_size};
			total += (uint64_t)st.st_size;
		}
		closedir(d);
	}
	closedir(top);
	/* Only a whole listing says which outputs are the oldest. */
	if (r == 0 && total > keep) {
		qsort(list, n, sizeof(*list), by_age);
		for (size_t i = 0; i < n && total > keep; i++) {
			if (spare && strcmp(list[i].path, spare) == 0)
				continue;
			if (unlink(list[i].path) == 0 || errno == ENOENT)
				total -= list[i].size;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(list[i].path);
	free(list);
	return r;
}

int pdk_store_prune(const char *dir, uint64_t keep)
{
	return prune(dir, keep, NULL);
}

static int store_open(const char *dir, const char *session, const char *id)
{
	char path[PATH_MAX];
	DIR *d;
	struct dirent *s;
	int fd;

	if (!pdk_store_id_valid(id))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%s/%s", dir, session, id);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0 || errno != ENOENT)
		return fd >= 0 ? fd : -errno;
	if (!(d = opendir(dir)))
		return -ENOENT;
	fd = -ENOENT;
	while ((s = readdir(d))) {
		if (s->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", dir, s->d_name, id);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0)
			break;
		fd = -ENOENT;
	}
	closedir(d);
	return fd;
}

int pdk_store_open(const char *dir, const char *session, const char *id)
{
	struct stat st;
	int fd = store_open(dir, session, id);

	/* Only a regular file is an output paddock kept: anything else at its name is skipped. */
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		return -EBADMSG;
	}
	return fd == -ELOOP ? -EBADMSG : fd;
}
