/* vettrack.c - a protected name git itself checked out (vettrack.h). The refs are read
 * from git's files (they only say which commit to check); the objects come from
 * `git cat-file --batch`, each checked here against the SHA-1 it is asked by. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gitconfig.h"
#include "core/path.h"
#include "core/strv.h"
#include "core/util.h"
#include "core/state.h"
#include "vettrack.h"

#define MAX_TIPS 1000
#define MAX_OBJECT (16u << 20) /* a tree or commit larger than this: no */
#define MAX_FILE (64u << 20)   /* a checked-out file larger than this: no */
#define MAX_ENTRIES 10000      /* files and directories compared under one path */
#define MAX_INDEX (32u << 20)  /* a larger index is not looked into */

/* ---- SHA-1 (FIPS 180-4), streamed ---- */

struct sha1 {
	uint32_t h[5];
	uint64_t len;
	unsigned char buf[64];
};

static uint32_t rol(uint32_t x, int n)
{
	return (x << n) | (x >> (32 - n));
}

static void sha1_block(struct sha1 *s, const unsigned char *p)
{
	uint32_t w[80], a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	for (int i = 0; i < 80; i++) {
		uint32_t f, k, t;

		if (i < 20)
			f = (b & c) | (~b & d), k = 0x5a827999;
		else if (i < 40)
			f = b ^ c ^ d, k = 0x6ed9eba1;
		else if (i < 60)
			f = (b & c) | (b & d) | (c & d), k = 0x8f1bbcdc;
		else
			f = b ^ c ^ d, k = 0xca62c1d6;
		t = rol(a, 5) + f + e + k + w[i];
		e = d, d = c, c = rol(b, 30), b = a, a = t;
	}
	s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d, s->h[4] += e;
}

static void sha1_init(struct sha1 *s)
{
	*s = (struct sha1){{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0}, 0, {0}};
}

static void sha1_update(struct sha1 *s, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t fill = s->len % 64;

	s->len += len;
	if (fill) {
		size_t take = len < 64 - fill ? len : 64 - fill;

		memcpy(s->buf + fill, p, take);
		p += take, len -= take;
		if (fill + take < 64)
			return;
		sha1_block(s, s->buf);
	}
	for (; len >= 64; p += 64, len -= 64)
		sha1_block(s, p);
	memcpy(s->buf, p, len);
}

static void sha1_final(struct sha1 *s, unsigned char out[20])
{
	uint64_t bits = s->len * 8;
	unsigned char pad[72] = {0x80};
	size_t padlen = (s->len % 64 < 56 ? 56 : 120) - s->len % 64;

	for (int i = 0; i < 8; i++)
		pad[padlen + i] = (unsigned char)(bits >> (56 - 8 * i));
	sha1_update(s, pad, padlen + 8);
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 4; j++)
			out[4 * i + j] = (unsigned char)(s->h[i] >> (24 - 8 * j));
}

/* The object id git gives type with this content. */
static void object_id(const char *type, const void *data, size_t len, unsigned char out[20])
{
	char head[48];
	int n = snprintf(head, sizeof(head), "%s %zu", type, len);
	struct sha1 s;

	sha1_init(&s);
	sha1_update(&s, head, (size_t)n + 1);
	sha1_update(&s, data, len);
	sha1_final(&s, out);
}

static void to_hex(const unsigned char id[20], char hex[41])
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < 20; i++) {
		hex[2 * i] = digits[id[i] >> 4];
		hex[2 * i + 1] = digits[id[i] & 15];
	}
	hex[40] = '\0';
}

static bool is_hex40(const char *s)
{
	return strspn(s, "0123456789abcdef") == 40;
}

/* ---- refs, from git's files ---- */

/* Up to the first line of a small file, without its newline, or NULL. */
static char *first_line(const char *dir, const char *name)
{
	_cleanup_free_ char *path = pdk_path_join(dir, name);
	char *text = NULL;

	if (!path || pdk_read_small_at(AT_FDCWD, path, 4096, &text, NULL) < 0)
		return NULL;
	text[strcspn(text, "\r\n")] = '\0';
	return text;
}

/* The git directory of worktree (its .git, or where a .git file points), and the common
 * directory of its refs and objects; 0, or -ENOENT when there is none. */
static int git_dirs(const char *worktree, char **ret_git, char **ret_common)
{
	_cleanup_free_ char *dotgit = pdk_path_join(worktree, ".git"), *cfile = NULL;
	_cleanup_free_ char *git = NULL, *common = NULL;
	struct stat st;

	if (!dotgit || lstat(dotgit, &st) < 0)
		return -ENOENT;
	git = S_ISDIR(st.st_mode) ? steal_pointer(&dotgit) : pdk_git_named_path(dotgit, worktree);
	if (!git)
		return -ENOENT;
	/* A linked worktree's refs and objects are in the common directory its commondir names. */
	if ((cfile = pdk_path_join(git, "commondir")))
		common = pdk_git_named_path(cfile, git);
	if (!common)
		common = strdup(git);
	if (!common)
		return -ENOENT;
	*ret_git = steal_pointer(&git);
	*ret_common = steal_pointer(&common);
	return 0;
}

/* The commit ref (refs/...) names, loose or packed, into hex; false when none. */
static bool resolve(const char *common, const char *ref, char hex[41])
{
	_cleanup_free_ char *loose = first_line(common, ref);
	_cleanup_free_ char *path = NULL;
	char line[512];
	FILE *f;
	bool found = false;

	if (loose && is_hex40(loose)) {
		memcpy(hex, loose, 41);
		hex[40] = '\0';
		return true;
	}
	if (!(path = pdk_path_join(common, "packed-refs")) || !(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (is_hex40(line) && line[40] == ' ' && !strcmp(line + 41, ref)) {
			memcpy(hex, line, 40);
			hex[40] = '\0';
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* HEAD of the git directory git: detached, or the branch it names. */
static bool head_of(const char *git, const char *common, char hex[41])
{
	_cleanup_free_ char *head = first_line(git, "HEAD");

	if (!head)
		return false;
	if (is_hex40(head)) {
		memcpy(hex, head, 40);
		hex[40] = '\0';
		return true;
	}
	return !strncmp(head, "ref: refs/", 10) && !strstr(head, "..") &&
	       resolve(common, head + 5, hex);
}

static int add_tip(char ***tips, size_t *n, const char *worktree, const char *hex)
{
	char *s;

	if (*n >= MAX_TIPS)
		return 0;
	if (asprintf(&s, "%s\t%.40s", worktree, hex) < 0)
		return -ENOMEM;
	if (pdk_strv_contains(*tips, *n, s)) {
		free(s);
		return 0;
	}
	return pdk_strv_append(tips, n, s);
}

/* The loose refs under dir (refs/heads, refs/remotes), depth bounded. */
static int loose_tips(const char *dir, int depth, const char *worktree, char ***tips, size_t *n)
{
	DIR *d = depth < 8 ? opendir(dir) : NULL;
	struct dirent *e;
	int r = 0;

	if (!d)
		return 0;
	while (r == 0 && (e = readdir(d))) {
		_cleanup_free_ char *path = NULL, *line = NULL;

		if (e->d_name[0] == '.' || !(path = pdk_path_join(dir, e->d_name)))
			continue;
		if (e->d_type == DT_DIR)
			r = loose_tips(path, depth + 1, worktree, tips, n);
		else if ((line = first_line(dir, e->d_name)) && is_hex40(line))
			r = add_tip(tips, n, worktree, line);
	}
	closedir(d);
	return r;
}

int pdk_vettrack_snapshot(const char *worktree, char ***tips, size_t *n)
{
	_cleanup_free_ char *git = NULL, *common = NULL, *packed = NULL;
	char hex[41], line[512];
	FILE *f;
	int r = 0;

	if (git_dirs(worktree, &git, &common) < 0)
		return 0;
	if (head_of(git, common, hex) && (r = add_tip(tips, n, worktree, hex)) < 0)
		return r;
	if ((packed = pdk_path_join(common, "packed-refs")) && (f = fopen(packed, "re"))) {
		while (r == 0 && fgets(line, sizeof(line), f))
			if (is_hex40(line) && (!strncmp(line + 41, "refs/heads/", 11) ||
					       !strncmp(line + 41, "refs/remotes/", 13)))
				r = add_tip(tips, n, worktree, line);
		fclose(f);
	}
	static const char *const kinds[] = {"refs/heads", "refs/remotes"};
	for (size_t k = 0; r == 0 && k < PDK_ARRAY_SIZE(kinds); k++) {
		_cleanup_free_ char *dir = pdk_path_join(common, kinds[k]);

		r = dir ? loose_tips(dir, 0, worktree, tips, n) : -ENOMEM;
	}
	return r;
}

bool pdk_vettrack_in_index(const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : NULL;
	_cleanup_free_ char *wt = slash ? strndup(path, (size_t)(slash - path)) : NULL;
	_cleanup_free_ char *index = wt ? pdk_path_join(wt, ".git/index") : NULL, *text = NULL;
	_cleanup_close_ int fd = index ? open(index, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	char pat[NAME_MAX + 2];
	struct stat st;
	size_t len = 0, bl;

	if (fd < 0 || !base || (bl = strlen(base)) > NAME_MAX || fstat(fd, &st) < 0 ||
	    !S_ISREG(st.st_mode) || (uint64_t)st.st_size > MAX_INDEX ||
	    pdk_read_size(fd, (size_t)st.st_size, &text, &len) < 0 || len < 12 ||
	    memcmp(text, "DIRC", 4))
		return false;
	/* As an entry's name: itself, NUL-ended, or a directory of one. */
	memcpy(pat, base, bl);
	pat[bl] = '\0';
	if (memmem(text + 12, len - 12, pat, bl + 1))
		return true;
	pat[bl] = '/';
	return memmem(text + 12, len - 12, pat, bl + 1) != NULL;
}

/* ---- the ledger of commits made in a sandbox ---- */

#define LEDGER "tainted-commits" /* in paddock's state directory */

/* The ledger's text, or NULL when there is none (or it cannot be read). */
static char *ledger_read(void)
{
	_cleanup_free_ char *state = pdk_state_dir();
	_cleanup_free_ char *path = state ? pdk_path_join(state, LEDGER) : NULL;
	_cleanup_close_ int fd = path ? open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	struct stat st;
	char *text = NULL;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    pdk_read_size(fd, (size_t)st.st_size, &text, NULL) < 0)
		return NULL;
	return text;
}

/* Does the ledger's text name hex (40 digits), on a line of its own? */
static bool ledger_has(const char *text, const char *hex)
{
	for (const char *p = text; p && (p = strstr(p, hex)); p += 40)
		if ((p == text || p[-1] == '\n') && p[40] == '\n')
			return true;
	return false;
}

void pdk_vettrack_untaint(char **tips, size_t *n)
{
	_cleanup_free_ char *text = *n ? ledger_read() : NULL;
	size_t kept = 0;

	for (size_t i = 0; i < *n; i++) {
		const char *hex = strchr(tips[i], '\t');

		if (text && hex && ledger_has(text, hex + 1))
			free(tips[i]);
		else
			tips[kept++] = tips[i];
	}
	for (size_t i = kept; i < *n; i++)
		tips[i] = NULL;
	*n = kept;
}

int pdk_vettrack_taint(char *const *worktrees, size_t n, char *const *before, size_t n_before)
{
	_cleanup_strv_ char **now = NULL;
	_cleanup_free_ char *text = NULL, *add = NULL, *path = NULL, *state = NULL;
	size_t n_now = 0, len = 0;
	FILE *f;
	int r = 0;

	for (size_t i = 0; r == 0 && i < n; i++)
		r = pdk_vettrack_snapshot(worktrees[i], &now, &n_now);
	if (r < 0 || !n_now)
		return r;
	text = ledger_read();
	if (!(f = open_memstream(&add, &len)))
		return -ENOMEM;
	for (size_t i = 0; i < n_now; i++) {
		const char *hex = strchr(now[i], '\t') + 1;

		if (!pdk_strv_contains((char **)before, n_before, now[i]) &&
		    !(text && ledger_has(text, hex)))
			fprintf(f, "%s\n", hex);
	}
	if (fclose(f) == EOF)
		return -ENOMEM;
	if (!len)
		return 0;
	if (!(state = pdk_state_dir()) || !(path = pdk_path_join(state, LEDGER)))
		return -ENOMEM;
	int fd = pdk_open_in_dir(state, path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return fd;
	r = pdk_write_all(fd, add, len);
	close(fd);
	return r;
}

/* ---- objects, from git cat-file --batch, checked ---- */

struct batch {
	pid_t pid;
	int to; /* requests */
	FILE *from;
	unsigned entries; /* compared so far */
};

static bool batch_start(struct batch *b, const char *git)
{
	static char a0[] = "git", a1[] = "-c", a2[] = "safe.directory=*", a3[] = "--git-dir",
		    a5[] = "cat-file", a6[] = "--batch";
	char *argv[] = {a0, a1, a2, a3, (char *)git, a5, a6, NULL};
	const char *path = getenv("PATH");
	_cleanup_free_ char *penv = NULL;
	posix_spawn_file_actions_t fa;
	int in[2], out[2];
	bool ok;

	/* Neither the user's nor the system's configuration: only the objects are wanted. */
	if (asprintf(&penv, "PATH=%s", path ? path : "/usr/bin:/bin") < 0)
		return false;
	char *envp[] = {penv,
			(char *)"GIT_CONFIG_NOSYSTEM=1",
			(char *)"GIT_CONFIG_GLOBAL=/dev/null",
			(char *)"GIT_NO_REPLACE_OBJECTS=1",
			(char *)"GIT_OPTIONAL_LOCKS=0",
			(char *)"LC_ALL=C",
			NULL};

	if (pdk_pipe_cloexec(in) < 0)
		return false;
	if (pdk_pipe_cloexec(out) < 0) {
		close(in[0]);
		close(in[1]);
		return false;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	ok = posix_spawnp(&b->pid, "git", &fa, NULL, argv, envp) == 0;
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(out[1]);
	b->to = in[1];
	b->from = ok ? fdopen(out[0], "r") : NULL;
	if (!b->from) {
		close(out[0]);
		close(b->to);
		if (ok)
			waitpid(b->pid, NULL, 0);
		return false;
	}
	return true;
}

static void batch_stop(struct batch *b)
{
	close(b->to);
	fclose(b->from);
	kill(b->pid, SIGKILL);
	while (waitpid(b->pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* The object id (20 bytes) of type type, its content in *ret (len in *ret_len), only when
 * it hashes to id. */
static bool batch_get(struct batch *b, const unsigned char id[20], const char *type, char **ret,
		      size_t *ret_len)
{
	char hex[41], req[42], head[128], got_type[16];
	unsigned char check[20];
	unsigned long size;
	_cleanup_free_ char *buf = NULL;

	to_hex(id, hex);
	snprintf(req, sizeof(req), "%s\n", hex);
	if (pdk_write_all(b->to, req, 41) < 0 || !fgets(head, sizeof(head), b->from) ||
	    sscanf(head, "%*40s %15s %lu", got_type, &size) != 2 || strcmp(got_type, type) ||
	    size > MAX_OBJECT || !(buf = malloc(size + 1)) ||
	    fread(buf, 1, size, b->from) != size || fgetc(b->from) != '\n')
		return false;
	object_id(type, buf, size, check);
	if (memcmp(check, id, 20))
		return false;
	buf[size] = '\0';
	*ret = steal_pointer(&buf);
	*ret_len = size;
	return true;
}

/* The entry name in a tree object: its mode and id. */
static bool tree_entry(const char *tree, size_t len, const char *name, unsigned *mode,
		       unsigned char id[20])
{
	for (size_t off = 0; off < len;) {
		const char *sp = memchr(tree + off, ' ', len - off), *nul;

		if (!sp || !(nul = memchr(sp, '\0', len - (size_t)(sp - tree))) ||
		    (size_t)(nul - tree) + 21 > len)
			return false;
		if (!strcmp(sp + 1, name)) {
			*mode = (unsigned)strtoul(tree + off, NULL, 8);
			memcpy(id, nul + 1, 20);
			return true;
		}
		off = (size_t)(nul - tree) + 21;
	}
	return false;
}

/* The blob id of the file open on fd (a regular file, at most MAX_FILE). */
static bool file_id(int fd, unsigned char id[20])
{
	_cleanup_free_ char *text = NULL;
	struct stat st;
	size_t len = 0;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > MAX_FILE ||
	    pdk_read_size(fd, (size_t)st.st_size, &text, &len) < 0 || len != (size_t)st.st_size)
		return false;
	object_id("blob", text, len, id);
	return true;
}

/* Is dfd/name what the tree entry (mode, id) says, a directory holding nothing else? */
static bool same(struct batch *b, int dfd, const char *name, unsigned mode,
		 const unsigned char id[20], int depth)
{
	unsigned char got[20];
	struct stat st;

	if (++b->entries > MAX_ENTRIES || depth > 16 || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	if (S_ISREG(st.st_mode)) {
		_cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

		return (mode == 0100644 || mode == 0100755) && fd >= 0 && file_id(fd, got) &&
		       !memcmp(got, id, 20);
	}
	if (S_ISLNK(st.st_mode)) {
		char target[4096];
		ssize_t n = readlinkat(dfd, name, target, sizeof(target));

		if (mode != 0120000 || n < 0 || (size_t)n >= sizeof(target))
			return false;
		object_id("blob", target, (size_t)n, got);
		return !memcmp(got, id, 20);
	}
	if (!S_ISDIR(st.st_mode) || mode != 040000)
		return false;
	_cleanup_free_ char *tree = NULL;
	size_t len;
	int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = sub >= 0 ? fdopendir(sub) : NULL;
	struct dirent *e;
	bool ok;

	if (!d) {
		if (sub >= 0)
			close(sub);
		return false;
	}
	ok = batch_get(b, id, "tree", &tree, &len);
	while (ok && (e = readdir(d))) {
		unsigned emode;
		unsigned char eid[20];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		ok = tree_entry(tree, len, e->d_name, &emode, eid) &&
		     same(b, dirfd(d), e->d_name, emode, eid, depth + 1);
	}
	closedir(d);
	return ok;
}

/* The worktree of tips that path lies in (the longest), its length, or 0. */
static size_t worktree_of(const char *path, char *const *tips, size_t n)
{
	size_t best = 0;

	for (size_t i = 0; i < n; i++) {
		size_t w = strcspn(tips[i], "\t");

		if (w > best && !strncmp(tips[i], path, w) && path[w] == '/' && path[w + 1])
			best = w;
	}
	return best;
}

bool pdk_vettrack_checked_out(const char *path, char *const *tips, size_t n)
{
	size_t wlen = worktree_of(path, tips, n), len;
	_cleanup_free_ char *worktree = wlen ? strndup(path, wlen) : NULL, *rel = NULL;
	_cleanup_free_ char *git = NULL, *common = NULL, *obj = NULL;
	_cleanup_close_ int dfd = -1;
	char head[41], *comp, *next;
	unsigned char id[20];
	unsigned mode = 040000;
	bool trusted = false, ok;
	struct batch b = {0};

	if (!worktree || !(rel = strdup(path + wlen + 1)) || git_dirs(worktree, &git, &common) < 0 ||
	    !head_of(git, common, head))
		return false;
	for (size_t i = 0; i < n && !trusted; i++)
		trusted = !strncmp(tips[i], worktree, wlen) && tips[i][wlen] == '\t' &&
			  !strcmp(tips[i] + wlen + 1, head);
	if (!trusted || (dfd = open(worktree, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return false;
	for (int i = 0; i < 20; i++)
		sscanf(head + 2 * i, "%2hhx", &id[i]);
	if (!batch_start(&b, git))
		return false;
	ok = batch_get(&b, id, "commit", &obj, &len) && !strncmp(obj, "tree ", 5) &&
	     is_hex40(obj + 5);
	for (int i = 0; ok && i < 20; i++)
		sscanf(obj + 5 + 2 * i, "%2hhx", &id[i]);
	/* Down the tree and the directories to path's parent, then path itself. */
	for (comp = rel; ok; comp = next + 1) {
		_cleanup_free_ char *tree = NULL;

		next = strchr(comp, '/');
		if (next)
			*next = '\0';
		ok = mode == 040000 && batch_get(&b, id, "tree", &tree, &len) &&
		     tree_entry(tree, len, comp, &mode, id);
		if (!ok || !next)
			break;
		int sub = openat(dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		close(dfd);
		dfd = sub;
		ok = sub >= 0;
	}
	ok = ok && same(&b, dfd, comp, mode, id, 0);
	batch_stop(&b);
	return ok;
}
