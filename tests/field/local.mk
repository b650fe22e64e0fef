# tests/field/local.mk - real projects fetched at test time (Debian sources, the npm
# registry), run directly and through paddock under each backend: `make field`, which
# scripts/test-all.sh runs. Not part of make check: it needs the network and minutes.
EXTRA_DIST += tests/field/field.sh
field: paddock
	PADDOCK='$(abs_top_builddir)/paddock' top_builddir='$(abs_top_builddir)' \
		srcdir='$(abs_srcdir)' $(SHELL) $(srcdir)/tests/field/field.sh
distclean-local: clean-local-field
clean-local-field:
	rm -rf tests/field-cache
.PHONY: field clean-local-field
