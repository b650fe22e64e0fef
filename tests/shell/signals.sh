#!/bin/sh
# signals.sh - a command killed by a signal is reported the same way under every backend
# (exit status -N, signal N, paddock exits 128+N), and one that exits with 128+N is not
# taken for one: a real segfault next to a real `exit 139`.
# Nothing here may lie under a default root (/tmp is one), or landlock cannot keep
# paddock's state read-only and refuses to run.
TMPDIR=/var/tmp
. "${srcdir:-.}/tests/shell/lib.sh"

fresh_state
export TMPDIR="$T/tmp" XDG_CACHE_HOME="$T/cache"
mkdir -p "$T/proj" "$TMPDIR" "$XDG_CACHE_HOME"
cd "$T/proj" || exit 99
segv='import ctypes; ctypes.string_at(0)'

for b in none bwrap landlock; do
	if [ "$b" = none ]; then
		opt=--no-sandbox
	elif "$PADDOCK" doctor 2>/dev/null | grep -q "^$b: works here"; then
		opt="--backend $b"
	else
		echo "# backend $b does not work here: not tried"
		continue
	fi
	pcall run $opt --json -- python3 -c "$segv"
	check "$b: a real segfault is signal 11 (rc $rc)" \
		jq_ok "d['exit_status'] == -11 and d['signal'] == 11 and d['exit_code'] == 139"
	check "$b: paddock exits 139" test "$rc" -eq 139
	check "$b: the result is a valid run object" json_valid run
	pcall run $opt -- python3 -c "$segv"
	check "$b: text says exit status: -11" has_line "exit status: -11"
	pcall run $opt --json -- sh -c 'exit 139'
	check "$b: exit 139 is an exit code, no signal" \
		jq_ok "d['exit_status'] == 139 and d['signal'] is None and d['exit_code'] == 139"
	pcall run $opt --json -- sh -c 'kill -TERM $$'
	check "$b: SIGTERM is -15" jq_ok "d['exit_status'] == -15 and d['signal'] == 15"
	pcall run $opt --json -- sh -c 'echo out; echo err >&2; exit 3'
	check "$b: an ordinary exit passes through untouched" \
		jq_ok "d['exit_status'] == 3 and d['stdout'] == 'out\n' and d['stderr'] == 'err\n'"
done

finish
