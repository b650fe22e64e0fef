# src/output/local.mk - capture (head/tail per stream), the output store, the
# bounded result, and recall of kept outputs.
libpaddock_a_SOURCES += src/output/capture.c src/output/capture.h \
	src/output/store.c src/output/store.h \
	src/output/render.c src/output/render.h \
	src/output/recall.c src/output/recall.h
# The contract for every --json output (run, check, recall), installed for callers.
dist_pkgdata_DATA += data/result.schema.json
