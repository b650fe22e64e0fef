#!/bin/sh
# unix-own.sh - the command's own unix sockets work under each Linux backend, network off, on
# and domains, with another run going on: real programs (Python multiprocessing, Node, Redis),
# path, abstract and datagram sockets; the host's sockets (/tmp, abstract) stay closed, also
# when a socket the run bound is swapped for a symlink to one; a real ssh-agent is reached
# only with --ssh-agent, and asked.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip_all "python3 missing"
PY=$(python3 -c 'import sys; print(sys.executable)')
# Home, state and project outside /tmp, so that /tmp holds only the host's.
own_home own .config/paddock

linux_backends

# Host listeners, outside any sandbox: each appends its tag to its log per
# connection or datagram.
cat > "$T/listen.py" <<'PY'
import socket, sys
addr, tag, log, kind = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
t = socket.SOCK_DGRAM if kind == "dgram" else socket.SOCK_STREAM
s = socket.socket(socket.AF_UNIX, t); s.bind(addr.replace("@", "\0", 1))
if t == socket.SOCK_STREAM: s.listen(64)
open(log + ".ready", "w").close()
while True:
    if t == socket.SOCK_STREAM:
        c, _ = s.accept(); c.close()
    else:
        s.recv(64)
    with open(log, "a") as f: f.write(tag + "\n")
PY
mkdir -p "$T/host"
HOST_SOCK="$T/host/s"
HOST_DGRAM="$T/host/d"
HOST_ABS="@pdk-own-$$-$MARK"
for l in "$HOST_SOCK HS stream" "$HOST_DGRAM HD dgram" "$HOST_ABS HA stream"; do
	set -- $l
	"$PY" "$T/listen.py" "$1" "$2" "$T/log-$2" "$3" "$MARK" &
	bgpids="$bgpids $!"
	wait_for_file "$T/log-$2.ready" 30 || { echo "Bail out! listener $2 did not start"; exit 99; }
	: > "$T/log-$2"
done
host_quiet() { [ ! -s "$T/log-HS" ] && [ ! -s "$T/log-HD" ] && [ ! -s "$T/log-HA" ]; }

# The command's own work, each line "ok NAME" or "fail NAME: why"; then the
# host's sockets, each line "host NAME reached" or "host NAME refused".
cat > own.py <<'PY'
import multiprocessing as mp, os, socket, sys
# Names of this run's own: under bwrap every run's pid is the same.
TAG = os.urandom(6).hex()
def sq(x): return x * x
def say(name, f):
    try: f(); print("ok", name)
    except Exception as e: print("fail %s: %r" % (name, e))
def pool(m):
    with mp.get_context(m).Pool(2) as p: assert p.map(sq, [1, 2, 3]) == [1, 4, 9]
def manager():
    with mp.Manager() as m:
        d = m.dict(); d["a"] = 1; assert dict(d) == {"a": 1}
def stream(t, name):
    p = "%s-%s.sock" % (name, TAG)
    s = socket.socket(socket.AF_UNIX, t); s.bind(p); s.listen(1)
    # by relative and absolute path: both lead to the socket file the run made
    for a in (p, os.path.abspath(p)):
        c = socket.socket(socket.AF_UNIX, t); c.connect(a); d, _ = s.accept()
        c.send(b"hi"); assert d.recv(2) == b"hi"
    assert s.getsockname() == p, s.getsockname()
    os.unlink(p)
def dgram():
    p = "d-%s.sock" % TAG
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(p)
    c = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); c.sendto(b"dg", p)
    assert s.recv(2) == b"dg"
    os.unlink(p)
def abstract():
    n = "\0pdk-own-cmd-" + TAG
    s = socket.socket(socket.AF_UNIX); s.bind(n); s.listen(1)
    c = socket.socket(socket.AF_UNIX); c.connect(n); s.accept()
def autobind():
    # bind() with no name: the kernel gives it an abstract one
    s = socket.socket(socket.AF_UNIX); s.bind(""); s.listen(1)
    c = socket.socket(socket.AF_UNIX); c.connect(s.getsockname()); s.accept()
def pairs():
    for t in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_SEQPACKET):
        a, b = socket.socketpair(socket.AF_UNIX, t); a.send(b"x"); assert b.recv(1) == b"x"
def host(name, addr, t=socket.SOCK_STREAM):
    try:
        c = socket.socket(socket.AF_UNIX, t); c.settimeout(5)
        if t == socket.SOCK_DGRAM: c.sendto(b"x", addr)
        else: c.connect(addr)
        print("host", name, "reached")
    except OSError as e: print("host", name, "refused", e.errno)
if __name__ == "__main__":
    for m in ("forkserver", "spawn"): say("multiprocessing-" + m, lambda: pool(m))
    say("multiprocessing-manager", manager)
    say("stream", lambda: stream(socket.SOCK_STREAM, "s"))
    say("seqpacket", lambda: stream(socket.SOCK_SEQPACKET, "q"))
    say("datagram", dgram)
    say("abstract", abstract)
    say("autobind", autobind)
    say("socketpairs", pairs)
    hs, hd, ha = sys.argv[1:4]
    host("tmp", hs); host("dgram", hd, socket.SOCK_DGRAM); host("abstract", ha.replace("@", "\0", 1))
PY
OWN="ok multiprocessing-forkserver
ok multiprocessing-spawn
ok multiprocessing-manager
ok stream
ok seqpacket
ok datagram
ok abstract
ok autobind
ok socketpairs"

# A socket the run bound is swapped, again and again, for a symlink to the
# host's socket while the command connects to that path: statistical, so the
# count of connections to the run's own socket must be above 0 at the end.
cat > swap.py <<'PY'
import os, socket, sys, threading
host, rounds = sys.argv[1], int(sys.argv[2])
p = "own-%s.sock" % os.urandom(6).hex()
s = socket.socket(socket.AF_UNIX); s.bind(p); s.listen(256)
stop = False
def flip():
    i = 0
    while not stop:
        t = p + ".t"
        # rename() of a second link to the same file leaves both
        if os.path.lexists(t): os.unlink(t)
        if i % 2: os.symlink(host, t)
        else: os.link(p, t)
        os.rename(t, "target"); i += 1
def accept():
    while True:
        c, _ = s.accept(); c.close()
threading.Thread(target=accept, daemon=True).start()
os.link(p, "target")
th = threading.Thread(target=flip); th.start()
own = refused = 0
for _ in range(rounds):
    c = socket.socket(socket.AF_UNIX)
    try: c.connect("target"); own += 1
    except OSError: refused += 1
    c.close()
stop = True; th.join()
print("swap own=%d refused=%d" % (own, refused))
os.unlink(p)
PY

mode_args() {
	case $1 in
	off) echo "" ;;
	on) echo "--yes -n" ;;
	domains) echo "--yes --allow-domain example.invalid" ;;
	esac
}

for b in $backends; do
	for mode in off on domains; do
		net=$(mode_args "$mode")
		# Another run at the same time, doing the same.
		# shellcheck disable=SC2086
		"$PADDOCK" run --backend "$b" $net -- "$PY" own.py "$HOST_SOCK" "$HOST_DGRAM" \
			"$HOST_ABS" > "$T/other" 2>&1 &
		other=$!
		# shellcheck disable=SC2086
		pcall run --backend "$b" $net -- "$PY" own.py "$HOST_SOCK" "$HOST_DGRAM" "$HOST_ABS"
		wait "$other"
		for w in $(echo "$OWN" | sed 's/^ok //'); do
			check "$b, network $mode: the command's own $w works" grep -qx "ok $w" "$T/out"
		done
		check "$b, network $mode: a second run at the same time: all its own sockets work" \
			sh -c "[ \"\$(grep -c '^ok ' '$T/other')\" -eq 9 ]"
		for h in tmp dgram abstract; do
			check "$b, network $mode: the host's $h socket stays out of reach" \
				sh -c "grep -q '^host $h refused' '$T/out' &&
					grep -q '^host $h refused' '$T/other'"
		done
		check "$b, network $mode: the host's listeners saw nothing" host_quiet

		if command -v node >/dev/null; then
			# shellcheck disable=SC2086
			pcall run --backend "$b" $net -- node -e '
const net = require("net"), p = "n-" + require("crypto").randomBytes(6).toString("hex") + ".sock";
const srv = net.createServer(c => { c.end("node-ok"); }).listen(p, () => {
	net.connect(p).on("data", d => { console.log(String(d)); srv.close(); });
});'
			check "$b, network $mode: node listen(path) and a client" grep -qx node-ok "$T/out"
		else
			skip "$b, network $mode: node is not installed"
		fi
		if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
			# shellcheck disable=SC2086
			pcall run --backend "$b" $net -- sh -c '
redis-server --unixsocket ./r.sock --port 0 --save "" --appendonly no --daemonize no \
	> redis.log 2>&1 & pid=$!
i=0; while [ ! -S r.sock ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
redis-cli -s ./r.sock ping; kill $pid; wait $pid; rm -f r.sock'
			check "$b, network $mode: redis-server --unixsocket answers redis-cli -s" \
				grep -qx PONG "$T/out"
		else
			skip "$b, network $mode: redis-server or redis-cli missing (Debian: redis-server redis-tools)"
		fi

		# The swap race: statistical, retried up to 120 s until one connection
		# reached the run's own socket; no try may reach the host's.
		: > "$T/log-HS"
		: > "$T/swaps"
		end=$(($(date +%s) + 120))
		while :; do
			rm -f target
			# shellcheck disable=SC2086
			pcall run --backend "$b" $net -- "$PY" swap.py "$HOST_SOCK" 300
			grep '^swap ' "$T/out" >> "$T/swaps"
			grep -q '^swap own=[1-9]' "$T/out" && break
			[ "$(date +%s)" -lt "$end" ] || break
		done
		check "$b, network $mode: a bound socket swapped for a symlink to the host's reaches only the run's (statistical: retried up to 120 s)" \
			sh -c "grep -q '^swap own=[1-9]' '$T/swaps' && [ ! -s '$T/log-HS' ]"
	done
done
# A protected path bwrap keeps read-only (.git/hooks) takes no socket either,
# though paddock's thread that binds sees the host's mounts.
if command -v git >/dev/null && case " $backends " in *" bwrap "*) true ;; *) false ;; esac; then
	git init -q . 2>/dev/null
	pcall run --backend bwrap -- "$PY" -c '
import os, socket
for p in (".git/hooks/pre-commit", os.path.abspath(".git/hooks/pre-push")):
    try: socket.socket(socket.AF_UNIX).bind(p); print("bound", p)
    except OSError as e: print("refused", e.errno)'
	check "bwrap: a bind in a protected path (.git/hooks), relative or absolute, is refused" \
		sh -c "[ \"\$(grep -c '^refused' '$T/out')\" -eq 2 ] && [ ! -e .git/hooks/pre-commit ] &&
			[ ! -e .git/hooks/pre-push ]"
	rm -rf .git
fi

# Run as root: the command's own sockets once more as an unprivileged user (nobody),
# in a project, home and state of that user's.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all "$@"; }
	NPY=$PY
	as_nobody test -x "$NPY" || NPY=/usr/bin/python3
	N=$S/nobody
	mkdir -p "$N/proj" "$N/state"
	cp own.py "$N/proj/"
	chown -R 65534:65534 "$N"
	chmod 711 "$S"
	if as_nobody test -x "$PADDOCK" -a -x "$NPY" -a -r "$N/proj/own.py"; then
		for b in $backends; do
			(cd "$N/proj" && HOME=$N XDG_STATE_HOME=$N/state as_nobody "$PADDOCK" run \
				--backend "$b" -- "$NPY" own.py "$HOST_SOCK" "$HOST_DGRAM" "$HOST_ABS") \
				> "$T/out" 2>&1
			check "$b, as an unprivileged user (uid 65534): the command's own sockets work" \
				sh -c "[ \"\$(grep -c '^ok ' '$T/out')\" -eq 9 ]"
		done
	else
		skip "unprivileged run: uid 65534 cannot reach $PADDOCK or $NPY"
	fi
fi

# The twin of the swap attack, outside: the same race reaches the host's socket.
: > "$T/log-HS"
end=$(($(date +%s) + 120))
while :; do
	rm -f target
	"$PY" swap.py "$HOST_SOCK" 300 > "$T/out"
	[ -s "$T/log-HS" ] && break
	[ "$(date +%s)" -lt "$end" ] || break
done
check "outside the sandbox the swap race reaches the host's socket (the attack is real; statistical)" \
	test -s "$T/log-HS"
: > "$T/log-HS"

# A real ssh-agent with a real key.
if command -v ssh-agent >/dev/null && command -v ssh-keygen >/dev/null &&
	command -v ssh-add >/dev/null; then
	ssh-keygen -q -t ed25519 -N '' -C pdk-own-key -f "$T/key" </dev/null
	ssh-agent -D -a "$T/agent.sock" > /dev/null 2>&1 &
	bgpids="$bgpids $!"
	wait_for_file "$T/agent.sock" 30
	SSH_AUTH_SOCK="$T/agent.sock" ssh-add "$T/key" 2>/dev/null
	export SSH_AUTH_SOCK="$T/agent.sock"
	ssh-add -l > "$T/out" 2>&1
	check "outside the sandbox the agent lists the key" grep -q pdk-own-key "$T/out"
	for b in $backends; do
		pcall run --backend "$b" -- ssh-add -l
		check "$b: without --ssh-agent the agent is out of reach" \
			sh -c "! grep -q pdk-own-key '$T/out'"
		pcall run --backend "$b" --ssh-agent -- ssh-add -l
		check "$b: --ssh-agent is asked (no one to ask here: not run)" \
			sh -c "[ $rc -ne 0 ] && grep -q 'reaches your ssh-agent at $T/agent.sock' '$T/err' &&
				! grep -q pdk-own-key '$T/out'"
		for mode in off on domains; do
			net=$(mode_args "$mode")
			# shellcheck disable=SC2086
			pcall run --backend "$b" --ssh-agent --yes $net -- ssh-add -l
			check "$b, network $mode: --ssh-agent --yes lists the key" \
				grep -q pdk-own-key "$T/out"
		done
		pcall run --backend "$b" --ssh-agent --yes --json -- true
		check "$b: the JSON result names the agent's socket in network.unix_sockets" \
			jq_ok "'$T/agent.sock' in d['network']['unix_sockets']"
		pcall run --backend "$b" --ssh-agent --print-profile -- true
		check "$b: --print-profile names the agent's socket" \
			has_line "network: unix socket $T/agent.sock (--ssh-agent)"
	done
	pcall check --json --ssh-agent -- ssh-add -l
	check "paddock check --json names the granted agent's socket in network.unix_sockets" \
		jq_ok "d['network']['unix_sockets'] == ['$T/agent.sock'] and d['verdict'] == 'ask'"
	pcall check --ssh-agent -- ssh-add -l
	check "paddock check names the granted agent's socket" \
		has_line "network: unix socket $T/agent.sock (--ssh-agent)"
	echo '{"argv": ["ssh-add", "-l"], "sshAgent": true}' > "$T/req.json"
	pcall run --yes --request "$T/req.json"
	check "a request (run_command's arguments) with sshAgent: true reaches the agent" \
		jq_ok "'pdk-own-key' in d['stdout'] and d['network']['unix_sockets'] == ['$T/agent.sock']"
	SSH_AUTH_SOCK= pcall run --ssh-agent --yes -- true
	check "--ssh-agent without SSH_AUTH_SOCK: one line, exit 125" \
		sh -c "[ $rc -eq 125 ] && grep -q 'SSH_AUTH_SOCK is not set' '$T/err'" 
	check "--ssh-agent without SSH_AUTH_SOCK: one error line" one_error_line
	unset SSH_AUTH_SOCK
else
	skip "ssh-agent, ssh-keygen or ssh-add missing (Debian: openssh-client)"
fi
DOCKER_HOST="unix://$T/none.sock" pcall run --docker --yes -- true
check "--docker with no socket there: one error line, exit 125" \
	sh -c "[ $rc -eq 125 ] && grep -q 'names no socket' '$T/err'"
finish
