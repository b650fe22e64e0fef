# local.mk - automake fragment for the bubblewrap backend, included from the top Makefile.am.
# configure's --with-bwrap=PATH defines PDK_BWRAP_PATH; otherwise /usr/bin/bwrap, then PATH.

if BACKEND_BWRAP
libpaddock_a_SOURCES += backends/bwrap/bwrap.c backends/bwrap/bwrap.h \
	backends/bwrap/bwrap_check.c backends/bwrap/bwrap_check.h \
	backends/bwrap/bwrap_probe.c backends/bwrap/bwrap_int.h

# Escape suite; drives tests/backend-exec (built with the backends, HAVE_BWRAP from config.h).
TESTS += tests/bwrap-attack.sh
endif
EXTRA_DIST += tests/bwrap-attack.sh
