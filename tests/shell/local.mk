# tests/shell/local.mk - the suites that drive the real binary (and the drivers).
# gate-pty.sh needs tmux; trash-interop.sh and rmshim.sh need trash-cli; memcheck.sh
# needs valgrind and a dynamically linked paddock: without them those are skipped.
TEST_EXTENSIONS = .sh
SH_LOG_COMPILER = $(SHELL)
# Each suite prints TAP: make check counts every case, and a skip says why.
SH_LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
EXTRA_DIST += tests/shell/caches.sh tests/shell/writable-new.sh tests/shell/bash-data.sh
SHELL_TESTS = tests/shell/bash-data.sh tests/shell/json.sh tests/shell/editors.sh tests/shell/run.sh tests/shell/store.sh tests/shell/badinput.sh \
	tests/shell/policy-cli.sh tests/shell/run-pty.sh tests/shell/gate-pty.sh \
	tests/shell/trash-interop.sh tests/shell/rmshim.sh tests/shell/mcp.sh tests/shell/mcp-cancel.sh tests/shell/libpaddock.sh tests/shell/request.sh \
	tests/shell/mcp-sdk.sh
if OS_LINUX
SHELL_TESTS += tests/shell/confine.sh tests/shell/limits.sh tests/shell/protect.sh \
	tests/shell/git-workflow.sh tests/shell/signals.sh tests/shell/protect-git.sh \
	tests/shell/git-hooks.sh tests/shell/protect-ro.sh tests/shell/git-hookspath.sh
SHELL_TESTS += tests/shell/caches.sh tests/shell/writable-new.sh
SHELL_TESTS += tests/shell/no-window.sh
SHELL_TESTS += tests/shell/open-behalf.sh
EXTRA_DIST += tests/shell/no-window.sh
EXTRA_DIST += tests/shell/open-behalf.sh
SHELL_TESTS += tests/shell/secrets.sh
SHELL_TESTS += tests/shell/net.sh
SHELL_TESTS += tests/shell/pkg.sh tests/shell/audit.sh
endif
if BACKEND_LANDLOCK
SHELL_TESTS += tests/shell/landlock-attack.sh
if OS_LINUX
SHELL_TESTS += tests/shell/mcp-zygote.sh
endif
endif
EXTRA_DIST += tests/shell/mcp-zygote.sh tests/drivers/mcp-zygote.py
if BACKEND_BWRAP
SHELL_TESTS += tests/shell/bwrap-attack.sh tests/shell/net-domains.sh
endif
SHELL_TESTS += tests/shell/memcheck.sh
TESTS += $(SHELL_TESTS)
EXTRA_DIST += tests/shell/lib.sh tests/shell/retry.sh tests/shell/json.sh tests/shell/signals.sh tests/shell/editors.sh tests/shell/json-valid.py tests/shell/run.sh tests/shell/store.sh tests/shell/badinput.sh \
	tests/shell/policy-cli.sh tests/shell/run-pty.sh tests/shell/gate-pty.sh \
	tests/shell/trash-interop.sh tests/shell/rmshim.sh tests/shell/confine.sh \
	tests/shell/limits.sh tests/shell/landlock-attack.sh tests/shell/bwrap-attack.sh \
	tests/shell/mcp.sh tests/drivers/mcp-raw.py tests/drivers/mcpclient.py tests/shell/mcp-cancel.sh tests/shell/libpaddock.sh tests/drivers/mcp-cancel.py tests/shell/request.sh \
	tests/shell/mcp-sdk.sh tests/drivers/mcp-sdk.mjs tests/shell/protect.sh \
	tests/shell/git-workflow.sh tests/drivers/mcp-pkg.py tests/shell/protect-git.sh \
	tests/shell/git-hooks.sh tests/shell/protect-ro.sh tests/shell/git-hookspath.sh
EXTRA_DIST += tests/shell/memcheck.sh
EXTRA_DIST += tests/shell/secrets.sh
# The MCP SDK the end-to-end test installs under the build tree.
distclean-local: clean-local-mcp-sdk
clean-local-mcp-sdk:
	rm -rf tests/node-sdk
.PHONY: clean-local-mcp-sdk
# The network modes.
EXTRA_DIST += tests/shell/net.sh
EXTRA_DIST += tests/shell/net-domains.sh
# allowUnixSockets: the host's unix sockets one by one.
SHELL_TESTS += tests/shell/net-unix.sh
EXTRA_DIST += tests/shell/net-unix.sh
# The command's own unix sockets, the host's closed, --ssh-agent.
SHELL_TESTS += tests/shell/unix-own.sh
EXTRA_DIST += tests/shell/unix-own.sh
# --gpu: the GPU's device nodes, asked.
SHELL_TESTS += tests/shell/gpu.sh
EXTRA_DIST += tests/shell/gpu.sh
# Only the rm a call names goes to the trash.
SHELL_TESTS += tests/shell/rm-named.sh
EXTRA_DIST += tests/shell/rm-named.sh
# What paddock put in the trash expires; nothing else does.
SHELL_TESTS += tests/shell/trash-expire.sh
EXTRA_DIST += tests/shell/trash-expire.sh
EXTRA_DIST += tests/shell/pkg.sh tests/shell/audit.sh
# No process of paddock's is left for a pid 1 that never reaps.
if OS_LINUX
SHELL_TESTS += tests/shell/zombies.sh
endif
EXTRA_DIST += tests/shell/zombies.sh tests/drivers/noreap-init.c
# Faults of the host: one clear line, nothing lost.
if OS_LINUX
SHELL_TESTS += tests/shell/faults.sh
endif
EXTRA_DIST += tests/shell/faults.sh
