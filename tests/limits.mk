# tests/limits.mk - the per-run pids cgroup (src/cgroup.c), the guardian (src/guard.c), both
# Linux only, and the process-limit suite. Included from Makefile.am; needs OS_LINUX.
if OS_LINUX
libpaddock_a_SOURCES += src/cgroup.c src/cgroup.h src/guard.c src/guard.h src/rawsys.h
TESTS += tests/limits.sh
endif
EXTRA_DIST += tests/limits.sh
