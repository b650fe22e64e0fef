#!/bin/sh
# memcheck.sh - paddock's early exits and a plain run under valgrind's memcheck: no use of
# uninitialised memory and no invalid free (the cleanup of a run once freed pointers it had
# not set yet). Needs valgrind and a dynamically linked paddock (./configure
# --disable-static-deps), which CI's clang build is; skipped otherwise, saying why.

. "${srcdir:-.}/tests/shell/lib.sh"

command -v valgrind >/dev/null 2>&1 || skip_all "valgrind is not installed"
sanitized && skip_all "built with AddressSanitizer"
readelf -l "$PADDOCK" 2>/dev/null | grep -q 'program interpreter' ||
	skip_all "paddock is linked statically: valgrind cannot follow its allocator"

fresh_state
# vg WANT DESCRIPTION ARGS...: paddock ARGS under memcheck exits WANT, with no error found.
vg() {
	want=$1
	what=$2
	shift 2
	valgrind -q --error-exitcode=99 --log-file="$T/vg" "$PADDOCK" "$@" >"$T/out" 2>"$T/err" \
		</dev/null
	rc=$?
	check "$what: exit $want (got $rc)" test "$rc" -eq "$want"
	check "$what: memcheck found nothing" test ! -s "$T/vg"
	[ -s "$T/vg" ] && sed -n '1,20s/^/# /p' "$T/vg"
}

vg 125 "run: unknown option" run --bogus -- true
vg 125 "run: bad timeout" run --yes --no-sandbox -t abc -- true
vg 127 "run: program not found" run --yes --no-sandbox -- pdk-no-such-program-$$
vg 125 "run: refused by the policy" run --yes --no-sandbox -- touch made '|' cat
vg 0 "run: a command that works" run --yes --no-sandbox -- echo fine
check "the command's output came back" has_line fine
vg 0 "check: a plain command" check -- true
vg 125 "recall: a bad id" recall nothing
finish
