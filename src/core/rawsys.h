/* rawsys.h - bare system calls returning -errno, for the guardian and the cgroup's kill
 * path: a fork of paddock (which, as a library, may have threads) may take no lock of libc's. */
#ifndef PDK_RAWSYS_H
#define PDK_RAWSYS_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_close_range
#define SYS_close_range 436 /* the same number on every architecture */
#endif

/* A system call: its result, or -errno. syscall(2) is async-signal-safe. */
static inline long pdk_raw_syscall(long n, long a, long b, long c, long d, long e)
{
	long r = syscall(n, a, b, c, d, e);
	return r < 0 ? -errno : r;
}

static inline int pdk_raw_openat(int dfd, const char *path, int flags)
{
	return (int)pdk_raw_syscall(SYS_openat, dfd, (long)path, flags, 0, 0);
}

static inline long pdk_raw_read(int fd, void *buf, size_t len)
{
	return pdk_raw_syscall(SYS_read, fd, (long)buf, (long)len, 0, 0);
}

static inline long pdk_raw_pread(int fd, void *buf, size_t len, long off)
{
	return pdk_raw_syscall(SYS_pread64, fd, (long)buf, (long)len, off, 0);
}

static inline long pdk_raw_write(int fd, const void *buf, size_t len)
{
	return pdk_raw_syscall(SYS_write, fd, (long)buf, (long)len, 0, 0);
}

static inline int pdk_raw_close(int fd)
{
	return (int)pdk_raw_syscall(SYS_close, fd, 0, 0, 0, 0);
}

static inline int pdk_raw_dup3(int fd, int to)
{
	return (int)pdk_raw_syscall(SYS_dup3, fd, to, 0, 0, 0);
}

static inline int pdk_raw_fcntl(int fd, int cmd, long arg)
{
	return (int)pdk_raw_syscall(SYS_fcntl, fd, cmd, arg, 0, 0);
}

static inline int pdk_raw_kill(pid_t pid, int sig)
{
	return (int)pdk_raw_syscall(SYS_kill, pid, sig, 0, 0, 0);
}

/* A process group of its own, led by the caller. */
static inline int pdk_raw_setpgid(void)
{
	return (int)pdk_raw_syscall(SYS_setpgid, 0, 0, 0, 0, 0);
}

static inline pid_t pdk_raw_getpid(void)
{
	return (pid_t)pdk_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0);
}

static inline long pdk_raw_getdents64(int fd, void *buf, size_t len)
{
	return pdk_raw_syscall(SYS_getdents64, fd, (long)buf, (long)len, 0, 0);
}

/* Milliseconds on the monotonic clock (the system call, not the vDSO:
 * libc's way to the vDSO is libc state). */
static inline long pdk_raw_ms_now(void)
{
	struct timespec ts = {0, 0};

	pdk_raw_syscall(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&ts, 0, 0, 0);
	return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Wait until fd is readable or ms pass (ms < 0: no bound); 1, 0 at the time, or -errno. */
static inline int pdk_raw_wait_readable(int fd, long ms)
{
	struct {
		int fd;
		short events, revents;
	} pfd = {fd, 1 /* POLLIN */, 0};
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	return (int)pdk_raw_syscall(SYS_ppoll, (long)&pfd, 1, ms < 0 ? 0 : (long)&ts, 0, 0);
}

static inline void pdk_raw_nap(long ns)
{
	struct timespec ts = {ns / 1000000000L, ns % 1000000000L};

	pdk_raw_syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, (long)&ts, 0, 0);
}

/* SIG_IGN for sig. The kernel's struct sigaction, the same on x86_64 and
 * aarch64: handler, flags, restorer, mask. */
static inline int pdk_raw_ignore(int sig)
{
	unsigned long ka[4] = {(unsigned long)SIG_IGN, 0, 0, 0};

	return (int)pdk_raw_syscall(SYS_rt_sigaction, sig, (long)ka, 0, 8, 0);
}

/* Close every descriptor from first on; 0 or -errno. */
static inline int pdk_raw_close_from(int first)
{
	struct {
		uint64_t cur, max;
	} rl = {1024, 1024};

	if (pdk_raw_syscall(SYS_close_range, first, ~0U, 0, 0, 0) == 0)
		return 0;
	/* Before Linux 5.9: one at a time, up to the limit. */
	pdk_raw_syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)&rl, 0);
	for (uint64_t fd = (uint64_t)first; fd < rl.cur && fd < 65536; fd++)
		pdk_raw_close((int)fd);
	return 0;
}

/* Execute the program open on fd (AT_EMPTY_PATH); returns only on failure, -errno. */
static inline int pdk_raw_execveat(int fd, char *const *argv, char *const *envp)
{
	return (int)pdk_raw_syscall(SYS_execveat, fd, (long)"", (long)argv, (long)envp,
				    AT_EMPTY_PATH);
}

static inline __attribute__((noreturn)) void pdk_raw_exit(int status)
{
	for (;;)
		pdk_raw_syscall(SYS_exit_group, status, 0, 0, 0, 0);
}

#endif
