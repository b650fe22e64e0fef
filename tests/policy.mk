# policy.mk - the command decision (src/policy*.c, src/watch.c), the shipped
# read-only list, the table compiled from it, its Check suite and benchmark.
libpaddock_a_SOURCES += src/policy.c src/policy.h src/policy_int.h src/policy_argv.c \
	src/policy_cmd.c src/policy_wrap.c src/policy_data.c src/watch.c

# data/read_only_command.json is installed as written and compiled into the
# binary as a sorted table (no JSON is parsed at run time): the header is
# generated in the build tree, through a temporary, before policy_data.c builds.
dist_pkgdata_DATA += data/read_only_command.json
EXTRA_DIST += data/read-only-table.sh
src/read_only_table.h: $(srcdir)/data/read_only_command.json $(srcdir)/data/read-only-table.sh
	$(AM_V_GEN)$(MKDIR_P) src && \
	$(SHELL) $(srcdir)/data/read-only-table.sh $(srcdir)/data/read_only_command.json \
		> $@.tmp && mv -f $@.tmp $@
src/policy_data.$(OBJEXT): src/read_only_table.h
DISTCLEANFILES = src/read_only_table.h

check_PROGRAMS += tests/check_policy
TESTS += tests/check_policy
tests_check_policy_SOURCES = tests/check_policy.c
tests_check_policy_LDADD = $(TEST_LIBS)

# The benchmark is built with the tests (to keep it compiling) but run only by
# bench/decide.sh, never by make check.
check_PROGRAMS += bench/decide
bench_decide_SOURCES = bench/decide.c
bench_decide_LDADD = $(LIBS_ALL)
EXTRA_DIST += bench/decide.sh
