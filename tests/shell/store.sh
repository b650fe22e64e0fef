#!/bin/sh
# store.sh - the output store through the real binary: byte-exact round trip, concurrent writers,
# the per-output cap, an unwritable state directory, sessions, and recall paging/filter/summary.

. "${srcdir:-.}/tests/shell/lib.sh"

mode_of() { stat -c %a "$1"; }
# expect_stored FILE PAYLOAD: FILE is "exit status: 0\nstdout:\n" + PAYLOAD (+ "\n" when
# PAYLOAD does not end with one).
expect_stored() {
	{
		printf 'exit status: 0\nstdout:\n'
		cat "$2"
		[ "$(tail -c 1 "$2" | od -An -c | tr -d ' ')" = '\n' ] || printf '\n'
	} >"$T/expected"
	cmp -s "$1" "$T/expected"
}

# --- byte-exact round trip ---------------------------------------------------
fresh_state
head -c 6291456 /dev/urandom >"$T/random"
printf 'x' >>"$T/random" # no trailing newline
prun -- cat "$T/random"
id=$(note_id)
check "random bytes: exit 0 and an output id in the note ($id)" \
	sh -c "[ $rc -eq 0 ] && [ -n '$id' ]"
check "random bytes: stored byte for byte" expect_stored "$(store_root)/default/$id" "$T/random"
printf '\n' >>"$T/random" # and with one
prun -- cat "$T/random"
id=$(note_id)
check "random bytes ending in a newline: stored byte for byte, no newline added" \
	expect_stored "$(store_root)/default/$id" "$T/random"
check "the result itself stays within the bound" test "$(wc -c <"$T/out")" -le 16384
check "the whole output is kept as one file per run, nothing else left" \
	test "$(find "$(store_root)" -type f | wc -l)" -eq 2

# --- stdout and stderr both: the stored rendering ----------------------------
fresh_state
prun -- sh -c 'seq 1 3000; seq 5001 8000 >&2; exit 2'
id=$(note_id)
{
	echo "exit status: 2"
	echo "stdout:"
	seq 1 3000
	echo "stderr:"
	seq 5001 8000
} >"$T/expected"
check "both streams: the stored output is header, stdout, stderr" \
	cmp -s "$(store_root)/default/$id" "$T/expected"
check "both streams: the note names both" \
	sh -c "grep -q 'held back: stdout lines [0-9,]*–[0-9,]* ([0-9.]* KiB), stderr lines' '$T/out'"

# --- concurrent writers ------------------------------------------------------
fresh_state
i=0
pids=
while [ $i -lt 20 ]; do
	"$PADDOCK" run --yes --no-sandbox -- sh -c "yes 'writer $i says hello to the store' | head -c 204800" \
		>"$T/conc$i" 2>"$T/conc$i.err" </dev/null &
	pids="$pids $!"
	i=$((i + 1))
done
bgpids=$pids
fails=0
for p in $pids; do wait "$p" || fails=$((fails + 1)); done
bgpids=
check "20 parallel runs all succeed" test "$fails" -eq 0
ids=$(for i in $(seq 0 19); do note_id "$T/conc$i"; done)
check "20 parallel runs: 20 ids" test "$(echo "$ids" | grep -c .)" -eq 20
check "20 parallel runs: all ids distinct" test "$(echo "$ids" | sort -u | wc -l)" -eq 20
intact=0
for i in $(seq 0 19); do
	id=$(note_id "$T/conc$i")
	yes "writer $i says hello to the store" | head -c 204800 >"$T/payload"
	expect_stored "$(store_root)/default/$id" "$T/payload" && intact=$((intact + 1))
done
check "20 parallel runs: every stored file intact, none interleaved ($intact of 20)" \
	test "$intact" -eq 20
check "20 parallel runs: exactly 20 files, no temporary left" \
	test "$(find "$(store_root)" -type f | wc -l)" -eq 20
check "store files are 0600" \
	test "$(find "$(store_root)" -type f ! -perm 600 | wc -l)" -eq 0
check "store directories are 0700" sh -c "[ $(mode_of "$XDG_STATE_HOME/paddock") = 700 ] &&
	[ $(mode_of "$(store_root)") = 700 ] && [ $(mode_of "$(store_root)/default") = 700 ]"

# --- the per-output cap ------------------------------------------------------
fresh_state
prun -- sh -c 'yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 40000000'
id=$(note_id)
check "40 MB output: the note says the rest was not kept" has_text "the rest was not kept"
check "40 MB output: the note says how much was kept" has_text "the first 16.0 MiB of the output is kept"
check "40 MB output: exactly 16 MiB stored" test "$(wc -c <"$(store_root)/default/$id")" -eq 16777216
printf 'exit status: 0\nstdout:\n' >"$T/expected"
yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c $((16777216 - 23)) >>"$T/expected"
check "40 MB output: what is stored is the start of the output" \
	cmp -s "$(store_root)/default/$id" "$T/expected"
# 1,081,081 full lines and a partial one, after the two header lines.
last_held=$(sed -n 's/.*held back: stdout lines [0-9,]*–\([0-9,]*\) .*/\1/p' "$T/out" | tr -d ,)
tail_shown=$(sed -n '/^\[… /,$p' "$T/out" | grep -c '^012')
check "40 MB output: the note counts lines past the cap ($last_held + $tail_shown shown)" \
	test "$((last_held + tail_shown))" -eq 1081084
# The twin below the cap: the whole is kept.
prun -- sh -c 'yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 4000000'
check "4 MB output: the whole output is kept" has_text "the whole output is kept as output"

# --- recall: paging, --lines, --match, --summary -----------------------------
fresh_state
prun -- seq 1 20000
id=$(note_id)
from=$(note_from)
last_head=$(sed -n '/^stdout:$/,/^\[… /p' "$T/out" | sed -n '$!p' | tail -n 1)
pcall recall "$id" --from "$from"
check "recall --from N: status 0" test "$rc" -eq 0
check "recall --from N lands on the first held-back line" \
	test "$(sed -n 2p "$T/out")" = "$((last_head + 1))"
check "recall pages are bounded" test "$(wc -c <"$T/out")" -le 16384
check "recall says where the next page starts" has_text "\"paddock recall $id --from"
next=$(sed -n 's/.*--from \([0-9]*\)" goes on.*/\1/p' "$T/out")
last=$(tail -n 2 "$T/out" | head -n 1)
pcall recall "$id" --from "$next" --lines 5
check "the next page goes on from the last line shown" test "$(sed -n 2p "$T/out")" = $((last + 1))
check "--lines 5 shows five lines" test "$(sed -n '2,$p' "$T/out" | grep -cx '[0-9]*')" -eq 5
pcall recall "$id" --from 20002
check "recall of the last line" sh -c "[ $rc -eq 0 ] && tail -n 1 '$T/out' | grep -qx 20000"
pcall recall "$id" --match '^19[89]\d\d$'
check "--match: status 0" test "$rc" -eq 0
check "--match: 200 matches, with stored line numbers" \
	sh -c "[ \$(grep -c '^[0-9]*: 19[89][0-9][0-9]$' '$T/out') -eq 200 ] &&
	grep -qx '19802: 19800' '$T/out'"
check "--match: nothing else" test "$(grep -c ': ' "$T/out")" -eq 200
pcall recall "$id" --match 'no such text'
check "--match without a match says so" sh -c "[ $rc -eq 0 ] && grep -q '^no matching line' '$T/out'"
pcall recall "$id" --bound 1K
check "recall --bound 1K is bounded" test "$(wc -c <"$T/out")" -le 1024

fresh_state
prun -- sh -c 'seq 1 3000; echo "src/a.c:3: error: expected ;"; seq 1 3000;
	echo "warning: unused variable x"; seq 1 3000; echo "Ran 12 tests: 10 passed, 2 failed"'
id=$(note_id)
pcall recall "$id" --summary
check "--summary shows the error with its line number" has_line "3003: src/a.c:3: error: expected ;"
check "--summary shows the warning" has_line "6004: warning: unused variable x"
check "--summary shows the test summary" has_line "9005: Ran 12 tests: 10 passed, 2 failed"
check "--summary leaves plain lines out" test "$(grep -c '^[0-9]*: ' "$T/out")" -eq 3

# --- a configured output.storeDir: recall finds what runs kept there ---------
mkdir -p "$T/cfgstore"
printf '{ "output": { "storeDir": "%s" } }\n' "$T/cfgstore/kept" >"$T/store-cfg.json"
prun --config "$T/store-cfg.json" -- seq 1 20000
sid=$(note_id)
check "storeDir: the run keeps its output there ($sid)" test -f "$T/cfgstore/kept/default/$sid"
pcall recall "$sid" --config "$T/store-cfg.json" --from 19999
check "storeDir: recall --config finds it" sh -c "[ $rc -eq 0 ] && grep -qx '19999' '$T/out'"
pcall recall "$sid" --from 19999
check "storeDir: without that configuration recall looks in the default store" \
	sh -c "[ $rc -eq 125 ] && grep -q 'no output $sid' '$T/err'"
mkdir -p "$T/xdgconf/paddock"
cp "$T/store-cfg.json" "$T/xdgconf/paddock/config.json"
XDG_CONFIG_HOME="$T/xdgconf" pcall recall "$sid" --from 19999
check "storeDir: recall reads the user's configuration too" \
	sh -c "[ $rc -eq 0 ] && grep -qx '19999' '$T/out'"

# --- recall errors -----------------------------------------------------------
pcall recall 0badc0de
check "unknown id: exit 125, one line" sh -c "[ $rc -eq 125 ] && [ ! -s '$T/out' ] &&
	[ \$(wc -l <'$T/err') -eq 1 ] && grep -q '^paddock: recall: no output 0badc0de' '$T/err'"
pcall recall "$id" --match '(unclosed'
check "bad pattern: exit 125, one line naming it" sh -c "[ $rc -eq 125 ] && [ ! -s '$T/out' ] &&
	[ \$(wc -l <'$T/err') -eq 1 ] && grep -q '^paddock: recall: bad pattern' '$T/err'"
pcall recall "$id" --from 9999999
check "line out of range: exit 125, one line with the count" sh -c "[ $rc -eq 125 ] &&
	[ ! -s '$T/out' ] && [ \$(wc -l <'$T/err') -eq 1 ] &&
	grep -q '^paddock: recall: line 9,999,999 is past the end of output $id (9,005 lines)' '$T/err'"
pcall recall "$id" --from 0
check "--from 0: exit 125, one line" sh -c "[ $rc -eq 125 ] && [ ! -s '$T/out' ] &&
	[ \$(wc -l <'$T/err') -eq 1 ]"
rm "$(store_root)/default/$id"
pcall recall "$id"
check "a pruned id: exit 125, says unknown or pruned" sh -c "[ $rc -eq 125 ] &&
	grep -q 'unknown, or pruned' '$T/err'"

# --- unwritable state directory ----------------------------------------------
fresh_state
printf 'not a directory\n' >"$T/statefile"
XDG_STATE_HOME="$T/statefile" prun -- seq 1 20000
check "unwritable state dir: the run still works" sh -c "[ $rc -eq 0 ] && grep -qx 20000 '$T/out'"
check "unwritable state dir: the note says the held-back lines were not kept" \
	has_text "the held-back lines were not kept"
check "unwritable state dir: no recall hint" sh -c "! grep -q 'paddock recall' '$T/out'"
check "unwritable state dir: result within the bound" test "$(wc -c <"$T/out")" -le 16384
mkdir -p "$T/ro-state"
chmod 500 "$T/ro-state"
if [ "$(id -u)" -ne 0 ]; then
	XDG_STATE_HOME="$T/ro-state" prun -- seq 1 20000
	check "read-only state dir: not kept, run works" \
		sh -c "[ $rc -eq 0 ] && grep -q 'were not kept' '$T/out'"
fi

# --- sessions ----------------------------------------------------------------
fresh_state
PADDOCK_SESSION=alpha
export PADDOCK_SESSION
prun -- seq 1 20000
id_a=$(note_id)
PADDOCK_SESSION=beta
prun -- seq 1 20000
id_b=$(note_id)
check "PADDOCK_SESSION groups outputs by session" \
	test -f "$(store_root)/alpha/$id_a" -a -f "$(store_root)/beta/$id_b" \
	-a ! -e "$(store_root)/default"
pcall recall "$id_a" --lines 1
check "recall finds an output of another session" sh -c "[ $rc -eq 0 ] && grep -qx 'exit status: 0' '$T/out'"
unset PADDOCK_SESSION
prun -- seq 1 20000
check "without PADDOCK_SESSION the session is 'default'" test -f "$(store_root)/default/$(note_id)"
prun -- seq 1 10
check "a result that holds nothing back stores nothing" \
	sh -c "[ \$(find '$(store_root)' -type f | wc -l) -eq 3 ] && ! grep -q 'held back' '$T/out'"

finish
