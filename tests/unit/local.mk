# tests/unit/local.mk - the Check suites; each links the library.
TEST_LIBS = $(LIBS_ALL) $(CHECK_LIBS)
EXTRA_DIST += tests/unit/ck_util.h
# failalloc.c makes the Nth allocation fail, for the suites that sweep out-of-memory paths.
FAILALLOC = tests/unit/failalloc.c tests/unit/failalloc.h

UNIT_TESTS = tests/unit/check_render tests/unit/check_store tests/unit/check_config \
	tests/unit/check_gate tests/unit/check_policy tests/unit/check_classes \
	tests/unit/check_shparse tests/unit/check_trash tests/unit/check_seatbelt \
	tests/unit/check_refusal tests/unit/check_strv tests/unit/check_path \
	tests/unit/check_audit tests/unit/check_secrets
if OS_LINUX
UNIT_TESTS += tests/unit/check_seccomp tests/unit/check_net tests/unit/check_pkg
endif
check_PROGRAMS += $(UNIT_TESTS)
TESTS += $(UNIT_TESTS)

tests_unit_check_render_SOURCES = tests/unit/check_render.c $(FAILALLOC)
tests_unit_check_render_LDADD = $(TEST_LIBS)
tests_unit_check_store_SOURCES = tests/unit/check_store.c $(FAILALLOC)
tests_unit_check_store_LDADD = $(TEST_LIBS)
tests_unit_check_config_LDADD = $(TEST_LIBS)
tests_unit_check_gate_LDADD = $(TEST_LIBS)
tests_unit_check_policy_LDADD = $(TEST_LIBS)
tests_unit_check_classes_LDADD = $(TEST_LIBS)
tests_unit_check_shparse_LDADD = $(TEST_LIBS)
tests_unit_check_trash_LDADD = $(TEST_LIBS)
tests_unit_check_seatbelt_LDADD = $(TEST_LIBS)
tests_unit_check_seccomp_LDADD = $(TEST_LIBS)
tests_unit_check_refusal_LDADD = $(TEST_LIBS)
tests_unit_check_secrets_LDADD = $(TEST_LIBS)
tests_unit_check_net_LDADD = $(TEST_LIBS)
tests_unit_check_strv_SOURCES = tests/unit/check_strv.c $(FAILALLOC)
tests_unit_check_strv_LDADD = $(TEST_LIBS)
tests_unit_check_pkg_LDADD = $(TEST_LIBS)
tests_unit_check_path_LDADD = $(TEST_LIBS)
tests_unit_check_audit_LDADD = $(TEST_LIBS)
tests/unit/check_classes.$(OBJEXT): src/policy/read_only_table.h

# Read from $(srcdir)/tests/golden/seatbelt (the test harness exports srcdir).
EXTRA_DIST += \
	tests/golden/seatbelt/macos-run.golden \
	tests/golden/seatbelt/own-sockets.golden \
	tests/golden/seatbelt/ssh-agent.golden \
	tests/golden/seatbelt/docker.golden \
	tests/golden/seatbelt/gpu.golden \
	tests/golden/seatbelt/hookspath.golden \
	tests/golden/seatbelt/network-domains.golden \
	tests/golden/seatbelt/network-off.golden \
	tests/golden/seatbelt/network-on.golden \
	tests/golden/seatbelt/no-roots.golden \
	tests/golden/seatbelt/one-root.golden \
	tests/golden/seatbelt/protected.golden \
	tests/golden/seatbelt/secrets.golden \
	tests/golden/seatbelt/several-roots.golden \
	tests/golden/seatbelt/unix-socket-domains.golden \
	tests/golden/seatbelt/unix-socket-off.golden \
	tests/golden/seatbelt/unix-socket-on.golden
