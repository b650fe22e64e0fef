/* rawsys.h - system calls without libc, for code that runs in the guardian, a
 * process sharing paddock's memory: errno, locks and libc's state are not its own. */
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

/* Code that may run in the guardian carries no sanitizer checks: their
 * run-time keeps its state per thread, and the thread would be paddock's. */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 8)
#define PDK_RAW_CODE __attribute__((no_sanitize("address", "undefined")))
#else
#define PDK_RAW_CODE
#endif

#ifndef SYS_close_range
#define SYS_close_range 436 /* the same number on every architecture */
#endif

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
/* Where a process can share paddock's memory: the calls below never touch
 * errno, and pdk_raw_clone() exists. Elsewhere they go through libc. */
#define PDK_HAVE_RAWSYS 1

/* A system call: its result, or -errno. */
static inline PDK_RAW_CODE long pdk_raw_syscall(long n, long a, long b, long c, long d, long e)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return ret;
#else
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4)
			 : "memory");
	return x0;
#endif
}

/*
 * clone(2) that runs fn(arg) in the child on stack_top (16-byte aligned) and
 * ends the child with its return value, never returning into the caller's
 * frames (they are on the parent's stack). The child's pid, or -errno.
 */
static inline PDK_RAW_CODE long pdk_raw_clone(unsigned long flags, void *stack_top, int *ctid,
					      void *tls, int (*fn)(void *), void *arg)
{
#if defined(__x86_64__)
	/* clone(flags, stack, parent_tid, child_tid, tls) */
	register long r10 __asm__("r10") = (long)ctid;
	register long r8 __asm__("r8") = (long)tls;
	register long r9 __asm__("r9") = (long)fn;
	register long r12 __asm__("r12") = (long)arg;
	long ret;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "mov %%r12, %%rdi\n\t"
			 "call *%%r9\n\t"
			 "mov %%eax, %%edi\n\t"
			 "mov %[exit], %%eax\n\t"
			 "syscall\n\t"
			 "hlt\n"
			 "1:"
			 : "=a"(ret)
			 : "a"((long)SYS_clone), "D"(flags), "S"(stack_top), "d"(0L), "r"(r10),
			   "r"(r8), "r"(r9), "r"(r12), [exit] "i"(SYS_exit_group)
			 : "rcx", "r11", "memory");
	return ret;
#else
	/* clone(flags, stack, parent_tid, tls, child_tid) */
	register long x8 __asm__("x8") = SYS_clone;
	register long x0 __asm__("x0") = (long)flags;
	register long x1 __asm__("x1") = (long)stack_top;
	register long x2 __asm__("x2") = 0;
	register long x3 __asm__("x3") = (long)tls;
	register long x4 __asm__("x4") = (long)ctid;
	register long x5 __asm__("x5") = (long)fn;
	register long x6 __asm__("x6") = (long)arg;

	__asm__ volatile("svc 0\n\t"
			 "cbnz x0, 1f\n\t"
			 "mov x29, xzr\n\t"
			 "mov x30, xzr\n\t"
			 "mov x0, x6\n\t"
			 "blr x5\n\t"
			 "mov x8, #%[exit]\n\t"
			 "svc 0\n\t"
			 "brk #0\n"
			 "1:"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5),
			   "r"(x6), [exit] "i"(SYS_exit_group)
			 : "memory");
	return x0;
#endif
}
#else
static inline long pdk_raw_syscall(long n, long a, long b, long c, long d, long e)
{
	long r = syscall(n, a, b, c, d, e);
	return r < 0 ? -errno : r;
}
#endif

static inline PDK_RAW_CODE int pdk_raw_openat(int dfd, const char *path, int flags)
{
	return (int)pdk_raw_syscall(SYS_openat, dfd, (long)path, flags, 0, 0);
}

static inline PDK_RAW_CODE long pdk_raw_read(int fd, void *buf, size_t len)
{
	return pdk_raw_syscall(SYS_read, fd, (long)buf, (long)len, 0, 0);
}

static inline PDK_RAW_CODE long pdk_raw_pread(int fd, void *buf, size_t len, long off)
{
	return pdk_raw_syscall(SYS_pread64, fd, (long)buf, (long)len, off, 0);
}

static inline PDK_RAW_CODE long pdk_raw_write(int fd, const void *buf, size_t len)
{
	return pdk_raw_syscall(SYS_write, fd, (long)buf, (long)len, 0, 0);
}

static inline PDK_RAW_CODE int pdk_raw_close(int fd)
{
	return (int)pdk_raw_syscall(SYS_close, fd, 0, 0, 0, 0);
}

static inline PDK_RAW_CODE int pdk_raw_dup3(int fd, int to)
{
	return (int)pdk_raw_syscall(SYS_dup3, fd, to, 0, 0, 0);
}

static inline PDK_RAW_CODE int pdk_raw_fcntl(int fd, int cmd, long arg)
{
	return (int)pdk_raw_syscall(SYS_fcntl, fd, cmd, arg, 0, 0);
}

static inline PDK_RAW_CODE int pdk_raw_kill(pid_t pid, int sig)
{
	return (int)pdk_raw_syscall(SYS_kill, pid, sig, 0, 0, 0);
}

/* A process group of its own, led by the caller. */
static inline PDK_RAW_CODE int pdk_raw_setpgid(void)
{
	return (int)pdk_raw_syscall(SYS_setpgid, 0, 0, 0, 0, 0);
}

static inline PDK_RAW_CODE pid_t pdk_raw_getpid(void)
{
	return (pid_t)pdk_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0);
}

static inline PDK_RAW_CODE long pdk_raw_getdents64(int fd, void *buf, size_t len)
{
	return pdk_raw_syscall(SYS_getdents64, fd, (long)buf, (long)len, 0, 0);
}

/* Milliseconds on the monotonic clock (the system call, not the vDSO:
 * libc's way to the vDSO is libc state). */
static inline PDK_RAW_CODE long pdk_raw_ms_now(void)
{
	struct timespec ts = {0, 0};

	pdk_raw_syscall(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&ts, 0, 0, 0);
	return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static inline PDK_RAW_CODE void pdk_raw_nap(long ns)
{
	struct timespec ts = {ns / 1000000000L, ns % 1000000000L};

	pdk_raw_syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, (long)&ts, 0, 0);
}

/* SIG_IGN for sig. The kernel's struct sigaction, the same on x86_64 and
 * aarch64: handler, flags, restorer, mask. */
static inline PDK_RAW_CODE int pdk_raw_ignore(int sig)
{
	unsigned long ka[4] = {(unsigned long)SIG_IGN, 0, 0, 0};

	return (int)pdk_raw_syscall(SYS_rt_sigaction, sig, (long)ka, 0, 8, 0);
}

/* Close every descriptor from first on; 0 or -errno. */
static inline PDK_RAW_CODE int pdk_raw_close_from(int first)
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

static inline PDK_RAW_CODE __attribute__((noreturn)) void pdk_raw_exit(int status)
{
	for (;;)
		pdk_raw_syscall(SYS_exit_group, status, 0, 0, 0, 0);
}

#endif
