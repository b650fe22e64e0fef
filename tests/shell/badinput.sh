#!/bin/sh
# badinput.sh - bad requests to the real binary: each gets one "paddock: ..." line on stderr,
# nothing on stdout, the documented exit code and nothing half-written; each has a working twin.

. "${srcdir:-.}/tests/shell/lib.sh"
fresh_state

# bad CODE DESCRIPTION ARGS...: paddock ARGS fails with CODE, one error line,
# no stdout, and the store is left empty.
bad() {
	want=$1
	desc=$2
	shift 2
	pcall "$@"
	check "$desc: exit $want (got $rc)" test "$rc" -eq "$want"
	check "$desc: one 'paddock:' line on stderr, nothing on stdout" one_error_line
	check "$desc: nothing written to the store" test ! -e "$(store_root)"
}

# --- usage: 125 --------------------------------------------------------------
bad 125 "nothing after --" run --yes --no-sandbox --
bad 125 "no -- and no program" run --yes --no-sandbox
bad 125 "an empty program name" run --yes --no-sandbox -- ''
bad 125 "unknown long option" run --yes --no-sandbox --bogus -- true
bad 125 "unknown short option" run --yes --no-sandbox -Z -- true
bad 125 "option without its value" run --yes --no-sandbox --timeout
# A grant lifts a protection of the sandbox: with --no-sandbox there is none to lift.
bad 125 "--allow-agent-config with --no-sandbox" run --yes --no-sandbox --allow-agent-config -- true
bad 125 "--allow-git-hooks with --no-sandbox" run --yes --no-sandbox --allow-git-hooks -- true
check "the grant's line names --no-sandbox to drop" grep -q 'drop --no-sandbox' "$T/err"
# Nor with no repository in the roots: there are no hooks to allow (its twin, in one, is in
# git-hooks.sh).
mkdir -p "$T/nogit"
rc=0
(cd "$T/nogit" && exec "$PADDOCK" run --yes --allow-git-hooks -- true) >"$T/out" 2>"$T/err" ||
	rc=$?
check "--allow-git-hooks with no git repository in the roots: exit 125 (got $rc)" test "$rc" -eq 125
check "... one line saying there are no hooks to allow, nothing on stdout" sh -c \
	'[ "$(wc -l <"$1")" -eq 1 ] && grep -q "no hooks to allow: leave it out" "$1" && [ ! -s "$2" ]' \
	sh "$T/err" "$T/out"
for t in abc 0 -5 1e999 nan inf 5s ''; do
	bad 125 "timeout '$t'" run --yes --no-sandbox -t "$t" -- true
done
check "the timeout error says what is wanted" err_has "is not a positive number"
for b in 10 1023 2M 1048577 abc -1K 1X ''; do
	bad 125 "bound '$b'" run --yes --no-sandbox --bound "$b" -- true
done
check "the bound error names the range" err_has "1024 to 1048576"
bad 125 "unknown verb" frobnicate
export PADDOCK_SESSION=../x
bad 125 "PADDOCK_SESSION with a slash" run --yes --no-sandbox -- true
unset PADDOCK_SESSION

# The twins: the same options with good values run the command.
for args in "-t 1.5" "-t 1800" "--timeout=0.5" "--bound 1024" "--bound 1K" "--bound 1M" \
	"--bound 1048576" "--bound 16KiB"; do
	# shellcheck disable=SC2086
	prun $args -- echo fine
	check "good options '$args' run the command" \
		sh -c "[ $rc -eq 0 ] && grep -qx fine '$T/out' && [ ! -s '$T/err' ]"
done
# Options after the program belong to the program.
prun -- echo --bogus -t abc
check "options after the program are the program's" has_line "--bogus -t abc"

# --- the program: 127 missing, 126 not executable or a directory -------------
bad 127 "missing program on PATH" run --yes --no-sandbox -- pdk-no-such-program-$$
check "missing program: says not found" err_has "command not found"
bad 127 "missing program by path" run --yes --no-sandbox -- "$T/no-such-file"
printf '#!/bin/sh\necho ran\n' >"$T/noexec"
chmod 644 "$T/noexec"
bad 126 "not executable, by path" run --yes --no-sandbox -- "$T/noexec"
mkdir -p "$T/bin"
cp "$T/noexec" "$T/bin/pdk-noexec"
oldpath=$PATH
PATH="$T/bin:$PATH"
bad 126 "not executable, on PATH" run --yes --no-sandbox -- pdk-noexec
PATH=$oldpath
bad 126 "a directory" run --yes --no-sandbox -- "$T"
bad 126 "a device" run --yes --no-sandbox -- /dev/null
# The twin: the same script made executable runs.
chmod 755 "$T/noexec"
prun -- "$T/noexec"
check "the same script, executable, runs" sh -c "[ $rc -eq 0 ] && grep -qx ran '$T/out'"
# An exec that fails in the child (bad interpreter) is still 126/127, one line.
printf '#!/pdk/no/such/interpreter\n' >"$T/badinterp"
chmod 755 "$T/badinterp"
bad 127 "a missing interpreter" run --yes --no-sandbox -- "$T/badinterp"
bad 125 "a working directory that does not exist" run --yes --no-sandbox -C "$T/nowhere" -- true
# No place for the output store: one line that names what to set.
saved_home=$HOME saved_state=$XDG_STATE_HOME
HOME=relative
unset XDG_STATE_HOME
pcall run --yes --no-sandbox -- true
HOME=$saved_home XDG_STATE_HOME=$saved_state
export HOME XDG_STATE_HOME
check "no absolute HOME or XDG_STATE_HOME: exit 125 (got $rc)" test "$rc" -eq 125
check "no absolute HOME or XDG_STATE_HOME: one 'paddock:' line, nothing on stdout" \
	one_error_line
check "no absolute HOME or XDG_STATE_HOME: says what to set" err_has "set one of them"

# --- recall ------------------------------------------------------------------
bad 125 "recall without an id" recall
bad 125 "recall of a malformed id" recall not-an-id
bad 125 "recall with an unknown option" recall --bogus 0123abcd

finish
