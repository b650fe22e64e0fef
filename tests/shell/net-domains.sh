#!/bin/sh
# net-domains.sh - the domains mode under bwrap and landlock: two names /etc/hosts points
# at a local HTTP server (lines added by this test, removed after), one
# allowed; the allowed one is reached through paddock's proxy (HTTP, HTTPS
# CONNECT to a local TLS server, SOCKS5) only where allowLocalAddresses lists
# 127.0.0.1 (without it, refused: a name never leads to the host's own
# addresses), the other refused with a result line, and a direct connection to
# either fails. Only loopback is addressed, and the cloud metadata and private
# addresses are tried in a network namespace of the test's own.
. "$(dirname "$0")/lib.sh"

for tool in python3 curl openssl; do
	command -v "$tool" >/dev/null || { echo "1..0 # SKIP $tool missing"; exit 0; }
done
[ -w /etc/hosts ] || { echo "1..0 # SKIP /etc/hosts is not writable here (not root)"; exit 0; }
PY=$(python3 -c 'import sys; print(sys.executable)')
export PY PADDOCK T MARK
own_home dom www
linux_backends

OK_NAME="allowed-$$.pdk-test.example"
NO_NAME="other-$$.pdk-test.example"
HOSTS_TAG="# pdk-net-domains-$$"
cleanup_dom() {
	# Only this test's lines go: another process may edit the file too.
	sed -i "/$HOSTS_TAG\$/d" /etc/hosts
	own_home_cleanup
}
trap cleanup_dom EXIT
printf '127.0.0.1 %s %s %s\n' "$OK_NAME" "$NO_NAME" "$HOSTS_TAG" >> /etc/hosts

echo "hello through the proxy" > "$S/www/hello.txt"
cat > "$S/srv.py" <<'PY'
import http.server, socketserver, sys, os
os.chdir(sys.argv[1])
class H(http.server.SimpleHTTPRequestHandler):
    def log_message(self, fmt, *a):
        with open(sys.argv[2], "a") as f: f.write("request %s\n" % self.path)
class S(socketserver.ThreadingTCPServer):
    # Every connection, a request in it or not.
    def verify_request(self, req, addr):
        with open(sys.argv[2] + ".conn", "a") as f: f.write("connection\n")
        return True
s = S(("127.0.0.1", 0), H)
with open(sys.argv[2] + ".port", "w") as f: f.write(str(s.server_address[1]))
s.serve_forever()
PY
"$PY" "$S/srv.py" "$S/www" "$S/http.log" "$MARK" &
bgpids="$bgpids $!"
# Generous waits: under a loaded machine an interpreter takes seconds to start.
i=0
while [ ! -s "$S/http.log.port" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
HPORT=$(cat "$S/http.log.port")
i=0
while ! curl -s --noproxy '*' "http://127.0.0.1:$HPORT/hello.txt" >/dev/null 2>&1 && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done

# A TLS server: a key and a self-signed certificate made here.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$S/key.pem" -out "$S/cert.pem" \
	-days 1 -subj "/CN=$OK_NAME" >/dev/null 2>&1
TPORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
openssl s_server -accept "127.0.0.1:$TPORT" -cert "$S/cert.pem" -key "$S/key.pem" -www \
	-quiet >/dev/null 2>&1 </dev/null &
bgpids="$bgpids $!"
i=0
while ! curl -sk "https://127.0.0.1:$TPORT/" >/dev/null 2>&1 && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done

# The servers answer outside any sandbox, by name: the attacks below are fair.
curl -sS --noproxy '*' "http://$NO_NAME:$HPORT/hello.txt" >/dev/null 2>&1
check "outside the sandbox, the local server answers by name" test $? -eq 0
: > "$S/http.log"

# A unix socket of the host's, outside the writable roots: out of reach in every mode.
"$PY" -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
open(sys.argv[1] + ".ready", "w").close()
while True: s.accept()[0].close()' "$S/host.sock" "$MARK" &
bgpids="$bgpids $!"
i=0
while [ ! -e "$S/host.sock.ready" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
# shellcheck disable=SC2016
hostsock='import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
print("reached", "host")'

own='import socket, threading
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
threading.Thread(target=lambda: s.accept()[0].sendall(b"own-ok")).start()
print(socket.create_connection(("127.0.0.1", s.getsockname()[1]), 3).recv(9).decode())'
# The same attacks and twins under each Linux backend that works here: bwrap
# (a network namespace of the run's own, the proxy listening there) and
# landlock (paddock's connect supervisor, the proxy on the host's loopback).
domain_suite() {
	B=$1
	dom() { pcall run --backend "$B" "$@"; }
	mkdir -p "$S/.config/paddock"
	rm -f "$S/.config/paddock/config.json"
	: > "$S/http.log"
	: > "$S/http.log.conn"
	# DNS rebinding's end: an allowed name that leads to the host's loopback.
	dom --yes --allow-domain "$OK_NAME" -- sh -c "curl -sS http://$OK_NAME:$HPORT/hello.txt
		curl -sS -k https://$OK_NAME:$TPORT/
		curl -sS -x \"\$ALL_PROXY\" http://$OK_NAME:$HPORT/hello.txt"
	check "$B: an allowed name that leads to 127.0.0.1 is refused (HTTP, CONNECT, SOCKS5)" \
		sh -c "! grep -q -e 'hello through' -e Ciphers '$T/out'"
	check "$B: the proxy answers why (HTTP 403 with a line, SOCKS5 not allowed by ruleset)" \
		sh -c "grep -q 'CONNECT tunnel failed, response 403' '$T/out' &&
		grep -q 'SOCKS5 connection to $OK_NAME. (2)' '$T/out' && grep -qF 'paddock: $OK_NAME \
leads to 127.0.0.1, a loopback address: the proxy does not reach the host'\''s own, private or \
link-local addresses through a name; if the command must reach it, list the address in \
commandPolicy.sandbox.allowLocalAddresses' '$T/out'"
	check "$B: the result says which name, where it led and the key that allows it" \
		has_text "sandbox: the proxy refused $OK_NAME (127.0.0.1, loopback): an allowed name never leads to the host's own, private or link-local addresses; if the command must reach one, list it in commandPolicy.sandbox.allowLocalAddresses"
	check "$B: the loopback servers saw no connection" test ! -s "$S/http.log.conn"
	: > "$S/http.log"
	# The twin: the address listed, the same fetches work.
	printf '{"commandPolicy": {"sandbox": {"allowLocalAddresses": ["127.0.0.1"]}}}\n' \
		> "$S/.config/paddock/config.json"
	dom --yes --allow-domain "$OK_NAME" -- curl -sS "http://$OK_NAME:$HPORT/hello.txt"
	check "$B: HTTP to the allowed name goes through the proxy (allowLocalAddresses 127.0.0.1)" \
		has_line "hello through the proxy"
	dom --yes --allow-domain "$OK_NAME" -- curl -sS "http://$NO_NAME:$HPORT/hello.txt"
	check "$B: HTTP to the other name is refused" sh -c "! grep -q 'hello through' '$T/out'"
	check "$B: the refusal is a result line naming the domain and how to allow it" \
		has_text "sandbox: the proxy refused $NO_NAME: not an allowed domain; allow one with --allow-domain"
	check "$B: the refused name reached no server" sh -c "! grep -q hello.txt '$S/http.log' ||
		[ \$(grep -c hello.txt '$S/http.log') -eq 1 ]"
	: > "$S/http.log"
	dom --json --yes --allow-domain "$OK_NAME" -- curl -sS "http://$NO_NAME:$HPORT/hello.txt"
	check "$B: the JSON result has the mode, the domains and the refused one" "$PY" -c '
import json, sys
n = json.load(open(sys.argv[1]))["network"]
assert n == {"mode": "domains", "allowed_domains": [sys.argv[2]], "refused_domains": [sys.argv[3]],
             "unix_sockets": []}, n
' "$T/out" "$OK_NAME" "$NO_NAME"
	for name in "$OK_NAME" "$NO_NAME"; do
		: > "$S/http.log.conn"
		dom --yes --allow-domain "$OK_NAME" -- curl -sS -m 5 --noproxy '*' \
			"http://$name:$HPORT/hello.txt"
		check "$B: a direct connection to $name, bypassing the proxy, fails" \
			sh -c "! grep -q 'hello through' '$T/out' && [ ! -s '$S/http.log' ] &&
			[ ! -s '$S/http.log.conn' ]"
	done
	dom --yes --allow-domain "$OK_NAME" -- curl -sS -k "https://$OK_NAME:$TPORT/"
	check "$B: HTTPS (CONNECT) to a local TLS server works" has_text "Ciphers"
	dom --yes --allow-domain "*.pdk-test.example" -- sh -c \
		"curl -sS -x \"\$ALL_PROXY\" http://$OK_NAME:$HPORT/hello.txt"
	check "$B: SOCKS5 (ALL_PROXY) reaches a name a *. pattern allows" \
		has_line "hello through the proxy"
	dom --yes --allow-domain "$OK_NAME" -- sh -c 'echo "$HTTP_PROXY $https_proxy $NO_PROXY"'
	check "$B: the proxy variables are set" sh -c "grep -q '^http://127.0.0.1:[0-9]* http://127.0.0.1:[0-9]* localhost,127.0.0.1' '$T/out'"
	dom --yes --allow-domain "$OK_NAME" -- "$PY" -c "$own"
	check "$B: the command's own loopback server still works" has_line own-ok
	# The refusal hints: a name not allowed, reached around the proxy, and the host's socket.
	dom --yes --allow-domain "$OK_NAME" -- curl -sS --noproxy '*' http://pdk-nowhere.invalid/
	check "$B: a name not reached gets the --allow-domain that would reach it" \
		has_text "sandbox: this run reaches only its allowed domains, so pdk-nowhere.invalid could not be reached; if the command needs it, ask for that name with --allow-domain pdk-nowhere.invalid"
	# From a file: the command's own unix sockets work, so the refusal comes at
	# connect(), and only a script's traceback shows that line.
	printf '%s\n' "$hostsock" > "$S/hostsock.py"
	dom --yes --allow-domain "$OK_NAME" -- "$PY" "$S/hostsock.py" "$S/host.sock"
	check "$B: the host's unix socket is refused, and the hint names its grants, not --write" \
		sh -c "! grep -qx 'reached host' '$T/out' &&
		grep -q '^sandbox: the sandbox refused a unix socket.*, not a file write, so --write does not help; .*commandPolicy.sandbox.allowUnixSockets, or to run with --ssh-agent' '$T/out' &&
		! grep -q 'sandbox: a write to' '$T/out'"
	# Asked for, unless the configuration lists it.
	dom --allow-domain "$OK_NAME" -- curl -sS "http://$OK_NAME:$HPORT/hello.txt"
	check "$B: an --allow-domain the configuration does not list is asked (no one to ask: not run)" \
		sh -c "! grep -q 'hello through' '$T/out'"
	# The user's own configuration (a --config that widens is asked about).
	printf '{"commandPolicy": {"sandbox": {"allowedDomains": ["%s"],
		"allowLocalAddresses": ["::1", "127.0.0.0/8"]}}}\n' "$OK_NAME" \
		> "$S/.config/paddock/config.json"
	dom -- curl -sS "http://$OK_NAME:$HPORT/hello.txt"
	check "$B: a configured domain is reached unasked" has_line "hello through the proxy"
	dom --allow-domain "$OK_NAME" -- curl -sS "http://$OK_NAME:$HPORT/hello.txt"
	check "$B: --allow-domain of a configured domain is not asked" has_line "hello through the proxy"
	dom --print-profile -- true
	check "$B: --print-profile names the mode and the domains" \
		sh -c "grep -q '^network: domains' '$T/out' && grep -qx 'network: allowed domain $OK_NAME' '$T/out'"
	check "$B: --print-profile names the local addresses allowed names may reach" \
		sh -c "grep -qx 'network: local address 127.0.0.0/8, reached by an allowed name (allowLocalAddresses)' '$T/out'"
	rm -f "$S/.config/paddock/config.json"
}
for b in $backends; do
	domain_suite "$b"
done

# Cloud metadata (169.254.169.254) and a private address (10.0.0.1), allowed by literal: refused
# before any connect. Never tried on the machine's network: in a network namespace of the
# test's own, where both addresses are on its loopback and a listener counts connections.
cat > "$S/inns.sh" <<'SH'
B=$1 conn=$2
ip link set lo up && ip addr add 10.0.0.1/32 dev lo && ip addr add 169.254.169.254/32 dev lo ||
	exit 77
"$PY" - "$conn" "$MARK" <<'PY' &
import socket, sys, threading
ls = []
for a in ("10.0.0.1", "169.254.169.254"):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((a, 80)); s.listen(8); ls.append(s)
def serve(s):
    while True:
        c, _ = s.accept()
        with open(sys.argv[1], "a") as f: f.write("connection to %s\n" % s.getsockname()[0])
        c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 8\r\n\r\nlocal-ok"); c.close()
for s in ls: threading.Thread(target=serve, args=(s,)).start()
open(sys.argv[1] + ".ready", "w").close()
PY
srv=$!
i=0
while [ ! -e "$conn.ready" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
"$PADDOCK" run --backend "$B" --yes --allow-domain 10.0.0.1 --allow-domain 169.254.169.254 -- \
	sh -c 'curl -sS -m 20 http://169.254.169.254/latest/meta-data/; echo
		curl -sS -m 20 -x "$ALL_PROXY" http://10.0.0.1/; echo
		curl -sS -m 20 -k https://10.0.0.1:80/' >"$T/out" 2>"$T/err" </dev/null
kill "$srv"
SH
for B in $backends; do
	rm -f "$S/.config/paddock/config.json" "$S/conn" "$S/conn.ready"
	unshare -n sh "$S/inns.sh" "$B" "$S/conn"
	if [ $? -eq 77 ]; then
		skip "$B: metadata and private addresses (no network namespace of the test's own here)"
		continue
	fi
	check "$B: allowed by literal, 169.254.169.254 and 10.0.0.1 are refused with the reason" \
		sh -c "! grep -q local-ok '$T/out' &&
		grep -q '169.254.169.254 leads to 169.254.169.254, a link-local address' '$T/out' &&
		grep -q 'SOCKS5 connection to 10.0.0.1. (2)' '$T/out' &&
		grep -q 'CONNECT tunnel failed, response 403' '$T/out'"
	check "$B: the result names both" has_text "sandbox: the proxy refused \
169.254.169.254 (169.254.169.254, link-local), 10.0.0.1 (10.0.0.1, private): an allowed name"
	check "$B: nothing connected to either" test ! -s "$S/conn"
	printf '{"commandPolicy": {"sandbox": {"allowLocalAddresses": ["10.0.0.0/8",
		"169.254.169.254"]}}}\n' > "$S/.config/paddock/config.json"
	rm -f "$S/conn" "$S/conn.ready"
	unshare -n sh "$S/inns.sh" "$B" "$S/conn"
	check "$B: with allowLocalAddresses listing them, the same three fetches reach them" \
		sh -c "[ \$(grep -c local-ok '$T/out') -eq 2 ] && [ \$(wc -l < '$S/conn') -eq 3 ]"
done
rm -f "$S/.config/paddock/config.json"
pcall doctor --json
for b in $backends; do
	check "doctor: $b: the domains mode goes through the proxy here" "$PY" -c '
import json, sys
b = [x for x in json.load(open(sys.argv[1]))["backends"] if x["name"] == sys.argv[2]][0]
assert "through paddock'"'"'s proxy" in b["network"]["domains"], b["network"]' "$T/out" "$b"
done
dom() { pcall run "$@"; }
pcall check --allow-domain "$OK_NAME" -- curl -sS "http://$OK_NAME/"
check "check: an --allow-domain is asked (rc $rc), raised and named" sh -c "[ $rc -eq 1 ] &&
	grep -q 'reaches $OK_NAME' '$T/out' && grep -qx 'network: domains: $OK_NAME' '$T/out'"
pcall check --json -n -- curl -sS "http://$OK_NAME/"
check "check --json: the network object" grep -q '"network":{"mode":"on","allowed_domains":\[\],"unix_sockets":\[\]}' "$T/out"
printf '{"commandPolicy": {"sandbox": {"allowedDomains": ["bad domain"]}}}\n' > "$S/bad.json"
dom --config "$S/bad.json" -- true
check "a bad allowedDomains entry is one error line" one_error_line
for bad in '"localhost"' '"10.0.0.1/8"' '"127.0.0.1/33"' '"::1/200"' '1'; do
	printf '{"commandPolicy": {"sandbox": {"allowLocalAddresses": [%s]}}}\n' "$bad" > "$S/bad.json"
	dom --yes --config "$S/bad.json" -- touch "$S/proj/ran"
	check "a bad allowLocalAddresses entry ($bad) is one error line, exit 125, nothing runs" \
		sh -c "[ $rc -eq 125 ] && [ ! -e '$S/proj/ran' ] && grep -q \
		'bad.json:1:[0-9]*: commandPolicy.sandbox.allowLocalAddresses\[0\]: ' '$T/err'"
	check "a bad allowLocalAddresses entry ($bad): that line alone" one_error_line
done
dom --allow-domain 'no/such' -- true
check "a bad --allow-domain is one error line" one_error_line
finish
