# tests/limits.mk - the per-run pids cgroup and its guardian (src/cgroup.c, Linux only) and
# the process-limit suite. Included from Makefile.am; needs the OS_LINUX conditional.
if OS_LINUX
libpaddock_a_SOURCES += src/cgroup.c src/cgroup.h
TESTS += tests/limits.sh
endif
EXTRA_DIST += tests/limits.sh
