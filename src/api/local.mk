# src/api/local.mk - libpaddock, the public C library (include/paddock.h): the
# engine's and faces' sources compiled again as position-independent code with
# hidden symbols, linked into libpaddock.so (only paddock_* exported) and
# installed with its static archive, header and paddock.pc. Linux only.
if OS_LINUX
include_HEADERS = include/paddock.h
pkgconfigdir = $(libdir)/pkgconfig
nodist_pkgconfig_DATA = paddock.pc

noinst_LIBRARIES += libpaddock_pic.a
libpaddock_pic_a_SOURCES = $(libpaddock_a_SOURCES) $(FACES_SOURCES) src/api/paddock.c \
	include/paddock.h
nodist_libpaddock_pic_a_SOURCES = $(nodist_libpaddock_a_SOURCES)
libpaddock_pic_a_CPPFLAGS = $(AM_CPPFLAGS) -DPDK_BINDIR='"$(bindir)"'
libpaddock_pic_a_CFLAGS = $(AM_CFLAGS) -fPIC -fvisibility=hidden
src/agent/libpaddock_pic_a-mcp.$(OBJEXT): src/agent/result_schema.h
src/policy/libpaddock_pic_a-policy_data.$(OBJEXT): src/policy/read_only_table.h \
	src/policy/class_table.h

# The shared library, versioned as the package: libpaddock.so.0 is its ABI.
LIBPADDOCK_SO = libpaddock.so.$(PACKAGE_VERSION)
all-local: $(LIBPADDOCK_SO)
$(LIBPADDOCK_SO): libpaddock_pic.a
	$(AM_V_CCLD)$(CC) $(CFLAGS) $(SAN_CFLAGS) $(HARDEN_LDFLAGS) $(LDFLAGS) -shared \
		-Wl,-soname,libpaddock.so.0 $(SO_LDFLAGS) -o $@ \
		-Wl,--whole-archive libpaddock_pic.a -Wl,--no-whole-archive \
		$(SHARED_DEPS_LIBS) -lpthread -lm
	$(AM_V_at)ln -sf $@ libpaddock.so.0 && ln -sf libpaddock.so.0 libpaddock.so
CLEANFILES += $(LIBPADDOCK_SO) libpaddock.so.0 libpaddock.so

install-exec-local: $(LIBPADDOCK_SO)
	$(MKDIR_P) '$(DESTDIR)$(libdir)'
	$(INSTALL_PROGRAM) $(LIBPADDOCK_SO) '$(DESTDIR)$(libdir)/$(LIBPADDOCK_SO)'
	cd '$(DESTDIR)$(libdir)' && ln -sf $(LIBPADDOCK_SO) libpaddock.so.0 && \
		ln -sf libpaddock.so.0 libpaddock.so
	$(INSTALL_DATA) libpaddock_pic.a '$(DESTDIR)$(libdir)/libpaddock.a'
# A name for each function, linked to paddock(3), which documents them all.
PADDOCK_MAN3_LINKS = paddock_session_new paddock_session_free paddock_run paddock_result_free \
	paddock_check paddock_decision_free paddock_recall paddock_version
install-data-local:
	$(MKDIR_P) '$(DESTDIR)$(man3dir)'
	cd '$(DESTDIR)$(man3dir)' && for f in $(PADDOCK_MAN3_LINKS); do ln -sf paddock.3 $$f.3; done
uninstall-local:
	rm -f '$(DESTDIR)$(libdir)/$(LIBPADDOCK_SO)' '$(DESTDIR)$(libdir)/libpaddock.so.0' \
		'$(DESTDIR)$(libdir)/libpaddock.so' '$(DESTDIR)$(libdir)/libpaddock.a'
	for f in $(PADDOCK_MAN3_LINKS); do rm -f '$(DESTDIR)$(man3dir)/'$$f.3; done

# examples/run.c: a whole program over the library, built and run by make check.
check_PROGRAMS += examples/run
examples_run_SOURCES = examples/run.c
examples_run_CPPFLAGS = -I$(top_srcdir)/include
examples_run_LDADD = libpaddock_pic.a $(SECCOMP_LIBS) $(PCRE2_LIBS) -lpthread

# The library through its header alone, as an embedding program sees it.
check_PROGRAMS += tests/unit/check_api
TESTS += tests/unit/check_api
tests_unit_check_api_CPPFLAGS = -I$(top_srcdir)/include
tests_unit_check_api_CFLAGS = $(AM_CFLAGS)
tests_unit_check_api_LDADD = libpaddock_pic.a $(SECCOMP_LIBS) $(PCRE2_LIBS) $(CHECK_LIBS) -lpthread
endif
EXTRA_DIST += paddock.pc.in
