#!/bin/sh
# net-unix.sh - commandPolicy.sandbox.allowUnixSockets, for every Linux
# backend that works here, with the network off, on and in the domains mode:
# the one configured host socket is reached (its listener sees the
# connection), while a host socket at another path, one in /tmp and an
# abstract one stay out of reach (their listeners see nothing), also when a
# thread of the command flips the path between the two while paddock checks
# it. Without the key, the configured socket is out of reach too. Only unix
# sockets made by this test, and loopback, are ever addressed.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip_all "python3 missing"
PY=$(python3 -c 'import sys; print(sys.executable)')
NP=${top_builddir:-.}/tests/drivers/netprobe
[ -x "$NP" ] || { echo "Bail out! $NP not built"; exit 99; }
# Home, state and project outside /tmp, a writable root of every run.
own_home unix sock .config/paddock

linux_backends

# A listener outside any sandbox: answers each connection with TAG and
# appends TAG to LOG.
cat > "$T/listen.py" <<'PY'
import socket, sys
addr, tag, log = sys.argv[1], sys.argv[2], sys.argv[3]
s = socket.socket(socket.AF_UNIX); s.bind(addr.replace("@", "\0", 1)); s.listen(64)
open(log + ".ready", "w").close()
while True:
    c, _ = s.accept()
    try: c.sendall(tag.encode())
    except OSError: pass
    c.close()
    with open(log, "a") as f: f.write(tag + "\n")
PY
listen() { # listen ADDR TAG LOG
	"$PY" "$T/listen.py" "$1" "$2" "$3" "$MARK" &
	bgpids="$bgpids $!"
	wait_for_file "$3.ready"
	: > "$3"
}
OK_SOCK="$S/sock/ok"
NO_SOCK="$S/sock/no"
mkdir -p "$T/tmpsock"
TMP_SOCK="$T/tmpsock/s"
ABS="@pdk-unix-$$-$MARK"
listen "$OK_SOCK" OK "$T/log-ok"
listen "$NO_SOCK" NO "$T/log-no"
listen "$TMP_SOCK" TM "$T/log-tmp"
listen "$ABS" AB "$T/log-abs"

# reach ADDR: the command's connection, by path or @abstract name.
reach() {
	echo "import socket; s=socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect('$1'.replace('@', chr(0), 1)); print('got-' + s.recv(2).decode())"
}
# listed_in_json MODE: $T/out is a valid result whose network object, in MODE,
# lists the configured socket (as configured, and maybe its real path), no other.
OK_REAL=$(realpath "$OK_SOCK")
listed_in_json() {
	json_valid run && jq_ok "d['network']['mode'] == '$1' and '$OK_SOCK' in \
d['network']['unix_sockets'] and set(d['network']['unix_sockets']) <= {'$OK_SOCK', '$OK_REAL'}"
}
clear_logs() { for l in ok no tmp abs; do : > "$T/log-$l"; done; }

# Each listener answers outside the sandbox: the attacks below are fair.
for a in "$OK_SOCK" "$NO_SOCK" "$TMP_SOCK" "$ABS"; do
	"$PY" -c "$(reach "$a")" > "$T/out" 2>&1
	grep -q '^got-' "$T/out" || break
done
check "outside the sandbox every listener answers" grep -q '^got-' "$T/out"
# The race's twin: outside, flipping the path reaches both sockets. Statistical:
# on a loaded machine the flipping thread may not run at all during one try, so
# it is tried again until both were reached, for up to 120 s.
end=$(($(date +%s) + 120))
while :; do
	"$NP" race-unix "$OK_SOCK" "$NO_SOCK" 400 > "$T/out"
	grep -q '^race-unix ok=[1-9][0-9]* no=[1-9]' "$T/out" && break
	[ "$(date +%s)" -lt "$end" ] || break
done
check "outside the sandbox the path race reaches both sockets (the attack is real; statistical, retried up to 120 s)" \
	grep -q '^race-unix ok=[1-9][0-9]* no=[1-9]' "$T/out"
clear_logs

for b in $backends; do
	# Not configured: the socket stays closed like every other.
	rm -f "$S/.config/paddock/config.json"
	clear_logs
	pcall run --backend "$b" -- "$PY" -c "$(reach "$OK_SOCK")"
	check "$b: without allowUnixSockets the socket is out of reach" \
		sh -c "! grep -q '^got-' '$T/out' && [ ! -s '$T/log-ok' ]"
	pcall run --backend "$b" --json -- true
	check "$b: without allowUnixSockets the JSON result lists no unix socket" \
		jq_ok 'd["network"]["unix_sockets"] == []'
	printf '{"commandPolicy": {"sandbox": {"allowUnixSockets": ["~/sock/ok"]}}}\n' \
		> "$S/.config/paddock/config.json"
	for mode in off on domains; do
		case $mode in
		off) net= ;;
		on) net="--yes -n" ;;
		domains) net="--yes --allow-domain example.invalid" ;;
		esac
		clear_logs
		# shellcheck disable=SC2086
		pcall run --backend "$b" $net -- "$PY" -c "$(reach "$OK_SOCK")"
		check "$b, network $mode: the configured socket is reached" \
			sh -c "grep -qx got-OK '$T/out' && grep -qx OK '$T/log-ok'"
		# shellcheck disable=SC2086
		pcall run --backend "$b" --json $net -- true
		check "$b, network $mode: the JSON result lists the socket, and no other" \
			listed_in_json "$mode"
		for a in NO_SOCK TMP_SOCK ABS; do
			eval "addr=\$$a"
			case $a in NO_SOCK) log=no ;; TMP_SOCK) log=tmp ;; ABS) log=abs ;; esac
			# shellcheck disable=SC2086
			pcall run --backend "$b" $net -- "$PY" -c "$(reach "$addr")"
			check "$b, network $mode: $log: another host socket is out of reach" \
				sh -c "! grep -q '^got-' '$T/out' && [ ! -s '$T/log-$log' ]"
		done
		clear_logs
		# Statistical: whether one connection gets through while the path
		# flips depends on the scheduler, so the race is run again until one
		# has, for up to 120 s; no try may ever reach the other socket.
		: > "$T/races"
		end=$(($(date +%s) + 120))
		while :; do
			# shellcheck disable=SC2086
			pcall run --backend "$b" $net -- "$NP" race-unix "$OK_SOCK" "$NO_SOCK" 400
			grep '^race-unix ' "$T/out" >> "$T/races"
			grep -q '^race-unix ok=[1-9]' "$T/out" && break
			[ "$(date +%s)" -lt "$end" ] || break
		done
		check "$b, network $mode: racing the path, connections reach the configured socket only (statistical: retried up to 120 s until one went through)" \
			sh -c "grep -q '^race-unix ok=[1-9][0-9]* no=0 ' '$T/races' &&
				! grep -qv '^race-unix ok=[0-9]* no=0 ' '$T/races' && [ ! -s '$T/log-no' ]"
	done
	pcall run --backend "$b" --print-profile -- true
	check "$b: --print-profile names the socket" \
		has_line "network: unix socket $OK_SOCK (allowUnixSockets)"
done

pcall doctor --json
for b in $backends; do
	check "doctor: $b: what allowUnixSockets gives here" "$PY" -c '
import json, sys
b = [x for x in json.load(open(sys.argv[1]))["backends"] if x["name"] == sys.argv[2]][0]
assert "closed but for the paths of allowUnixSockets" in b["network"]["unix_sockets"], b' "$T/out" "$b"
done
pcall check -- rm -rf build
check "the approval question names the socket" \
	grep -q "^ask: .*reaches the unix socket $OK_SOCK" "$T/out"
pcall check --json -- true
check_json_lists() { json_valid check && jq_ok "d['network']['unix_sockets'] == ['$OK_SOCK']"; }
check "check --json: the network object lists the socket as configured" check_json_lists
printf '{"commandPolicy": {"sandbox": {"allowUnixSockets": ["relative/sock"]}}}\n' > "$S/bad.json"
pcall run --config "$S/bad.json" -- true
check "a relative allowUnixSockets entry is one error line" one_error_line
finish
