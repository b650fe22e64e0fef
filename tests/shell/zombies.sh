#!/bin/sh
# zombies.sh - no process of paddock's is left for pid 1 to reap: calls in a pid namespace whose
# pid 1 waits for its own child only (a container whose init is the agent) leave no zombie.
set -u
srcdir=${srcdir:-$(dirname "$0")/../..}
. "$srcdir/tests/shell/lib.sh"
INIT=${top_builddir:-.}/tests/drivers/noreap-init
[ "$(id -u)" -eq 0 ] || skip_all "needs root (a pid namespace with /proc of its own)"
[ -x "$INIT" ] || skip_all "tests/drivers/noreap-init not built"
unshare --pid --fork --mount-proc true 2>/dev/null || skip_all "unshare --pid cannot run here"
P=$(cd "$(dirname "$PADDOCK")" && pwd)/$(basename "$PADDOCK")
mkdir -p "$T/proj" "$T/state" "$T/tmp"
chmod 0711 "$T"
chmod 0777 "$T/tmp"
export TMPDIR="$T/tmp"

# The namespace's side: N calls of CMD, counting those that exit 0 (kill: SIGKILL paddock once
# the command has started, then wait, by event, until nothing but this shell and pid 1 runs);
# then "alive=A zombies=Z ok=N" over every process of the namespace but pid 1 and this shell, and
# (kill) "zombie names: NAME..." on a line of its own. No fork while counting: each would count.
cat >"$T/loop.sh" <<'EOF'
P=$1 b=$2 count=$3 mode=$4 cmd=$5
count_procs() {
	alive=0 zombies=0 names=
	for d in /proc/[0-9]*; do
		p=${d#/proc/}
		[ "$p" = 1 ] || [ "$p" = $$ ] && continue
		name=
		while read -r k v; do
			[ "$k" = Name: ] && name=$v
			[ "$k" = State: ] || continue
			case $v in
			Z*) zombies=$((zombies + 1)) names="$names $name" ;;
			*) alive=$((alive + 1)) ;;
			esac
			break
		done <"$d/status" 2>/dev/null
	done
}
i=0 ok=0
while [ $i -lt "$count" ]; do
	i=$((i + 1))
	if [ "$mode" = mcp ]; then
		python3 "${0%/*}/mcp.py" "$P" "$b" "$count" "$cmd" && ok=$count
		break
	elif [ "$mode" = kill ]; then
		rm -f started
		"$P" run --yes --backend="$b" -- sh -c "$cmd" >/dev/null 2>&1 </dev/null &
		pid=$!
		j=0
		while [ ! -e started ] && [ $j -lt 600 ]; do sleep 0.05; j=$((j + 1)); done
		kill -9 $pid
		wait $pid
		# The guardian's work: the run killed, its journal finished; then it exits.
		j=0
		while count_procs && [ $alive -gt 0 ] && [ $j -lt 600 ]; do
			sleep 0.05
			j=$((j + 1))
		done
	else
		"$P" run --yes --backend="$b" $mode -- sh -c "$cmd" >/dev/null 2>&1 </dev/null &&
			ok=$((ok + 1))
	fi
done
count_procs
echo "alive=$alive zombies=$zombies ok=$ok"
if [ "$mode" = kill ]; then echo "zombie names:$names"; fi
EOF

# mcp: N calls of CMD through one paddock mcp, which then sees EOF and exits.
cat >"$T/mcp.py" <<'EOF'
import json, subprocess, sys
paddock, backend, n, cmd = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
p = subprocess.Popen([paddock, "mcp", "--backend", backend], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def call(id, method, params):
    p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": id, "method": method,
                               "params": params}) + "\n").encode())
    p.stdin.flush()
    for line in p.stdout:
        m = json.loads(line)
        if m.get("id") == id:
            return m
    sys.exit(1)
call(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "zombies", "version": "1"}})
bad = 0
for i in range(1, n + 1):
    r = call(i, "tools/call", {"name": "run_command", "arguments": {"argv": ["sh", "-c", cmd]}})
    bad += r["result"]["isError"]
p.stdin.close()
sys.exit(1 if p.wait() or bad else 0)
EOF

# calls BACKEND N MODE CMD [AS...]: the loop in a fresh pid namespace, in $proj; its counts in
# $T/out.
proj=$T/proj
calls() {
	b=$1 k=$2 mode=$3 cmd=$4
	shift 4
	t0=$(date +%s)
	(cd "$proj" && XDG_STATE_HOME="$T/state" unshare --pid --fork --mount-proc \
		"$INIT" "$@" sh "$T/loop.sh" "$P" "$b" "$k" "$mode" "$cmd") >"$T/out" 2>"$T/err" \
		</dev/null
	echo "# $b, $k calls, $mode: $(($(date +%s) - t0)) s"
}
none() { has_line "alive=0 zombies=0 ok=${1:-$k}"; } # none [OK]: no process left, OK calls ran
# guardian_only N: of the zombies left after N calls whose paddock was SIGKILLed, none is a process
# of the run (the command's, bwrap's), and at most N are paddock's (its guardian, one a call).
guardian_only() {
	grep -q '^zombie names:' "$T/out" || return 1
	set -- "$1" $(sed -n 's/^zombie names://p' "$T/out")
	zmax=$1
	shift
	[ $# -le "$zmax" ] || return 1
	for zname in "$@"; do [ "$zname" = paddock ] || return 1; done
}

asnobody=
if command -v setpriv >/dev/null; then
	asnobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	mkdir -p "$T/nproj" "$T/nhome"
	chown 65534:65534 "$T/nproj" "$T/nhome"
fi

for b in bwrap landlock; do
	if ! "$PADDOCK" doctor 2>/dev/null | grep -q "^$b: works here"; then
		skip "backend $b does not work here"
		continue
	fi
	calls "$b" 100 --json true
	check "$b: 100 calls leave no zombie for pid 1 ($(cat "$T/out"))" none
	calls "$b" 100 --json 'sleep 1000 & echo x'
	check "$b: 100 calls that leave a background child leave no zombie ($(cat "$T/out"))" none
	calls "$b" 100 mcp 'sleep 1000 & echo x'
	check "$b: 100 calls through one paddock mcp leave no zombie ($(cat "$T/out"))" none
	calls "$b" 3 "-t 1" 'sleep 1000 & sleep 1000'
	check "$b: 3 calls ended by the timeout leave no zombie ($(cat "$T/out"))" none 0
	if [ -n "$asnobody" ]; then
		rm -rf "$T/state"
		mkdir -p "$T/state"
		chown 65534:65534 "$T/state"
		proj=$T/nproj
		calls "$b" 30 --json 'sleep 1000 & echo x' env HOME="$T/nhome" $asnobody
		proj=$T/proj
		check "$b: as uid 65534, 30 calls leave no zombie ($(cat "$T/out"))" none
		rm -rf "$T/state"
		mkdir -p "$T/state"
	else
		skip "$b: as uid 65534: needs setpriv"
	fi
	# SIGKILL of paddock: the guardian still kills the run, and nothing of it runs on. The
	# guardian is the command's parent and the run's subreaper: it reaps every process of the
	# run. It is paddock's only child, the one process the kernel hands to pid 1 when paddock
	# dies; its own exit is all an init that never reaps keeps (nothing can reap it but pid 1).
	for cmd in 'touch started; sleep 1000' 'touch started; sleep 1000 & sleep 1000'; do
		calls "$b" 3 kill "$cmd"
		got=$(tr '\n' ' ' <"$T/out")
		check "$b: after SIGKILL of paddock mid-run ($cmd) nothing of the run runs ($got)" \
			grep -q "^alive=0 " "$T/out"
		check "$b: after SIGKILL of paddock mid-run ($cmd) every process of the run is reaped ($got)" \
			guardian_only 3
	done
done
finish
