#!/bin/sh
# faults.sh - faults of the host give one clear line and lose nothing: a full or read-only state
# directory, one not the user's, too few descriptors or too little memory, damaged records, and a
# paddock stopped past the command's timeout.
set -u
srcdir=${srcdir:-$(dirname "$0")/../..}
. "$srcdir/tests/shell/lib.sh"
mkdir -p "$T/proj" "$T/tmp"
chmod 0711 "$T"
chmod 0777 "$T/tmp"
export TMPDIR="$T/tmp"
cd "$T/proj" || exit 99
fresh_state

# One line on stderr, nothing on stdout, exit 125, and the line names what to do ($1).
one_line_125() { [ "$rc" -eq 125 ] && one_error_line && err_has "$1"; }
# The call's result: "exit status: 0" and the word it echoed.
ran_ok() { [ "$rc" -eq 0 ] && has_line "exit status: 0" && has_line "${1:-hi}"; }
prun_sb() { pcall run --yes "$@"; } # confined, by the backend the host would use

# --- the state directory's disk full ---
if [ "$(id -u)" -eq 0 ] && mkdir "$T/full" && mount -t tmpfs -o size=1m tmpfs "$T/full"; then
	umount_full() { umount "$T/full" 2>/dev/null; }
	trap 'umount_full; lib_cleanup' EXIT
	XDG_STATE_HOME=$T/full
	# Room for the state, not for the output: the result still comes back, bounded.
	prun_sb -- sh -c 'seq 1 400000'
	bounded() { [ "$rc" -eq 0 ] && has_text "were not kept" && [ "$(wc -c <"$T/out")" -lt 40000 ]; }
	check "disk full: the result comes back bounded, saying the output was not kept" bounded
	no_file() { [ -z "$(find "$T/full/paddock/output" -type f)" ]; }
	check "disk full: no half-written output is left in the store" no_file
	# No room at all: one line that says what to do, and nothing runs.
	head -c 2000000 /dev/zero >"$T/full/filler" 2>/dev/null
	rm -f made
	prun_sb -- sh -c 'touch made; echo hi'
	check "disk full: one line, exit 125, saying to free space" one_line_125 "free space"
	check "disk full: nothing ran" test ! -e made
	rm -f "$T/full/filler"
	prun_sb -- echo hi
	check "disk full: once space is freed the next call works" ran_ok
	prun_sb -- sh -c 'seq 1 60000'
	id=$(note_id)
	pcall recall "$id" --from 59999
	check "disk full: once space is freed output is kept again and recalled" has_line 60000
	umount_full
	fresh_state
else
	skip "disk full: needs root to mount a 1 MiB tmpfs"
fi

# --- too few descriptors, too little memory ---
(ulimit -n 20 && "$PADDOCK" run --yes -- echo hi >"$T/out" 2>"$T/err" </dev/null)
rc=$?
check "ulimit -n 20: one line, exit 125, saying to raise the limit" one_line_125 "ulimit -n"
pcall run --yes -- echo hi
check "ulimit -n 20: the next call, with the limit back, works" ran_ok
result_or_line() { ran_ok || one_line_125 ""; }
for kb in 8000 16000 64000; do
	# AddressSanitizer reserves terabytes of address space for its shadow: under any
	# ulimit -v it cannot start at all, whatever paddock does.
	if sanitized; then
		skip "ulimit -v $kb: paddock is built with AddressSanitizer"
		continue
	fi
	(ulimit -v $kb && "$PADDOCK" run --yes -- echo hi >"$T/out" 2>"$T/err" </dev/null)
	rc=$?
	check "ulimit -v $kb: the result, or one line and exit 125; never a crash (rc $rc)" \
		result_or_line
done
# Just above what the static program's image takes (2.6 MiB): it starts, and says what is short.
# Its 1 MiB output buffer was part of that image once, and the program then died before main.
if sanitized || ! ldd "$PADDOCK" 2>&1 | grep -q "statically linked"; then
	skip "ulimit -v 3500: paddock is not a static program here"
else
	(ulimit -v 3500 && "$PADDOCK" run --yes -- echo hi >"$T/out" 2>"$T/err" </dev/null)
	rc=$?
	check "ulimit -v 3500: one line saying to raise it, exit 125; never a crash (rc $rc)" \
		one_line_125 "ulimit -v"
fi

# --- the state directory read-only, or not the user's ---
if [ "$(id -u)" -eq 0 ] && mount --bind "$XDG_STATE_HOME" "$XDG_STATE_HOME" &&
	mount -o remount,ro,bind "$XDG_STATE_HOME"; then
	prun_sb -- sh -c 'touch made; echo hi'
	umount "$XDG_STATE_HOME"
	check "read-only state directory: one line, exit 125, saying what to do" \
		one_line_125 "XDG_STATE_HOME"
	check "read-only state directory: nothing ran" test ! -e made
	prun_sb -- echo hi
	check "read-only state directory: writable again, the next call works" ran_ok
else
	skip "read-only state directory: needs root to bind-mount it read-only"
fi
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	mkdir -p "$T/nobody/proj" "$T/nobody/home"
	chown -R 65534:65534 "$T/nobody"
	mkdir -p "$T/rootstate"
	chmod 0700 "$T/rootstate"
	(cd "$T/nobody/proj" && env HOME="$T/nobody/home" XDG_STATE_HOME="$T/rootstate" \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PADDOCK" run --yes -- sh -c 'touch made; echo hi') >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	check "state directory of another user: one line, exit 125, saying what to do" \
		one_line_125 "XDG_STATE_HOME"
	check "state directory of another user: nothing ran" test ! -e "$T/nobody/proj/made"
else
	skip "state directory of another user: needs root and setpriv"
fi

# --- damaged records: skipped, and said so ---
fresh_state
prun_sb -- sh -c 'seq 1 100000'
id=$(note_id)
rec=$(find "$(store_root)" -name "$id")
rm -f "$rec"
mkdir "$rec"
pcall recall "$id"
check "a damaged output record: one line, exit 125, saying what to do" one_line_125 "damaged"
rmdir "$rec"
ln -s /etc/passwd "$rec"
pcall recall "$id"
check "an output record replaced by a symlink: read as damaged, not followed" \
	one_line_125 "damaged"
rm -f "$rec"
# A commit that never finished (paddock killed while writing it) is swept once it is old.
touch -d '2 hours ago' "$(dirname "$rec")/.tmp-AAAAAA"
prun_sb -- sh -c 'seq 1 100000'
check "a half-written output an hour old is swept by the next commit" \
	test ! -e "$(dirname "$rec")/.tmp-AAAAAA"
pcall run --yes -- cd "$T"
sdir=$XDG_STATE_HOME/paddock/sessions/default
for f in "$sdir"/cwd-*; do head -c 300 /dev/urandom >"$f"; done
pcall run --yes -- pwd
check "a garbled session file: skipped, the call runs in its own directory" ran_ok "$T/proj"
pcall run --yes -- cd "$T"
pcall run --yes -- pwd
check "a garbled session file: the next cd writes it anew" ran_ok "$T"
pcall run --yes -- cd
head -c 3000 /dev/urandom >"$sdir/approvals"
pcall run --yes -- echo hi
check "garbled approvals: the call still runs" ran_ok

# --- paddock stopped past the timeout: the guardian ends the run; the result says timed out ---
stopped() { [ "$(ps -o stat= -p "$1" | cut -c1)" = T ]; }
for b in bwrap landlock; do
	if ! "$PADDOCK" doctor 2>/dev/null | grep -q "^$b: works here"; then
		skip "backend $b does not work here"
		continue
	fi
	rm -f started
	"$PADDOCK" run --yes --backend "$b" -t 1 -- sh -c "touch started; sleep 1000.$$" \
		>"$T/out" 2>"$T/err" </dev/null &
	pid=$!
	wait_for_file started 30
	kill -STOP $pid
	# The guardian kills it at the timeout and both graces (1 + 2 * 2 + 1 s); a loaded
	# machine gets 60 s.
	i=0
	while pgrep -xf "sleep 1000.$$" >/dev/null && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	gone=no
	pgrep -xf "sleep 1000.$$" >/dev/null || gone=yes
	check "$b: SIGSTOPped paddock: the command ends anyway, paddock still stopped" \
		eval '[ $gone = yes ] && stopped $pid'
	kill -CONT $pid
	wait $pid
	rc=$?
	timed_out() { [ "$rc" -eq 137 ] && has_text "timed out: the command was killed after 1 s"; }
	check "$b: continued, the result says the command timed out" timed_out
done
finish
