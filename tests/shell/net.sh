#!/bin/sh
# net.sh - the network modes through paddock itself, for every Linux backend
# that works here: the host's unix sockets (by path in /tmp and /run, and
# abstract) stay out of reach with the network off and on; a host loopback
# service stays out of reach with it off; the command's own loopback server
# works with it off (bwrap: a namespace of the run's own; Landlock: paddock's
# connect supervisor), also when a thread of the command rewrites the address
# while paddock checks it. Run as root, the Landlock part runs once more as
# nobody. Only loopback and the namespaces bwrap makes are ever addressed.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || { echo "1..0 # SKIP python3 missing"; exit 0; }
# The interpreter itself, not a version manager's shim script.
PY=${PDK_NET_PY:-$(python3 -c 'import sys; print(sys.executable)')}
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
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
import os, socket, sys
kind, addr, log = sys.argv[1], sys.argv[2], sys.argv[3]
if kind == "udp":
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0))
    with open(log + ".port.tmp", "w") as f: f.write(str(s.getsockname()[1]))
    os.rename(log + ".port.tmp", log + ".port")
    while True:
        d = s.recv(100)
        with open(log, "a") as f: f.write(d.decode(errors="replace") + "\n")
if kind == "tcp":
    s = socket.socket(); s.bind(("127.0.0.1", 0))
else:
    s = socket.socket(socket.AF_UNIX); s.bind(addr.replace("@", "\0", 1))
s.listen(8)
with open(log + ".port.tmp", "w") as f: f.write(str(s.getsockname()[1]) if kind == "tcp" else "0")
os.rename(log + ".port.tmp", log + ".port")
while True:
    c, _ = s.accept(); c.settimeout(3)
    try: d = c.recv(16)
    except OSError: d = b""
    c.close()
    with open(log, "a") as f: f.write("conn " + d.decode(errors="replace") + "\n")
PY
listen() { # listen KIND ADDR LOG -> PORT
	"$PY" "$T/listen.py" "$1" "$2" "$3" "$MARK" &
	bgpids="$bgpids $!"
	wait_for_file "$3.port"
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
# A dual-stack server at :: and a client of it by each loopback address.
cat > "$T/dual.py" <<'PY'
import socket, threading
s = socket.socket(socket.AF_INET6); s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.bind(("::", 0)); s.listen(2)
def serve():
    for _ in range(2):
        c, _ = s.accept(); c.sendall(b"dual-ok"); c.close()
threading.Thread(target=serve).start()
for name, addr in (("v6", "::1"), ("v4", "127.0.0.1")):
    try:
        c = socket.create_connection((addr, s.getsockname()[1]), 3)
        print("dual", name, c.recv(100).decode())
    except OSError as e:
        print("dual", name, "failed", e)
PY
# The run binds a port, reaches it, closes it, says which, and once told (a host service
# now holds it) connects there again.
cat > "$T/reuse.py" <<'PY'
import os, socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1); p = s.getsockname()[1]
socket.create_connection(("127.0.0.1", p), 3).close(); print("own-before-ok"); s.close()
with open("reuse.port.tmp", "w") as f: f.write(str(p))
os.rename("reuse.port.tmp", "reuse.port")
for _ in range(1200):
    if os.path.exists("reuse.go"): break
    time.sleep(0.05)
try:
    socket.create_connection(("127.0.0.1", p), 3); print("connected-" + "here")
except OSError as e:
    print("refused", e)
PY
# A host service on a given port: a line in LOG for each connection, LOG.up once listening.
cat > "$T/hostport.py" <<'PY'
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8)
open(sys.argv[2] + ".up", "w").close()
while True:
    c, _ = s.accept(); c.close()
    with open(sys.argv[2], "a") as f: f.write("conn\n")
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
listen udp - "$T/log-udp"
UDP_PORT=$PORT
NP=${top_builddir:-.}/tests/drivers/netprobe
[ -x "$NP" ] || { echo "Bail out! $NP not built"; exit 99; }
# unreached KIND LOG [ADDR]: the command printed no connection, and the
# listener saw none (settled).
unreached() {
	! grep -qx connected-here "$T/out" && settled "$@"
}
# lines_at_least N LOG: wait (bounded, 20 s) until LOG has N lines.
lines_at_least() {
	i=0
	while [ "$(wc -l < "$2")" -lt "$1" ] && [ $i -lt 400 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ "$(wc -l < "$2")" -ge "$1" ]
}
# settled KIND LOG [ADDR]: after an attack, one marker from outside, and its
# line in LOG once the listener has taken all that came before it
# (connections are accepted, datagrams read, in order): then LOG holds the
# marker alone unless the attack got through. LOG is emptied after, for the
# next attack. KIND unix takes the listener's ADDR.
settled() {
	case $1 in
	tcp) "$PY" -c "import socket; socket.create_connection(('127.0.0.1', $TCP_PORT), 3).sendall(b'marker')" ;;
	udp) "$PY" -c "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'marker', ('127.0.0.1', $UDP_PORT))" ;;
	unix) "$PY" -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('$3'.replace('@', chr(0), 1)); s.sendall(b'marker')" ;;
	esac
	i=0
	while ! grep -q marker "$2" && [ $i -lt 400 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	seen=$(wc -l < "$2")
	: > "$2"
	[ "$seen" -eq 1 ]
}

# Each listener answers a direct connection: the attack below is a fair one.
"$PY" -c "$(connect_unix "$T/tmpsock/s")" >/dev/null &&
	"$PY" -c "$(connect_unix "$ABS")" >/dev/null
check "the host's listeners answer outside the sandbox" test $? -eq 0
lines_at_least 1 "$T/log-tmp" && lines_at_least 1 "$T/log-abs"
: > "$T/log-tmp"
: > "$T/log-abs"
[ -n "$RUN_SOCK" ] && : > "$T/log-run"

# net_off_attacks BACKEND: with the network off, what a test suite does on
# the loopback works, and nothing of the host's loopback is reached.
net_off_attacks() {
	b=$1
	for a in "127.0.0.1" "0.0.0.0 127.0.0.1" ":: 127.0.0.1" "::1" "127.0.0.5"; do
		# shellcheck disable=SC2086
		pcall run --backend "$b" -- "$NP" own $a
		check "$b, network off: a server of its own on $a, and a client of it" has_line "own-ok own"
	done
	pcall run --backend "$b" -- "$NP" udp-own
	check "$b, network off: a datagram server of its own, by sendto and sendmsg" \
		has_line "udp-own-ok onetwo"
	pcall run --backend "$b" -- "$NP" rights
	check "$b, network off: a descriptor passed over a socket pair arrives as itself" \
		has_line rights-ok
	: > "$T/log-tcp"
	for a in 127.0.0.1 0.0.0.0 ::ffff:127.0.0.1; do
		pcall run --backend "$b" -- "$NP" connect "$a" "$TCP_PORT"
		check "$b, network off: the host's loopback service by $a is out of reach" \
			sh -c "grep -q '^refused' '$T/out' && ! grep -q connected-here '$T/out'"
	done
	check "$b, network off: ... and it saw none of them" settled tcp "$T/log-tcp"
	: > "$T/log-udp"
	for how in udp udp-msg; do
		pcall run --backend "$b" -- "$NP" "$how" 127.0.0.1 "$UDP_PORT"
		# bwrap: sent, into its own namespace's loopback where nobody listens.
		[ "$b" = landlock ] &&
			check "$b, network off: a datagram to the host's loopback service ($how) fails" \
				has_text "refused Connection refused"
	done
	check "$b, network off: ... and it received none" settled udp "$T/log-udp"
	# A thread rewrites the port between the run's own and the host's
	# while the main thread connects or sends: paddock checks and uses one
	# copy. Outside the sandbox the same race reaches the host (the twin).
	: > "$T/log-tcp"
	pcall run --backend "$b" -- "$NP" race "$TCP_PORT" 1000
	check "$b, network off: racing the address, connections reach its own server only" \
		sh -c "grep -q '^race own=[1-9][0-9]* host=0 ' '$T/out'"
	check "$b, network off: ... and the host's service saw none" settled tcp "$T/log-tcp"
	: > "$T/log-udp"
	pcall run --backend "$b" -- "$NP" race-udp "$UDP_PORT" 1000
	check "$b, network off: racing a datagram's address, sends reach its own only" \
		sh -c "grep -q '^race own=[1-9]' '$T/out'"
	check "$b, network off: ... and the host's service received none" settled udp "$T/log-udp"
	# A server at :: (dual-stack, as Node's listen(port) makes one) is reached at ::1 and
	# at 127.0.0.1 alike.
	pcall run --backend "$b" -- "$PY" "$T/dual.py"
	check "$b, network off: a dual-stack server at :: answers at ::1 and at 127.0.0.1" \
		sh -c "grep -qx 'dual v6 dual-ok' '$T/out' && grep -qx 'dual v4 dual-ok' '$T/out'"
	# A port the run bound and closed, taken since by a service of the host: out of reach.
	rm -f reuse.port reuse.go
	: > "$T/log-reuse"
	"$PADDOCK" run --backend "$b" -- "$PY" "$T/reuse.py" >"$T/out" 2>"$T/err" </dev/null &
	rp=$!
	hp=
	if wait_for_file reuse.port 60; then
		"$PY" "$T/hostport.py" "$(cat reuse.port)" "$T/log-reuse" &
		hp=$!
		wait_for_file "$T/log-reuse.up" 60 && touch reuse.go
	fi
	wait $rp
	check "$b, network off: a port the run closed and the host took is out of reach" \
		sh -c "[ -e '$T/log-reuse.up' ] && grep -qx own-before-ok '$T/out' && grep -q '^refused' '$T/out' &&
			! grep -q connected-here '$T/out'"
	"$PY" -c "import socket; socket.create_connection(('127.0.0.1', $(cat reuse.port)), 3)"
	i=0
	while [ "$(grep -c . "$T/log-reuse")" -lt 1 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
	check "$b, network off: ... and the host's service saw only the marker sent after" \
		test "$(grep -c . "$T/log-reuse")" = 1
	[ -n "$hp" ] && kill "$hp" && wait "$hp" 2>/dev/null
	rm -f "$T/log-reuse.up"
	if [ "$b" = landlock ]; then
		pcall run --backend "$b" -- "$NP" listen4
		check "$b, network off: listen() without bind() takes the loopback, not every address" \
			has_line "listening 127.0.0.1"
	fi
}
if [ -z "${PDK_NET_AS_NOBODY:-}" ]; then
	# The race is won by chance: up to 20 rounds of 300, until one reaches the host.
	i=0
	while [ $i -lt 20 ]; do
		: > "$T/log-tcp"
		"$NP" race "$TCP_PORT" 300 > "$T/out"
		grep -q '^race own=[0-9]* host=[1-9]' "$T/out" && break
		i=$((i + 1))
	done
	check "outside any sandbox the address race reaches the host's service (the attack is real)" \
		sh -c "grep -q '^race own=[0-9]* host=[1-9]' '$T/out'"
fi

backends=
for b in ${PDK_NET_BACKENDS:-bwrap landlock}; do
	if "$PADDOCK" run --backend "$b" -- /bin/true >"$T/out" 2>&1; then
		backends="$backends $b"
	else
		echo "# backend $b does not work here: skipped: $(tail -1 "$T/out")"
	fi
done
[ -n "$backends" ] || { echo "1..0 # SKIP no Linux backend works here"; exit 0; }

for b in $backends; do
	for mode in off full; do
		net=
		[ "$mode" = full ] && net="--yes -n"
		# shellcheck disable=SC2086
		pcall run --backend "$b" $net -- "$PY" -c "$(connect_unix "$T/tmpsock/s")"
		check "$b, network $mode: a host unix socket in /tmp is out of reach" \
			unreached unix "$T/log-tmp" "$T/tmpsock/s"
		if [ -n "$RUN_SOCK" ]; then
			# shellcheck disable=SC2086
			pcall run --backend "$b" $net -- "$PY" -c "$(connect_unix "$RUN_SOCK/s")"
			check "$b, network $mode: a host unix socket in $run_dir is out of reach" \
				unreached unix "$T/log-run" "$RUN_SOCK/s"
		fi
		# shellcheck disable=SC2086
		pcall run --backend "$b" $net -- "$PY" -c "$(connect_unix "$ABS")"
		check "$b, network $mode: a host abstract unix socket is out of reach" \
			unreached unix "$T/log-abs" "$ABS"
		# The twin: a socket pair of its own still carries data.
		# shellcheck disable=SC2086
		pcall run --backend "$b" $net -- "$PY" -c \
			"import socket; a, b = socket.socketpair(); a.send(b'pair-ok'); print(b.recv(9).decode())"
		check "$b, network $mode: a socket pair of the command's own works" has_line "pair-ok"
	done

	: > "$T/log-tcp"
	pcall run --backend "$b" -- "$PY" -c \
		"import socket; socket.create_connection(('127.0.0.1', $TCP_PORT), 3); print('connected-' + 'here')"
	check "$b, network off: a host loopback service is out of reach" \
		unreached tcp "$T/log-tcp"
	pcall run --backend "$b" --yes -n -- "$PY" -c \
		"import socket; socket.create_connection(('127.0.0.1', $TCP_PORT), 3); print('connected-' + 'here')"
	check "$b, network on: the same host loopback service is reached" has_line connected-here

	pcall run --backend "$b" -- "$PY" "$T/own.py"
	check "$b, network off: the command's own loopback server answers it" \
		has_line own-server-answered
	net_off_attacks "$b"
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
		check "$b: the profile says the run's own loopback goes through the supervisor" \
			has_text "loopback among the run's own processes, through paddock's connect supervisor"
		check "$b: the profile lists the supervised calls" \
			has_text "seccomp: supervise connect: only to a loopback address the run bound"
	fi
	check "$b: the profile says unix sockets go through the supervisor, the host's denied" \
		sh -c "grep -qF 'unix sockets of every type' '$T/out' &&
			grep -qF 'every other path and abstract name: EACCES' '$T/out'"
done

# doctor: what each mode gives under each backend here.
pcall doctor --json
for b in $backends; do
	check "doctor: $b: the network off, domains and on, one line each" "$PY" -c '
import json, sys
b = [x for x in json.load(open(sys.argv[1]))["backends"] if x["name"] == sys.argv[2]][0]
n = b["network"]
assert set(n) == {"off", "domains", "on", "unix_sockets"}, n
want = {"bwrap": "loopback of the run'"'"'s own", "landlock": "through the connect supervisor"}
assert want[sys.argv[2]] in n["off"], n["off"]
assert "unix sockets stay closed" in n["on"], n["on"]' "$T/out" "$b"
done
pcall doctor
check "doctor: the text says the same" has_text "network off: "

# Run as root: the Landlock part once more as an unprivileged user (nobody),
# where that user can reach the built binary, the driver and this script.
if [ "$(id -u)" -eq 0 ] && [ -z "${PDK_NET_AS_NOBODY:-}" ] && command -v setpriv >/dev/null &&
	case " $backends " in *" landlock "*) true ;; *) false ;; esac; then
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all "$@"; }
	# A version manager's interpreter may live in root's home.
	NPY=$PY
	as_nobody test -x "$NPY" || NPY=/usr/bin/python3
	if as_nobody test -x "$PADDOCK" -a -r "$self" -a -x "$NP" -a -x "$NPY"; then
		out=$(cd / && PDK_NET_AS_NOBODY=1 PDK_NET_BACKENDS=landlock PDK_NET_PY="$NPY" \
			PADDOCK="$(cd "$(dirname "$PADDOCK")" && pwd)/$(basename "$PADDOCK")" \
			top_builddir="$(cd "${top_builddir:-.}" && pwd)" TMPDIR=/tmp \
			as_nobody sh "$self" 2>&1)
		rc=$?
		printf '%s\n' "$out" | sed 's/^/# as nobody: /'
		check "landlock, as an unprivileged user (uid 65534): the same, all pass ($(printf \
			'%s\n' "$out" | grep -c '^ok') checks)" test "$rc" -eq 0
	else
		echo "ok $((n = n + 1)) - # SKIP unprivileged run: uid 65534 cannot reach $PADDOCK, $NP or $self"
	fi
fi
finish
