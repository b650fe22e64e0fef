# src/trash/local.mk - rm to the trash, and the rm shim for confined commands:
# install, staging, sweep.
libpaddock_a_SOURCES += src/trash/trash.c src/trash/trash.h src/trash/expire.c \
	src/trash/rmshim.c src/trash/rmshim.h src/trash/rmshim_int.h \
	src/trash/rmshim_layout.c src/trash/rmshim_stage.c src/trash/rmshim_sweep.c
