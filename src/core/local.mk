# src/core/local.mk - what every stage uses: helpers, paths, formatting, text
# cleaning, the request, raw system calls, the built-in defaults.
libpaddock_a_SOURCES += src/core/util.h src/core/request.c src/core/request.h src/core/rawsys.h src/core/defaults.h \
	src/core/fmt.c src/core/fmt.h src/core/strv.c src/core/strv.h \
	src/core/path.c src/core/path.h \
	src/core/textclean.c src/core/textclean.h \
	src/core/sha256.c src/core/sha256.h \
	src/core/self.c src/core/self.h src/core/state.c src/core/state.h
