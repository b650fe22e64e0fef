#!/bin/sh
# protect.sh - attacks on what paddock keeps from the command in and around the writable
# roots: doctor's probe files, protected names the command creates, overlapping runs.
# Each attack checks the effect did not happen, next to its twin that works.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || { echo "1..0 # SKIP python3 missing"; exit 77; }
P=$PADDOCK
fresh_state

# --- doctor's probe ------------------------------------------------------
# A process of the same user (a confined command has /tmp as a root) swaps doctor's probe
# file for a symlink to a file of the user's, as fast as it can: doctor must act on the
# file it made, never on what the name points at.
if "$P" doctor 2>/dev/null | grep -q "^landlock: works here"; then
	echo secret >"$T/victim"
	chmod 600 "$T/victim"
	touch -d 2001-01-01 "$T/victim"
	python3 - "$T/victim" "$T/stop" "$XDG_STATE_HOME" "$MARK" <<'PY' &
import os, sys, glob
victim, stop, state = sys.argv[1], sys.argv[2], sys.argv[3]
while not os.path.exists(stop):
    for d in glob.glob('/tmp/paddock-doctor.*') + glob.glob(state + '/paddock/doctor.*'):
        try:
            os.symlink(victim, d + '/x')
            os.rename(d + '/x', d + '/outside')
        except OSError:
            pass
PY
	racer=$!
	bgpids="$bgpids $racer"
	i=0
	while [ $i -lt 20 ]; do
		"$P" doctor >"$T/out" 2>"$T/err" </dev/null
		i=$((i + 1))
	done
	touch "$T/stop"
	wait $racer
	check "doctor's probe race: the user's file keeps its mode" \
		test "$(stat -c %a "$T/victim")" = 600
	check "doctor's probe race: and its time" \
		test "$(stat -c %Y "$T/victim")" = "$(date -d 2001-01-01 +%s)"
	check "doctor still tells what Landlock does not stop" \
		grep -q "metadata changes outside the roots.*chmod" "$T/out"
	# What the racer made in the probe directory is the racer's; without it, nothing stays.
	rm -rf "$XDG_STATE_HOME"/paddock/doctor.*
	"$P" doctor >/dev/null 2>&1 </dev/null
	check "doctor leaves no probe directory behind" \
		sh -c "! ls -d /tmp/paddock-doctor.* '$XDG_STATE_HOME'/paddock/doctor.* 2>/dev/null | grep -q ."
fi

finish
