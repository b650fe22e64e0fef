# backends/seatbelt/local.mk - the Seatbelt backend (macOS). The generator is
# plain POSIX C, so it is built and tested on every host; whether paddock
# offers it at run time is the backend registry's choice.
libpaddock_a_SOURCES += backends/seatbelt/seatbelt.c backends/seatbelt/seatbelt.h
