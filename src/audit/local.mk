# src/audit/local.mk - the audit log: one JSON line per decision, approval and
# outcome, rotated by size, and read back through a filter (`paddock log`).
libpaddock_a_SOURCES += src/audit/audit.c src/audit/audit.h
