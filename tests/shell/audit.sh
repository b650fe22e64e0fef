#!/bin/sh
# audit.sh - the audit log and `paddock log`: a decision, the gate's question and answer and
# the outcome of each call, tied by one id; parallel calls and a SIGKILLed paddock leave
# every line whole; a confined command can neither write nor remove the log; filters and
# bad input of `paddock log`.

. "${srcdir:-.}/tests/shell/lib.sh"

PADDOCK=$(cd "$(dirname "$PADDOCK")" && pwd)/$(basename "$PADDOCK")
P=$PADDOCK
command -v python3 >/dev/null || skip_all "python3 is not installed"
mkdir -p "$T/proj"
cd "$T/proj" || exit 1
fresh_state
LOG="$XDG_STATE_HOME/paddock/audit.log"

# q CALL EVENT EXPR: EXPR (python, over the event as e) holds for CALL's EVENT
q() {
	"$P" log --json --call "$1" 2>/dev/null | python3 -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin]
hit = [e for e in ev if e.get("event") == sys.argv[1]]
sys.exit(0 if len(hit) == 1 and eval(sys.argv[2], {"e": hit[0]}) else 1)' "$2" "$3"
}
last_call() { sed -n 's/.*"event":"decision","call":"\([0-9a-f]\{8\}\)".*/\1/p' "$LOG" | tail -n 1; }
# every line of the log (and the rotated ones) is one JSON object with a time
all_whole() {
	cat "$LOG"* | python3 -c '
import json, sys
for l in sys.stdin:
    e = json.loads(l)
    assert isinstance(e, dict) and e["time"].endswith("Z"), l'
}

# --- a call that runs -------------------------------------------------------------
pcall run -- echo hello
id=$(last_call)
check "a run is logged under one call id" test -n "$id"
check "its decision: run, read-only, the command and where" \
	q "$id" decision 'e["verdict"] == "run" and e["read_only"] and e["command"] == "echo hello" and e["cwd"].endswith("/proj")'
check "its outcome: exit 0, confined by a backend, network off" \
	q "$id" outcome 'e["ran"] and e["exit"] == 0 and e["confinement"] == "sandbox" and e["backend"] and e["network"] == "off"'
check "no approval event when none was needed" sh -c \
	"! '$P' log --json --call $id | grep -q '\"event\":\"approval\"'"
check "the log is the user's alone" sh -c "[ \"\$(stat -c %a '$LOG')\" = 600 ]"

# --- refused without anyone to ask ----------------------------------------------
pcall run -- git clean -f
id=$(last_call)
check "refused call: decision ask, dangerous" q "$id" decision 'e["verdict"] == "ask" and e["risk"] == "dangerous" and e["programs"] == ["git"]'
check "refused call: the approval says no one was asked, and why" \
	q "$id" approval 'not e["approved"] and not e["asked"] and "no one can be asked" in e["message"]'
check "refused call: the outcome says it did not run" \
	q "$id" outcome 'not e["ran"] and e["failure"] == "not_approved" and "confinement" not in e'

# --- approved by the harness's --yes; a widening named -----------------------------
pcall run --yes -n -- git clean -f
id=$(last_call)
check "approved call: who approved it" q "$id" approval 'e["approved"] and e["by"] == "--yes"'
check "approved call: the widening is in the decision" q "$id" decision 'e["widenings"]["network"]'
check "approved call: its outcome, network on" q "$id" outcome 'e["ran"] and e["network"] == "on"'

# --- refused by the policy ----------------------------------------------------------
pcall run -- sudo true
id=$(last_call)
check "policy refusal: verdict refuse, with the refusal's message" \
	q "$id" decision 'e["verdict"] == "refuse" and "sudo" in e["message"]'
check "policy refusal: outcome refused, not run" q "$id" outcome 'e["failure"] == "refused"'

# --- timeout, clamped, and a write the sandbox refused ------------------------------
pcall run -t 5000 -- sh -c 'echo x > /etc/pdk-audit-test; exit 3'
id=$(last_call)
check "outcome: the exit code, the clamped timeout and the refused write" \
	q "$id" outcome 'e["exit"] == 3 and e["timeout_clamped"] and e["timeout_asked"] == 5000 and e["timeout"] == 1800 and len(e["sandbox_refusals"]) == 1 and "/etc/pdk-audit-test" in e["sandbox_refusals"][0]'
pcall run -t 1 -- sleep 30
id=$(last_call)
check "outcome: timed out, and the signal that ended it" \
	q "$id" outcome 'e["timed_out"] and e["signal"] in ("SIGTERM", "SIGKILL") and not e["timeout_clamped"]'
pcall run --yes --no-sandbox -- true
id=$(last_call)
check "outcome: no sandbox at all is said so" \
	q "$id" outcome 'e["confinement"] == "none" and e["backend"] is None'
check "decision: --no-sandbox is a widening in the log" q "$id" decision 'e["widenings"]["no_sandbox"]'

# --- check decides nothing that runs: not logged ----------------------------------
before=$(wc -l <"$LOG")
pcall check -- rm -rf /
check "paddock check writes nothing to the log" test "$(wc -l <"$LOG")" -eq "$before"

# --- the sandbox cannot write or remove the log -------------------------------------
# The state directory inside the writable root, where a confined command would reach it
# if paddock did not hold it (bwrap holds it; Landlock refuses to run at all).
if "$P" doctor 2>/dev/null | grep -q "^bwrap: works here"; then
	saved=$XDG_STATE_HOME
	XDG_STATE_HOME="$T/proj/state"
	L="$T/proj/state/paddock/audit.log"
	"$P" run --backend bwrap -- true >/dev/null 2>&1
	cp "$L" "$T/log-before"
	"$P" run --backend bwrap -- sh -c "
		echo made >'$T/proj/twin'
		printf '{\"time\":\"2026-01-01T00:00:00Z\",\"event\":\"decision\",\"call\":\"00000000\",\"verdict\":\"run\"}\n' >>'$L'
		(: >'$L'); rm -f '$L'; mv '$L' '$T/proj/moved'; ln -sf /dev/null '$L.1'" >"$T/out" 2>"$T/err" </dev/null
	XDG_STATE_HOME=$saved
	check "bwrap: the command's forged line is not in the log" sh -c "! grep -q '\"call\":\"00000000\"' '$L'"
	check "bwrap: the log before the attack is there, whole, with this call added" \
		sh -c "head -c \$(wc -c <'$T/log-before') '$L' | cmp -s - '$T/log-before' && [ \$(wc -l <'$L') -eq \$((\$(wc -l <'$T/log-before') + 2)) ]"
	check "bwrap: no rotated file was planted" test ! -e "$L.1" -a ! -L "$L.1"
	check "bwrap: the legitimate twin, a project file, was written" grep -qx made "$T/proj/twin"
else
	for i in 1 2 3 4; do skip "bwrap does not work here"; done
fi

# --- parallel calls: every line whole, every call complete -------------------------
fresh_state
LOG="$XDG_STATE_HOME/paddock/audit.log"
pids=
for i in 1 2 3 4 5 6 7 8; do
	"$P" run -- sh -c "echo call $i" >/dev/null 2>&1 </dev/null &
	pids="$pids $!"
done
for p in $pids; do wait "$p"; done
check "8 parallel calls: every line of the log is whole" all_whole
check "8 parallel calls: 8 decisions and 8 outcomes, paired by id" python3 -c '
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
d = sorted(e["call"] for e in ev if e["event"] == "decision")
o = sorted(e["call"] for e in ev if e["event"] == "outcome")
sys.exit(0 if len(d) == 8 and d == o and len(set(d)) == 8 else 1)' "$LOG"

# --- paddock SIGKILLed mid-run: the decision stays, the log stays whole ----------------
rm -f "$T/started"
"$P" run -- sh -c "echo >'$T/started'; exec sleep 31.4159 # $MARK" >/dev/null 2>&1 </dev/null &
pk=$!
wait_for_file "$T/started" 30
kill -9 $pk
wait $pk 2>/dev/null
id=$(last_call)
check "SIGKILLed run: its decision is logged" q "$id" decision 'e["command"].startswith("sh -c")'
check "SIGKILLed run: no outcome was made up for it" sh -c \
	"! '$P' log --json --call $id | grep -q '\"event\":\"outcome\"'"
pcall run -- true
check "after the SIGKILL: the next call is logged, every line whole" all_whole
kill_marked

# --- filters ---------------------------------------------------------------------
fresh_state
LOG="$XDG_STATE_HOME/paddock/audit.log"
PADDOCK_SESSION=alpha "$P" run -- true >/dev/null 2>&1
PADDOCK_SESSION=beta "$P" run -- git clean -f >/dev/null 2>&1
PADDOCK_SESSION=beta "$P" run -- sudo ls >/dev/null 2>&1
pcall log --session alpha
check "log --session: only that session's events (decision and outcome)" \
	sh -c "[ \$(wc -l <'$T/out') -eq 2 ] && grep -q ' alpha decision: run (safe' '$T/out' && grep -q ' alpha outcome: exit 0' '$T/out'"
pcall log --verdict ask
check "log --verdict ask: the asked call's decision, approval and outcome" \
	sh -c "[ \$(wc -l <'$T/out') -eq 3 ] && grep -q 'approval: not approved (no one was asked)' '$T/out' && grep -q 'outcome: not run (not_approved)' '$T/out'"
pcall log --verdict refuse --json
check "log --verdict refuse --json: JSON lines of the refused call only" python3 -c '
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(0 if len(ev) == 2 and ev[0]["verdict"] == "refuse" and ev[1]["failure"] == "refused" else 1)' "$T/out"
pcall log --since 1h
check "log --since 1h: all of it" test "$(wc -l <"$T/out")" -eq 7
pcall log --until 1h
check "log --until 1h: none of it" test ! -s "$T/out" -a "$rc" -eq 0
pcall log --since 2099-01-01
check "log --since a date to come: none of it" test ! -s "$T/out" -a "$rc" -eq 0

# --- rotation by size keeps the older lines readable --------------------------------
fresh_state
LOG="$XDG_STATE_HOME/paddock/audit.log"
mkdir -p "$XDG_STATE_HOME/paddock"
head -c 4194304 /dev/zero | tr '\0' ' ' | sed 's/^.*$/{"time":"2026-01-01T00:00:00Z","event":"old","pad":"&"}/' >"$LOG"
pcall run -- true
check "a full log is rotated: the old lines move to audit.log.1" \
	sh -c "[ -s '$LOG.1' ] && [ \$(wc -l <'$LOG') -eq 2 ]"
pcall log
check "log reads the rotated file first, then the new one" \
	sh -c "[ \$(wc -l <'$T/out') -eq 3 ] && head -n 1 '$T/out' | grep -q '^2026-01-01T00:00:00Z - - old'"

# --- a log that cannot be written stops nothing, and is said --------------------------
fresh_state
mkdir -p "$XDG_STATE_HOME/paddock/audit.log"
pcall run -- echo still-runs
check "an unwritable log: the call runs" sh -c "[ $rc -eq 0 ] && grep -qx still-runs '$T/out'"
check "an unwritable log: the result's note says so, nothing on stderr" sh -c \
	"[ ! -s '$T/err' ] && grep -qx 'note: the audit log was not written: .*paddock/audit.log: Is a directory' '$T/out'"

# --- bad input: one line, exit 125 ----------------------------------------------------
for args in "--verdict maybe" "--since yesterday" "--until 2026-13-01" "--call xyz" \
	"--session ../x" "--bogus" "extra" "--since"; do
	# shellcheck disable=SC2086
	pcall log $args
	check "log $args: one line, exit 125" sh -c "[ $rc -eq 125 ] && [ ! -s '$T/out' ] && [ \$(wc -l <'$T/err') -eq 1 ] && grep -q '^paddock: log: ' '$T/err'"
done
fresh_state
pcall log
check "no log yet: says so on stderr, exit 0" sh -c "[ $rc -eq 0 ] && grep -q 'nothing is logged yet' '$T/err'"

finish
