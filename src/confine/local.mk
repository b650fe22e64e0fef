# src/confine/local.mk - the confinement policy, backend registry and selection,
# git's protections, the secrets no command reads, and the refusal hints.
libpaddock_a_SOURCES += src/confine/confine.h \
	src/confine/backend.c src/confine/backend.h \
	src/confine/sandbox.c src/confine/sandbox.h src/confine/sandbox_int.h \
	src/confine/sandbox_git.c src/confine/sandbox_home.c src/confine/vet.c src/confine/vet.h \
	src/confine/vetgit.c src/confine/vetgit.h src/confine/vettrack.c src/confine/vettrack.h \
	src/confine/gitconfig.c src/confine/gitconfig.h \
	src/confine/refusal.c src/confine/refusal.h \
	src/confine/agentconf.c src/confine/agentconf.h \
	src/confine/secrets.c src/confine/secrets.h \
	src/confine/nobody.c src/confine/nobody.h \
	src/confine/grants.c src/confine/grants.h
