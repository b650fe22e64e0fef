/* self.c - the paddock program a run's helpers execute: the running binary, unless an
 * embedding program (libpaddock) named the installed one. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __APPLE__
#include <mach-o/dyld.h>
#endif

#include "self.h"

static char set_path[PATH_MAX];

int pdk_self_set(const char *path)
{
	char real[PATH_MAX];
	struct stat st;

	if (!path) {
		set_path[0] = '\0';
		return 0;
	}
	if (!realpath(path, real))
		return -errno;
	if (stat(real, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || access(real, X_OK) < 0)
		return -EACCES;
	memcpy(set_path, real, strlen(real) + 1);
	return 0;
}

bool pdk_self_is_set(void)
{
	return set_path[0] != '\0';
}

ssize_t pdk_self_path(char *buf, size_t len)
{
	size_t n;

	if (set_path[0]) {
		n = strlen(set_path);
		if (n >= len)
			return -ENAMETOOLONG;
		memcpy(buf, set_path, n + 1);
		return (ssize_t)n;
	}
#ifdef __APPLE__
	char raw[PATH_MAX], real[PATH_MAX];
	uint32_t size = sizeof(raw);

	if (_NSGetExecutablePath(raw, &size) != 0)
		return -ENAMETOOLONG;
	if (!realpath(raw, real))
		return -errno;
	n = strlen(real);
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, real, n + 1);
	return (ssize_t)n;
#else
	static const char deleted[] = " (deleted)";
	ssize_t r = readlink("/proc/self/exe", buf, len);

	if (r < 0)
		return -errno;
	if ((size_t)r >= len)
		return -ENAMETOOLONG;
	buf[r] = '\0';
	n = (size_t)r;
	if (n >= sizeof(deleted) - 1 && strcmp(buf + n - (sizeof(deleted) - 1), deleted) == 0)
		return -ENOENT;
	return r;
#endif
}

int pdk_self_open(void)
{
	int fd = open(set_path[0] ? set_path : "/proc/self/exe", O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}
