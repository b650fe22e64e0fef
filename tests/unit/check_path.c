/* check_path.c - a run's record made locked: never seen unlocked by a sweep while its
 * maker lives, even when a sweep removes it between the maker's open and its lock. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ck_util.h"
#include "core/path.h"

static char dir[64];

static void setup(void)
{
	strcpy(dir, "/tmp/check-path-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Another open of path cannot take the lock: the record's run is alive. */
static bool locked_by_other(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool held;

	ck_assert_int_ge(fd, 0);
	held = flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return held;
}

START_TEST(test_made_locked_and_dir_made)
{
	const char *sub = ck_path("%s/a/b", dir), *path = ck_path("%s/a/b/rec", dir);
	int fd = pdk_create_locked(sub, path);
	struct stat st;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	ck_assert(locked_by_other(path));
	ck_assert_int_eq(pdk_create_locked(sub, path), -EEXIST);
	close(fd);
	ck_assert(!locked_by_other(path));
}
END_TEST

/* A sweeper that removes every record it can lock, as fast as it can, beside a maker: each
 * record the maker is handed is the one at its name, and stays there locked. */
START_TEST(test_sweep_between_open_and_lock)
{
	pid_t sweeper = fork();
	int made = 0;

	ck_assert_int_ge(sweeper, 0);
	if (sweeper == 0) {
		for (;;) {
			DIR *d = opendir(dir);
			struct dirent *e;

			while (d && (e = readdir(d))) {
				int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

				if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
					unlinkat(dirfd(d), e->d_name, 0);
				if (fd >= 0)
					close(fd);
			}
			if (d)
				closedir(d);
		}
	}
	for (int i = 0; i < 3000; i++) {
		const char *path = ck_path("%s/rec%d", dir, i);
		int fd = pdk_create_locked(dir, path);
		struct stat a, b;

		if (fd == -EAGAIN)
			continue; /* swept eight times over: said so, nothing half made */
		ck_assert_int_ge(fd, 0);
		made++;
		ck_assert_int_eq(fstat(fd, &a), 0);
		ck_assert_msg(lstat(path, &b) == 0 && a.st_ino == b.st_ino,
			      "record %d handed over while not at its name", i);
		close(fd);
	}
	kill(sweeper, SIGKILL);
	waitpid(sweeper, NULL, 0);
	ck_assert_int_gt(made, 0);
}
END_TEST

static Suite *path_suite(void)
{
	Suite *s = suite_create("path");
	TCase *t = tcase_create("create_locked");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_made_locked_and_dir_made);
	tcase_add_test(t, test_sweep_between_open_and_lock);
	tcase_set_timeout(t, 120);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return pdk_ck_run(path_suite());
}
