# src/pkg/local.mk - the host's package managers for `paddock pkg` and pkg_manage:
# detection, the one-bare-name check, the argv of each action.
libpaddock_a_SOURCES += src/pkg/pkg.c src/pkg/pkg.h
