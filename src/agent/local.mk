# src/agent/local.mk - the faces agent harnesses use: the MCP server and the
# JSON request; part of the program, as they end in the verbs of src/cli.
paddock_SOURCES += src/agent/agent.h src/agent/agent_int.h src/agent/mcp.c src/agent/request.c
