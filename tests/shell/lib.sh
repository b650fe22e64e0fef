# lib.sh - shared helpers for the shell suites that drive the real paddock binary: a private
# temp directory and state directory per test, TAP lines (automake's TAP driver counts each
# case), and result parsing.

set -u

: "${PADDOCK:=${top_builddir:-.}/paddock}"
if [ ! -x "$PADDOCK" ]; then
	echo "Bail out! $PADDOCK not built"
	exit 99
fi

# Every process a test starts carries this in its command line, so pgrep -f
# finds exactly the leftovers of this suite run and nothing else.
MARK="pdk-test-mark-$$-$(date +%s%N)"

T=$(mktemp -d "${TMPDIR:-/tmp}/pdk-test.XXXXXX")
bgpids=
# kill_marked: SIGKILL every process whose command line holds $MARK.
kill_marked() { for p in $(pgrep -f "$MARK"); do kill -9 "$p" 2>/dev/null; done; }
lib_cleanup() {
	for p in $bgpids; do kill -9 "$p" 2>/dev/null; done
	kill_marked
	chmod -R u+rwx "$T" 2>/dev/null
	rm -rf "$T"
}
trap lib_cleanup EXIT
trap 'exit 130' INT TERM

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	# Show what the failing run printed, to see why (a suite may show more: $not_ok_show).
	for f in "$T/out" "$T/err"; do
		[ -s "$f" ] && sed -n '1,15p' "$f" | cut -c1-200 | sed "s|^|#   $(basename "$f"): |"
	done
	[ -n "${not_ok_show:-}" ] && "$not_ok_show"
	return 0
}
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
# skip_all REASON: the whole suite cannot run here (TAP: an empty plan that says why).
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
check() { # check DESCRIPTION COMMAND...: ok when COMMAND succeeds
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
finish() {
	echo "1..$n"
	[ "$failed" -eq 0 ]
	exit $?
}

# fresh_state: a private, empty XDG_STATE_HOME for the next test.
state_n=0
fresh_state() {
	state_n=$((state_n + 1))
	XDG_STATE_HOME="$T/state$state_n"
	mkdir -p "$XDG_STATE_HOME"
	export XDG_STATE_HOME
	unset PADDOCK_SESSION
}
store_root() { echo "$XDG_STATE_HOME/paddock/output"; }

# prun ARGS...: paddock run --yes --no-sandbox ARGS, stdout to $T/out, stderr to
# $T/err, exit code in $rc, wall time in milliseconds in $ms.
prun() {
	t0=$(date +%s%N)
	"$PADDOCK" run --yes --no-sandbox "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
}
# pcall ARGS...: paddock ARGS (any verb), same conventions as prun.
pcall() {
	t0=$(date +%s%N)
	"$PADDOCK" "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
}

# The output id and --from line named by the held-back note in $T/out.
note_id() { sed -n 's/.*kept as output \([0-9a-f]\{8\}\).*/\1/p' "${1:-$T/out}" | head -n 1; }
note_from() { sed -n 's/.*recall [0-9a-f]\{8\} --from \([0-9]*\)".*/\1/p' "$T/out" | head -n 1; }

has_line() { grep -qxF -- "$1" "$T/out"; }
has_text() { grep -qF -- "$1" "$T/out"; }
err_has() { grep -qF -- "$1" "$T/err"; }
# Exactly one line on stderr, starting "paddock: ", and nothing on stdout.
one_error_line() {
	[ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q '^paddock: ..*' "$T/err"
}
# No process of this suite's marker is alive (zombies have no command line).
none_left() { ! pgrep -f "$MARK" >/dev/null; }
some_left() { pgrep -f "$MARK" >/dev/null; }
# wait_for_file PATH: until PATH exists, up to 5 s.
wait_for_file() { # wait_for_file FILE [SECONDS]: until FILE exists, up to SECONDS (5)
	i=0
	while [ ! -e "$1" ]; do
		i=$((i + 1))
		[ $i -gt $((${2:-5} * 20)) ] && return 1
		sleep 0.05
	done
}
if [ -f "$(dirname "$0")/retry.sh" ]; then . "$(dirname "$0")/retry.sh"; else . "${srcdir:-.}/tests/shell/retry.sh"; fi
# Built with AddressSanitizer: memory figures include its shadow memory.
sanitized() { grep -q __asan_init "$PADDOCK"; }

# json_valid DEF [FILE]: FILE (default $T/out) is exactly one JSON object on one line, valid
# against data/result.schema.json's $defs/DEF (run, check or recall), checked by a real
# validator (Debian: python3-jsonschema, which scripts/setup.sh installs).
json_py=
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import jsonschema' 2>/dev/null; then json_py=$p; break; fi
done
json_valid() {
	if [ -z "$json_py" ]; then
		echo "# no python3 with jsonschema: install python3-jsonschema (scripts/setup.sh)"
		return 1
	fi
	"$json_py" "${srcdir:-.}/tests/shell/json-valid.py" "${srcdir:-.}/data/result.schema.json" \
		"$1" "${2:-$T/out}"
}
# jq_ok PYTHON-EXPRESSION [FILE]: true when the expression holds over the object d in FILE.
jq_ok() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" \
		"${2:-$T/out}" 2>/dev/null
}

# own_home NAME [DIR...]: a home, state directory and project of the suite's
# own under /var/tmp (outside /tmp, a writable root of every run), removed at
# exit by own_home_cleanup; S is its path, the project the working directory,
# and each DIR is made in S too.
own_home() {
	S=$(mktemp -d "/var/tmp/pdk-$1.XXXXXX") || exit 99
	shift
	for d in state proj "$@"; do mkdir -p "$S/$d" || exit 99; done
	export HOME="$S" XDG_STATE_HOME="$S/state"
	cd "$S/proj" || exit 99
	trap own_home_cleanup EXIT
}
own_home_cleanup() {
	rm -rf "$S"
	lib_cleanup
}

# linux_backends: the Linux backends that run a command here, in $backends;
# the whole suite is skipped when none does.
linux_backends() {
	backends=
	for b in bwrap landlock; do
		"$PADDOCK" run --backend "$b" -- /bin/true >/dev/null 2>&1 && backends="$backends $b"
	done
	[ -n "$backends" ] || skip_all "neither the bwrap nor the landlock backend works here"
}
