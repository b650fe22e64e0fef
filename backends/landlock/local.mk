# backends/landlock/local.mk - the Landlock backend, the shared seccomp filter
# (src/seccomp.c, used by bwrap too) and their tests. Included from Makefile.am.
# Needs the conditionals OS_LINUX, BACKEND_LANDLOCK and BACKEND_BWRAP from configure.

if OS_LINUX
libpaddock_a_SOURCES += src/seccomp.c src/seccomp.h

# The seccomp programs are compiled once, at build time: src/seccomp-gen runs the
# rules of src/seccomp.c through libseccomp for this build's native ABI and writes
# them out as C. Built on demand (EXTRA_PROGRAMS), never installed nor shipped.
EXTRA_PROGRAMS = src/seccomp-gen
src_seccomp_gen_SOURCES = src/seccomp-gen.c src/seccomp.c src/seccomp.h src/path.c src/path.h
src_seccomp_gen_CPPFLAGS = $(AM_CPPFLAGS) -DPDK_SECCOMP_GEN
src_seccomp_gen_LDADD = $(SECCOMP_LIBS)
nodist_libpaddock_a_SOURCES = src/seccomp-programs.c
# Written beside the objects (the build tree), through a temporary so that a
# failed run leaves nothing that looks finished.
src/seccomp-programs.c: src/seccomp-gen$(EXEEXT)
	$(AM_V_GEN)src/seccomp-gen$(EXEEXT) $@.tmp && mv -f $@.tmp $@
CLEANFILES = src/seccomp-programs.c src/seccomp-programs.c.tmp src/seccomp-gen$(EXEEXT)

check_PROGRAMS += tests/check_seccomp
TESTS += tests/check_seccomp
tests_check_seccomp_SOURCES = tests/check_seccomp.c
tests_check_seccomp_LDADD = $(TEST_LIBS)
endif

if BACKEND_LANDLOCK
libpaddock_a_SOURCES += backends/landlock/landlock.c

# backend-exec drives any Linux backend through the backend API alone.
check_PROGRAMS += tests/backend-exec
tests_backend_exec_SOURCES = tests/backend-exec.c
tests_backend_exec_LDADD = $(LIBS_ALL)

TESTS += tests/landlock-attack.sh
endif
EXTRA_DIST += tests/landlock-attack.sh
