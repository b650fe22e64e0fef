#!/bin/sh
# net.sh - `make bench`, the network: a 100 MB download from a local HTTP server through
# paddock's proxy (the domains mode) against the same download with the network on, under
# bwrap and under landlock, and
# what the domains mode adds to a call that connects nowhere, side by side under bwrap;
# and what Landlock's connect supervisor costs a plain call and a loopback-heavy run, and
# 1,000 connections of a command to a unix socket of its own under each backend.
# Environment: PADDOCK, CC (cc), BENCH_NET_ROUNDS (7), BENCH_STRICT=1 (exit 2 on a missed target).
# shellcheck disable=SC2016
set -u

bench=$(cd "$(dirname "$0")" && pwd)
PADDOCK=${PADDOCK:-./paddock}
CC=${CC:-cc}
rounds=${BENCH_NET_ROUNDS:-7}
strict=
[ "${BENCH_STRICT:-0}" = 1 ] && strict=-s
PADDOCK=$(cd "$(dirname "$PADDOCK")" && pwd)/$(basename "$PADDOCK")
for tool in python3 curl; do
	command -v "$tool" >/dev/null || { echo "bench net: $tool missing, skipped" >&2; exit 0; }
done
PY=$(python3 -c 'import sys; print(sys.executable)')

tmp=$(mktemp -d /var/tmp/paddock-bench-net.XXXXXX) || exit 1
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$tmp/work" "$tmp/state" "$tmp/www" "$tmp/config/paddock" || exit 1
export XDG_STATE_HOME="$tmp/state" HOME="$tmp" XDG_CONFIG_HOME="$tmp/config"
# The server is on the host's loopback, which an allowed name or literal reaches only where
# the configuration lists it.
printf '{"commandPolicy": {"sandbox": {"allowLocalAddresses": ["127.0.0.1"]}}}\n' \
	>"$tmp/config/paddock/config.json" || exit 1
cd "$tmp/work" || exit 1
if ! "$PADDOCK" run --backend bwrap -- /bin/true >/dev/null 2>&1; then
	echo "bench net: the bwrap backend does not work here, skipped" >&2
	exit 0
fi
if ! $CC -O2 -std=gnu11 -o "$tmp/timeit" "$bench/timeit.c"; then
	echo "bench net: cannot compile bench/timeit.c with $CC" >&2
	exit 1
fi
head -c 100000000 /dev/zero > "$tmp/www/100M"
# Not http.py: the script's directory comes first on sys.path, and that name would hide
# the standard `http` package from the import below.
cat > "$tmp/serve.py" <<'PY'
import http.server, socketserver, sys, os
os.chdir(sys.argv[1])
class H(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass
socketserver.ThreadingTCPServer.allow_reuse_address = True
s = socketserver.ThreadingTCPServer(("127.0.0.1", 0), H)
open(sys.argv[2], "w").write(str(s.server_address[1]))
s.serve_forever()
PY
"$PY" "$tmp/serve.py" "$tmp/www" "$tmp/port" &
server=$!
i=0
while [ ! -s "$tmp/port" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
port=$(cat "$tmp/port" 2>/dev/null)
if [ -z "$port" ]; then
	echo "bench net: the local HTTP server did not start" >&2
	exit 1
fi
url="http://127.0.0.1:$port/100M"

cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')
echo "paddock network bench on $(uname -srm), $cpus CPUs, $(date -u '+%Y-%m-%d')"
echo
"$tmp/timeit" $strict -n "$rounds" -w 1 -t '**100 MB from a local server, bwrap**' \
	:: '`-n`: `curl` straight to the server' as=direct \
	-- "$PADDOCK" run --backend bwrap --yes -n -- curl -sSf -o /dev/null "$url" \
	:: '`--allow-domain 127.0.0.1`: `curl` through the proxy' as=proxy vs=direct@1.2 \
	-- "$PADDOCK" run --backend bwrap --yes --allow-domain 127.0.0.1 -- sh -c \
	'exec curl -sSf -o /dev/null --noproxy "" -x "$HTTP_PROXY" "$0"' "$url"
rc1=$?
echo
if "$PADDOCK" run --backend landlock --print-profile --allow-domain 127.0.0.1 -- true 2>/dev/null |
	grep -q "^network: domains"; then
	"$tmp/timeit" $strict -n "$rounds" -w 1 -t '**100 MB from a local server, landlock**' \
		:: '`-n`: `curl` straight to the server' as=direct \
		-- "$PADDOCK" run --backend landlock --yes -n -- curl -sSf -o /dev/null "$url" \
		:: '`--allow-domain 127.0.0.1`: `curl` through the proxy on the host'"'"'s loopback' \
		as=proxy vs=direct@1.2 \
		-- "$PADDOCK" run --backend landlock --yes --allow-domain 127.0.0.1 -- sh -c \
		'exec curl -sSf -o /dev/null --noproxy "" -x "$HTTP_PROXY" "$0"' "$url"
	[ $? -eq 0 ] || rc1=1
	echo
fi
"$tmp/timeit" $strict -n $((rounds * 10)) -w 3 -t '**A call that connects nowhere, bwrap**' \
	:: 'network off' as=off \
	-- "$PADDOCK" run --backend bwrap -- /bin/true \
	:: '`--allow-domain 127.0.0.1`: the proxy started and stopped' as=domains vs=off \
	-- "$PADDOCK" run --backend bwrap --yes --allow-domain 127.0.0.1 -- /bin/true \
	:: '`-n`' as=on vs=off \
	-- "$PADDOCK" run --backend bwrap --yes -n -- /bin/true
rc2=$?
rc3=0
echo
rc4=0
if ! $CC -O2 -std=gnu11 -pthread -o "$tmp/echo" "$bench/echo.c"; then
	echo "bench net: cannot compile bench/echo.c with $CC" >&2
	rc4=1
fi
if ! "$PADDOCK" run --backend landlock -- /bin/true >/dev/null 2>&1; then
	echo "The landlock backend does not work here: no figure for the connect supervisor."
elif ! "$PADDOCK" run --backend landlock --print-profile -- true 2>/dev/null |
	grep -q "connect supervisor ("; then
	echo "This kernel cannot carry the connect supervisor: no figure for it."
elif [ $rc4 -ne 0 ]; then
	rc3=1
else
	# The supervisor: a plain call (fork instead of a shared-memory spawn,
	# a thread, the listener handed over), and 1,000 connections of a test
	# suite to its own server, each connect, bind and listen a round trip
	# to paddock; -n runs without it.
	"$tmp/timeit" $strict -n $((rounds * 10)) -w 3 -t '**The connect supervisor: a call that connects nowhere, landlock**' \
		:: '`-n`: no supervisor' as=on \
		-- "$PADDOCK" run --backend landlock --yes -n -- /bin/true \
		:: 'network off: the supervisor' as=sup vs=on \
		-- "$PADDOCK" run --backend landlock -- /bin/true
	rc3=$?
	echo
	"$tmp/timeit" $strict -n "$rounds" -w 1 -t '**The connect supervisor: 1,000 loopback connections to a server of its own, landlock**' \
		:: 'unconfined' as=bare \
		-- "$tmp/echo" tcp 1000 \
		:: '`-n`: no supervisor' as=on vs=bare \
		-- "$PADDOCK" run --backend landlock --yes -n -- "$tmp/echo" tcp 1000 \
		:: 'network off: the supervisor' as=sup vs=bare vs=on \
		-- "$PADDOCK" run --backend landlock -- "$tmp/echo" tcp 1000
	[ $? -eq 0 ] || rc3=1
fi
echo
if [ $rc4 -eq 0 ]; then
	# The command's own unix socket: each connect (and the bind) a round
	# trip to the supervisor, which opens the path and compares the file.
	for b in bwrap landlock; do
		"$PADDOCK" run --backend "$b" -- /bin/true >/dev/null 2>&1 || continue
		"$tmp/timeit" $strict -n "$rounds" -w 1 -t "**1,000 connections to a unix socket of its own, $b**" \
			:: 'unconfined' as=bare \
			-- "$tmp/echo" unix 1000 \
			:: 'network off: the supervisor' as=sup vs=bare@1.3 \
			-- "$PADDOCK" run --backend "$b" -- "$tmp/echo" unix 1000
		[ $? -eq 0 ] || rc4=1
		echo
	done
fi
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ $rc3 -eq 0 ] && [ $rc4 -eq 0 ]
