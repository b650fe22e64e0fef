# shparse.mk - the sh -c parser: library source, its Check suite, and the
# libFuzzer harness (built on request: make tests/fuzz_shparse).
libpaddock_a_SOURCES += src/shparse.c src/shparse.h

check_PROGRAMS += tests/check_shparse
TESTS += tests/check_shparse
tests_check_shparse_SOURCES = tests/check_shparse.c
tests_check_shparse_LDADD = $(TEST_LIBS)

EXTRA_DIST += tests/fuzz_shparse.c

# Needs clang with libFuzzer; run e.g. tests/fuzz_shparse -max_total_time=120
SHPARSE_FUZZ_CC = clang
tests/fuzz_shparse: $(srcdir)/tests/fuzz_shparse.c $(srcdir)/src/shparse.c $(srcdir)/src/shparse.h
	$(SHPARSE_FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -I$(srcdir)/src \
		$(srcdir)/tests/fuzz_shparse.c $(srcdir)/src/shparse.c -o $@
