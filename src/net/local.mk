# src/net/local.mk - the network modes: the domains mode's proxy, and its side in the sandbox.
libpaddock_a_SOURCES += src/net/proxy.c src/net/proxy.h src/net/addr.c src/net/addr.h
if OS_LINUX
libpaddock_a_SOURCES += src/net/supervise.c src/net/supervise.h src/net/supervise_fs.c \
	src/net/supervise_int.h
endif
