#!/bin/sh
# mcp-sdk.sh - `paddock mcp` driven by the official MCP TypeScript SDK client
# (tests/drivers/mcp-sdk.mjs). The SDK is installed from the npm registry into
# tests/node-sdk under the build tree; without node, npm or the registry: SKIP.
. "${srcdir:-.}/tests/shell/lib.sh"

SDK_VERSION=1.32.2
sdk="${top_builddir:-.}/tests/node-sdk"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	echo "1..0 # SKIP node or npm is not installed (scripts/setup.sh installs nodejs and npm)"
	exit 0
fi
if [ ! -f "$sdk/node_modules/@modelcontextprotocol/sdk/package.json" ] ||
	! grep -q "\"version\": \"$SDK_VERSION\"" "$sdk/node_modules/@modelcontextprotocol/sdk/package.json"; then
	mkdir -p "$sdk"
	if ! (cd "$sdk" && timeout 600 npm install --prefix . --no-audit --no-fund --no-save \
		--loglevel=error "@modelcontextprotocol/sdk@$SDK_VERSION" >"$T/npm.log" 2>&1); then
		echo "1..0 # SKIP the npm registry is unreachable: $(tail -n 1 "$T/npm.log")"
		exit 0
	fi
fi
fresh_state
export T MARK
node "${srcdir:-.}/tests/drivers/mcp-sdk.mjs" "$(cd "$sdk" && pwd)"
