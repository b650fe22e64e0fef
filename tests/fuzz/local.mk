# tests/fuzz/local.mk - libFuzzer harnesses, built on request with clang
# (`make fuzz`), never by make or make check. Each links libpaddock's own
# sources compiled a second time, with coverage and the sanitizers, into
# tests/fuzz/libpaddock-fuzz.a. tests/fuzz/run.sh builds and runs them over
# their seed corpora (tests/fuzz/corpus/TARGET/) for FUZZ_SECONDS each.
FUZZ_CC = clang
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer-no-link $(FUZZ_SAN) -Wall -Wextra -Wno-unused-parameter \
	-isystem $(top_srcdir)/lib/cjson $(PCRE2_CFLAGS) $(SECCOMP_CFLAGS)
FUZZ_TARGETS = tests/fuzz/fuzz_shparse tests/fuzz/fuzz_config tests/fuzz/fuzz_recall \
	tests/fuzz/fuzz_render tests/fuzz/fuzz_package tests/fuzz/fuzz_agent
FUZZ_LIBS = tests/fuzz/libpaddock-fuzz.a $(SECCOMP_LIBS) $(PCRE2_LIBS)

EXTRA_LIBRARIES = tests/fuzz/libpaddock-fuzz.a
tests_fuzz_libpaddock_fuzz_a_SOURCES = $(libpaddock_a_SOURCES)
nodist_tests_fuzz_libpaddock_fuzz_a_SOURCES = $(nodist_libpaddock_a_SOURCES)
tests_fuzz_libpaddock_fuzz_a_CFLAGS = $(FUZZ_CFLAGS)
src/policy/tests_fuzz_libpaddock_fuzz_a-policy_data.$(OBJEXT): src/policy/read_only_table.h \
	src/policy/class_table.h

EXTRA_PROGRAMS += $(FUZZ_TARGETS)
FUZZ_UTIL = tests/fuzz/fuzz.h tests/fuzz/fuzz_util.c
tests_fuzz_fuzz_shparse_SOURCES = tests/fuzz/fuzz_shparse.c
tests_fuzz_fuzz_config_SOURCES = tests/fuzz/fuzz_config.c $(FUZZ_UTIL)
tests_fuzz_fuzz_recall_SOURCES = tests/fuzz/fuzz_recall.c $(FUZZ_UTIL)
tests_fuzz_fuzz_render_SOURCES = tests/fuzz/fuzz_render.c $(FUZZ_UTIL)
tests_fuzz_fuzz_package_SOURCES = tests/fuzz/fuzz_package.c $(FUZZ_UTIL)
# The agent's arguments are read by the program, not the library.
tests_fuzz_fuzz_agent_SOURCES = tests/fuzz/fuzz_agent.c src/agent/request.c $(FUZZ_UTIL)
tests_fuzz_fuzz_shparse_CFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_config_CFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_recall_CFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_render_CFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_package_CFLAGS = $(FUZZ_CFLAGS)
tests_fuzz_fuzz_agent_CFLAGS = $(FUZZ_CFLAGS)
FUZZ_LINK = -fsanitize=fuzzer $(FUZZ_SAN)
tests_fuzz_fuzz_shparse_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_config_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_recall_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_render_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_package_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_agent_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_fuzz_shparse_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_config_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_recall_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_render_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_package_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_agent_LDADD = $(FUZZ_LIBS)

# The same make with clang for CC: automake compiles and links each of these
# with $(CC), and the flags above are clang's.
fuzz:
	$(MAKE) $(AM_MAKEFLAGS) CC='$(FUZZ_CC)' $(FUZZ_TARGETS)
.PHONY: fuzz
CLEANFILES += $(FUZZ_TARGETS) tests/fuzz/libpaddock-fuzz.a
EXTRA_DIST += tests/fuzz/run.sh tests/fuzz/corpus
