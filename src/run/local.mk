# src/run/local.mk - spawn, timeout, group kill, reap; on Linux the per-run
# pids cgroup and the guardian that kills the run if paddock dies.
libpaddock_a_SOURCES += src/run/runner.c src/run/runner.h src/run/reap.c src/run/reap.h
if OS_LINUX
libpaddock_a_SOURCES += src/run/cgroup.c src/run/cgroup.h src/run/guard.c src/run/guard.h
libpaddock_a_SOURCES += src/run/zygote.c src/run/zygote.h
endif
# The command's reaper inside bwrap's sandbox: it tells a death by signal
# from an exit with 128+N, which bwrap cannot. Found next to the running
# program, else in pkglibexecdir.
if BACKEND_BWRAP
pkglibexec_PROGRAMS = paddock-reap
paddock_reap_SOURCES = src/run/reap_main.c src/run/reap.c src/run/reap.h src/core/self.c src/core/self.h
# Never under the sanitizers: it runs inside the sandbox, whose seccomp filter and
# pid namespace LeakSanitizer cannot work in (it aborts the command's exit).
paddock_reap_CFLAGS = $(WARN_CFLAGS) $(HARDEN_CFLAGS)
paddock_reap_LDFLAGS = $(HARDEN_LDFLAGS) $(STATIC_LDFLAGS)
endif
