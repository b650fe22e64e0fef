#!/bin/sh
# bwrap-attack.sh - escape attempts against the bubblewrap backend, each with its legitimate
# twin, through tests/drivers/backend-exec --backend bwrap. Prints ok/not ok lines; the exit status rules.

set -u

: "${BACKEND_EXEC:=${top_builddir:-.}/tests/drivers/backend-exec}"
if [ ! -x "$BACKEND_EXEC" ]; then
	echo "1..0 # SKIP $BACKEND_EXEC not built"
	exit 0
fi
# Skip only where bubblewrap itself cannot make a sandbox; where it can, the
# backend must too, so a broken backend fails here instead of skipping.
bwrap=$(command -v bwrap || echo /usr/bin/bwrap)
if ! "$bwrap" --ro-bind / / --proc /proc --unshare-all -- /bin/true 2>/dev/null; then
	echo "1..0 # SKIP bwrap cannot make a sandbox on this host"
	exit 0
fi
for tool in git perl setsid; do
	command -v "$tool" >/dev/null 2>&1 || { echo "1..0 # SKIP $tool missing"; exit 0; }
done

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { # check DESCRIPTION COMMAND...: ok when COMMAND succeeds
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# The root lives in the temp directory; "outside" must not, since the temp
# directory is itself a writable root in one case below.
root=$(realpath "$(mktemp -d "${TMPDIR:-/tmp}/pdk-bwrap-root.XXXXXX")")
outside=$(realpath "$(mktemp -d /var/tmp/pdk-bwrap-out.XXXXXX)")
pids=
cleanup() {
	for p in $pids; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$root" "$outside"
}
trap cleanup EXIT INT TERM

# sandbox [OPTIONS] -- ARGV: one root, no network, started in the root.
sandbox() {
	"$BACKEND_EXEC" --backend bwrap --root "$root" --cwd "$root" "$@"
}

# --- writes ------------------------------------------------------------------
sandbox -- sh -c "echo attack > '$outside/direct'" 2>/dev/null
check "write outside the roots fails" test ! -e "$outside/direct"
sandbox -- sh -c "echo legit > '$root/direct'"
check "the same write inside a root is visible outside" grep -qx legit "$root/direct"

ln -s "$outside" "$root/link"
sandbox -- sh -c "echo attack > '$root/link/through-link'" 2>/dev/null
check "write through a symlink to outside fails" test ! -e "$outside/through-link"
sandbox -- sh -c "echo attack > '$root/../$(basename "$outside")-dotdot'" 2>/dev/null
check "write through .. fails" test ! -e "$root/../$(basename "$outside")-dotdot"

marker=pdk-bwrap-shm-$$
sandbox -- sh -c "echo attack > /dev/shm/$marker && test -s /dev/shm/$marker"
check "/dev/shm inside is writable" test $? -eq 0
check "/dev/shm inside is private (written inside, absent outside)" test ! -e "/dev/shm/$marker"

tmpfile=$(mktemp -u /tmp/pdk-bwrap-tmp.XXXXXX)
"$BACKEND_EXEC" --backend bwrap --root "$root" --root /tmp --cwd "$root" \
	-- sh -c "echo legit > '$tmpfile'"
check "/tmp as a root is the real /tmp" grep -qx legit "$tmpfile"
rm -f "$tmpfile"
sandbox -- sh -c "echo attack > '$tmpfile'" 2>/dev/null
check "/tmp not a root: write there fails" test ! -e "$tmpfile"

# --- protected paths ---------------------------------------------------------
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org
export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
export GIT_CONFIG_NOSYSTEM=1 HOME="$root"
repo="$root/repo"
git init -q "$repo" && echo one > "$repo/a" && git -C "$repo" add a &&
	git -C "$repo" commit -qm one || { echo "Bail out! git setup failed"; exit 1; }
cp "$repo/.git/config" "$outside/config.before"
prot() {
	"$BACKEND_EXEC" --backend bwrap --root "$root" --cwd "$repo" \
		--protect "$repo/.git/hooks" --protect "$repo/.git/config" \
		--protect "$repo/.vscode" --protect "$repo/.mcp.json" "$@"
}

prot -- sh -c 'printf "#!/bin/sh\ntouch /tmp/pwned\n" > .git/hooks/pre-commit' 2>/dev/null
check "writing a hook fails" test ! -e "$repo/.git/hooks/pre-commit"
prot -- sh -c 'echo "[core] fsmonitor = evil" >> .git/config' 2>/dev/null
check ".git/config stays unchanged" cmp -s "$repo/.git/config" "$outside/config.before"
prot -- sh -c 'mv .git/config .git/c2; echo "[core]" > .git/config' 2>/dev/null
check ".git/config cannot be replaced by rename" cmp -s "$repo/.git/config" "$outside/config.before"
prot -- sh -c 'echo two > a && git add a && git commit -qm two'
check "git commit in a root works with protection on" \
	test "$(git -C "$repo" log --format=%s -1)" = two

# Missing protected paths: the backend makes nothing in their place (no placeholder in the
# user's tree); what the command makes there is undone after the run by the sandbox stage
# (protect.sh drives that through paddock).
rm -rf "$repo/.git/hooks"
prot -- sh -c 'ls -A . .git' >"$outside/seen" 2>&1
check "a missing .git/hooks, .vscode and .mcp.json get no placeholder inside" \
	sh -c "! grep -qx -e hooks -e .vscode -e .mcp.json '$outside/seen'"
check "... nor outside" test ! -e "$repo/.git/hooks" -a ! -e "$repo/.mcp.json" -a ! -e "$repo/.vscode"
prot -- sh -c 'echo three > a && git commit -qam three'
check "git commit works with .git/hooks missing" \
	test "$(git -C "$repo" log --format=%s -1)" = three
# .git moved aside, with the read-only hooks in it, and a copy of the command's own in its
# place: the next git commit outside would run the planted hook. And with .git/hooks missing
# a symlink in .git's place would turn what is undone after the run on files outside. Every
# directory between the root and a protected path is a mount point inside, which cannot be
# moved.
: > "$outside/hooks" && : > "$outside/config"
prot -- sh -c "mv .git .git-old || exit 1; ln -s '$outside' .git" 2>/dev/null
check ".git with a missing protected path in it cannot be moved aside" \
	sh -c "test -d '$repo/.git' -a ! -L '$repo/.git' -a ! -e '$repo/.git-old'"
check "... and the files outside named like them are still there" \
	test -e "$outside/hooks" -a -e "$outside/config"
mkdir "$repo/.git/hooks"
prot -- sh -c 'cp -a .git .git-new && mv .git .git-old && mv .git-new .git &&
	printf "#!/bin/sh\ntouch /tmp/pwned\n" > .git/hooks/pre-commit' 2>/dev/null
check ".git cannot be swapped for a copy with a hook of the command's" \
	sh -c "test ! -e '$repo/.git-old' -a ! -e '$repo/.git/hooks/pre-commit'"
rm -rf "$repo/.git-new"
prot -- sh -c 'mkdir d1 && mv d1 d2'
check "a directory that holds nothing protected still moves" test -d "$repo/d2"
# A root inside another: the directories between them cannot be moved either, or the inner
# root's path would lead elsewhere after the run.
mkdir -p "$root/mid/inner"
"$BACKEND_EXEC" --backend bwrap --root "$root" --root "$root/mid/inner" --cwd "$root" -- \
	sh -c 'mv mid mid2' 2>/dev/null
check "the directory between two roots cannot be moved" test -d "$root/mid/inner"
sandbox -- sh -c 'git init -q fresh && echo x > fresh/x && git -C fresh add x &&
	git -C fresh commit -qm first'
check "git init + commit in a root works" \
	test "$(git -C "$root/fresh" log --format=%s -1 2>/dev/null)" = first

# A directory bound by its path could be swapped for a symlink out of the root between the
# check and bwrap's mount (another run does it, here a process outside): the roots and pins
# are bound by descriptors opened through no symlink, so the swap brings nothing in.
race="$root/race"
mkdir -p "$race/.git/hooks" "$outside/swapped" && : > "$race/.git/config"
# Relative: bwrap resolves a bind's source below the old root, where only such a link leads.
ln -s "$(realpath --relative-to="$race" "$outside/swapped")" "$race/.gitL"
python3 - "$race" <<'PY' &
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
os.chdir(sys.argv[1]); end = time.time() + 60
open("started", "w").close()
while time.time() < end and not os.path.exists("stop"):
    libc.renameat2(-100, b".git", -100, b".gitL", 2)  # RENAME_EXCHANGE
PY
swapper=$!
pids="$pids $swapper"
i=0
while [ ! -e "$race/started" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
i=0
while [ $i -lt 40 ]; do
	"$BACKEND_EXEC" --backend bwrap --root "$race" --cwd "$race" \
		--protect "$race/.git/hooks" --protect "$race/.git/config" -- \
		sh -c "echo in > '$outside/swapped/x$i'" 2>/dev/null
	i=$((i + 1))
done
: > "$race/stop"
wait "$swapper" 2>/dev/null
check "a directory swapped for a symlink while the sandbox is made brings nothing in (40 runs)" \
	sh -c "! ls '$outside/swapped' | grep -q '^x'"
# Should a swap get past bwrap, paddock's look at the sandbox's mounts before the command
# starts finds the writable mount nobody asked for (one is added here by hand) and stops it.
mkdir -p "$outside/injected"
out=$("$BACKEND_EXEC" --backend bwrap --root "$root" --cwd "$root" --inject-bind "$outside/injected" \
	-- sh -c "echo in > '$outside/injected/f'; echo ran" 2>&1)
sleep 0.3 # nor later, once paddock is gone
check "a writable mount nobody asked for stops the command before it starts" \
	sh -c "[ ! -e '$outside/injected/f' ] && echo \"\$0\" | grep -q 'stopped before it started' &&
		! echo \"\$0\" | grep -q '^ran\$'" "$out"

# --- network -----------------------------------------------------------------
listen_log="$outside/listener.log"
: > "$listen_log"
perl -MIO::Socket::INET -e '
	$| = 1;
	my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0,
		Listen => 5, ReuseAddr => 1) or die "listen: $!";
	open(my $p, ">", $ARGV[0] . ".port") or die; print $p $s->sockport, "\n"; close $p;
	open(my $log, ">>", $ARGV[0]) or die; $log->autoflush(1);
	while (my $c = $s->accept) {
		my $l = <$c>;
		print $log "connected: ", ($l // ""), "\n";
		close $c;
	}
' "$listen_log" &
pids="$pids $!"
i=0
while [ ! -s "$listen_log.port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
port=$(cat "$listen_log.port")
connect='use IO::Socket::INET;
	my $c = IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => $ARGV[0],
		Timeout => 3) or exit 3;
	print $c "hello from $ARGV[1]\n"; close $c; exit 0;'
sandbox -- perl -e "$connect" "$port" off
rc=$?
sleep 0.3
check "network off: TCP connect to 127.0.0.1 fails (rc $rc)" test "$rc" -ne 0
check "network off: the listener got nothing" test ! -s "$listen_log"
sandbox --network -- perl -e "$connect" "$port" on
rc=$?
i=0
while ! grep -q "hello from on" "$listen_log" && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
check "network on: the same connect works (rc $rc)" grep -q "hello from on" "$listen_log"

# --- processes ---------------------------------------------------------------
sleep 1000 &
victim=$!
pids="$pids $victim"
sandbox -- sh -c "kill -9 $victim" 2>/dev/null
sleep 0.2
check "kill of an outside process fails, the victim lives" kill -0 "$victim"
sandbox -- sh -c "test ! -e /proc/$victim && test \$(ls /proc | grep -c '^[0-9]') -lt 10"
check "/proc shows no outside processes" test $? -eq 0
sandbox -- sh -c "test -e /proc/\$\$"
check "/proc shows the sandbox's own processes" test $? -eq 0

# A daemon that called setsid: it must be gone when the run is over.
daemon_tag=31$$
sandbox -- sh -c "setsid sh -c 'echo \$\$ > daemon.pid; exec sleep $daemon_tag' \
	</dev/null >/dev/null 2>&1 & sleep 0.3"
i=0
while pgrep -f "sleep $daemon_tag\$" >/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "the setsid daemon was started" test -s "$root/daemon.pid"
check "the setsid daemon is gone after the run" sh -c "! pgrep -f 'sleep $daemon_tag\$' >/dev/null"

# The runner itself killed with SIGKILL: nothing of the sandbox survives it.
orphan_tag=32$$
# Not through sandbox(): $! must be the runner itself, not a subshell.
"$BACKEND_EXEC" --backend bwrap --root "$root" --cwd "$root" \
	-- sh -c "sleep $orphan_tag & echo started > orphan.mark; wait" >/dev/null 2>&1 &
runner=$!
pids="$pids $runner"
i=0
while [ ! -s "$root/orphan.mark" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
check "the command under the runner was started" sh -c "pgrep -f 'sleep $orphan_tag\$' >/dev/null"
kill -9 "$runner"
i=0
while pgrep -f "sleep $orphan_tag\$" >/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "nothing survives the runner's SIGKILL" sh -c "! pgrep -f 'sleep $orphan_tag\$' >/dev/null"

# --- misc --------------------------------------------------------------------
sandbox -- sh -c 'test -z "$(ls /proc/self/fd | grep -v "^[012]$" | grep -v "^3$")"'
check "no fd above 3 (3 is ls's own) reaches the command" test $? -eq 0
sandbox -- sh -c 'grep -q "^CapEff:[[:space:]]*0*$" /proc/self/status &&
	grep -q "^NoNewPrivs:[[:space:]]*1" /proc/self/status &&
	grep -q "^Seccomp:[[:space:]]*2" /proc/self/status'
check "no capabilities, no_new_privs, seccomp filter on" test $? -eq 0

echo "1..$n"
[ "$failed" -eq 0 ]
