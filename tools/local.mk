# tools/local.mk - build-time generators, never installed. classes-gen lays out
# the table of program names for src/policy/policy_data.c; seccomp-gen is built
# from backends/seccomp/local.mk.
noinst_PROGRAMS = tools/classes-gen
tools_classes_gen_SOURCES = tools/classes-gen.c src/policy/policy_lists.h
tools/classes-gen.$(OBJEXT): src/policy/read_only_table.h
