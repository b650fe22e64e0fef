#!/bin/sh
# signals.sh - a command killed by a signal is reported the same way under every backend
# (exit status -N, signal N, paddock exits 128+N), and one that exits with 128+N is not
# taken for one: a real segfault next to a real `exit 139`.
# A caller of the bwrap backend through the library (tests/drivers/backend-exec) gets the same,
# with paddock-reap next to it, and runs its command all the same without.
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
		opt="--yes --no-sandbox"
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

# The library's callers: paddock-reap is found next to the program that uses the backend.
be=${top_builddir:-.}/tests/drivers/backend-exec
reap=${top_builddir:-.}/paddock-reap
if [ -x "$be" ] && [ -x "$reap" ] && "$PADDOCK" doctor 2>/dev/null | grep -q "^bwrap: works here"; then
	mkdir -p "$T/lib" "$T/nolib"
	cp "$be" "$T/lib/backend-exec" && cp "$reap" "$T/lib/paddock-reap" && cp "$be" "$T/nolib/"
	for w in lib nolib; do
		"$T/$w/backend-exec" --backend bwrap --root "$T/proj" --cwd "$T/proj" -- \
			/bin/sh -c 'echo started; kill -SEGV $$' >"$T/out" 2>"$T/err"
		rc=$?
		cp "$T/err" "$T/err.$w"
		check "library ($w): the command ran" has_line started
		check "library ($w): it exits 139" test "$rc" -eq 139
	done
	check "library: with paddock-reap next to it, the death by signal 11 is told" \
		grep -q 'killed by signal 11' "$T/err.lib"
	check "library: without it, 128+N as bwrap passes it on, no signal claimed" \
		sh -c "! grep -q 'killed by signal' '$T/err.nolib'"
	"$T/lib/backend-exec" --backend bwrap --root "$T/proj" --cwd "$T/proj" -- \
		/bin/sh -c 'exit 139' >"$T/out" 2>"$T/err"
	rc=$?
	check "library: exit 139 is no signal" sh -c "[ $rc -eq 139 ] && ! grep -q 'killed by signal' '$T/err'"
else
	echo "# backend-exec, paddock-reap or bwrap missing: the library's callers not tried"
fi

finish
