#!/bin/sh
# mcp.sh - `paddock mcp` driven on its raw pipe (tests/drivers/mcp-raw.py): the
# protocol and its errors, tools, overlapping calls, cancellation, EOF, SIGKILL.
. "${srcdir:-.}/tests/shell/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	skip_all "python3 is not installed (scripts/setup.sh installs it)"
fi
fresh_state
export T MARK
python3 "${srcdir:-.}/tests/drivers/mcp-raw.py"
