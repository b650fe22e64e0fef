# gate.mk - automake fragment for the confirm gate (src/gate.c) and the session state
# (src/session.c), included from the top Makefile.am. tests/gate-pty.sh needs tmux (skipped without).

libpaddock_a_SOURCES += src/gate.c src/gate.h src/gate_int.h src/gate_text.c src/gate_tty.c \
	src/gate_command.c src/session.c src/session.h

check_PROGRAMS += tests/check_gate tests/gate-drive
tests_check_gate_SOURCES = tests/check_gate.c
tests_check_gate_LDADD = $(TEST_LIBS)
tests_gate_drive_SOURCES = tests/gate-drive.c
tests_gate_drive_LDADD = $(LIBS_ALL)

TESTS += tests/check_gate tests/gate-pty.sh
EXTRA_DIST += tests/gate-pty.sh
