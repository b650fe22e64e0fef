/* landlock-floor.c - the floor the Landlock backend is measured against: apply a Landlock
 * ruleset for the writable roots (cwd, temp dir, cache dir) and exec the command, nothing else. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif

/* Every write-side right of ABI 1; later ABIs add theirs below. Reads are not handled. */
#define FS_WRITE_V1                                                                        \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |                   \
	 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |                   \
	 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |                       \
	 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |                     \
	 LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM)

/* The fs part of struct landlock_ruleset_attr is its first member in every ABI. */
struct fs_attr {
	uint64_t handled_access_fs;
};

struct beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

int main(int argc, char **argv)
{
	char cwd[4096], cache[4096];
	const char *roots[3], *tmp = getenv("TMPDIR"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	struct fs_attr attr;
	int abi, ruleset;

	if (argc < 2) {
		fputs("usage: landlock-floor PROGRAM [ARG...]\n", stderr);
		return 125;
	}
	abi = (int)syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1) {
		fprintf(stderr, "landlock-floor: no Landlock here: %s\n", strerror(errno));
		return 125;
	}
	attr.handled_access_fs = FS_WRITE_V1;
	if (abi >= 2)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0) {
		fprintf(stderr, "landlock-floor: create ruleset: %s\n", strerror(errno));
		return 125;
	}

	roots[0] = getcwd(cwd, sizeof(cwd));
	roots[1] = tmp && *tmp ? tmp : "/tmp";
	if (xdg && *xdg)
		roots[2] = xdg;
	else if (home && snprintf(cache, sizeof(cache), "%s/.cache", home) < (int)sizeof(cache))
		roots[2] = cache;
	else
		roots[2] = NULL;
	for (int i = 0; i < 3; i++) {
		struct beneath rule = { .allowed_access = attr.handled_access_fs };

		if (!roots[i])
			continue;
		/* A root that does not exist yet cannot be written either way. */
		rule.parent_fd = open(roots[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (rule.parent_fd < 0)
			continue;
		if (syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0)) {
			fprintf(stderr, "landlock-floor: %s: %s\n", roots[i], strerror(errno));
			return 125;
		}
		close(rule.parent_fd);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(__NR_landlock_restrict_self, ruleset, 0)) {
		fprintf(stderr, "landlock-floor: restrict: %s\n", strerror(errno));
		return 125;
	}
	close(ruleset);
	execvp(argv[1], argv + 1);
	fprintf(stderr, "landlock-floor: %s: %s\n", argv[1], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
