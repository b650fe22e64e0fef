#!/bin/sh
# landlock-attack.sh - escape attempts against a Linux backend, driven by
# backend-exec: each attack checks the effect did not happen, next to its twin that works.
# Usage: landlock-attack.sh [BACKEND]   (env BACKEND_EXEC: path of backend-exec)
set -u

BACKEND=${1:-${BACKEND:-landlock}}
BE=${BACKEND_EXEC:-$(dirname "$0")/../drivers/backend-exec}
[ -x "$BE" ] || BE=./tests/drivers/backend-exec
command -v python3 >/dev/null || { echo "1..0 # SKIP python3 missing"; exit 0; }
"$BE" --backend "$BACKEND" -- true 2>/dev/null || {
	echo "1..0 # SKIP backend $BACKEND does not work here"; exit 0; }

T=$(mktemp -d /tmp/pdk-attack.XXXXXX)
R=$T/root
O=$T/out
mkdir -p "$R" "$O"
PIDS=
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
no() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
check() { # check DESCRIPTION CONDITION...
	d=$1; shift
	if "$@"; then ok "$d"; else no "$d"; fi
}
absent() { [ ! -e "$1" ] && [ ! -L "$1" ]; }
. "$(dirname "$0")/retry.sh"
# Sandboxed: the root is writable, nothing else.
sbx() { "$BE" --backend "$BACKEND" --root "$R" "$@"; }
# NET is empty or --network: left unquoted on purpose.
# shellcheck disable=SC2086
py() { sbx ${NET:-} -- python3 -c "$@"; }

# --- files -------------------------------------------------------------
sbx -- sh -c "echo x > '$O/direct'" 2>/dev/null
check "write outside the root refused, file absent" absent "$O/direct"
sbx -- sh -c "echo x > '$R/direct'"
check "same write inside the root works" grep -q x "$R/direct"

ln -s "$O/via-link" "$R/link-out"
sbx -- sh -c "echo x > '$R/link-out'" 2>/dev/null
check "write through a symlink to outside refused" absent "$O/via-link"
ln -s "$R/via-link" "$R/link-in"
sbx -- sh -c "echo x > '$R/link-in'"
check "write through a symlink inside the root works" grep -q x "$R/via-link"

echo orig > "$O/victim"
sbx -- ln "$O/victim" "$R/hard" 2>/dev/null
check "hardlink of an outside file into the root refused" absent "$R/hard"
sbx -- ln "$R/direct" "$R/hard-in"
check "hardlink inside the root works" test -f "$R/hard-in"

sbx -- mv "$R/direct" "$O/moved" 2>/dev/null
check "rename out of the root refused, file stays" sh -c "absent() { [ ! -e \"\$1\" ]; };
	absent '$O/moved' && test -f '$R/direct'"
sbx -- mv "$O/victim" "$R/stolen" 2>/dev/null
check "rename of an outside file into the root refused" test -f "$O/victim"
sbx -- mv "$R/direct" "$R/renamed"
check "rename inside the root works" test -f "$R/renamed"

sbx -- sh -c "echo x > '$R/../out/dotdot'" 2>/dev/null
check "write via .. refused" absent "$O/dotdot"
sbx -- sh -c "cd '$R' && echo x > ../out/dotdot2" 2>/dev/null
check "relative write via .. from the root refused" absent "$O/dotdot2"

sbx -- rm -f "$O/victim" 2>/dev/null
check "unlink outside refused" test -f "$O/victim"
sbx -- truncate -s 0 "$O/victim" 2>/dev/null
check "truncate outside refused" grep -q orig "$O/victim"
sbx -- mkdir "$O/dir" 2>/dev/null
check "mkdir outside refused" absent "$O/dir"
sbx -- mkfifo "$O/fifo" 2>/dev/null
check "mkfifo outside refused" absent "$O/fifo"
# /dev/shm: a private tmpfs where the run can have a mount namespace (root with
# CAP_SYS_ADMIN, or a user namespace), else the host's, read-only; the host's objects are
# never written either way.
sbx -- sh -c "echo x > /dev/shm/pdk-attack-$$" 2>/dev/null
check "a write to /dev/shm does not reach the host's" absent "/dev/shm/pdk-attack-$$"
host=/dev/shm/pdk-host-$$
if [ "$BACKEND" = landlock ] && (unshare -m true || unshare -Urm true) 2>/dev/null &&
	echo host >"$host" 2>/dev/null; then
	out=$(sbx -- sh -c "echo inside >/dev/shm/pdk-attack-$$ && cat /dev/shm/pdk-attack-$$")
	check "a private /dev/shm is writable inside" [ "$out" = inside ]
	out=$(sbx -- sh -c "ls -A /dev/shm; echo changed >$host; rm -f $host" 2>/dev/null)
	check "the host's shared-memory objects are not seen inside" [ -z "$out" ]
	check "nor changed or removed" grep -qx host "$host"
	py 'import multiprocessing as m; l = m.Lock(); l.acquire(); l.release()'
	check "a multiprocessing lock (a POSIX semaphore) works" [ $? = 0 ]
	rm -f "$host"
	sbx -- sh -c "echo x > /dev/shm/pdk-attack-$$"
	check "and what the run wrote there went with it" absent "/dev/shm/pdk-attack-$$"
	out=$(sbx -- sh -c 'mount -t tmpfs none /tmp 2>&1 || echo refused')
	check "the run still cannot mount" sh -c 'printf "%s" "$1" | grep -q refused' sh "$out"
else
	echo "# no mount namespace here: /dev/shm stays the host's, read-only"
	py 'import multiprocessing as m; l = m.Lock()' 2>/dev/null
	check "a POSIX semaphore is refused there" [ $? != 0 ]
fi
sbx -- python3 -c "import os; os.setxattr('$O/victim', 'user.pdk', b'1')" 2>/dev/null
check "xattr on an outside file refused" sh -c \
	"! python3 -c \"import os; os.getxattr('$O/victim', 'user.pdk')\" 2>/dev/null"
out=$(sbx -- sh -c 'echo hi > /dev/null && echo ok')
check "write to /dev/null works" [ "$out" = ok ]

# --- protected paths ---------------------------------------------------
P=$T/proj
mkdir -p "$P/.git/hooks" "$P/.git/objects" "$P/src"
echo "[core]" > "$P/.git/config"
echo readme > "$P/README"
prot() { "$BE" --backend "$BACKEND" --root "$P" \
	--protect "$P/.git/hooks" --protect "$P/.mcp.json" "$@"; }
# Landlock cannot take rights back below a writable root without also blocking git: the rules
# leave .git writable, and a protected path that exists is held by a read-only bind in the
# run's mount namespace instead, where one can be made. git works beside it.
git -C "$P" init -q . 2>/dev/null
prot -- sh -c "cd '$P' && echo x > f && git add f && \
	GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a \
	GIT_COMMITTER_EMAIL=a@b git commit -qm m" >/dev/null 2>&1
check "landlock: git commit works in a root (index.lock, objects)" \
	sh -c "cd '$P' && git log --oneline | grep -q m"
if [ "$BACKEND" = landlock ] && (unshare -m true || unshare -Urm true) 2>/dev/null; then
	prot -- sh -c "echo evil > '$P/.git/hooks/pre-commit'" 2>/dev/null
	check "landlock: a hook written into the held .git/hooks is refused as it happens" \
		test ! -e "$P/.git/hooks/pre-commit"
fi

# --- network -----------------------------------------------------------
cat > "$T/listen.py" <<'EOF'
import socket, sys, os
kind, addr, log = sys.argv[1], sys.argv[2], sys.argv[3]
if kind == "tcp4": s = socket.socket(socket.AF_INET, socket.SOCK_STREAM); s.bind(("127.0.0.1", 0))
elif kind == "tcp6": s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM); s.bind(("::1", 0))
elif kind == "udp": s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0))
else:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(addr.replace("@", "\0", 1))
if kind != "udp": s.listen(8)
with open(log + ".port", "w") as f: f.write(str(s.getsockname()[1]) if kind != "unix" else "0")
while True:
    if kind == "udp":
        data = s.recv(100)
    else:
        c, _ = s.accept(); data = b"conn"; c.close()
    with open(log, "ab") as f: f.write(data + b"\n")
EOF
listen() { # listen KIND ADDR LOG -> sets PORT
	python3 "$T/listen.py" "$1" "$2" "$3" & PIDS="$PIDS $!"
	i=0; while [ ! -s "$3.port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	PORT=$(cat "$3.port")
}
connect_py() { # FAMILY HOST PORT
	echo "import socket; s=socket.socket(socket.$1, socket.SOCK_STREAM); s.settimeout(2); s.connect(('$2', $3))"
}

# net_pair WHAT FILE WORD CODE: with the network off CODE reaches nothing of the listener
# writing FILE; with --network, WORD arrives there.
net_pair() {
	NET='' py "$4" 2>/dev/null
	sleep 0.2
	check "$1 refused with network off" absent "$2"
	NET=--network py "$4"
	check "$1 works with --network" retry 10 grep -q "$3" "$2"
}

listen tcp4 - "$T/tcp4"
net_pair "TCP connect to 127.0.0.1" "$T/tcp4" conn "$(connect_py AF_INET 127.0.0.1 "$PORT")"
listen tcp6 - "$T/tcp6"
net_pair "TCP connect to ::1" "$T/tcp6" conn "$(connect_py AF_INET6 ::1 "$PORT")"
listen udp - "$T/udp"
net_pair "UDP send to 127.0.0.1" "$T/udp" leak \
	"import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b'leak', ('127.0.0.1', $PORT))"
# The host's unix sockets stay closed with the network on too.
unix_closed() { # unix_closed WHAT FILE CODE
	NET='' py "$3" 2>/dev/null
	NET=--network py "$3" 2>/dev/null
	sleep 0.2
	check "$1 refused with the network off and on" absent "$2"
}
abs="@pdk-attack-$$"
listen unix "$abs" "$T/abs"
unix_closed "abstract unix socket outside" "$T/abs" \
	"import socket; s=socket.socket(socket.AF_UNIX); s.connect('$abs'.replace('@', chr(0), 1))"
listen unix "$O/sock" "$T/path"
unix_closed "pathname unix socket outside" "$T/path" \
	"import socket; s=socket.socket(socket.AF_UNIX); s.connect('$O/sock')"
python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('$O/sock')"
check "the same pathname socket answers outside the sandbox" retry 10 grep -q conn "$T/path"

out=$(NET='' py "import socket; a,b=socket.socketpair(); a.send(b'pair'); print(b.recv(4).decode())")
check "socketpair works with network off" [ "$out" = pair ]

# --- kernel interfaces ---------------------------------------------------
SYSCALL="import ctypes, sys; libc=ctypes.CDLL(None, use_errno=True); f=libc.syscall
f.argtypes=[ctypes.c_long]*6; f.restype=ctypes.c_long"
out=$(py "$SYSCALL
r=f(425, 4, ctypes.addressof(ctypes.create_string_buffer(120)), 0, 0, 0)
print(r, ctypes.get_errno())")
check "io_uring_setup fails (ENOSYS): $out" [ "$out" = "-1 38" ]
out=$(py "$SYSCALL
print(f(250, 0, -3, 0, 0, 0), ctypes.get_errno())")
check "keyctl fails (EPERM): $out" [ "$out" = "-1 1" ]
out=$(python3 -c "$SYSCALL
print(f(250, 0, -3, 0, 0, 0) != -1)")
check "keyctl works outside (control)" [ "$out" = True ]

sleep 300 & VICTIM=$!; PIDS="$PIDS $VICTIM"
sbx -- kill -TERM "$VICTIM" 2>/dev/null
sleep 0.2
check "kill of an outside process fails, victim lives" kill -0 "$VICTIM"
out=$(py "$SYSCALL
print(f(101, 16, $VICTIM, 0, 0, 0), ctypes.get_errno())")
sleep 0.2
state=$(awk '/^State/ {print $2}' "/proc/$VICTIM/status")
check "ptrace attach to an outside process fails ($out), victim not stopped ($state)" \
	sh -c "[ '$out' = '-1 1' ] && [ '$state' = S ]"
sbx -- sh -c 'sleep 5 & kill $!'
check "kill inside the sandbox works" [ $? -eq 0 ]
# Another process's resource limits: same uid is all the kernel asks, so the filter refuses
# setting them (an RLIMIT_CPU of 1 would kill the process, an RLIMIT_NOFILE of 0 would stop
# paddock's clean-up); reading them and the command's own stay allowed.
nofile() { awk '/^Max open files/ {print $4}' "/proc/$1/limits"; }
before=$(nofile "$VICTIM")
sbx -- prlimit --pid "$VICTIM" --nofile=7:7 2>/dev/null
check "prlimit on an outside process fails, its limit stays ($before)" \
	[ "$(nofile "$VICTIM")" = "$before" ]
out=$(sbx -- sh -c "prlimit --pid $VICTIM --nofile --noheadings --raw >/dev/null && ulimit -n 7 && ulimit -n")
check "reading it, and setting the command's own limit, work ($out)" [ "$out" = 7 ]
prlimit --pid "$VICTIM" --nofile=7:7
check "the same prlimit from outside works (control)" [ "$(nofile "$VICTIM")" = 7 ]

# TIOCSTI on a real pty given as stdin; the control injects from outside.
cat > "$T/sti.py" <<'EOF'
import os, pty, subprocess, sys, fcntl, tty
m, s = pty.openpty()
tty.setraw(s)  # injected bytes become readable without a newline
cmd = sys.argv[1:]
snippet = """import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True); f = libc.syscall
f.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_ulong, ctypes.c_char_p]
res = []
for cmdno in (0x5412, 0xffffffff00005412):
    r = f(16, 0, cmdno, b'Z'); res.append('%d/%d' % (r, ctypes.get_errno()))
print(' '.join(res))"""
p = subprocess.run(cmd + ["python3", "-c", snippet], stdin=s, capture_output=True, text=True)
fl = fcntl.fcntl(s, fcntl.F_GETFL); fcntl.fcntl(s, fcntl.F_SETFL, fl | os.O_NONBLOCK)
try: got = os.read(s, 100)
except BlockingIOError: got = b""
print(p.stdout.strip(), "injected=" + (got.decode() or "none"))
EOF
out=$(python3 "$T/sti.py" "$BE" --backend "$BACKEND" --root "$R" --)
check "TIOCSTI denied, low and high bits ($out)" [ "$out" = "-1/1 -1/1 injected=none" ]
if [ "$(id -u)" = 0 ]; then
	out=$(python3 "$T/sti.py" env)
	check "TIOCSTI injects outside (control, root): $out" [ "$out" = "0/0 0/0 injected=ZZ" ]
fi

sbx -- unshare -U true 2>/dev/null
check "unshare(CLONE_NEWUSER) fails" [ $? -ne 0 ]
unshare -U true 2>/dev/null
check "unshare -U works outside (control)" [ $? -eq 0 ]

caps=$(sbx -- grep -E '^Cap(Inh|Prm|Eff|Amb)' /proc/self/status | awk '{print $2}' | sort -u)
check "no capabilities inside (uid $(id -u)): $caps" [ "$caps" = 0000000000000000 ]
if [ "$(id -u)" = 0 ]; then
	bnd=$(sbx -- awk '/^CapBnd/ {print $2}' /proc/self/status)
	check "empty bounding set as root: $bnd" [ "$bnd" = 0000000000000000 ]
	eff=$(awk '/^CapEff/ {print $2}' /proc/self/status)
	check "root has capabilities outside (control): $eff" [ "$eff" != 0000000000000000 ]
fi
nnp=$(sbx -- awk '/^NoNewPrivs/ {print $2}' /proc/self/status)
check "no_new_privs set" [ "$nnp" = 1 ]

echo "1..$n"
[ $fails -eq 0 ]
