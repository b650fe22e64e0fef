# tests/fuzz/local.mk - libFuzzer harnesses, built on request
# (make tests/fuzz/fuzz_shparse; needs clang with libFuzzer), e.g.
# tests/fuzz/fuzz_shparse -max_total_time=120
EXTRA_DIST += tests/fuzz/fuzz_shparse.c
FUZZ_CC = clang
tests/fuzz/fuzz_shparse: $(srcdir)/tests/fuzz/fuzz_shparse.c $(srcdir)/src/shparse/shparse.c \
		$(srcdir)/src/shparse/shparse.h
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -iquote $(srcdir)/src \
		$(srcdir)/tests/fuzz/fuzz_shparse.c $(srcdir)/src/shparse/shparse.c -o $@
