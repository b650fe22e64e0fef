# src/shparse/local.mk - the sh -c parser.
libpaddock_a_SOURCES += src/shparse/shparse.c src/shparse/shparse.h
