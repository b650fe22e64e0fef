# trash.mk - automake fragment for rm-to-trash (src/trash.c) and the rm shim for confined commands
# (src/rmshim.c), included from the top Makefile.am. tests/trash-interop.sh and tests/rmshim.sh
# need trash-cli (Debian: trash-cli); without it they are skipped.

libpaddock_a_SOURCES += src/trash.c src/trash.h src/rmshim.c src/rmshim.h src/rmshim_int.h \
	src/rmshim_layout.c src/rmshim_stage.c src/rmshim_sweep.c

check_PROGRAMS += tests/check_trash tests/trash-driver
tests_check_trash_SOURCES = tests/check_trash.c
tests_check_trash_LDADD = $(TEST_LIBS)
tests_trash_driver_SOURCES = tests/trash-driver.c
tests_trash_driver_LDADD = $(LIBS_ALL)

TESTS += tests/check_trash tests/trash-interop.sh tests/rmshim.sh
EXTRA_DIST += tests/trash-interop.sh tests/rmshim.sh
