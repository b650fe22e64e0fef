/* session.c - per-session state under $XDG_STATE_HOME/paddock/sessions/SESSION/:
 * "approvals" (one approval per line: what an "a" covers, as gate/grant.c writes it) and "cwd-HASH" (the directory `cd` set,
 * one file per launch directory). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/path.h"
#include "session.h"
#include "core/state.h"
#include "core/util.h"

/* A state file bigger than this is not paddock's: refuse rather than read it. */
#define STATE_FILE_MAX (1U << 20)

static int session_resolve(const char *session, const char **ret)
{
	if (!session)
		return pdk_session_name(ret);
	if (!pdk_session_name_valid(session))
		return -EINVAL;
	*ret = session;
	return 0;
}

/* The session's directory; made when make, else -ENOENT when it is not
 * there (a reader finds nothing stored, and leaves nothing behind). */
static int session_dir(const char *session, bool make, char **ret)
{
	_cleanup_free_ char *state = NULL, *dir = NULL;
	const char *name;
	struct stat st;
	int r;

	r = session_resolve(session, &name);
	if (r < 0)
		return r;
	state = pdk_state_dir();
	if (!state)
		return -ENOENT;
	if (asprintf(&dir, "%s/sessions/%s", state, name) < 0) {
		dir = NULL;
		return -ENOMEM;
	}
	if (make && (r = pdk_mkdir_p(dir, 0700)) < 0)
		return r;
	/* Approvals are trusted on sight: only our own private directory will do,
	 * never a symlink someone left in its place. */
	if (lstat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return -ENOTDIR;
	if (make && (st.st_mode & 077) && chmod(dir, 0700) < 0)
		return -errno;
	*ret = steal_pointer(&dir);
	return 0;
}

int pdk_session_dir(const char *session, char **ret)
{
	return session_dir(session, true, ret);
}

/* The whole of dir/name into a new NUL-terminated string; -ENOENT when missing. */
static int read_state(const char *dir, const char *name, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;

	*ret = NULL;
	if (ret_len)
		*ret_len = 0;
	if (!(path = pdk_path_join(dir, name)))
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return pdk_neg_errno();
	if (fstat(fd, &st) < 0)
		return pdk_neg_errno();
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid())
		return -EPERM;
	/* State files are replaced whole, by rename: their size holds. */
	if (st.st_size >= STATE_FILE_MAX)
		return -EFBIG;
	return pdk_read_size(fd, (size_t)st.st_size, ret, ret_len);
}

/* Replace dir/name with data: a 0600 temp file in the same directory, synced,
 * then renamed over the old one. */
static int write_state(const char *dir, const char *name, const char *data, size_t len)
{
	_cleanup_free_ char *tmp = NULL, *path = NULL;
	int fd, r;

	if (asprintf(&tmp, "%s/.%s.XXXXXX", dir, name) < 0) {
		tmp = NULL;
		return -ENOMEM;
	}
	if (!(path = pdk_path_join(dir, name)))
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = fchmod(fd, 0600) < 0 ? -errno : 0;
	if (r == 0)
		r = pdk_write_all(fd, data, len);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

bool pdk_session_program_valid(const char *program)
{
	size_t n = program ? strlen(program) : 0;

	return n > 0 && n <= PDK_SESSION_LINE_MAX && !strchr(program, '\n');
}

/* Is program one whole line of the approvals text? */
static bool listed(const char *text, const char *program)
{
	size_t n = strlen(program);

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len == n && memcmp(p, program, n) == 0)
			return true;
		if (!nl)
			break;
		p = nl + 1;
	}
	return false;
}

int pdk_session_approved(const char *session, const char *program)
{
	_cleanup_free_ char *dir = NULL, *text = NULL;
	int r;

	if (!pdk_session_program_valid(program))
		return 0;
	r = session_dir(session, false, &dir);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = read_state(dir, "approvals", &text, NULL);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	return listed(text, program);
}

int pdk_session_approvals(const char *session, char **ret)
{
	_cleanup_free_ char *dir = NULL;
	int r;

	*ret = NULL;
	r = session_dir(session, false, &dir);
	if (r < 0)
		return r;
	return read_state(dir, "approvals", ret, NULL);
}

int pdk_session_approve(const char *session, const char *program)
{
	_cleanup_free_ char *dir = NULL, *text = NULL, *lock = NULL, *out = NULL;
	_cleanup_close_ int lfd = -1;
	size_t len = 0;
	int r;

	if (!pdk_session_program_valid(program))
		return -EINVAL;
	r = pdk_session_dir(session, &dir);
	if (r < 0)
		return r;
	/* Read, add, replace: under a lock, so two calls approving at once keep both. */
	if (!(lock = pdk_path_join(dir, "lock")))
		return -ENOMEM;
	lfd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (lfd < 0)
		return -errno;
	while (flock(lfd, LOCK_EX) < 0)
		if (errno != EINTR)
			return -errno;
	r = read_state(dir, "approvals", &text, &len);
	if (r == -ENOENT) {
		text = strdup("");
		if (!text)
			return -ENOMEM;
	} else if (r < 0) {
		return r;
	}
	if (listed(text, program))
		return 0;
	if (asprintf(&out, "%s%s%s\n", text, len && text[len - 1] != '\n' ? "\n" : "", program) <
	    0) {
		out = NULL;
		return -ENOMEM;
	}
	return write_state(dir, "approvals", out, strlen(out));
}

/* The state file of the directory cd left calls launched in launch:
 * "cwd-" and a hash of launch; the file holds launch too, so that two
 * launch directories whose hashes meet never share one. */
static int cwd_file(const char *launch, char name[32])
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	if (!launch || launch[0] != '/')
		return -EINVAL;
	for (const unsigned char *p = (const unsigned char *)launch; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	snprintf(name, 32, "cwd-%016llx", (unsigned long long)h);
	return 0;
}

int pdk_session_cwd_get(const char *session, const char *launch, char **ret)
{
	_cleanup_free_ char *dir = NULL, *text = NULL;
	char name[32];
	size_t len, llen;
	int r;

	if ((r = cwd_file(launch, name)) < 0)
		return r;
	r = session_dir(session, false, &dir);
	if (r < 0)
		return r;
	r = read_state(dir, name, &text, &len);
	if (r < 0)
		return r;
	/* "LAUNCH\0DIR", without a newline, so that any directory name
	 * survives; another launch directory's file is none of ours. */
	llen = strlen(launch);
	if (len <= llen + 1 || memcmp(text, launch, llen + 1) != 0)
		return -ENOENT;
	if (text[llen + 1] != '/' || strlen(text + llen + 1) != len - llen - 1)
		return -EINVAL;
	*ret = strdup(text + llen + 1);
	return *ret ? 0 : -ENOMEM;
}

int pdk_session_cwd_set(const char *session, const char *launch, const char *abs_dir)
{
	_cleanup_free_ char *dir = NULL, *data = NULL, *path = NULL;
	char name[32];
	size_t llen;
	int r;

	if ((r = cwd_file(launch, name)) < 0)
		return r;
	if (abs_dir && abs_dir[0] != '/')
		return -EINVAL;
	r = pdk_session_dir(session, &dir);
	if (r < 0)
		return r;
	/* Back where it was launched: nothing to remember. */
	if (!abs_dir || strcmp(abs_dir, launch) == 0) {
		if (!(path = pdk_path_join(dir, name)))
			return -ENOMEM;
		return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
	}
	llen = strlen(launch);
	if (!(data = malloc(llen + 1 + strlen(abs_dir) + 1)))
		return -ENOMEM;
	memcpy(data, launch, llen + 1);
	strcpy(data + llen + 1, abs_dir);
	return write_state(dir, name, data, llen + 1 + strlen(abs_dir));
}
