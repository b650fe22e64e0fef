#!/bin/sh
# request.sh - `paddock run --request FILE|-`: run_command's arguments as one JSON
# object in, the JSON result out; bad JSON or a wrong type: a JSON error and 125.
. "${srcdir:-.}/tests/shell/lib.sh"

fresh_state
cd "$T" || exit 99
# jq_ PY-EXPR: evaluate EXPR with o = the JSON object on the first line of $T/out.
jq_() { python3 -c "import json,sys; o=json.loads(open('$T/out').readline()); sys.exit(0 if ($1) else 1)"; }
# req JSON [OPTIONS...]: the request on stdin.
req() {
	j=$1
	shift
	printf '%s' "$j" | "$PADDOCK" run --yes --no-sandbox "$@" --request - >"$T/out" 2>"$T/err"
	rc=$?
}

req '{"argv": ["sh", "-c", "echo hi; exit 3"]}'
check "a request on stdin runs; the command's status is the exit code" [ "$rc" -eq 3 ]
check "the result is one JSON object with the output" jq_ 'o["exit_status"] == 3 and o["stdout"] == "hi\n"'
check "only that object is printed" [ "$(wc -l <"$T/out")" -eq 1 ]

mkdir -p "$T/d"
printf '{"argv": ["pwd"], "workingDirectory": "%s", "timeoutSeconds": 30, "network": "off"}' \
	"$T/d" >"$T/req.json"
"$PADDOCK" run --yes --no-sandbox --request "$T/req.json" >"$T/out" 2>"$T/err"
rc=$?
check "a request from a file, with its options" sh -c "[ $rc -eq 0 ] && grep -q '$T/d' '$T/out'"

# Every option of run that takes a value is known as one (a single table says so), so the
# value is never taken for the program and --request after it is still found.
req '{"argv": ["echo", "domains"]}' --allow-domain example.org
check "--request after --allow-domain VALUE is found" jq_ 'o["stdout"] == "domains\n"'
req '{"argv": ["echo", "prefix"]}' --allow-d example.org
check "... and after the prefix getopt takes for it" jq_ 'o["stdout"] == "prefix\n"'
"$PADDOCK" run --allow-domain example.org --json --colour -- true >"$T/out" 2>"$T/err"
check "a bad option after --allow-domain VALUE --json is said as JSON" \
	jq_ 'o["ran"] is False and "unknown option" in o["error"]'

req '{"argv": ["seq", "1", "100000"]}' --bound 2K
check "options before --request still apply" jq_ 'len(open("'"$T"'/out").read()) <= 2048 and o["held_back"]'

req '{"argv": ["ls"'
check "bad JSON: exit 125" [ "$rc" -eq 125 ]
check "... and a JSON error object saying so" jq_ 'o["ran"] is False and "not JSON" in o["error"]'
check "... which is a run result like any other (data/result.schema.json)" json_valid run
req '{"argv": "ls"}'
check "argv not an array: exit 125, the error names it" sh -c "[ $rc -eq 125 ] && grep -q \"'argv' must be an array\" '$T/out'"
req '{"argv": ["ls"], "timeoutSeconds": "10"}'
check "a wrong type: the error names the key" sh -c "[ $rc -eq 125 ] && grep -q timeoutSeconds '$T/out'"
req '{"argv": ["ls"], "colour": 1}'
check "an unknown key: the error names it and the keys there are" sh -c "[ $rc -eq 125 ] && grep -q \"unknown key 'colour'\" '$T/out'"
req '{"argv": []}'
check "an empty argv is refused" sh -c "[ $rc -eq 125 ] && grep -q empty '$T/out'"
req '["ls"]'
check "not an object is refused" sh -c "[ $rc -eq 125 ] && grep -q 'JSON object' '$T/out'"
printf '{"argv":["ls"]}' | "$PADDOCK" run --request - -- ls >"$T/out" 2>"$T/err"
rc=$?
check "a program on the command line as well is refused" sh -c "[ $rc -eq 125 ] && grep -q 'give no program' '$T/out'"
"$PADDOCK" run --request "$T/nonexistent.json" >"$T/out" 2>"$T/err"
rc=$?
check "a missing file: exit 125, a JSON error" sh -c "[ $rc -eq 125 ] && grep -q 'No such file' '$T/out'"
"$PADDOCK" run --request >"$T/out" 2>"$T/err"
rc=$?
check "--request without a file" sh -c "[ $rc -eq 125 ] && grep -q 'needs a file' '$T/out'"
# Without --yes: nobody approves it.
printf '%s' '{"argv": ["git", "push", "--force"]}' | "$PADDOCK" run --request - >"$T/out" 2>"$T/err"
rc=$?
check "a refused call: exit 125" [ "$rc" -eq 125 ]
check "... and the refusal object" jq_ 'o["ran"] is False and "not approved" in o["error"]'
finish
