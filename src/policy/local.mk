# src/policy/local.mk - the command decision, the watcher check, and the shipped
# read-only list compiled into tables at build time.
libpaddock_a_SOURCES += src/policy/policy.c src/policy/policy.h src/policy/policy_int.h \
	src/policy/policy_argv.c src/policy/policy_cmd.c src/policy/policy_wrap.c \
	src/policy/policy_data.c src/policy/policy_lists.h src/policy/watch.c \
	src/policy/policy_rm.c src/policy/read_only_audit.h src/policy/policy_arith.c \
	src/policy/policy_risk.c

# data/read_only_command.json is installed as written and compiled into the
# binary as a sorted table (no JSON is parsed at run time): the header is
# generated in the build tree, through a temporary, before policy_data.c builds.
dist_pkgdata_DATA += data/read_only_command.json
EXTRA_DIST += tools/read-only-table.sh
src/policy/read_only_table.h: $(srcdir)/data/read_only_command.json $(srcdir)/tools/read-only-table.sh
	$(AM_V_GEN)$(MKDIR_P) src/policy && \
	$(SHELL) $(srcdir)/tools/read-only-table.sh $(srcdir)/data/read_only_command.json \
		> $@.tmp && mv -f $@.tmp $@
src/policy/policy_data.$(OBJEXT): src/policy/read_only_table.h src/policy/class_table.h
DISTCLEANFILES += src/policy/read_only_table.h src/policy/class_table.h src/policy/class_table.h.tmp

# The hash table of program names is laid out once, when paddock is built, and
# compiled in as constant data: no run of paddock builds it. The header goes to
# the build tree through a temporary, so that a failed run leaves nothing that
# looks finished.
src/policy/class_table.h: tools/classes-gen
	$(AM_V_GEN)$(MKDIR_P) src/policy && tools/classes-gen $@.tmp && mv -f $@.tmp $@
