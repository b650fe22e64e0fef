#!/bin/sh
# mcp-cancel.sh - notifications/cancelled always lands under each backend: sent with its
# tools/call or 1, 10, 100 ms after it, four calls at a time (tests/drivers/mcp-cancel.py).
. "${srcdir:-.}/tests/shell/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	skip_all "python3 is not installed (scripts/setup.sh installs it)"
fi
# State and project outside /tmp, a writable root of every run (the landlock backend
# refuses a root holding paddock's own state).
S=$(mktemp -d /var/tmp/pdk-cancel.XXXXXX)
trap 'lib_cleanup; rm -rf "$S"' EXIT
mkdir -p "$S/state" "$S/proj"
export HOME="$S" XDG_STATE_HOME="$S/state"
cd "$S/proj" || exit 99
export MARK PADDOCK
for b in bwrap landlock; do
	if ! "$PADDOCK" run --backend "$b" -- true >/dev/null 2>&1; then
		skip "$b: the backend does not work here"
		continue
	fi
	BACKEND=$b T="$S/proj" python3 "${srcdir:-.}/tests/drivers/mcp-cancel.py" >"$T/cancel.out" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "${line#ok }" ;;
		"not-ok "*) not_ok "${line#not-ok }" ;;
		*) echo "# $line" ;;
		esac
	done <"$T/cancel.out"
	check "$b: the driver ran to its end" test "$rc" -le 1
done
finish
