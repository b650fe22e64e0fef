# src/agent/local.mk - the faces agent harnesses use: the MCP server and the
# JSON request; part of the program, as they end in the verbs of src/cli.
FACES_SOURCES += src/agent/agent.h src/agent/agent_int.h src/agent/mcp.c src/agent/request.c

# The tools' outputSchema is data/result.schema.json's own text, compiled in:
# the contract is written once. The header goes to the build tree through a
# temporary, before mcp.c builds.
EXTRA_DIST += tools/schema-header.sh
src/agent/result_schema.h: $(srcdir)/data/result.schema.json $(srcdir)/tools/schema-header.sh
	$(AM_V_GEN)$(MKDIR_P) src/agent && \
	$(SHELL) $(srcdir)/tools/schema-header.sh $(srcdir)/data/result.schema.json \
		> $@.tmp && mv -f $@.tmp $@
src/agent/mcp.$(OBJEXT): src/agent/result_schema.h
DISTCLEANFILES += src/agent/result_schema.h src/agent/result_schema.h.tmp
