# tools/local.mk - build-time generators, never installed. classes-gen lays out
# the table of program names for src/policy/policy_data.c; seccomp-gen is built
# from backends/seccomp/local.mk. classes-gen runs on the build machine, so it is
# compiled with CC_FOR_BUILD (CC unless cross compiling) and none of the
# program's flags.
tools/classes-gen: $(srcdir)/tools/classes-gen.c $(srcdir)/src/policy/policy_lists.h \
		$(srcdir)/src/policy/policy_int.h src/policy/read_only_table.h
	$(AM_V_CCLD)$(MKDIR_P) tools && \
	$(CC_FOR_BUILD) -O1 -iquote $(srcdir)/src -iquote src -o $@ $(srcdir)/tools/classes-gen.c
EXTRA_DIST += tools/classes-gen.c
CLEANFILES += tools/classes-gen
