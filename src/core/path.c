/* path.c - path helpers every stage shares: resolving as the kernel would,
 * containment under a root, making directories, writing whole buffers. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "path.h"
#include "util.h"

char *pdk_path_resolve(const char *path)
{
	char abs[PATH_MAX], real[PATH_MAX];
	size_t end;
	char *ret;

	if (path[0] == '/') {
		if (strlen(path) >= sizeof(abs)) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		strcpy(abs, path);
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof(cwd)))
			return NULL;
		if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", cwd, path) >= sizeof(abs)) {
			errno = ENAMETOOLONG;
			return NULL;
		}
	}
	/* Try the whole path, then each shorter prefix: the first that exists
	 * is resolved and what did not exist yet is appended as written. */
	for (end = strlen(abs);;) {
		char save = abs[end];
		bool ok;

		abs[end] = '\0';
		ok = realpath(end ? abs : "/", real) != NULL;
		abs[end] = save;
		if (ok) {
			const char *rest = abs + end;
			if (strcmp(real, "/") == 0 && *rest)
				real[0] = '\0';
			if (asprintf(&ret, "%s%s", real, rest) < 0)
				return NULL;
			return ret;
		}
		if (errno != ENOENT && errno != ENOTDIR)
			return NULL;
		while (end > 0 && abs[end - 1] != '/')
			end--;
		end = end > 0 ? end - 1 : 0;
	}
}

bool pdk_path_under(const char *path, const char *root)
{
	size_t n = strlen(root);

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (n == 1 && root[0] == '/')
		return path[0] == '/';
	return strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

char *pdk_path_join(const char *a, const char *b)
{
	size_t la = strlen(a);
	char *s;

	while (la > 0 && a[la - 1] == '/')
		la--;
	if (asprintf(&s, "%.*s/%s", (int)la, a, b) < 0)
		return NULL;
	return s;
}

bool pdk_own_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid();
}

int pdk_mkdir_p(const char *path, mode_t mode)
{
	/* Mostly it is all there already: one call says so. */
	if (mkdir(path, mode) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return -errno;

	_cleanup_free_ char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	for (char *s = p + 1;; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, mode) < 0 && errno != EEXIST)
				return -errno;
			*s = c;
			if (c == '\0')
				return 0;
		}
	}
}

int pdk_open_in_dir(const char *dir, const char *path, int flags)
{
	int fd = open(path, flags, 0600), r;

	if (fd >= 0 || errno != ENOENT)
		return fd < 0 ? -errno : fd;
	if ((r = pdk_mkdir_p(dir, 0700)) < 0)
		return r;
	fd = open(path, flags, 0600);
	return fd < 0 ? -errno : fd;
}

int pdk_create_locked(const char *dir, const char *path)
{
	for (int tries = 0; tries < 8; tries++) {
		struct stat a, b;
		int fd = pdk_open_in_dir(dir, path,
					 O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC);

		if (fd < 0)
			return fd;
		if (flock(fd, LOCK_EX) < 0) {
			int r = -errno;

			close(fd);
			return r;
		}
		/* Still the file at path: no sweep took it before the lock. */
		if (fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino)
			return fd;
		close(fd);
	}
	return -EAGAIN;
}

int pdk_read_size(int fd, size_t size, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *buf = malloc(size + 1);
	size_t len = 0;

	if (!buf)
		return -ENOMEM;
	while (len < size) {
		ssize_t n = read(fd, buf + len, size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret = steal_pointer(&buf);
	if (ret_len)
		*ret_len = len;
	return 0;
}

int pdk_read_small_at(int dfd, const char *path, size_t max, char **ret, size_t *ret_len)
{
	_cleanup_close_ int fd = openat(dfd, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((uint64_t)st.st_size > max)
		return -EFBIG;
	return pdk_read_size(fd, max, ret, ret_len);
}

int pdk_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

char *pdk_path_of_fd(int fd)
{
#if defined(__APPLE__)
	char buf[PATH_MAX];

	if (fcntl(fd, F_GETPATH, buf) < 0)
		return NULL;
	return strdup(buf);
#else
	char proc[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, sizeof(buf) - 1);
	if (n <= 0 || buf[0] != '/')
		return NULL;
	buf[n] = '\0';
	return strdup(buf);
#endif
}

void pdk_mountinfo_unescape(char *s)
{
	char *o = s;

	for (char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			*o++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
			p += 3;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
}

int pdk_open_dir_nofollow(const char *path)
{
	return pdk_open_dir_nofollow_at(AT_FDCWD, path);
}

int pdk_open_dir_nofollow_at(int root, const char *path)
{
#ifdef O_PATH
	const int flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
#else
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
#endif
	char name[NAME_MAX + 1];
	struct stat st;
	int fd;

	if (path[0] != '/')
		return -EINVAL;
	if ((fd = root == AT_FDCWD ? open("/", flags) : openat(root, ".", flags)) < 0)
		return -errno;
	for (const char *p = path; *(p += strspn(p, "/"));) {
		size_t len = strcspn(p, "/");
		int next;

		if (len > NAME_MAX || (len == 2 && p[0] == '.' && p[1] == '.')) {
			close(fd);
			return len > NAME_MAX ? -ENAMETOOLONG : -EINVAL;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		p += len;
		/* O_DIRECTORY with O_NOFOLLOW: a symlink is no directory. */
		next = openat(fd, name, flags);
		close(fd);
		if (next < 0)
			return -errno;
		fd = next;
	}
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
		close(fd);
		return -ENOTDIR;
	}
	return fd;
}

int pdk_open_parent_nofollow_at(int root, const char *path, const char **ret_name)
{
	const char *slash = strrchr(path, '/');
	_cleanup_free_ char *dir = NULL;

	if (!slash || !slash[1])
		return -EINVAL;
	if (!(dir = slash == path ? strdup("/") : strndup(path, (size_t)(slash - path))))
		return -ENOMEM;
	*ret_name = slash + 1;
	return pdk_open_dir_nofollow_at(root, dir);
}

int pdk_open_nofollow_at(int root, const char *path)
{
	_cleanup_close_ int dfd = -1;
	const char *name;
	int fd;

	if (!strcmp(path, "/"))
		return pdk_open_dir_nofollow_at(root, "/");
	if ((dfd = pdk_open_parent_nofollow_at(root, path, &name)) < 0)
		return dfd;
#ifdef O_PATH
	fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
#else
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
#endif
	return fd < 0 ? -errno : fd;
}

int pdk_pipe_cloexec(int fds[2])
{
#ifdef HAVE_PIPE2
	return pipe2(fds, O_CLOEXEC) < 0 ? -errno : 0;
#else
	if (pipe(fds) < 0)
		return -errno;
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	return 0;
#endif
}

int pdk_socketpair_cloexec(int fds[2])
{
#ifdef SOCK_CLOEXEC
	return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0 ? -errno : 0;
#else
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) < 0)
		return -errno;
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	return 0;
#endif
}

int pdk_socket_cloexec(int domain, int type, int protocol)
{
	int fd;

#ifdef SOCK_CLOEXEC
	fd = socket(domain, type | SOCK_CLOEXEC, protocol);
#else
	fd = socket(domain, type, protocol);
	if (fd >= 0)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
#endif
	return fd < 0 ? -errno : fd;
}

int pdk_accept_cloexec(int listen_fd)
{
	int fd;

#ifdef SOCK_CLOEXEC
	fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
#else
	fd = accept(listen_fd, NULL, NULL);
	if (fd >= 0)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
#endif
	return fd < 0 ? -errno : fd;
}
