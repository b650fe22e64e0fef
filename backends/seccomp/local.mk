# backends/seccomp/local.mk - the one seccomp filter (Landlock and bwrap runs),
# compiled to BPF at build time.
if OS_LINUX
libpaddock_a_SOURCES += backends/seccomp/seccomp.c backends/seccomp/seccomp.h

# The seccomp programs are compiled once, at build time: tools/seccomp-gen runs
# the rules of backends/seccomp/seccomp.c through libseccomp for this build's
# native ABI and writes them out as C. Built on demand (EXTRA_PROGRAMS), never
# installed nor shipped.
EXTRA_PROGRAMS += tools/seccomp-gen
tools_seccomp_gen_SOURCES = tools/seccomp-gen.c backends/seccomp/seccomp.c \
	backends/seccomp/seccomp.h src/core/path.c src/core/path.h
tools_seccomp_gen_CPPFLAGS = $(AM_CPPFLAGS) -DPDK_SECCOMP_GEN
tools_seccomp_gen_LDADD = $(SECCOMP_LIBS)
nodist_libpaddock_a_SOURCES = backends/seccomp/seccomp-programs.c
# Written beside the objects (the build tree), through a temporary so that a
# failed run leaves nothing that looks finished.
backends/seccomp/seccomp-programs.c: tools/seccomp-gen$(EXEEXT)
	$(AM_V_GEN)$(MKDIR_P) backends/seccomp && tools/seccomp-gen$(EXEEXT) $@.tmp && mv -f $@.tmp $@
CLEANFILES += backends/seccomp/seccomp-programs.c backends/seccomp/seccomp-programs.c.tmp \
	tools/seccomp-gen$(EXEEXT)
endif
