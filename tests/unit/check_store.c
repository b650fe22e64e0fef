/* check_store.c - Check suite for the output store and recall: byte-exact round trips, the
 * per-output cap, unique ids and modes, pruning, lookup across sessions, paging and filtering. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "output/capture.h"
#include "output/recall.h"
#include "output/render.h"
#include "output/store.h"
#include "ck_util.h"
#include "failalloc.h"

static char base[256];
static char dir[512];

static void setup(void)
{
	snprintf(base, sizeof(base), "%s/pdk-store.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(dir, sizeof(dir), "%s/state/paddock/output", base);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	return remove(p);
}

static void teardown(void)
{
	nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char *random_bytes(size_t n)
{
	char *p = malloc(n);
	int fd = open("/dev/urandom", O_RDONLY);
	size_t got = 0;

	ck_assert_ptr_nonnull(p);
	ck_assert_int_ge(fd, 0);
	while (got < n) {
		ssize_t k = read(fd, p + got, n - got);
		ck_assert_int_gt(k, 0);
		got += (size_t)k;
	}
	close(fd);
	return p;
}

static char *read_all(const char *path, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	char *p;
	size_t got = 0;

	ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
	ck_assert_int_eq(fstat(fd, &st), 0);
	p = malloc((size_t)st.st_size + 1);
	ck_assert_ptr_nonnull(p);
	while (got < (size_t)st.st_size) {
		ssize_t k = read(fd, p + got, (size_t)st.st_size - got);
		ck_assert_int_gt(k, 0);
		got += (size_t)k;
	}
	close(fd);
	p[got] = '\0';
	*len = got;
	return p;
}

static struct pdk_store_entry *entry(const char *session, uint64_t cap, uint64_t prune)
{
	struct pdk_store_config cfg = {dir, session, cap, prune};
	struct pdk_store_entry *e = NULL;

	ck_assert_int_eq(pdk_store_entry_new(&cfg, &e), 0);
	return e;
}

static char *path_of(const char *session, const char *id)
{
	char *p;
	ck_assert_int_ge(asprintf(&p, "%s/%s/%s", dir, session, id), 0);
	return p;
}

/* Spill random bytes in uneven pieces, commit them between fixed parts,
 * and find exactly those bytes in the file. */
START_TEST(test_round_trip_api)
{
	size_t n = 5 * 1024 * 1024 + 17;
	char *data = random_bytes(n), *back;
	struct pdk_store_entry *e = entry("default", PDK_STORE_CAP_DEFAULT, PDK_STORE_PRUNE_DEFAULT);
	struct pdk_store_result res;
	struct stat st;
	size_t off = 0, len, chunk = 1;

	while (off < n) {
		size_t k = chunk < n - off ? chunk : n - off;
		ck_assert_int_eq(pdk_store_spill(e, 1, data + off, k), 0);
		off += k;
		chunk = chunk * 2 + 3 > 300000 ? 777 : chunk * 2 + 3;
	}
	ck_assert_uint_eq(pdk_store_spilled(e, 1), n);
	ck_assert_uint_eq(pdk_store_spilled(e, 2), 0);
	struct pdk_store_part parts[] = {
		{"exit status: 0\n", 15, 0}, {"stdout:\n", 8, 0}, {NULL, n, 1}, {"\n", 1, 0}};
	ck_assert_int_eq(pdk_store_commit(e, parts, 4, &res), 0);
	ck_assert(pdk_store_id_valid(res.id));
	ck_assert(!res.truncated);
	ck_assert_uint_eq(res.bytes, 15 + 8 + n + 1);
	ck_assert_ptr_null(pdk_store_error(e));
	pdk_store_entry_free(e);

	char *path = path_of("default", res.id);
	back = read_all(path, &len);
	ck_assert_uint_eq(len, 15 + 8 + n + 1);
	ck_assert_int_eq(memcmp(back, "exit status: 0\nstdout:\n", 23), 0);
	ck_assert_int_eq(memcmp(back + 23, data, n), 0);
	ck_assert_int_eq(back[len - 1], '\n');
	/* Lines counted as the file has them. */
	uint64_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += back[i] == '\n';
	ck_assert_uint_eq(res.lines, lines);
	/* 0600 in 0700 directories, and nothing else left behind. */
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	char *sdir = path_of("default", "");
	ck_assert_int_eq(stat(sdir, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	DIR *d = opendir(sdir);
	struct dirent *de;
	int files = 0;
	while ((de = readdir(d)))
		files += de->d_name[0] != '.' || strncmp(de->d_name, ".tmp", 4) == 0;
	closedir(d);
	ck_assert_int_eq(files, 1);
	free(sdir);
	free(path);
	free(back);
	free(data);
}
END_TEST

/* The same through capture and render, as a run does it. */
START_TEST(test_round_trip_render)
{
	size_t n = 4 * 1024 * 1024 + 3;
	char *data = random_bytes(n), *back;
	struct pdk_store_entry *e = entry("default", PDK_STORE_CAP_DEFAULT, PDK_STORE_PRUNE_DEFAULT);
	struct pdk_capture out, err;
	struct pdk_render_out r;
	size_t len;

	data[n - 1] = 'x'; /* no trailing newline: the store adds one */
	ck_assert_int_eq(pdk_capture_init(&out, 1, 16384, e), 0);
	ck_assert_int_eq(pdk_capture_init(&err, 2, 16384, e), 0);
	for (size_t off = 0; off < n; off += 65536)
		pdk_capture_feed(&out, data + off, n - off < 65536 ? n - off : 65536);
	struct pdk_render_in in = {.out = &out, .err = &err, .bound = 16384, .store = e};
	ck_assert_int_eq(pdk_render(&in, &r), 0);
	ck_assert(r.stored);
	ck_assert_uint_le(r.len, 16384);
	/* Memory held: head and tail of the bound, not the stream. */
	ck_assert_uint_eq(out.head_len, 16384);
	ck_assert_uint_eq(out.ring_len, 16384);
	char *path = path_of("default", r.stored_as.id);
	back = read_all(path, &len);
	ck_assert_uint_eq(len, 23 + n + 1);
	ck_assert_int_eq(memcmp(back + 23, data, n), 0);
	ck_assert_int_eq(back[len - 1], '\n');
	pdk_render_out_release(&r);
	pdk_capture_release(&out);
	pdk_capture_release(&err);
	pdk_store_entry_free(e);
	free(path);
	free(back);
	free(data);
}
END_TEST

/* Past the per-output cap the file is cut, and the result says so. */
START_TEST(test_cap)
{
	size_t n = 3 * 1024 * 1024;
	char *data = malloc(n), *back;
	struct pdk_store_entry *e = entry("default", 1024 * 1024, PDK_STORE_PRUNE_DEFAULT);
	struct pdk_capture out, err;
	struct pdk_render_out r;
	size_t len;

	for (size_t i = 0; i < n; i++)
		data[i] = i % 64 == 63 ? '\n' : (char)('a' + i % 26);
	ck_assert_int_eq(pdk_capture_init(&out, 1, 4096, e), 0);
	ck_assert_int_eq(pdk_capture_init(&err, 2, 4096, e), 0);
	for (size_t off = 0; off < n; off += 4096)
		pdk_capture_feed(&out, data + off, 4096);
	struct pdk_render_in in = {.out = &out, .err = &err, .bound = 4096, .store = e};
	ck_assert_int_eq(pdk_render(&in, &r), 0);
	ck_assert(r.stored);
	ck_assert(r.stored_as.truncated);
	ck_assert_uint_eq(r.stored_as.bytes, 1024 * 1024);
	ck_assert_ptr_nonnull(strstr(r.text, "the first 1.0 MiB of the output is kept as output "));
	ck_assert_ptr_nonnull(strstr(r.text, ", the rest was not kept;"));
	ck_assert_uint_le(r.len, 4096);
	/* The held-back lines still count the whole stream. */
	ck_assert_uint_eq(r.held[1].last_line + 1 + 64 > 2 + n / 64, true);
	char *path = path_of("default", r.stored_as.id);
	back = read_all(path, &len);
	ck_assert_uint_eq(len, 1024 * 1024);
	ck_assert_int_eq(memcmp(back + 23, data, len - 23), 0);
	pdk_render_out_release(&r);
	pdk_capture_release(&out);
	pdk_capture_release(&err);
	pdk_store_entry_free(e);
	free(path);
	free(back);
	free(data);
}
END_TEST

/* Many commits, also from parallel processes: every id fresh. */
START_TEST(test_unique_ids)
{
	enum { PROCS = 8, EACH = 40 };
	pid_t pids[PROCS];

	for (int p = 0; p < PROCS; p++) {
		pids[p] = fork();
		ck_assert_int_ge(pids[p], 0);
		if (pids[p] == 0) {
			for (int i = 0; i < EACH; i++) {
				struct pdk_store_entry *e = entry("par", PDK_STORE_CAP_DEFAULT,
								  PDK_STORE_PRUNE_DEFAULT);
				struct pdk_store_result res;
				char body[64];
				int n = snprintf(body, sizeof(body), "proc %d item %d\n", p, i);
				struct pdk_store_part part = {body, (uint64_t)n, 0};
				if (pdk_store_commit(e, &part, 1, &res) < 0)
					_exit(1);
				pdk_store_entry_free(e);
			}
			_exit(0);
		}
	}
	for (int p = 0; p < PROCS; p++) {
		int st;
		ck_assert_int_eq(waitpid(pids[p], &st, 0), pids[p]);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	char *sdir = path_of("par", "");
	DIR *d = opendir(sdir);
	struct dirent *de;
	int files = 0;
	bool seen[PROCS][EACH] = {{false}};
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.') {
			ck_assert_msg(strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0,
				      "left behind: %s", de->d_name);
			continue;
		}
		ck_assert(pdk_store_id_valid(de->d_name));
		char *path = path_of("par", de->d_name);
		size_t len;
		char *body = read_all(path, &len);
		int p, i;
		ck_assert_int_eq(sscanf(body, "proc %d item %d\n", &p, &i), 2);
		ck_assert(!seen[p][i]);
		seen[p][i] = true;
		free(body);
		free(path);
		files++;
	}
	closedir(d);
	ck_assert_int_eq(files, PROCS * EACH);
	free(sdir);
}
END_TEST

static void make_file(const char *session, const char *id, size_t size, time_t mtime)
{
	char *sdir = path_of(session, ""), *path = path_of(session, id);
	char *zero = calloc(1, size);
	struct timespec ts[2] = {{mtime, 0}, {mtime, 0}};
	int fd;

	mkdir(base, 0700);
	char *mk;
	ck_assert_int_ge(asprintf(&mk, "mkdir -p '%s'", sdir), 0);
	ck_assert_int_eq(system(mk), 0);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, zero, size), (ssize_t)size);
	ck_assert_int_eq(futimens(fd, ts), 0);
	close(fd);
	free(mk);
	free(zero);
	free(sdir);
	free(path);
}

/* One output of 10 bytes, in a session directory that exists. */
static void quick_file(const char *session, const char *id, time_t mtime)
{
	char *path = path_of(session, id);
	struct timespec ts[2] = {{mtime, 0}, {mtime, 0}};
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "0123456789", 10), 10);
	ck_assert_int_eq(futimens(fd, ts), 0);
	close(fd);
	free(path);
}

/* Out of memory at any allocation of a prune: either the prune did its work or it says
 * -ENOMEM and deleted nothing, since only a whole listing says which outputs are the oldest.
 * Two sessions of 70 outputs each: a list that could not grow past 64 in the first was once
 * written past its end in the second. */
START_TEST(test_prune_out_of_memory)
{
	time_t now = time(NULL);
	char id[16];
	unsigned long n;
	bool fired = true;

	if (!pdk_failalloc_works())
		return; /* a sanitizer's allocator: nothing to sweep with */
	make_file("even", "00000000", 10, now - 10000);
	make_file("odd", "00000001", 10, now - 10000 + 10);
	for (int i = 2; i < 140; i++) {
		snprintf(id, sizeof(id), "%08d", i);
		quick_file(i % 2 ? "odd" : "even", id, now - 10000 + i * 10);
	}
	for (n = 1; fired; n++) {
		int rc;

		/* Room for all but the oldest. */
		pdk_failalloc_arm(n);
		rc = pdk_store_prune(dir, 139 * 10);
		fired = pdk_failalloc_disarm();
		ck_assert_msg(rc == 0 || (fired && rc == -ENOMEM), "allocation %lu: %d", n, rc);
		for (int i = 0; i < 140; i++) {
			snprintf(id, sizeof(id), "%08d", i);
			char *p = path_of(i % 2 ? "odd" : "even", id);
			ck_assert_msg((access(p, F_OK) == 0) == (i > 0 || rc < 0),
				      "allocation %lu failed, the prune returned %d, output %d %s", n,
				      rc, i, i > 0 || rc < 0 ? "is gone" : "is still there");
			free(p);
		}
		if (rc == 0)
			quick_file("even", "00000000", now - 10000);
	}
	ck_assert_uint_gt(n, 140);
}
END_TEST

START_TEST(test_prune)
{
	time_t now = time(NULL);
	char id[16];

	/* Ten outputs of 1000 bytes over two sessions, oldest first. */
	for (int i = 0; i < 10; i++) {
		snprintf(id, sizeof(id), "0000000%d", i);
		make_file(i % 2 ? "odd" : "even", id, 1000, now - 1000 + i * 10);
	}
	ck_assert_int_eq(pdk_store_prune(dir, 20000), 0);
	for (int i = 0; i < 10; i++) {
		snprintf(id, sizeof(id), "0000000%d", i);
		char *p = path_of(i % 2 ? "odd" : "even", id);
		ck_assert_int_eq(access(p, F_OK), 0);
		free(p);
	}
	ck_assert_int_eq(pdk_store_prune(dir, 5500), 0);
	for (int i = 0; i < 10; i++) {
		snprintf(id, sizeof(id), "0000000%d", i);
		char *p = path_of(i % 2 ? "odd" : "even", id);
		ck_assert_msg((access(p, F_OK) == 0) == (i >= 5), "output %d %s", i,
			      i >= 5 ? "pruned" : "kept");
		free(p);
	}
	/* A commit prunes too, but never the output it just wrote. */
	struct pdk_store_entry *e = entry("even", PDK_STORE_CAP_DEFAULT, 2500);
	struct pdk_store_result res;
	char *big = calloc(1, 3000);
	struct pdk_store_part part = {big, 3000, 0};
	ck_assert_int_eq(pdk_store_commit(e, &part, 1, &res), 0);
	char *p = path_of("even", res.id);
	ck_assert_int_eq(access(p, F_OK), 0);
	for (int i = 5; i < 10; i++) {
		snprintf(id, sizeof(id), "0000000%d", i);
		char *q = path_of(i % 2 ? "odd" : "even", id);
		ck_assert_int_ne(access(q, F_OK), 0);
		free(q);
	}
	free(p);
	free(big);
	pdk_store_entry_free(e);
}
END_TEST

START_TEST(test_open_and_sessions)
{
	const char *s;
	int fd;

	make_file("alpha", "0123abcd", 10, time(NULL));
	fd = pdk_store_open(dir, "alpha", "0123abcd");
	ck_assert_int_ge(fd, 0);
	close(fd);
	fd = pdk_store_open(dir, "default", "0123abcd"); /* found in another session */
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(pdk_store_open(dir, "alpha", "0123abce"), -ENOENT);
	ck_assert_int_eq(pdk_store_open(dir, "alpha", "../alpha"), -EINVAL);
	ck_assert_int_eq(pdk_store_open(dir, "alpha", "0123ABCD"), -EINVAL);
	ck_assert(!pdk_store_id_valid("0123abc"));
	ck_assert(!pdk_store_id_valid("0123abcde"));

	unsetenv("PADDOCK_SESSION");
	ck_assert_int_eq(pdk_session_name(&s), 0);
	ck_assert_str_eq(s, "default");
	setenv("PADDOCK_SESSION", "agent-7.run_2", 1);
	ck_assert_int_eq(pdk_session_name(&s), 0);
	ck_assert_str_eq(s, "agent-7.run_2");
	const char *bad[] = {"..", ".", "a/b", "../x", "x y", "é",
			     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("PADDOCK_SESSION", bad[i], 1);
		ck_assert_msg(pdk_session_name(&s) == -EINVAL, "'%s' accepted", bad[i]);
	}
	unsetenv("PADDOCK_SESSION");

	setenv("XDG_STATE_HOME", "/x/state", 1);
	char *d = pdk_store_default_dir();
	ck_assert_str_eq(d, "/x/state/paddock/output");
	free(d);
	setenv("XDG_STATE_HOME", "relative", 1);
	setenv("HOME", "/home/u", 1);
	d = pdk_store_default_dir();
	ck_assert_str_eq(d, "/home/u/.local/state/paddock/output");
	free(d);
}
END_TEST

/* An unusable directory: the error is kept, nothing is written. */
START_TEST(test_unwritable)
{
	char file[600];
	struct pdk_store_config cfg = {file, "default", PDK_STORE_CAP_DEFAULT,
				       PDK_STORE_PRUNE_DEFAULT};
	struct pdk_store_entry *e;
	struct pdk_store_result res;
	struct pdk_store_part part = {"x\n", 2, 0};

	snprintf(file, sizeof(file), "%s/plainfile", base);
	close(open(file, O_WRONLY | O_CREAT, 0600));
	ck_assert_int_eq(pdk_store_entry_new(&cfg, &e), 0);
	ck_assert_int_lt(pdk_store_spill(e, 1, "abc", 3), 0);
	ck_assert_int_lt(pdk_store_commit(e, &part, 1, &res), 0);
	ck_assert_ptr_nonnull(pdk_store_error(e));
	pdk_store_entry_free(e);
}
END_TEST

/* A stored output of 1000 numbered lines for the recall tests. */
static int recall_fixture(void)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/recall", base);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("exit status: 1\nstdout:\n", f);
	for (int i = 1; i <= 996; i++) {
		if (i == 500)
			fputs("main.c:12: error: expected ';'\n", f);
		else if (i == 700)
			fputs("3 passed, 1 failed\n", f);
		else
			fprintf(f, "line %d\n", i);
	}
	fputs("stderr:\nbye\x1b[0m\n", f);
	fclose(f);
	return open(path, O_RDONLY);
}

static char *recall(int fd, enum pdk_recall_mode mode, uint64_t from, uint64_t lines,
		    const char *pattern, size_t bound, int *rc, struct pdk_error *err)
{
	struct pdk_recall_opts o = {"0123abcd", mode, from, lines, pattern, bound};
	struct pdk_buf out = {0};

	lseek(fd, 0, SEEK_SET);
	memset(err, 0, sizeof(*err));
	*rc = pdk_recall(fd, &o, &out, err);
	return out.data ? out.data : strdup("");
}

START_TEST(test_recall)
{
	int fd = recall_fixture(), rc;
	struct pdk_error err;
	char *s;

	ck_assert_int_ge(fd, 0);
	s = recall(fd, PDK_RECALL_PAGE, 10, 3, NULL, 16384, &rc, &err);
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(s, "output 0123abcd, lines 10–12 of 1,000:\nline 8\nline 9\nline 10\n"
			    "more: \"paddock recall 0123abcd --from 13\" goes on (988 lines left)\n");
	free(s);
	s = recall(fd, PDK_RECALL_PAGE, 999, 0, NULL, 16384, &rc, &err);
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(s, "output 0123abcd, lines 999–1,000 of 1,000:\nstderr:\nbye\n");
	free(s);
	/* Bounded: a page never exceeds the bound, and says where to go on. */
	s = recall(fd, PDK_RECALL_PAGE, 1, 0, NULL, 1024, &rc, &err);
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_le(strlen(s), 1024);
	ck_assert_ptr_nonnull(strstr(s, "more: \"paddock recall 0123abcd --from "));
	free(s);

	s = recall(fd, PDK_RECALL_MATCH, 1, 0, "^line 9\\d\\d$", 16384, &rc, &err);
	ck_assert_int_eq(rc, 0);
	ck_assert_ptr_nonnull(strstr(s, "\n902: line 900\n"));
	ck_assert_ptr_nonnull(strstr(s, "\n998: line 996\n"));
	ck_assert_ptr_null(strstr(s, "line 899"));
	free(s);
	s = recall(fd, PDK_RECALL_MATCH, 950, 2, "^line", 16384, &rc, &err);
	ck_assert_int_eq(rc, 0);
	ck_assert_ptr_nonnull(strstr(s, "\n950: line 948\n951: line 949\nmore: 47 further matching "
					"lines not shown; \"paddock recall 0123abcd --from 952 "
					"--match PATTERN\" goes on\n"));
	free(s);

	s = recall(fd, PDK_RECALL_SUMMARY, 1, 0, NULL, 16384, &rc, &err);
	ck_assert_int_eq(rc, 0);
	ck_assert_ptr_nonnull(strstr(s, "\n502: main.c:12: error: expected ';'\n"));
	ck_assert_ptr_nonnull(strstr(s, "\n702: 3 passed, 1 failed\n"));
	ck_assert_ptr_null(strstr(s, "line 1\n"));
	free(s);

	s = recall(fd, PDK_RECALL_MATCH, 1, 0, "(unclosed", 16384, &rc, &err);
	ck_assert_int_eq(rc, -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.message, "offset"));
	free(s);
	s = recall(fd, PDK_RECALL_PAGE, 1001, 0, NULL, 16384, &rc, &err);
	ck_assert_int_eq(rc, -ERANGE);
	ck_assert_str_eq(err.message, "line 1,001 is past the end of output 0123abcd (1,000 lines)");
	free(s);
	close(fd);
}
END_TEST

static Suite *store_suite(void)
{
	Suite *s = suite_create("store");
	TCase *t = tcase_create("store");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_round_trip_api);
	tcase_add_test(t, test_round_trip_render);
	tcase_add_test(t, test_cap);
	tcase_add_test(t, test_unique_ids);
	tcase_add_test(t, test_prune);
	tcase_add_test(t, test_prune_out_of_memory);
	tcase_add_test(t, test_open_and_sessions);
	tcase_add_test(t, test_unwritable);
	tcase_add_test(t, test_recall);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return pdk_ck_run(store_suite());
}
