# src/gate/local.mk - the confirm gate and what a session remembers.
libpaddock_a_SOURCES += src/gate/gate.c src/gate/gate.h src/gate/gate_int.h \
	src/gate/gate_text.c src/gate/gate_tty.c src/gate/gate_command.c \
	src/gate/session.c src/gate/session.h src/gate/grant.c \
	src/gate/gate_remote.c src/gate/approvals.c src/gate/approvals.h
