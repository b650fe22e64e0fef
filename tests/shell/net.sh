#!/bin/sh
# net.sh - the network modes through paddock itself, for every Linux backend
# that works here: the host's unix sockets (by path in /tmp and /run, and
# abstract) stay out of reach with the network off and on; a host loopback
# service stays out of reach with it off; the command's own loopback server
# works with it off where the backend gives the run a network of its own.
# Only loopback and the namespaces bwrap makes are ever addressed.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || { echo "1..0 # SKIP python3 missing"; exit 77; }
# The interpreter itself, not a version manager's shim script.
PY=$(python3 -c 'import sys; print(sys.executable)')
# Home, state and project outside /tmp, a writable root of every run (the
# landlock backend refuses a root holding paddock's own state).
S=$(mktemp -d /var/tmp/pdk-net.XXXXXX)
mkdir -p "$S/state" "$S/proj"
export HOME="$S" XDG_STATE_HOME="$S/state"
cd "$S/proj" || exit 99

# listen KIND ADDR LOG: a listener outside any sandbox that appends a line to
# LOG for each connection; KIND tcp (ADDR ignored, port in LOG.port), unix
# (ADDR a path, or @name for an abstract one).
cat > "$T/listen.py" <<'PY'
import socket, sys
kind, addr, log = sys.argv[1], sys.argv[2], sys.argv[3]
if kind == "tcp":
    s = socket.socket(); s.bind(("127.0.0.1", 0))
else:
    s = socket.socket(socket.AF_UNIX); s.bind(addr.replace("@", "\0", 1))
s.listen(8)
with open(log + ".port", "w") as f: f.write(str(s.getsockname()[1]) if kind == "tcp" else "0")
while True:
    c, _ = s.accept(); c.close()
    with open(log, "a") as f: f.write("conn\n")
PY
listen() { # listen KIND ADDR LOG -> PORT
	"$PY" "$T/listen.py" "$1" "$2" "$3" "$MARK" &
	bgpids="$bgpids $!"
	wait_for_file "$3.port" && sleep 0.05
	PORT=$(cat "$3.port")
}
# connect_unix ADDR: the command's attempt, by path or @abstract name.
connect_unix() {
	echo "import socket; s=socket.socket(socket.AF_UNIX); s.settimeout(3); s.connect('$1'.replace('@', chr(0), 1)); print('connected-' + 'here')"
}
# Own loopback server and client in one command: what a test suite does.
cat > "$T/own.py" <<'PY'
import socket, threading
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
def serve():
    c, _ = s.accept(); c.sendall(b"own-server-answered"); c.close()
threading.Thread(target=serve).start()
c = socket.create_connection(("127.0.0.1", s.getsockname()[1]), 3)
print(c.recv(100).decode())
PY

# Host sockets: one in /tmp, one in /run (a user's runtime directory where
# /run is not writable), one abstract.
mkdir -p "$T/tmpsock"
listen unix "$T/tmpsock/s" "$T/log-tmp"
run_dir=/run
[ -w /run ] || run_dir=${XDG_RUNTIME_DIR:-}
if [ -n "$run_dir" ] && [ -w "$run_dir" ]; then
	RUN_SOCK=$(mktemp -d "$run_dir/pdk-net.XXXXXX")
	bgpids_dirs=$RUN_SOCK
	listen unix "$RUN_SOCK/s" "$T/log-run"
else
	RUN_SOCK=
fi
cleanup_net() {
	[ -n "${bgpids_dirs:-}" ] && rm -rf "$bgpids_dirs"
	rm -rf "$S"
	lib_cleanup
}
trap cleanup_net EXIT
ABS="@pdk-net-$$-$MARK"
listen unix "$ABS" "$T/log-abs"
listen tcp - "$T/log-tcp"
TCP_PORT=$PORT

# Each listener answers a direct connection: the attack below is a fair one.
"$PY" -c "$(connect_unix "$T/tmpsock/s")" >/dev/null &&
	"$PY" -c "$(connect_unix "$ABS")" >/dev/null
check "the host's listeners answer outside the sandbox" test $? -eq 0
sleep 0.2
: > "$T/log-tmp"
: > "$T/log-abs"
[ -n "$RUN_SOCK" ] && : > "$T/log-run"

backends=
for b in bwrap landlock; do
	if "$PADDOCK" run --backend "$b" -- /bin/true >/dev/null 2>&1; then
		backends="$backends $b"
	else
		echo "# backend $b does not work here: skipped"
	fi
done
[ -n "$backends" ] || { echo "1..0 # SKIP no Linux backend works here"; exit 77; }

for b in $backends; do
	for mode in off full; do
		net=
		[ "$mode" = full ] && net="--yes -n"
		# shellcheck disable=SC2086
		pcall run --backend "$b" $net -- "$PY" -c "$(connect_unix "$T/tmpsock/s")"
		check "$b, network $mode: a host unix socket in /tmp is out of reach" \
			sh -c "! grep -qx connected-here '$T/out' && [ ! -s '$T/log-tmp' ]"
		if [ -n "$RUN_SOCK" ]; then
			# shellcheck disable=SC2086
			pcall run --backend "$b" $net -- "$PY" -c "$(connect_unix "$RUN_SOCK/s")"
			check "$b, network $mode: a host unix socket in $run_dir is out of reach" \
				sh -c "! grep -qx connected-here '$T/out' && [ ! -s '$T/log-run' ]"
		fi
		# shellcheck disable=SC2086
		pcall run --backend "$b" $net -- "$PY" -c "$(connect_unix "$ABS")"
		check "$b, network $mode: a host abstract unix socket is out of reach" \
			sh -c "! grep -qx connected-here '$T/out' && [ ! -s '$T/log-abs' ]"
		# The twin: a socket pair of its own still carries data.
		# shellcheck disable=SC2086
		pcall run --backend "$b" $net -- "$PY" -c \
			"import socket; a, b = socket.socketpair(); a.send(b'pair-ok'); print(b.recv(9).decode())"
		check "$b, network $mode: a socket pair of the command's own works" has_line "pair-ok"
	done

	: > "$T/log-tcp"
	pcall run --backend "$b" -- "$PY" -c \
		"import socket; socket.create_connection(('127.0.0.1', $TCP_PORT), 3); print('connected-' + 'here')"
	sleep 0.2
	check "$b, network off: a host loopback service is out of reach" \
		sh -c "! grep -qx connected-here '$T/out' && [ ! -s '$T/log-tcp' ]"
	pcall run --backend "$b" --yes -n -- "$PY" -c \
		"import socket; socket.create_connection(('127.0.0.1', $TCP_PORT), 3); print('connected-' + 'here')"
	check "$b, network on: the same host loopback service is reached" has_line connected-here

	pcall run --backend "$b" -- "$PY" "$T/own.py"
	if [ "$b" = bwrap ]; then
		check "bwrap, network off: the command's own loopback server answers it" \
			has_line own-server-answered
	else
		# Without a network namespace of its own, loopback is the host's:
		# off keeps it closed, as paddock(1) says.
		check "$b, network off: no loopback at all (no namespace of its own)" \
			sh -c "! grep -q own-server-answered '$T/out'"
	fi
	for mode in off on; do
		net=
		[ "$mode" = on ] && net="--yes -n"
		# shellcheck disable=SC2086
		pcall run --backend "$b" --json $net -- /bin/true
		check "$b: the JSON result says the network is $mode" "$PY" -c '
import json, sys
n = json.load(open(sys.argv[1]))["network"]
assert n["mode"] == sys.argv[2] and n["allowed_domains"] == [], n' "$T/out" "$mode"
	done
	pcall run --backend "$b" --print-profile -- true
	if [ "$b" = bwrap ]; then
		check "bwrap: the profile says the network is a namespace of the run's own" \
			has_text "nothing but its loopback"
	else
		check "$b: the profile says there is no loopback with the network off" \
			has_text "no loopback either"
	fi
	check "$b: the profile says unix sockets are denied" has_text "deny socket with EPERM: unix sockets"
done
finish
