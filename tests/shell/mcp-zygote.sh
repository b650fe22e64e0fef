#!/bin/sh
# mcp-zygote.sh - `paddock mcp`'s confined zygotes under Landlock and bwrap
# (tests/drivers/mcp-zygote.py): calls from a zygote hold what a fresh run holds, and leave
# nothing to the next call.
. "${srcdir:-.}/tests/shell/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	skip_all "python3 is not installed (scripts/setup.sh installs it)"
fi
if ! "$PADDOCK" doctor 2>/dev/null | grep -q '^cgroup: v[12], runs'; then
	skip_all "no pids cgroup for runs here, which the zygote needs"
fi
BACKENDS=
for b in landlock bwrap; do
	if "$PADDOCK" doctor 2>/dev/null | grep -q "^$b: works here"; then
		BACKENDS="$BACKENDS $b"
	fi
done
if [ -z "$BACKENDS" ]; then
	skip_all "neither landlock nor bwrap works here"
fi
fresh_state
# The roots and the state apart, as Landlock needs: nothing of paddock's under a root.
mkdir "$T/tmp" "$T/cache"
TMPDIR=$T/tmp XDG_CACHE_HOME=$T/cache
export PADDOCK T MARK TMPDIR XDG_CACHE_HOME BACKENDS
python3 "${srcdir:-.}/tests/drivers/mcp-zygote.py"
