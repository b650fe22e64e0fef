/* check_trash.c - Check suite for the trash-backed rm: .trashinfo content and escaping, name
 * collisions, directories and symlinks, the writable-root check, rm's semantics, topdir trashes. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trash/rmshim.h"
#include "trash/trash.h"
#include "ck_util.h"

static char base[256];		 /* real path of the per-test temp dir */
static char work[PATH_MAX];	 /* the one writable root */
static char outside[PATH_MAX];	 /* a sibling that is not a root */
static char trash_dir[PATH_MAX]; /* $XDG_DATA_HOME/Trash */
static const char *roots[1];

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static void setup(void)
{
	char tmpl[] = "/tmp/check-trash-XXXXXX";

	char *real;

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	real = realpath(tmpl, NULL);
	ck_assert_ptr_nonnull(real);
	ck_assert_uint_lt(strlen(real), sizeof(base));
	strcpy(base, real);
	free(real);
	snprintf(work, sizeof(work), "%s/work", base);
	snprintf(outside, sizeof(outside), "%s/outside", base);
	snprintf(trash_dir, sizeof(trash_dir), "%s/data/Trash", base);
	ck_assert_int_eq(mkdir(work, 0755), 0);
	ck_assert_int_eq(mkdir(outside, 0755), 0);
	ck_assert_int_eq(mkdir(ck_path("%s/home", base), 0755), 0);
	setenv("HOME", ck_path("%s/home", base), 1);
	setenv("XDG_DATA_HOME", ck_path("%s/data", base), 1);
	ck_assert_int_eq(chdir(work), 0);
	roots[0] = work;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void teardown(void)
{
	if (chdir("/") == 0)
		nftw(base, rm_entry, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* Decode Path= the way readers do (RFC 2396 unescaping). */
static char *percent_decode(const char *s)
{
	static char out[PATH_MAX];
	char *o = out;

	for (; *s && o < out + sizeof(out) - 1; s++) {
		unsigned v;

		if (*s == '%' && sscanf(s + 1, "%2x", &v) == 1) {
			*o++ = (char)v;
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return out;
}

static const char *info_key(const char *info, const char *key)
{
	static char val[PATH_MAX];
	const char *k = strstr(info, key);
	size_t n;

	if (!k)
		return NULL;
	k += strlen(key);
	n = strcspn(k, "\n");
	snprintf(val, sizeof(val), "%.*s", (int)n, k);
	return val;
}

START_TEST(trashinfo_content)
{
	char why[256] = "";
	char *as = NULL;
	time_t before = time(NULL), after, when;
	struct tm tm = { 0 };
	const char *info, *date;
	char *end;

	ck_write("plain.txt", "plain\n");
	ck_assert_int_eq(pdk_trash_put("plain.txt", roots, 1, &as, why, sizeof(why)), 0);
	after = time(NULL);
	ck_assert_str_eq(as, ck_path("%s/files/plain.txt", trash_dir));
	free(as);
	ck_assert(!exists("plain.txt"));
	ck_assert_str_eq(ck_slurp(ck_path("%s/files/plain.txt", trash_dir)), "plain\n");

	info = ck_slurp(ck_path("%s/info/plain.txt.trashinfo", trash_dir));
	ck_assert_ptr_nonnull(info);
	ck_assert_msg(strncmp(info, "[Trash Info]\nPath=", 18) == 0, "got %s", info);
	ck_assert_str_eq(info_key(info, "\nPath="), ck_path("%s/plain.txt", work));
	date = info_key(info, "\nDeletionDate=");
	ck_assert_ptr_nonnull(date);
	ck_assert_uint_eq(strlen(date), 19); /* YYYY-MM-DDThh:mm:ss, no zone */
	end = strptime(date, "%Y-%m-%dT%H:%M:%S", &tm);
	ck_assert_msg(end && *end == '\0', "bad date %s", date);
	tm.tm_isdst = -1;
	when = mktime(&tm); /* local time, as the specification asks */
	ck_assert_msg(when >= before - 1 && when <= after + 1, "date %s is not now", date);
	ck_assert(info[strlen(info) - 1] == '\n');
}
END_TEST

START_TEST(percent_encoding)
{
	static const struct {
		const char *name, *encoded;
	} cases[] = {
		{ "a b.txt", "a%20b.txt" },
		{ "100%", "100%25" },
		{ "\xc3\xbc\xe2\x82\xac", "%C3%BC%E2%82%AC" }, /* ü€ in UTF-8 */
		{ "x+y#?&=;.txt", "x%2By%23%3F%26%3D%3B.txt" },
		{ "new\nline", "new%0Aline" },
		{ "keep-_.~", "keep-_.~" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char why[256] = "";
		const char *info, *path;

		ck_write(cases[i].name, cases[i].name);
		ck_assert_int_eq(pdk_trash_put(cases[i].name, roots, 1, NULL, why, sizeof(why)), 0);
		info = ck_slurp(ck_path("%s/info/%s.trashinfo", trash_dir, cases[i].name));
		ck_assert_ptr_nonnull(info);
		path = info_key(info, "\nPath=");
		ck_assert_str_eq(path, ck_path("%s/%s", work, cases[i].encoded));
		/* Only the base name needed escaping here, and it round-trips byte for byte. */
		ck_assert_str_eq(percent_decode(path), ck_path("%s/%s", work, cases[i].name));
		ck_assert_str_eq(ck_slurp(ck_path("%s/files/%s", trash_dir, cases[i].name)),
				 cases[i].name);
	}
}
END_TEST

START_TEST(name_collisions)
{
	static const char *const names[] = { "same", "same.2", "same.3" };

	for (int i = 0; i < 3; i++) {
		char why[256] = "";
		char *as = NULL;

		ck_assert_int_eq(mkdir(ck_path("d%d", i), 0755), 0);
		ck_write(ck_path("d%d/same", i), ck_path("content %d", i));
		ck_assert_int_eq(pdk_trash_put(ck_path("d%d/same", i), roots, 1, &as, why, sizeof(why)), 0);
		ck_assert_str_eq(as, ck_path("%s/files/%s", trash_dir, names[i]));
		free(as);
	}
	for (int i = 0; i < 3; i++) {
		const char *info = ck_slurp(ck_path("%s/info/%s.trashinfo", trash_dir, names[i]));

		ck_assert_ptr_nonnull(info);
		ck_assert_str_eq(info_key(info, "\nPath="), ck_path("%s/d%d/same", work, i));
		ck_assert_str_eq(ck_slurp(ck_path("%s/files/%s", trash_dir, names[i])),
				 ck_path("content %d", i));
	}

	/* An entry in files/ without its .trashinfo still holds the name, and is kept. */
	ck_write(ck_path("%s/files/orphan", trash_dir), "old orphan");
	ck_write("orphan", "new");
	ck_assert_int_eq(pdk_trash_put("orphan", roots, 1, NULL, NULL, 0), 0);
	ck_assert_str_eq(ck_slurp(ck_path("%s/files/orphan", trash_dir)), "old orphan");
	ck_assert_str_eq(ck_slurp(ck_path("%s/files/orphan.2", trash_dir)), "new");
	ck_assert(!exists(ck_path("%s/info/orphan.trashinfo", trash_dir)));
	ck_assert(exists(ck_path("%s/info/orphan.2.trashinfo", trash_dir)));

	/* And a .trashinfo without its file holds the name too. */
	ck_write(ck_path("%s/info/lone.trashinfo", trash_dir), "[Trash Info]\nPath=/x\n");
	ck_write("lone", "lone");
	ck_assert_int_eq(pdk_trash_put("lone", roots, 1, NULL, NULL, 0), 0);
	ck_assert_str_eq(ck_slurp(ck_path("%s/info/lone.trashinfo", trash_dir)),
			 "[Trash Info]\nPath=/x\n");
	ck_assert_str_eq(ck_slurp(ck_path("%s/files/lone.2", trash_dir)), "lone");
}
END_TEST

START_TEST(long_name_fits)
{
	char name[256];
	char *as = NULL;
	const char *info;

	memset(name, 'n', 255);
	name[255] = '\0';
	ck_write(name, "long");
	ck_assert_int_eq(pdk_trash_put(name, roots, 1, &as, NULL, 0), 0);
	ck_assert(!exists(name));
	ck_assert_str_eq(ck_slurp(as), "long");
	info = ck_slurp(ck_path("%s/info/%s.trashinfo", trash_dir, strrchr(as, '/') + 1));
	ck_assert_ptr_nonnull(info);
	ck_assert_str_eq(info_key(info, "\nPath="), ck_path("%s/%s", work, name));
	free(as);
}
END_TEST

START_TEST(directory_whole)
{
	struct stat before, after;
	char *as = NULL;

	ck_assert_int_eq(mkdir("tree", 0750), 0);
	ck_assert_int_eq(mkdir("tree/sub", 0755), 0);
	ck_write("tree/sub/leaf", "leaf");
	ck_assert_int_eq(lstat("tree", &before), 0);
	ck_assert_int_eq(pdk_trash_put("tree/", roots, 1, &as, NULL, 0), 0);
	ck_assert(!exists("tree"));
	ck_assert_str_eq(as, ck_path("%s/files/tree", trash_dir));
	/* The same directory inode: moved by one rename, not rebuilt file by file. */
	ck_assert_int_eq(lstat(as, &after), 0);
	ck_assert_uint_eq(before.st_ino, after.st_ino);
	ck_assert_uint_eq(after.st_mode & 07777, 0750);
	ck_assert_str_eq(ck_slurp(ck_path("%s/sub/leaf", as)), "leaf");
	ck_assert_str_eq(
	    info_key(ck_slurp(ck_path("%s/info/tree.trashinfo", trash_dir)), "\nPath="),
	    ck_path("%s/tree", work));
	free(as);
}
END_TEST

START_TEST(symlink_is_trashed_not_target)
{
	char *as = NULL;
	char buf[PATH_MAX];
	ssize_t n;

	ck_write(ck_path("%s/target", outside), "precious");
	ck_assert_int_eq(mkdir(ck_path("%s/tdir", outside), 0755), 0);
	ck_write(ck_path("%s/tdir/inner", outside), "inner");
	ck_assert_int_eq(symlink(ck_path("%s/target", outside), "lnk"), 0);
	ck_assert_int_eq(symlink(ck_path("%s/tdir", outside), "dlnk"), 0);

	ck_assert_int_eq(pdk_trash_put("lnk", roots, 1, &as, NULL, 0), 0);
	n = readlink(as, buf, sizeof(buf) - 1);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	ck_assert_str_eq(buf, ck_path("%s/target", outside));
	ck_assert(!exists("lnk"));
	ck_assert_str_eq(ck_slurp(ck_path("%s/target", outside)), "precious");
	free(as);

	/* A trailing slash does not make it follow the link either. */
	as = NULL;
	ck_assert_int_eq(pdk_trash_put("dlnk/", roots, 1, &as, NULL, 0), 0);
	ck_assert_int_gt(readlink(as, buf, sizeof(buf) - 1), 0);
	ck_assert(!exists("dlnk"));
	ck_assert_str_eq(ck_slurp(ck_path("%s/tdir/inner", outside)), "inner");
	free(as);
}
END_TEST

START_TEST(refused_outside_roots)
{
	char why[256] = "";
	char *as = (char *)"untouched";

	ck_write(ck_path("%s/victim", outside), "keep me");
	ck_assert_int_eq(pdk_trash_put(ck_path("%s/victim", outside), roots, 1, &as, why, sizeof(why)), -EPERM);
	ck_assert_msg(strstr(why, "outside the writable roots"), "%s", why);
	ck_assert_str_eq(as, "untouched"); /* not clobbered on failure */
	ck_assert_str_eq(ck_slurp(ck_path("%s/victim", outside)), "keep me");
	ck_assert(!exists(ck_path("%s/info/victim.trashinfo", trash_dir)));

	/* Through a symlinked directory inside the root: the real parent is what counts. */
	ck_assert_int_eq(symlink(outside, "escape"), 0);
	ck_assert_int_eq(pdk_trash_put("escape/victim", roots, 1, NULL, why, sizeof(why)), -EPERM);
	ck_assert_str_eq(ck_slurp(ck_path("%s/victim", outside)), "keep me");

	/* Via "..": same. */
	ck_assert_int_eq(pdk_trash_put("../outside/victim", roots, 1, NULL, why, sizeof(why)), -EPERM);
	ck_assert_str_eq(ck_slurp(ck_path("%s/victim", outside)), "keep me");

	/* A sibling sharing the root's name as a prefix is not inside it. */
	ck_assert_int_eq(mkdir(ck_path("%s2", work), 0755), 0);
	ck_write(ck_path("%s2/f", work), "sibling");
	ck_assert_int_eq(pdk_trash_put(ck_path("%s2/f", work), roots, 1, NULL, why, sizeof(why)), -EPERM);
	ck_assert(exists(ck_path("%s2/f", work)));

	/* The root itself cannot be trashed: its parent is outside. */
	ck_assert_int_eq(pdk_trash_put(work, roots, 1, NULL, why, sizeof(why)), -EPERM);
	ck_assert(exists(work));

	/* No roots, nothing writable. */
	ck_write("inside", "x");
	ck_assert_int_eq(pdk_trash_put("inside", roots, 0, NULL, why, sizeof(why)), -EPERM);
	ck_assert(exists("inside"));

	/* The legitimate twin: the same kind of file inside the root goes. */
	ck_assert_int_eq(pdk_trash_put("inside", roots, 1, NULL, why, sizeof(why)), 0);
	ck_assert(!exists("inside"));
	ck_assert_int_eq(pdk_trash_put("nothere", roots, 1, NULL, why, sizeof(why)), -ENOENT);
	ck_assert_int_eq(pdk_trash_put(".", roots, 1, NULL, why, sizeof(why)), -EINVAL);
	ck_assert_int_eq(pdk_trash_put("sub/..", roots, 1, NULL, why, sizeof(why)), -EINVAL);
}
END_TEST

START_TEST(trash_inside_operand)
{
	char why[256] = "";

	/* Trashing a directory that holds the trash itself cannot work: refuse, keep all. */
	setenv("XDG_DATA_HOME", ck_path("%s/share", work), 1);
	ck_assert_int_eq(mkdir("share", 0755), 0);
	ck_write("share/doc", "doc");
	ck_assert_int_eq(pdk_trash_put("share", roots, 1, NULL, why, sizeof(why)), -EINVAL);
	ck_assert_msg(strstr(why, "contains the trash"), "%s", why);
	ck_assert_str_eq(ck_slurp("share/doc"), "doc");
	ck_assert(!exists("share/Trash/info/share.trashinfo"));
	ck_write("other", "other");
	ck_assert_int_eq(pdk_trash_put("other", roots, 1, NULL, why, sizeof(why)), 0);
	ck_assert_str_eq(ck_slurp("share/Trash/files/other"), "other");
}
END_TEST

/* Run rm with ARGS (NULL-terminated), return its exit code and what it printed. */
static int run_rm(char *msg, size_t msg_len, ...)
{
	char *argv[32];
	int argc = 0, code;
	FILE *out = tmpfile();
	size_t n;
	va_list ap;

	ck_assert_ptr_nonnull(out);
	argv[argc++] = (char *)"rm";
	va_start(ap, msg_len);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	code = pdk_rm_main(argc, argv, roots, 1, out);
	rewind(out);
	n = fread(msg, 1, msg_len - 1, out);
	msg[n] = '\0';
	fclose(out);
	return code;
}

#define RM(...) run_rm(msg, sizeof(msg), __VA_ARGS__, (char *)NULL)

START_TEST(rm_semantics)
{
	char msg[4096];

	ck_assert_int_eq(mkdir("dir", 0755), 0);
	ck_write("dir/f", "f");

	/* A directory needs -r. */
	ck_assert_int_eq(RM("dir"), 1);
	ck_assert_str_eq(msg, "rm: cannot remove 'dir': Is a directory\n");
	ck_assert(exists("dir/f"));
	ck_assert_int_eq(RM("dir", "-r"), 0); /* options after operands, as GNU getopt */
	ck_assert_str_eq(msg, "");
	ck_assert(!exists("dir"));
	ck_assert(exists(ck_path("%s/files/dir/f", trash_dir)));

	/* Missing files: an error, silenced by -f. */
	ck_assert_int_eq(RM("missing"), 1);
	ck_assert_str_eq(msg, "rm: cannot remove 'missing': No such file or directory\n");
	ck_assert_int_eq(RM("-f", "missing"), 0);
	ck_assert_str_eq(msg, "");
	ck_assert_int_eq(RM("--force", "missing/below"), 0);
	ck_assert_str_eq(msg, "");

	/* Combined flags and the long spellings. */
	ck_assert_int_eq(mkdir("d2", 0755), 0);
	ck_write("d2/x", "x");
	ck_assert_int_eq(RM("-rf", "d2", "gone"), 0);
	ck_assert(!exists("d2"));
	ck_assert_int_eq(mkdir("d3", 0755), 0);
	ck_assert_int_eq(RM("-Rv", "d3"), 0);
	ck_assert(!exists("d3"));
	ck_assert_int_eq(mkdir("d4", 0755), 0);
	ck_assert_int_eq(RM("--recursive", "d4"), 0);
	ck_assert(!exists("d4"));
	ck_assert_int_eq(mkdir("d5", 0755), 0);
	ck_assert_int_eq(RM("--rec", "d5"), 0); /* unambiguous prefix */
	ck_assert(!exists("d5"));

	/* "--" ends options: "-x" is a file name then, an option before. */
	ck_write("-x", "dash");
	ck_assert_int_eq(RM("-x"), 1);
	ck_assert_str_eq(msg, "rm: invalid option -- 'x'\nTry 'rm --help' for more information.\n");
	ck_assert(exists("-x"));
	ck_assert_int_eq(RM("--", "-x"), 0);
	ck_assert(!exists("-x"));
	ck_assert_int_eq(RM("--bogus", "f"), 1);
	ck_assert_ptr_nonnull(strstr(msg, "unrecognized option '--bogus'"));

	/* Operands. */
	ck_assert_int_eq(RM(""), 1);
	ck_assert_int_eq(run_rm(msg, sizeof(msg), (char *)NULL), 1);
	ck_assert_str_eq(msg, "rm: missing operand\nTry 'rm --help' for more information.\n");
	ck_assert_int_eq(RM("-f"), 0);

	/* One failure makes the exit code 1 but the others still go. */
	ck_write("a", "a");
	ck_write("b", "b");
	ck_assert_int_eq(RM("a", "nope", "b"), 1);
	ck_assert(!exists("a") && !exists("b"));
	ck_assert_str_eq(msg, "rm: cannot remove 'nope': No such file or directory\n");

	/* -d: empty directories only. */
	ck_assert_int_eq(mkdir("empty", 0755), 0);
	ck_assert_int_eq(mkdir("full", 0755), 0);
	ck_write("full/x", "x");
	ck_assert_int_eq(RM("-d", "full"), 1);
	ck_assert_str_eq(msg, "rm: cannot remove 'full': Directory not empty\n");
	ck_assert(exists("full/x"));
	ck_assert_int_eq(RM("--dir", "empty"), 0);
	ck_assert(!exists("empty"));

	/* Interactive modes are refused, and nothing moves; a later -f overrides -i. */
	ck_write("ask", "ask");
	ck_assert_int_eq(RM("-i", "ask"), 1);
	ck_assert_ptr_nonnull(strstr(msg, "interactive"));
	ck_assert_int_eq(RM("-I", "ask"), 1);
	ck_assert_int_eq(RM("--interactive=always", "ask"), 1);
	ck_assert(exists("ask"));
	ck_assert_int_eq(RM("-if", "ask"), 0);
	ck_assert(!exists("ask"));

	/* . and .. and / */
	ck_assert_int_eq(RM("-r", "."), 1);
	ck_assert_str_eq(msg, "rm: refusing to remove '.' or '..' directory: skipping '.'\n");
	ck_assert_int_eq(RM("-rf", "full/.."), 1);
	ck_assert_ptr_nonnull(strstr(msg, "refusing to remove '.' or '..'"));
	ck_assert(exists("full/x"));
	ck_assert_int_eq(RM("."), 1);
	ck_assert_str_eq(msg, "rm: cannot remove '.': Is a directory\n");
	ck_assert_int_eq(RM("-rf", "/"), 1);
	ck_assert_ptr_nonnull(strstr(msg, "dangerous to operate recursively on '/'"));
	ck_assert_int_eq(RM("-rf", "--no-preserve-root", "/"), 1);
	ck_assert(exists("/etc"));

	/* Outside the roots: refused with the reason, file stays; -f does not hide it. */
	ck_write(ck_path("%s/keep", outside), "keep");
	ck_assert_int_eq(RM("-f", ck_path("%s/keep", outside)), 1);
	ck_assert_ptr_nonnull(strstr(msg, "outside the writable roots"));
	ck_assert_ptr_nonnull(strstr(msg, "rm: cannot remove '"));
	ck_assert(exists(ck_path("%s/keep", outside)));
}
END_TEST

static bool write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);

	if (fd >= 0)
		close(fd);
	return ok;
}

/* Without root, a user namespace mapping only our own ids still lets us mount a tmpfs. */
static bool enter_userns(void)
{
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		return false;
	return write_file("/proc/self/setgroups", "deny") &&
	       write_file("/proc/self/uid_map", ck_path("%u %u 1", (unsigned)uid, (unsigned)uid)) &&
	       write_file("/proc/self/gid_map", ck_path("%u %u 1", (unsigned)gid, (unsigned)gid));
}

/* A tmpfs in a private mount namespace stands for "another filesystem". */
static bool private_tmpfs(const char *dir)
{
	if ((unshare(CLONE_NEWNS) < 0 && !enter_userns()) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", dir, "tmpfs", 0, "mode=0755") < 0) {
		fprintf(stderr, "check_trash: topdir test skipped: cannot mount a tmpfs: %s\n",
			strerror(errno));
		return false;
	}
	return true;
}

START_TEST(topdir_trash)
{
	char *uid_dir, *uid_sub;
	char why[256] = "";
	char *as = NULL;
	struct stat st;
	const char *info;

	ck_assert_int_eq(mkdir("vol", 0755), 0);
	if (!private_tmpfs(ck_path("%s/vol", work)))
		return;
	uid_dir = strdup(ck_path("%s/vol/.Trash-%u", work, (unsigned)getuid()));
	uid_sub = strdup(ck_path("%s/vol/.Trash/%u", work, (unsigned)getuid()));

	/* A $topdir/.Trash that is not sticky must not be used. */
	ck_assert_int_eq(mkdir("vol/.Trash", 0777), 0);
	ck_assert_int_eq(chmod("vol/.Trash", 0777), 0);
	ck_assert_int_eq(mkdir("vol/sub", 0755), 0);
	ck_write("vol/sub/a b", "on tmpfs");
	ck_assert_int_eq(pdk_trash_put("vol/sub/a b", roots, 1, &as, why, sizeof(why)), 0);
	ck_assert_str_eq(as, ck_path("%s/files/a b", uid_dir));
	free(as);
	ck_assert_int_eq(lstat(uid_dir, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
	info = ck_slurp(ck_path("%s/info/a b.trashinfo", uid_dir));
	ck_assert_ptr_nonnull(info);
	/* Relative to $topdir, so the volume can move. */
	ck_assert_str_eq(info_key(info, "\nPath="), "sub/a%20b");
	ck_assert(!exists(ck_path("%s/files/a b", trash_dir)));

	/* A sticky one is used, through $uid. */
	ck_assert_int_eq(chmod("vol/.Trash", 01777), 0);
	ck_write("vol/b", "b");
	as = NULL;
	ck_assert_int_eq(pdk_trash_put("vol/b", roots, 1, &as, why, sizeof(why)), 0);
	ck_assert_str_eq(as, ck_path("%s/files/b", uid_sub));
	free(as);
	ck_assert_str_eq(info_key(ck_slurp(ck_path("%s/info/b.trashinfo", uid_sub)), "\nPath="),
			 "b");

	/* A symlink named .Trash is never trusted, even to a sticky directory. */
	ck_assert_int_eq(rename("vol/.Trash", "vol/real-trash"), 0);
	ck_assert_int_eq(symlink("real-trash", "vol/.Trash"), 0);
	ck_write("vol/c", "c");
	as = NULL;
	ck_assert_int_eq(pdk_trash_put("vol/c", roots, 1, &as, why, sizeof(why)), 0);
	ck_assert_str_eq(as, ck_path("%s/files/c", uid_dir));
	free(as);

	/* When no trash can be made on that filesystem, fail and leave the file. */
	ck_assert_int_eq(unlink("vol/.Trash"), 0);
	ck_assert_int_eq(rename(uid_dir, ck_path("%s/vol/old", work)), 0);
	ck_write(uid_dir, "a file where the trash would go");
	ck_write("vol/d", "d");
	ck_assert_int_lt(pdk_trash_put("vol/d", roots, 1, NULL, why, sizeof(why)), 0);
	ck_assert_ptr_nonnull(strstr(why, "not moved"));
	ck_assert_str_eq(ck_slurp("vol/d"), "d");
	ck_assert(!exists(ck_path("%s/files/d", trash_dir)));

	/* A mount point itself is not moved. */
	ck_assert_int_eq(pdk_trash_put("vol", roots, 1, NULL, why, sizeof(why)), -EBUSY);
	ck_assert(exists("vol/d"));
	umount2(ck_path("%s/vol", work), MNT_DETACH);
	free(uid_dir);
	free(uid_sub);
}
END_TEST

START_TEST(put_as_records_given_path)
{
	char why[256] = "";
	const char *info;
	char *as = NULL;
	int dfd;

	ck_assert_int_eq(mkdir("stage", 0700), 0);
	ck_write("stage/name one", "staged");
	ck_assert_int_eq(symlink(outside, "stage/link"), 0);
	dfd = open("stage", O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(dfd, 0);
	ck_assert_int_eq(pdk_trash_put_as(dfd, "name one", ck_path("%s/was here/name one", work),
					  "2001-02-03T04:05:06", &as, why, sizeof(why)),
			 0);
	ck_assert_str_eq(as, ck_path("%s/files/name one", trash_dir));
	free(as);
	ck_assert(!exists("stage/name one"));
	info = ck_slurp(ck_path("%s/info/name one.trashinfo", trash_dir));
	ck_assert_str_eq(percent_decode(info_key(info, "\nPath=")),
			 ck_path("%s/was here/name one", work));
	ck_assert_str_eq(info_key(info, "\nDeletionDate="), "2001-02-03T04:05:06");

	/* A date of any other shape is replaced by now; the link moves, not its target. */
	ck_assert_int_eq(
	    pdk_trash_put_as(dfd, "link", ck_path("%s/link", work), "2001-02-03 04:05", NULL, why, sizeof(why)),
	    0);
	info = ck_slurp(ck_path("%s/info/link.trashinfo", trash_dir));
	ck_assert_str_ne(info_key(info, "\nDeletionDate="), "2001-02-03 04:05");
	ck_assert_uint_eq(strlen(info_key(info, "\nDeletionDate=")), 19);
	ck_assert(exists(outside));
	ck_assert_int_eq(pdk_trash_put_as(dfd, "../x", "/a", NULL, NULL, why, sizeof(why)), -EINVAL);
	ck_assert_int_eq(pdk_trash_put_as(dfd, "x", "relative", NULL, NULL, why, sizeof(why)), -EINVAL);
	ck_assert_int_eq(pdk_trash_put_as(dfd, "gone", "/gone", NULL, NULL, why, sizeof(why)), -ENOENT);
	close(dfd);
}
END_TEST

struct seen {
	char paths[8][64];
	int n;
};

static int record_move(void *ctx, const char *path, char **ret_where, char *why, size_t why_len)
{
	struct seen *s = ctx;

	(void)why;
	(void)why_len;
	snprintf(s->paths[s->n++], sizeof(s->paths[0]), "%s", path);
	*ret_where = strdup("PLACE");
	return strcmp(path, "refuse") == 0 ? -EPERM : 0;
}

START_TEST(rm_with_mover)
{
	struct seen s = { 0 };
	struct pdk_rm_mover m = { .move = record_move, .ctx = &s, .done = "staged" };
	char *argv1[] = { "rm", "d", "f", "missing", NULL };
	char *argv2[] = { "rm", "-rf", "d", "missing", "refuse", NULL };
	char buf[1024] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	ck_assert_int_eq(mkdir("d", 0755), 0);
	ck_write("f", "f");
	ck_write("refuse", "r");
	/* The checks rm makes stay in rm: the mover only sees what passed them. */
	ck_assert_int_eq(pdk_rm_main_with(4, argv1, &m, f), 1);
	ck_assert_int_eq(s.n, 1);
	ck_assert_str_eq(s.paths[0], "f");
	ck_assert_int_eq(pdk_rm_main_with(5, argv2, &m, f), 1);
	ck_assert_int_eq(s.n, 3);
	ck_assert_str_eq(s.paths[1], "d");
	ck_assert_str_eq(s.paths[2], "refuse");
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "rm: cannot remove 'd': Is a directory\n"));
	ck_assert_ptr_nonnull(strstr(buf, "rm: cannot remove 'missing': No such file or directory\n"));
	ck_assert_ptr_nonnull(strstr(buf, "rm: cannot remove 'refuse': Operation not permitted\n"));
}
END_TEST

/* ROOT/.paddock-rm-UID: where the rm shim stages files inside the root. */
static const char *stage_area(void)
{
	static char area[PATH_MAX + 32];

	snprintf(area, sizeof(area), "%s/.paddock-rm-%u", work, (unsigned)getuid());
	return area;
}

/* A staged slot as the shim leaves it: ROOT/.paddock-rm-UID/RUN/N/NAME and N.info. */
static void plant(const char *run, const char *num, const char *name, const char *record)
{
	const char *area = stage_area();

	mkdir(area, 0700);
	mkdir(ck_path("%s/%s", area, run), 0700);
	ck_assert_int_eq(mkdir(ck_path("%s/%s/%s", area, run, num), 0700), 0);
	ck_write(ck_path("%s/%s/%s/%s", area, run, num, name), "staged");
	if (record)
		ck_write(ck_path("%s/%s/%s.info", area, run, num), record);
}

START_TEST(sweep_trusts_records_only_inside_roots)
{
	const char *area = stage_area();
	char *note = NULL;
	const char *info;

	setenv("XDG_STATE_HOME", ck_path("%s/state", base), 1);
	plant("0123456789abcdef", "1", "good",
	      ck_path("[Paddock Rm]\nPath=%s/sub/good\nDeletionDate=2002-03-04T05:06:07\n", work));
	plant("0123456789abcdef", "2", "passwd", "Path=/etc/passwd\n");
	plant("0123456789abcdef", "3", "dots", ck_path("Path=%s/../outside/dots\n", work));
	plant("0123456789abcdef", "4", "other", ck_path("Path=%s/sub/not-this-name\n", work));
	plant("0123456789abcdef", "5", "norecord", NULL);
	/* A slot that is a symlink out of the staging area: the link goes, not what it names. */
	ck_write(ck_path("%s/victim", outside), "victim");
	ck_assert_int_eq(symlink(outside, ck_path("%s/0123456789abcdef/6", area)), 0);
	ck_write(ck_path("%s/0123456789abcdef/6.info", area), ck_path("Path=%s/victim\n", work));

	ck_assert_int_eq(pdk_rmshim_sweep_roots(roots, 1, NULL, &note), 6);
	ck_assert_ptr_null(note);
	ck_assert(!exists(area));
	ck_assert_str_eq(ck_slurp(ck_path("%s/victim", outside)), "victim");

	info = ck_slurp(ck_path("%s/info/good.trashinfo", trash_dir));
	ck_assert_str_eq(info_key(info, "\nPath="), ck_path("%s/sub/good", work));
	ck_assert_str_eq(info_key(info, "\nDeletionDate="), "2002-03-04T05:06:07");
	info = ck_slurp(ck_path("%s/info/passwd.trashinfo", trash_dir));
	ck_assert_str_eq(info_key(info, "\nPath="), ck_path("%s/0123456789abcdef/2/passwd", area));
	info = ck_slurp(ck_path("%s/info/dots.trashinfo", trash_dir));
	ck_assert_str_eq(info_key(info, "\nPath="), ck_path("%s/0123456789abcdef/3/dots", area));
	info = ck_slurp(ck_path("%s/info/other.trashinfo", trash_dir));
	ck_assert_str_eq(info_key(info, "\nPath="), ck_path("%s/0123456789abcdef/4/other", area));
	ck_assert(exists(ck_path("%s/files/norecord", trash_dir)));
	ck_assert(exists(ck_path("%s/files/6", trash_dir)));
	info = ck_slurp(ck_path("%s/info/6.trashinfo", trash_dir));
	ck_assert_str_eq(info_key(info, "\nPath="), ck_path("%s/0123456789abcdef/6", area));
}
END_TEST

START_TEST(sweep_leaves_what_it_cannot_trash)
{
	const char *area = stage_area();
	char *note = NULL;

	setenv("XDG_STATE_HOME", ck_path("%s/state", base), 1);
	plant("0123456789abcdef", "1", "kept", ck_path("Path=%s/kept\n", work));
	/* No trash can be made: a file where the home trash would go. */
	ck_assert_int_eq(mkdir(ck_path("%s/data", base), 0700), 0);
	ck_write(ck_path("%s/data/Trash", base), "in the way");
	ck_assert_int_eq(pdk_rmshim_sweep_roots(roots, 1, NULL, &note), 0);
	ck_assert_ptr_nonnull(note);
	ck_assert_ptr_nonnull(strstr(note, ck_path("%s/0123456789abcdef/1/kept", area)));
	ck_assert_ptr_nonnull(strstr(note, "nothing deleted"));
	free(note);
	ck_assert_str_eq(ck_slurp(ck_path("%s/0123456789abcdef/1/kept", area)), "staged");
}
END_TEST

START_TEST(sweep_skips_live_runs)
{
	struct pdk_rmshim live = { 0 };
	const char *area = stage_area();
	char *note = NULL;

	setenv("XDG_STATE_HOME", ck_path("%s/state", base), 1);
	ck_assert_int_eq(pdk_rmshim_prepare_roots(roots, 1, &live), 0);
	ck_assert_ptr_nonnull(live.env[0]);
	plant(live.run_id, "1", "busy", ck_path("Path=%s/busy\n", work));
	/* Another sweep (another paddock) leaves a run that is still going alone... */
	ck_assert_int_eq(pdk_rmshim_sweep_roots(roots, 1, NULL, &note), 0);
	ck_assert(exists(ck_path("%s/%s/1/busy", area, live.run_id)));
	/* ...its own sweep moves it; once its paddock is gone, anyone's sweep would. */
	ck_assert_int_eq(pdk_rmshim_sweep_roots(roots, 1, &live, &note), 1);
	ck_assert(!exists(area));
	ck_assert(!exists(live.registry));
	pdk_rmshim_release(&live);
}
END_TEST

static Suite *trash_suite(void)
{
	Suite *s = suite_create("trash");
	TCase *tc = tcase_create("put");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, trashinfo_content);
	tcase_add_test(tc, percent_encoding);
	tcase_add_test(tc, name_collisions);
	tcase_add_test(tc, long_name_fits);
	tcase_add_test(tc, directory_whole);
	tcase_add_test(tc, symlink_is_trashed_not_target);
	tcase_add_test(tc, refused_outside_roots);
	tcase_add_test(tc, trash_inside_operand);
	tcase_add_test(tc, rm_semantics);
	tcase_add_test(tc, topdir_trash);
	tcase_add_test(tc, put_as_records_given_path);
	tcase_add_test(tc, rm_with_mover);
	tcase_add_test(tc, sweep_trusts_records_only_inside_roots);
	tcase_add_test(tc, sweep_leaves_what_it_cannot_trash);
	tcase_add_test(tc, sweep_skips_live_runs);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pdk_ck_run(trash_suite());
}
