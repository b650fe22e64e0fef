#!/bin/sh
# json.sh - with --json, run, check and recall print exactly one JSON object, valid
# against data/result.schema.json, for every outcome: ran, refused, not found, not
# executable, bad option, bad -C, bad configuration, timeout, signal, rm, cd.
. "${srcdir:-.}/tests/shell/lib.sh"

fresh_state
mkdir -p "$T/proj"
cd "$T/proj" || exit 99

# outcome NAME DEF EXPR ARGS...: paddock ARGS prints one valid DEF object for which
# the Python expression EXPR (over d) holds.
outcome() {
	name=$1 def=$2 expr=$3
	shift 3
	pcall "$@"
	check "$name: one valid $def object (rc $rc)" json_valid "$def"
	check "$name: the members say so" jq_ok "$expr"
}

outcome "ran" run "d['ran'] and d['exit_status'] == 3 and d['exit_code'] == 3 and
	d['stdout'] == 'hi\n' and d['cwd'] == '$T/proj' and d['error'] is None" \
	run --json -- sh -c 'echo hi; exit 3'
check "ran: exit code passes through" test "$rc" -eq 3
outcome "ran, confined" run "d['ran'] and d['exit_status'] == 0 and d['stdout'] == 'x\n'" \
	run --json -- echo x
outcome "refused" run "not d['ran'] and d['error_kind'] == 'refused' and
	d['error'].startswith('command denied by policy') and 'sudo' in d['rule']" \
	run --json -- sh -c 'sudo id'
check "refused: exit 125" test "$rc" -eq 125
outcome "not approved" run "not d['ran'] and d['error_kind'] == 'not_approved' and
	d['risk'] == 'dangerous'" \
	run --json -- sh -c 'git push --force origin main'
outcome "not found" run "not d['ran'] and d['error_kind'] == 'not_found' and
	d['exit_code'] == 127 and 'command not found' in d['error']" \
	run --json -- no-such-program-here
check "not found: exit 127, nothing on stderr" sh -c "[ $rc -eq 127 ] && [ ! -s '$T/err' ]"
printf '#!/bin/sh\necho x\n' >"$T/proj/noexec"
outcome "not executable" run "not d['ran'] and d['error_kind'] == 'not_executable' and
	d['exit_code'] == 126" run --json -- ./noexec
check "not executable: exit 126" test "$rc" -eq 126
outcome "bad option after --json" run "not d['ran'] and d['error_kind'] == 'bad_request' and
	'--bogus' in d['error']" run --json --bogus -- true
outcome "bad option before --json" run "d['error_kind'] == 'bad_request'" \
	run --bogus --json -- true
outcome "bad value" run "d['error_kind'] == 'bad_request' and '--timeout' in d['error']" \
	run --json -t soon -- true
check "bad value: exit 125" test "$rc" -eq 125
outcome "bad -C" run "d['error_kind'] == 'bad_request' and 'nowhere' in d['error']" \
	run --json -C "$T/nowhere" -- true
outcome "bad configuration" run "d['error_kind'] == 'bad_request' and
	'configuration' in d['error']" run --json --config "$T/none.json" -- true
outcome "timeout" run "d['ran'] and d['timed_out'] and d['exit_status'] == -15 and
	d['signal'] == 15 and d['exit_code'] == 143" run --yes --no-sandbox --json -t 1 -- sleep 30
outcome "a real segfault" run "d['ran'] and d['exit_status'] == -11 and d['signal'] == 11" \
	run --yes --no-sandbox --json -- python3 -c 'import ctypes; ctypes.string_at(0)'
check "a real segfault: exit 139" test "$rc" -eq 139
outcome "exit 139 is no signal" run "d['exit_status'] == 139 and d['signal'] is None" \
	run --yes --no-sandbox --json -- sh -c 'exit 139'
outcome "held back" run "len(d['held_back']) == 1 and len(d['output_id']) == 8 and
	d['output_lines'] > 100" run --json --bound 2K -- seq 1 5000
id=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['output_id'])" "$T/out")
: >"$T/proj/gone"
outcome "rm -v" run "d['ran'] and d['exit_status'] == 0 and d['stdout'].startswith(\"removed 'gone'\")" \
	run --json -- rm -v gone
outcome "rm of nothing" run "d['ran'] and d['exit_status'] == 1 and 'missing' in d['stderr']" \
	run --json -- rm -v
outcome "cd" run "d['ran'] and d['exit_status'] == 0 and d['stdout'].startswith('now in ')" \
	run --json -- cd /
outcome "cd nowhere" run "d['ran'] and d['exit_status'] == 1" run --json -- cd "$T/nowhere"
fresh_state

# check
outcome "check: runs" check "d['verdict'] == 'run' and d['read_only'] and
	d['commands'][0]['read_only'] and d['cwd'] == '$T/proj' and d['error'] is None" \
	check --json -- ls -l
outcome "check: asks" check "d['verdict'] == 'ask'" check --json -- git push --force origin main
outcome "check: refuses" check "d['verdict'] == 'refuse'" check --json -- sh -c 'sudo id'
outcome "check: bad option" check "d['verdict'] is None and d['error_kind'] == 'bad_request'" \
	check --json --bogus -- ls
check "check: bad option exits 125" test "$rc" -eq 125

# recall
prun --json --bound 2K -- seq 1 5000
id=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['output_id'])" "$T/out")
outcome "recall" recall "d['output_id'] == '$id' and d['text'].startswith('output $id, lines 10')" \
	recall --json "$id" --from 10 --lines 2
outcome "recall: summary" recall "d['error'] is None" recall "$id" --summary --json
outcome "recall: unknown id" recall "d['error_kind'] == 'not_found'" recall --json 0badc0de
outcome "recall: bad pattern" recall "d['error_kind'] == 'bad_request'" \
	recall --json "$id" --match '('
outcome "recall: bad option" recall "d['error_kind'] == 'bad_request'" recall --bogus --json

# Without --json, a failure is one line on stderr and nothing on stdout.
pcall run -- no-such-program-here
check "text: not found is one line on stderr" one_error_line
pcall run -C "$T/nowhere" -- true
check "text: a bad -C is one line on stderr" one_error_line

finish
