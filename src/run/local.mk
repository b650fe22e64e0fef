# src/run/local.mk - spawn, timeout, group kill, reap; on Linux the per-run
# pids cgroup and the guardian that kills the run if paddock dies.
libpaddock_a_SOURCES += src/run/runner.c src/run/runner.h
if OS_LINUX
libpaddock_a_SOURCES += src/run/cgroup.c src/run/cgroup.h src/run/guard.c src/run/guard.h
endif
