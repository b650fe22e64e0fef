#!/bin/sh
# writable-new.sh - writable paths that do not exist yet, under each Linux backend that works
# here: a configured or --write path is made below its longest existing prefix and the command
# writes there, never beside it; a symlink a command planted on the way (in the missing part,
# or where the path goes through a writable root) widens nothing.
set -u
P=${PADDOCK:-./paddock}
# Nothing here may lie under a default root (/tmp is one).
T=$(mktemp -d /var/tmp/pdk-wnew.XXXXXX)
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
export XDG_STATE_HOME="$T/state" TMPDIR="$T/tmp" XDG_CACHE_HOME="$T/cache" HOME="$T"
mkdir -p "$T/tmp" "$T/proj" "$T/data"
n=0
fails=0
check() { # check DESCRIPTION COMMAND...
	d=$1; shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; fails=$((fails + 1)); sed -n '1,8p' "$T/out" | sed 's/^/#   /'; fi
}
absent() { [ ! -e "$1" ] && [ ! -L "$1" ]; }
ran_ok() { grep -q '^exit status: 0' "$T/out"; }
run() { # run BACKEND ARGS...: paddock run --yes in $T/proj, result in $T/out
	b=$1; shift
	(cd "$T/proj" && "$P" run --yes --backend "$b" "$@" >"$T/out" 2>&1 </dev/null)
}
cfg() { # cfg PATH...: a configuration with these writablePaths
	printf '{"commandPolicy":{"sandbox":{"writablePaths":[' >"$T/cfg.json"
	sep=
	for p in "$@"; do printf '%s"%s"' "$sep" "$p" >>"$T/cfg.json"; sep=,; done
	printf ']}}}\n' >>"$T/cfg.json"
}

for b in bwrap landlock; do
	"$P" run --backend "$b" -- true >/dev/null 2>&1 || { n=$((n + 1)); echo "ok $n - $b # SKIP does not work here"; continue; }
	rm -rf "$T/data/$b" "$T/proj/link" "$T/tmp/planted"
	mkdir -p "$T/data/$b"

	# Legitimate: a configured cache that does not exist yet is made, and written.
	cfg "$T/data/$b/cache/npm"
	run "$b" --config "$T/cfg.json" -- sh -c "echo x > '$T/data/$b/cache/npm/f'"
	check "$b: a configured path that does not exist yet is made and written" \
		sh -c "grep -q '^exit status: 0' '$T/out' && [ -f '$T/data/$b/cache/npm/f' ]"
	run "$b" --config "$T/cfg.json" -- sh -c "echo x > '$T/data/$b/cache/beside'"
	check "$b: ... but what lies beside it is not writable" absent "$T/data/$b/cache/beside"
	# Legitimate: a --write path that does not exist yet.
	run "$b" -w "$T/data/$b/w/deep" -- sh -c "echo x > '$T/data/$b/w/deep/f'"
	check "$b: a --write path that does not exist yet is made and written" \
		sh -c "grep -q '^exit status: 0' '$T/out' && [ -f '$T/data/$b/w/deep/f' ]"
	run "$b" -w "$T/data/$b/w2/deep" -- sh -c "mkdir '$T/data/$b/w2/other'"
	check "$b: ... and its made parents are not writable" absent "$T/data/$b/w2/other"

	# Attack: a command plants a symlink where a configured path's missing part will be, in
	# a writable root (the temporary directory); the next run must not grant its target.
	mkdir -p "$T/data/$b/victim/x"
	cfg "$T/tmp/planted/x"
	run "$b" -- ln -s "$T/data/$b/victim" "$T/tmp/planted"
	run "$b" --config "$T/cfg.json" -- sh -c "echo pwned > '$T/tmp/planted/x/f'"
	check "$b: a symlink planted in a configured path's missing part widens nothing" \
		absent "$T/data/$b/victim/x/f"
	check "$b: ... and the result says why it was not granted" \
		grep -q "^sandbox: writablePaths: $T/tmp/planted/x is reached through the symlink $T/tmp/planted inside the writable root" "$T/out"
	# The same through the project root, with --write: refused, nothing runs.
	ln -s "$T/data/$b/victim" "$T/proj/link"
	run "$b" -w "$T/proj/link/x" -- sh -c "echo pwned > '$T/proj/link/x/f'"
	check "$b: a --write path through a symlink in a root is refused" \
		sh -c "absent() { [ ! -e \"\$1\" ]; }; absent '$T/data/$b/victim/x/f' && grep -q 'is reached through the symlink' '$T/out'"
	rm -f "$T/proj/link"
done
echo "1..$n"
[ "$fails" -eq 0 ]
