# backends/bwrap/local.mk - the bubblewrap backend: argv, the look at the
# sandbox before the command starts, finding and probing bwrap.
# configure's --with-bwrap=PATH defines PDK_BWRAP_PATH; otherwise /usr/bin/bwrap, then PATH.
if BACKEND_BWRAP
libpaddock_a_SOURCES += backends/bwrap/bwrap.c backends/bwrap/bwrap.h \
	backends/bwrap/bwrap_check.c backends/bwrap/bwrap_check.h \
	backends/bwrap/bwrap_probe.c backends/bwrap/bwrap_int.h
endif
