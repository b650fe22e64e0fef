# backends/seatbelt/local.mk - the Seatbelt backend (macOS) and its checks.
# The generator is plain POSIX C, so it is built and tested on every host;
# whether paddock offers it at run time is the backend registry's choice.

libpaddock_a_SOURCES += \
	backends/seatbelt/seatbelt.c \
	backends/seatbelt/seatbelt.h

check_PROGRAMS += tests/check_seatbelt
TESTS += tests/check_seatbelt
tests_check_seatbelt_SOURCES = tests/check_seatbelt.c
tests_check_seatbelt_LDADD = $(TEST_LIBS)

# Read from $(srcdir)/tests/golden/seatbelt (the test harness exports srcdir).
EXTRA_DIST += \
	tests/golden/seatbelt/network-on.golden \
	tests/golden/seatbelt/no-roots.golden \
	tests/golden/seatbelt/one-root.golden \
	tests/golden/seatbelt/protected.golden \
	tests/golden/seatbelt/several-roots.golden
