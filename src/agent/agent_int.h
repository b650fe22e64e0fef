/* agent_int.h - what the MCP server tells a client about itself: the tools
 * with their schemas, and the instructions; shared by mcp.c only. */
#ifndef PDK_AGENT_INT_H
#define PDK_AGENT_INT_H

#define PDK_AGENT_INSTRUCTIONS                                                                     \
	"paddock runs shell commands for you, confined: they may write only under the project "   \
	"(and the paths you add with writePaths), and reach the network only when you ask for "   \
	"it. Use run_command for every command. Its result is bounded: when output is held "     \
	"back, a note names an output id; read more of it with recall_output instead of "        \
	"running the command again. A refused call says why and what to do instead. Where "     \
	"pkg_manage is listed, it installs system packages with the host's package manager; "  \
	"pip, npm, cargo and other language packages go through run_command."

#define PDK_AGENT_TOOLS_JSON                                                                       \
	"[{\"name\":\"run_command\",\"title\":\"Run a command (sandboxed)\","                      \
	"\"description\":\"Run one program with its arguments, confined: it may write only "      \
	"under the project directory and writePaths, and reach the network only with network "   \
	"\\\"full\\\", or the listed domains with \\\"domains\\\". No shell runs unless you run one (argv [\\\"sh\\\", \\\"-c\\\", "              \
	"\\\"...\\\"]). stdin is empty. The result gives the exit status and stdout/stderr, "      \
	"bounded: what is held back is kept, and a note names the output id to pass to "        \
	"recall_output. [\\\"cd\\\", \\\"DIR\\\"] changes the directory later calls start in; "    \
	"rm moves files to the trash. A command that exits non-zero is a normal result; a "      \
	"refused call (isError) says why and what to do instead.\","                             \
	"\"inputSchema\":{\"type\":\"object\",\"properties\":{"                                    \
	"\"argv\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1,"              \
	"\"description\":\"The program and its arguments, one string each, as in [\\\"ls\\\", "    \
	"\\\"-l\\\"]\"},"                                                                           \
	"\"network\":{\"type\":\"string\",\"enum\":[\"off\",\"domains\",\"full\"],"               \
	"\"default\":\"off\",\"description\":\"off: no network (but the domains the "             \
	"configuration lists); domains: only the domains in allowDomains, through paddock's "    \
	"proxy (HTTP, HTTPS and SOCKS5; a domain the configuration does not list asks the "      \
	"person); full: the command may reach the network\"},"                                   \
	"\"allowDomains\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"                    \
	"\"description\":\"With network \\\"domains\\\": the domains the command may reach, as "   \
	"\\\"registry.npmjs.org\\\", or \\\"*.example.com\\\" for its subdomains\"},"             \
	"\"writePaths\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"                      \
	"\"description\":\"More paths the command may write (outside your home, a person "        \
	"must approve)\"},"                                                                         \
	"\"timeoutSeconds\":{\"type\":\"integer\",\"minimum\":1,"                                 \
	"\"description\":\"Kill the command after this many seconds (default 120; clamped to "   \
	"the configured cap)\"},"                                                                   \
	"\"workingDirectory\":{\"type\":\"string\",\"description\":\"Run it here instead of "     \
	"the current directory; what it may write does not change\"},"                           \
	"\"outsideSandbox\":{\"type\":\"boolean\",\"description\":\"Ask the person to let this "  \
	"one call run unconfined; only when confinement is what stops it\"},"                     \
	"\"allowGitHooks\":{\"type\":\"boolean\",\"description\":\"Ask the person to let this "   \
	"call install git hooks (.git/hooks, core.hooksPath), as a hook manager's install step "  \
	"does; they run later outside the sandbox\"},"                                           \
	"\"sshAgent\":{\"type\":\"boolean\",\"description\":\"Ask the person to let this call "   \
	"reach their ssh-agent (git push over SSH, ssh-add -l); the key files stay unreadable\"}," \
	"\"docker\":{\"type\":\"boolean\",\"description\":\"Ask the person to let this call "     \
	"reach the Docker or Podman socket, which gives it the host's root\"},"                  \
	"\"gpu\":{\"type\":\"boolean\",\"description\":\"Ask the person to let this call use "     \
	"the GPU's device nodes (/dev/nvidia*, /dev/dri, /dev/kfd)\"},"                           \
	"\"allowAgentConfig\":{\"type\":\"boolean\",\"description\":\"Ask the person to let "   \
	"this call write agent and editor configuration (.claude, .codex, .cursor, .gemini, "   \
	".mcp.json, .vscode, .idea, ...), which those tools run later outside the sandbox\"},"   \
	"\"readPaths\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"                       \
	"\"description\":\"Ask the person to let this call read these secrets (credential "     \
	"stores, .env), which the sandbox keeps unread; only when the task needs one\"}},"       \
	"\"required\":[\"argv\"],\"additionalProperties\":false}},"                              \
	"{\"name\":\"recall_output\",\"title\":\"Read held-back output\","                         \
	"\"description\":\"Read more of a command's output that a run_command result held back, "\
	"by the output id its note names: a page from a line on, the lines matching a "          \
	"pattern, or a summary. Use it instead of running the command again.\","                 \
	"\"inputSchema\":{\"type\":\"object\",\"properties\":{"                                    \
	"\"id\":{\"type\":\"string\",\"pattern\":\"^[0-9a-f]{8}$\","                              \
	"\"description\":\"The output id from the 'held back:' note\"},"                          \
	"\"from\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"The first line to show "  \
	"(the note names where the held-back part starts)\"},"                                   \
	"\"match\":{\"type\":\"string\",\"description\":\"Show only the lines matching this "     \
	"regular expression (PCRE2)\"},"                                                          \
	"\"summary\":{\"type\":\"boolean\",\"description\":\"Show a summary: size, lines, and "   \
	"the lines that look like errors\"}},"                                                    \
	"\"required\":[\"id\"],\"additionalProperties\":false}}]"

/* Linux only: the host's package manager (src/pkg). */
#define PDK_AGENT_PKG_TOOL_JSON                                                                    \
	"{\"name\":\"pkg_manage\",\"title\":\"Manage system packages\","                          \
	"\"description\":\"Install, remove, search or describe a system package with the "       \
	"host's package manager (apt, dnf, yum, pacman or apk, as found here), outside the "      \
	"sandbox. install, remove, update (refresh the index) and upgrade (everything) change "   \
	"the system as root: the person is asked every time; search and info are not asked. "   \
	"package is one bare name: no version, option, path or URL. Not for pip, npm, cargo or "\
	"other language packages: run those with run_command. The result is as run_command's: "  \
	"the manager's exit status and output, bounded, with held-back output for "             \
	"recall_output.\","                                                                       \
	"\"inputSchema\":{\"type\":\"object\",\"properties\":{"                                   \
	"\"action\":{\"type\":\"string\",\"enum\":[\"install\",\"remove\",\"update\","          \
	"\"upgrade\",\"search\",\"info\"],\"description\":\"What to do\"},"                      \
	"\"package\":{\"type\":\"string\",\"description\":\"One bare package name, as in "       \
	"\\\"hello\\\" (for search: a word); required for all but update and upgrade\"}},"        \
	"\"required\":[\"action\"],\"additionalProperties\":false}}"

#endif
