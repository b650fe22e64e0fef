# classes.mk - the table of program names that src/policy_data.c looks up, made at
# build time by src/classes-gen from src/policy_lists.h and the read-only table.
libpaddock_a_SOURCES += src/policy_lists.h

# The hash table is laid out once, when paddock is built, and compiled in as
# constant data: no run of paddock builds it. src/classes-gen is a build tool,
# never installed. The header goes to the build tree through a temporary, so
# that a failed run leaves nothing that looks finished. Include this after
# tests/policy.mk.
noinst_PROGRAMS = src/classes-gen
src_classes_gen_SOURCES = src/classes-gen.c src/policy_lists.h
src/classes-gen.$(OBJEXT): src/read_only_table.h
src/class_table.h: src/classes-gen$(EXEEXT)
	$(AM_V_GEN)src/classes-gen$(EXEEXT) $@.tmp && mv -f $@.tmp $@
src/policy_data.$(OBJEXT): src/class_table.h
DISTCLEANFILES += src/class_table.h src/class_table.h.tmp

check_PROGRAMS += tests/check_classes
TESTS += tests/check_classes
tests_check_classes_SOURCES = tests/check_classes.c
tests_check_classes_LDADD = $(TEST_LIBS)
tests/check_classes.$(OBJEXT): src/read_only_table.h
