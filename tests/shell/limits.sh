#!/bin/sh
# limits.sh - the process limit and the guardian, through paddock itself, for every Linux backend
# that works here: a fork bomb is stopped and reported, its legitimate twin runs, nothing survives
# a SIGKILL of paddock, and no process is left in paddock's cgroups. The suite guards the machine
# itself: an outer pids cgroup (or RLIMIT_NPROC) and a timeout around every bomb.
set -u
srcdir=${srcdir:-$(dirname "$0")/../..}
. "$srcdir/tests/shell/lib.sh"
export XDG_CACHE_HOME="$T/cache" TMPDIR="$T/tmp"
mkdir -p "$T/proj" "$T/cache" "$T/tmp"
fresh_state

json() { # json EXPR: a value from `paddock doctor --json`, "" when null
	"$PADDOCK" doctor --json 2>/dev/null | python3 -c "import json,sys
v = json.load(sys.stdin)
for k in sys.argv[1].split('.'): v = v.get(k) if isinstance(v, dict) else None
print('' if v is None else v)" "$1"
}
how=$(json cgroup.process_limit)
base=$(json cgroup.base)
echo "# process limit here: $how${base:+ (cgroups under $base)}"

# The machine's guard: every bomb runs in an outer pids cgroup of this suite when one can be
# made (v1 only: v2 would need a leaf for this shell), else under RLIMIT_NPROC (it binds
# everyone but root), and under a timeout.
outer=
if [ "$how" = cgroup ] && [ "$(json cgroup.version)" = 1 ] &&
	mkdir "$base/pdk-limits-outer-$$" 2>/dev/null; then
	outer=$base/pdk-limits-outer-$$
	echo 3000 >"$outer/pids.max"
fi
guarded() { # guarded CMD...: run CMD under the guard, output in $T/out and $T/err
	if [ -n "$outer" ]; then
		sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$outer" \
			timeout 150 "$@" >"$T/out" 2>"$T/err" </dev/null
	else
		timeout 150 prlimit --nproc=$(($(ps -e --no-headers | wc -l) + 3000)) "$@" \
			>"$T/out" 2>"$T/err" </dev/null
	fi
	rc=$?
}
outer_cleanup() {
	[ -n "$outer" ] || return 0
	for p in $(cat "$outer/cgroup.procs" "$outer"/*/cgroup.procs 2>/dev/null); do
		kill -9 "$p" 2>/dev/null
	done
	# paddock's slots made inside the guard go with it
	sleep 0.1
	rmdir "$outer"/paddock-* 2>/dev/null
	sleep 0.2
	rmdir "$outer" 2>/dev/null
}
trap 'outer_cleanup; lib_cleanup' EXIT

nprocs() { ps -e --no-headers | wc -l; }
# back_to N: within 30 s (a loaded machine's bound), the machine runs no more than N + 20
# processes.
back_to() {
	i=0
	while [ "$(nprocs)" -gt $(($1 + 20)) ]; do
		i=$((i + 1))
		[ $i -gt 300 ] && return 1
		sleep 0.1
	done
}
# gone PID...: within 30 s (a loaded machine's bound), each PID has exited (a zombie has exited).
gone() {
	i=0
	for p in "$@"; do
		while [ -e "/proc/$p" ] && [ "$(cut -d' ' -f3 "/proc/$p/stat" 2>/dev/null)" != Z ]; do
			i=$((i + 1))
			[ $i -gt 300 ] && return 1
			sleep 0.1
		done
	done
}
# Runs take reusable cgroups, paddock-UID-K, one run at a time; other suites may run paddock at
# the same time, so a slot is found by a process of this suite in it (cgroup files have no size:
# read them).
slot_of_mark() {
	for f in "$base"/paddock-*/cgroup.procs; do
		for p in $(cat "$f" 2>/dev/null); do
			grep -qa -- "$MARK" "/proc/$p/cmdline" 2>/dev/null && dirname "$f" && return 0
		done
	done
	return 1
}

# A daemon the command leaves: setsid, a double fork, SIGTERM ignored; it writes its pid.
cat >"$T/daemon" <<'EOF'
#!/bin/sh
case $1 in
start) setsid "$0" fork "$2" "$3" & sleep 200 ;;
fork) "$0" grandchild "$2" "$3" & exit 0 ;;
grandchild) trap '' TERM; echo $$ >"$2"; exec sh -c 'sleep 300; :' "$3" ;;
esac
EOF
chmod 755 "$T/daemon"

# The bomb fills the limit; the main shell waits for the bomb's first failed fork, on its own
# builtins (a fork of its own would wait on the limit too), then prints a few of the bomb's
# complaints and main-done. A loaded machine, where the bomb takes longer to fill the limit,
# changes only how long that takes. What is asserted is that the run ends, with a result,
# before its timeout.
ended_in_time() { grep -q '^exit status: ' "$T/out" && ! grep -q '^timed out' "$T/out"; }
BOMB='mkfifo w && exec 9<>w; b(){ b|b& }; b 2>bomb.err
while [ ! -s bomb.err ]; do read -t 0.2 -u 9; done
for i in 1 2 3; do read -r l && echo "$l"; done <bomb.err; echo main-done'
for b in bwrap landlock; do
	if ! "$PADDOCK" doctor 2>/dev/null | grep -q "^$b: works here"; then
		skip "backend $b does not work here"
		continue
	fi
	cd "$T/proj" || exit 99

	# Fork bomb: stopped at the limit, reported, and the machine is back to normal after.
	before=$(nprocs)
	rm -f bomb.err w
	guarded "$PADDOCK" run --backend "$b" -t 90 -- bash -c "$BOMB" "$MARK"
	check "$b: a fork bomb is stopped: the run ends before its timeout" ended_in_time
	check "$b: the bomb's forks failed" grep -q -i -e 'fork' -e 'resource temporarily' "$T/out"
	if [ "$how" = cgroup ]; then
		check "$b: the result says the limit of 1024 processes was hit" \
			grep -q '^process limit: the command hit the limit of 1024 processes' "$T/out"
	fi
	if [ -n "$outer" ]; then
		check "$b: the suite's outer guard was never needed" \
			grep -qx 'max 0' "$outer/pids.events"
	fi
	check "$b: the machine's process count is back to normal ($before)" back_to "$before"
	check "$b: nothing of the bomb is left" retry 10 none_left

	# The legitimate twin: 50 processes at once run fine under the limit.
	guarded "$PADDOCK" run --backend "$b" -- \
		sh -c 'for i in $(seq 50); do sleep 1 & done; wait; echo all-done' "$MARK"
	check "$b: 50 processes at once run fine" has_line all-done
	check "$b: ... and exit 0, no process limit note" \
		sh -c 'grep -qx "exit status: 0" "$0" && ! grep -q "^process limit" "$0"' "$T/out"

	# paddock SIGKILLed while its command has a setsid'd, double-forked daemon that ignores
	# SIGTERM: the daemon goes too, and so does the cgroup.
	rm -f "$T/tmp/pid"
	"$PADDOCK" run --backend "$b" -t 60 -- "$T/daemon" start "$T/tmp/pid" "$MARK" \
		>/dev/null 2>&1 </dev/null &
	pp=$!
	if ! wait_for_file "$T/tmp/pid"; then
		not_ok "$b: the daemon started"
		kill -9 "$pp"
		continue
	fi
	sleep 0.2
	victims=$(pgrep -f "$MARK")
	check "$b: the daemon is alive before paddock is killed" test -n "$victims"
	if [ "$how" = cgroup ]; then
		slot=$(slot_of_mark)
		check "$b: the run holds one of paddock's cgroups ($slot)" test -n "$slot"
	fi
	kill -9 "$pp"
	wait "$pp" 2>/dev/null
	# shellcheck disable=SC2086
	check "$b: after paddock's SIGKILL the daemon is gone within 30 s" gone $victims
	check "$b: ... and no process of the command remains" retry 10 none_left
	if [ "$how" = cgroup ]; then
		check "$b: ... and nothing of it is left in paddock's cgroups" retry 10 sh -c \
			'! grep -qa -- "$0" /dev/null $(sed "s|^|/proc/|; s|$|/cmdline|" \
			"$1"/cgroup.procs) 2>/dev/null' "$MARK" "$slot"
	fi

	# Runs one after another take a kept cgroup again instead of making one each (entering a
	# new cgroup is what costs). bwrap's cgroup namespace hides the name from the command.
	if [ "$how" = cgroup ] && [ "$b" = landlock ]; then
		for i in 1 2 3 4 5; do
			"$PADDOCK" run --backend "$b" -- sh -c 'grep pids /proc/self/cgroup' "$MARK" \
				</dev/null 2>/dev/null | grep -o 'paddock-[0-9]*-[0-9]*'
		done >"$T/slots"
		check "$b: five runs in a row used $(sort -u "$T/slots" | wc -l) cgroups, not five" \
			test "$(wc -l <"$T/slots")" -eq 5 -a "$(sort -u "$T/slots" | wc -l)" -lt 5
	fi
done

# A slot whose leftovers cannot be killed (here: frozen by the v1 freezer) is passed over, never
# shared with the next run, whose limit they would eat into.
fr=/sys/fs/cgroup/freezer/paddock-limits-$$
if [ "$how" = cgroup ] && [ "$(json cgroup.version)" = 1 ] && mkdir "$fr" 2>/dev/null; then
	stuck="$base/paddock-$(id -u)-0"
	mkdir -p "$stuck"
	sleep 300 &
	sp=$!
	echo "$sp" >"$stuck/cgroup.procs" && echo "$sp" >"$fr/cgroup.procs" &&
		echo FROZEN >"$fr/freezer.state"
	got=$("$PADDOCK" run --backend landlock -- sh -c 'grep pids /proc/self/cgroup')
	check "a slot holding a process that will not die is passed over" sh -c \
		'echo "$0" | grep -q "/paddock-$1-[0-9]*\$" && ! echo "$0" | grep -q "/paddock-$1-0\$"' \
		"$got" "$(id -u)"
	echo THAWED >"$fr/freezer.state"
	kill -9 "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
	rmdir "$fr"
else
	skip "a slot that cannot be emptied: needs cgroup v1 with a freezer"
fi

# Without a cgroup: RLIMIT_NPROC as another user, who cannot write the cgroups.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
	"$PADDOCK" doctor 2>/dev/null | grep -q "^landlock: works here"; then
	# Its state apart from the writable roots (the project, temp and cache directories): the
	# landlock backend refuses a root that holds paddock's own directories.
	mkdir -p "$T/nobody/proj" "$T/nobody/tmp" "$T/nobody/cache" "$T/nobody/state"
	chown -R 65534:65534 "$T/nobody"
	chmod 755 "$T"
	asnobody() {
		(cd "$T/nobody/proj" && guarded env HOME="$T/nobody" XDG_STATE_HOME="$T/nobody/state" \
			XDG_CACHE_HOME="$T/nobody/cache" TMPDIR="$T/nobody/tmp" setpriv --reuid=65534 \
			--regid=65534 --clear-groups "$@")
	}
	# prlimit cannot guard root's own processes; the outer cgroup does, if any.
	before=$(nprocs)
	asnobody "$PADDOCK" run --backend landlock -t 90 -- bash -c "$BOMB" "$MARK"
	check "rlimit: as another user the bomb is stopped: the run ends before its timeout" \
		ended_in_time
	check "rlimit: its forks failed" grep -q -i -e 'fork' -e 'resource temporarily' "$T/out"
	check "rlimit: the result claims no hit it cannot see" \
		sh -c '! grep -q "^process limit: the command hit" "$0"' "$T/out"
	check "rlimit: the machine's process count is back to normal ($before)" back_to "$before"
	asnobody "$PADDOCK" run --backend landlock -- \
		sh -c 'for i in $(seq 50); do sleep 1 & done; wait; echo all-done' "$MARK"
	check "rlimit: 50 processes at once run fine" has_line all-done
	asnobody "$PADDOCK" doctor
	check "rlimit: doctor says the limit is RLIMIT_NPROC only" \
		grep -q '^process limit: RLIMIT_NPROC only' "$T/out"

	# Without a cgroup the guardian finds the run's processes by their PADDOCK_RUN variable:
	# paddock SIGKILLed, the setsid'd daemon that ignores SIGTERM goes too.
	rm -f "$T/nobody/proj/pid"
	(cd "$T/nobody/proj" && exec env HOME="$T/nobody" XDG_STATE_HOME="$T/nobody/state" \
		XDG_CACHE_HOME="$T/nobody/cache" TMPDIR="$T/nobody/tmp" setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$PADDOCK" run --backend landlock -t 60 -- \
		"$T/daemon" start "$T/nobody/proj/pid" "$MARK") >/dev/null 2>&1 </dev/null &
	pp=$!
	if wait_for_file "$T/nobody/proj/pid"; then
		sleep 0.2
		victims=$(pgrep -f "$MARK")
		check "guardian without a cgroup: the daemon is alive before paddock is killed" \
			test -n "$victims"
		kill -9 "$pp"
		wait "$pp" 2>/dev/null
		# shellcheck disable=SC2086
		check "guardian without a cgroup: after paddock's SIGKILL the daemon is gone" \
			gone $victims
		check "guardian without a cgroup: no process of the command remains" retry 10 none_left
	else
		kill -9 "$pp" 2>/dev/null
		not_ok "guardian without a cgroup: the daemon started"
	fi
else
	skip "rlimit: needs root (to become another user) and setpriv"
fi

# doctor: the text and the same as JSON; exit 0 when a backend works.
pcall doctor
check "doctor: exit 0, the old lines and the new ones" sh -c \
	'[ $0 -eq 0 ] && grep -q "^a run would use: " "$1" && grep -q "^cgroup: " "$1" &&
	grep -q "^process limit: " "$1" && grep -q "^seccomp: " "$1"' "$rc" "$T/out"
# doctor follows the configuration: the backend it names, probed with its bwrap binary.
mkdir -p "$T/dcfg/paddock"
if "$PADDOCK" doctor 2>/dev/null | grep -q "^landlock: works here"; then
	echo '{ "commandPolicy": { "sandbox": { "backend": "landlock" } } }' \
		>"$T/dcfg/paddock/config.json"
	XDG_CONFIG_HOME="$T/dcfg" pcall doctor
	check "doctor: a configured backend is the one a run would use" sh -c \
		'[ $0 -eq 0 ] && grep -q "^a run would use: landlock (the configuration names it)" "$1"' \
		"$rc" "$T/out"
fi
echo '{ "commandPolicy": { "sandbox": { "backend": "bwrap", "bwrap": "/nonexistent/bwrap" } } }' \
	>"$T/dcfg/paddock/config.json"
XDG_CONFIG_HOME="$T/dcfg" pcall doctor
check "doctor: a configured bwrap that is not there: exit 1, a run would refuse" sh -c \
	'[ $0 -eq 1 ] && grep -q "^a run would refuse: the configuration names backend bwrap" "$1"' \
	"$rc" "$T/out"
pcall doctor --json
check "doctor --json: one JSON object with backends and cgroup" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["would_use"] and d["backends"] and "process_limit" in d["cgroup"]' "$T/out"
finish
