# backends/landlock/local.mk - the Landlock backend (with the seccomp filter of
# backends/seccomp).
if BACKEND_LANDLOCK
libpaddock_a_SOURCES += backends/landlock/landlock.c
endif
