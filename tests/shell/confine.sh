#!/bin/sh
# confine.sh - the sandbox through paddock itself, for every Linux backend
# that works here: each attack shows the effect did not happen, next to the
# legitimate twin that works; then the bwrap -> Landlock fallback.
set -u
P=${PADDOCK:-./paddock}
# Nothing here may lie under a default root (/tmp is one): the temp
# directory paddock grants is a private one.
T=$(mktemp -d /var/tmp/pdk-confine.XXXXXX)
PIDS=
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT INT TERM
export XDG_STATE_HOME="$T/state" TMPDIR="$T/tmp" XDG_CACHE_HOME="$T/cache"
# $T is the home: a --write path under it is approved by --yes alone, where one
# outside the home would need the person's password.
export HOME="$T"
n=0
fails=0
check() { # check DESCRIPTION COMMAND...
	d=$1; shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; fails=$((fails + 1)); fi
}
absent() { [ ! -e "$1" ] && [ ! -L "$1" ]; }
. "$(dirname "$0")/retry.sh"

mkdir -p "$T/proj" "$T/outside" "$T/tmp" "$T/cache"
# A TCP listener outside the sandbox that records what reaches it.
python3 - "$T/port" "$T/got" <<'PY' &
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
while True:
    c, _ = s.accept(); data = c.recv(100)
    open(sys.argv[2], "ab").write(data + b"\n"); c.close()
PY
PIDS="$PIDS $!"
i=0; while [ ! -s "$T/port" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
PORT=$(cat "$T/port")
# A unix datagram socket outside the sandbox that records what reaches it.
python3 - "$T/dgram.sock" "$T/dgot" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1])
while True:
    data = s.recv(100)
    open(sys.argv[2], "ab").write(data + b"\n")
PY
PIDS="$PIDS $!"
i=0; while [ ! -S "$T/dgram.sock" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
dgram_sendto() { # dgram_sendto WORD: sendto() WORD to the datagram socket, by its address
	echo "import socket; s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.sendto(b'$1', '$T/dgram.sock')"
}
dgram_sendmsg() { # dgram_sendmsg WORD: sendmsg() WORD to the datagram socket, by its address
	echo "import socket; s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.sendmsg([b'$1'], [], 0, '$T/dgram.sock')"
}
dgram_raw() { # dgram_raw WORD: the same through AF_UNIX SOCK_RAW, a datagram socket too
	echo "import socket; s=socket.socket(socket.AF_UNIX, socket.SOCK_RAW); s.sendmsg([b'$1'], [], 0, '$T/dgram.sock')"
}
dgram_pair() { # dgram_pair WORD: the same from one end of a datagram socketpair
	echo "import socket; a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); a.sendmsg([b'$1'], [], 0, '$T/dgram.sock')"
}
dgram_highpair() { # dgram_highpair WORD: the pair asked for with bits above 32 in its domain
	echo "import ctypes, os, socket; sv = (ctypes.c_int * 2)(); nr = {'x86_64': 53, 'aarch64': 199}[os.uname().machine]; assert ctypes.CDLL(None, use_errno=True).syscall(nr, ctypes.c_ulong(0x100000001), socket.SOCK_DGRAM, 0, sv) == 0; socket.socket(fileno=sv[0]).sendmsg([b'$1'], [], 0, '$T/dgram.sock')"
}
connect() { # connect WORD: send WORD to the listener
	echo "import socket; s=socket.create_connection(('127.0.0.1', $PORT), 2); s.sendall(b'$1')"
}

for b in bwrap landlock; do
	if ! "$P" doctor 2>/dev/null | grep -q "^$b: works here"; then
		echo "ok $((n = n + 1)) - # SKIP backend $b does not work here"
		continue
	fi
	run() { (cd "$T/proj" && "$P" run --backend "$b" "$@"); }
	run -- sh -c "echo x > '$T/outside/f-$b'" >/dev/null
	check "$b: a write outside the roots leaves no file" absent "$T/outside/f-$b"
	run -- sh -c "ln -s '$T/outside' link-$b && echo x > link-$b/g-$b" >/dev/null
	check "$b: a write through a symlink out of the root leaves no file" absent "$T/outside/g-$b"
	run -- sh -c "echo x > ../outside/h-$b" >/dev/null
	check "$b: a write through .. leaves no file" absent "$T/outside/h-$b"
	run -- sh -c "echo x > f-$b" >/dev/null
	check "$b: the same write inside the launch directory works" test -f "$T/proj/f-$b"
	run --yes -w "$T/outside" -- sh -c "echo x > '$T/outside/w-$b'" >/dev/null
	check "$b: --write makes the outside directory writable" test -f "$T/outside/w-$b"
	out=$(run -- touch "$T/outside/hint-$b")
	check "$b: a refused write gets a sandbox: line naming it and --write" sh -c \
		'echo "$0" | grep -q "^sandbox: the sandbox refused a write to $1/hint-.*--write $1\$"' \
		"$out" "$T/outside"
	# Launched from a subdirectory, the repository's .git lies outside the root: the hint
	# must not offer it to --write (hooks and config run code).
	mkdir -p "$T/outside/repo-$b/.git/hooks" "$T/outside/repo-$b/sub"
	out=$(cd "$T/outside/repo-$b/sub" && "$P" run --backend "$b" -- sh -c 'echo x >../.git/hooks/pre-commit')
	check "$b: from a subdirectory, the hint does not offer the repository's .git to --write" sh -c \
		'echo "$0" | grep -q "^sandbox: a write to .*/.git/hooks/pre-commit failed; it is a protected or sensitive path (.git), which paddock never opens" &&
		! echo "$0" | grep -q -- "--write /"' "$out"
	check "$b: ... and the hook was not written" absent "$T/outside/repo-$b/.git/hooks/pre-commit"
	out=$(run --json -- touch "$T/outside/hint-$b")
	check "$b: with --json the refused write is in sandbox_refusals, not notes" python3 -c '
import json, sys
r = json.loads(sys.argv[1])
assert any(sys.argv[2] in h for h in r["sandbox_refusals"]), r
assert not any("refused a write" in n for n in r["notes"]), r' "$out" "$T/outside/hint-$b"
	: > "$T/proj/ro-$b" && chmod 444 "$T/proj/ro-$b"
	if chown 65534 "$T/proj/ro-$b" 2>/dev/null || [ "$(id -u)" -ne 0 ]; then
		out=$(run -- sh -c "echo x > ro-$b")
		check "$b: a refusal inside a root is called only a guess" sh -c \
			'echo "$0" | grep -q "^sandbox: a write to .*ro-.* inside a writable root; this is only a guess"' "$out"
	fi
	run -- python3 -c "$(connect "denied-$b")" >/dev/null 2>&1
	sleep 0.2
	check "$b: with network off the listener got nothing" sh -c "! grep -q denied-$b '$T/got' 2>/dev/null"
	run --yes -n -- python3 -c "$(connect "allowed-$b")" >/dev/null 2>&1
	# The listener writes what it got once it is scheduled: wait for it (10 s at most).
	for _ in $(seq 100); do grep -q "allowed-$b" "$T/got" 2>/dev/null && break; sleep 0.1; done
	check "$b: with --network the same connect arrives" grep -q "allowed-$b" "$T/got"
	for kind in sendto sendmsg raw pair highpair; do
		run -- python3 -c "$(dgram_$kind "d$kind-denied-$b")" >/dev/null 2>&1
		sleep 0.2
		check "$b: with network off a unix datagram ($kind) to an address does not arrive" \
			sh -c "! grep -q d$kind-denied-$b '$T/dgot' 2>/dev/null"
		run --yes -n -- python3 -c "$(dgram_$kind "d$kind-net-$b")" >/dev/null 2>&1
		sleep 0.2
		check "$b: with --network too the same ($kind) does not arrive" \
			sh -c "! grep -q d$kind-net-$b '$T/dgot' 2>/dev/null"
		python3 -c "$(dgram_$kind "d$kind-host-$b")"
		check "$b: sent from outside the sandbox, the same ($kind) arrives" \
			retry 10 grep -q "d$kind-host-$b" "$T/dgot"
	done
	out=$(run -- python3 -c 'import socket
a, b = socket.socketpair()
a.send(b"pair"); print(b.recv(10).decode())' 2>&1)
	check "$b: with network off a stream socketpair still works" \
		sh -c 'echo "$0" | grep -q "^pair$"' "$out"
	out=$(run -- sh -c 'ls /proc/self/fd | tr "\n" " "; readlink /proc/self/fd/0')
	check "$b: only fds 0-2 (and ls's own) reach the command, stdin is /dev/null" \
		sh -c "echo '$out' | grep -q '0 1 2 3 /dev/null'"
	out=$(MY_API_TOKEN=s3cret aws_region=s3cret Deploy_Key=s3cret PLAIN_KEYS=visible \
		run -- env)
	check "$b: secret variables do not reach the command, in any letter case" \
		sh -c "! echo '$out' | grep -q s3cret"
	check "$b: a variable no pattern names does reach it" \
		sh -c "echo '$out' | grep -q '^PLAIN_KEYS=visible\$'"
	out=$(MYSQL_PWD=s3cret DB_PASS=s3cret CI_JOB_JWT=s3cret SENTRY_DSN=s3cret \
		DOCKER_AUTH_CONFIG=s3cret SLACK_WEBHOOK_URL=s3cret \
		DATABASE_URL=postgres://app:s3cret@db/app HOMEPAGE_URL=https://example.org/a@b \
		GIT_AUTHOR_NAME=visible COOKIECUTTER_CONFIG=visible run -- env)
	check "$b: passwords by other names, and URLs with a password, do not reach it" \
		sh -c "! echo '$out' | grep -q s3cret"
	check "$b: ... while PWD, a URL without one and GIT_AUTHOR_NAME do" sh -c \
		"echo '$out' | grep -q '^PWD=' && echo '$out' | grep -q '^HOMEPAGE_URL=https://example.org/a@b\$' &&
		echo '$out' | grep -q '^GIT_AUTHOR_NAME=visible\$' &&
		echo '$out' | grep -q '^COOKIECUTTER_CONFIG=visible\$'"
	out=$(BW_SESSION=s3cret OP_SESSION_my=s3cret SSHPASS=s3cret TS_AUTHKEY=s3cret \
		AUTHORIZATION='Bearer s3cret' LDAP_BIND_PW=s3cret FASTLANE_SESSION=s3cret \
		AZURE_STORAGE_CONNECTION_STRING='DefaultEndpointsProtocol=https;AccountKey=s3cret' \
		MY_ENDPOINT='https://db.example/x?user=a&password=s3cret' \
		SEARCH_URL='https://example.org/?q=key' run -- env)
	check "$b: sessions, auth keys and credentials in a value do not reach it" \
		sh -c "! echo '$out' | grep -q s3cret"
	check "$b: ... while a URL whose query holds no credential does" \
		sh -c "echo '$out' | grep -q '^SEARCH_URL=https://example.org/?q=key\$'"
	out=$(https_proxy=http://u:pw@proxy:3128 run --yes -n -- env)
	check "$b: with the network on, a proxy keeps its password" sh -c \
		"echo '$out' | grep -q '^https_proxy=http://u:pw@proxy:3128\$'"
	out=$(run -- grep CapEff /proc/self/status)
	check "$b: no capabilities" sh -c "echo '$out' | grep -q 'CapEff:	0000000000000000'"
	# Durations no other process on the machine uses, so pgrep finds only these.
	d1=$((3000000 + $$ % 100000 * 2)) d2=$((3000001 + $$ % 100000 * 2))
	run -t 3 -- sh -c "setsid sh -c 'sleep $d1 & exec sleep $d2' & echo started" >/dev/null
	# SIGKILLed by then, gone once the kernel has torn them down: a loaded machine gets 10 s.
	check "$b: a setsid daemon does not outlive the run" \
		retry 10 sh -c "! pgrep -f '^sleep ($d1|$d2)\$' >/dev/null"
	# paddock started with its stdin, stdout and stderr closed: the guardian's socket and
	# lock must not land on them, or the run is killed as soon as it starts.
	(cd "$T/proj" && "$P" run --backend "$b" -- sh -c "sleep 0.3; echo alive >stdio-$b") \
		<&- >&- 2>&-
	check "$b: with paddock's own stdio closed the command runs to its end" \
		grep -qx alive "$T/proj/stdio-$b"

	# Missing protected paths: nothing stands in their place while a run lasts, and the
	# command cannot make them either (refused at once), nor after paddock's SIGKILL.
	mkdir -p "$T/ph-$b"
	(cd "$T/ph-$b" && exec "$P" run --backend "$b" -- sh -c 'mkdir -p .vscode/x; echo >tried
		exec sleep 30') >/dev/null 2>&1 &
	pk=$!
	i=0
	while [ ! -e "$T/ph-$b/tried" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	check "$b: while a run lasts, the tree holds only what the command made" \
		test "$(ls -A "$T/ph-$b")" = tried
	kill -9 "$pk"
	wait "$pk" 2>/dev/null
	check "$b: ... and after paddock's SIGKILL the missing path is still missing" \
		test ! -e "$T/ph-$b/.vscode"
	rm -f "$T/ph-$b/tried"
	# Without a usable state directory no journal can be kept: the run still runs,
	# confined.
	: >"$T/state-file"
	out=$(cd "$T/ph-$b" && XDG_STATE_HOME="$T/state-file" "$P" run --backend "$b" -- \
		sh -c 'echo made >.vscode; echo done' 2>&1)
	check "$b: with the state directory a file, a run still works" \
		sh -c 'echo "$0" | grep -q "^done$"' "$out"
	check "$b: ... and leaves nothing behind" sh -c '! ls -A "$0" | grep -q .' "$T/ph-$b"

	# The configuration's writablePaths, protected_paths and env, each next to its twin.
	mkdir -p "$T/cfgw-$b" "$T/proj/keep-$b"
	cat >"$T/cfg-$b.json" <<-EOF
		{ "commandPolicy": { "sandbox": { "writablePaths": ["$T/cfgw-$b"] } },
		  "protected_paths": ["keep-$b"], "env": ["PDK_PRIVATE_*", "PDK_CLS[[:upper:]]X"] }
	EOF
	run --yes --config "$T/cfg-$b.json" -- sh -c "echo x > '$T/cfgw-$b/w'" >/dev/null
	check "$b: a configured writablePaths entry is writable" test -f "$T/cfgw-$b/w"
	run -- sh -c "echo x > '$T/cfgw-$b/v'" >/dev/null
	check "$b: ... and without that configuration it is not" absent "$T/cfgw-$b/v"
	out=$(PDK_PRIVATE_X=hidden-$b PDK_PUBLIC_X=shown-$b run --yes --config "$T/cfg-$b.json" -- env)
	check "$b: a configured env pattern hides a variable, and only that one" sh -c \
		'! echo "$0" | grep -q "hidden-$1" && echo "$0" | grep -q "shown-$1"' "$out" "$b"
	out=$(PDK_CLSQX=hidden-$b PDK_CLS7X=shown-$b run --yes --config "$T/cfg-$b.json" -- env)
	check "$b: a pattern with a character class matches as fnmatch does" sh -c \
		'! echo "$0" | grep -q "hidden-$1" && echo "$0" | grep -q "shown-$1"' "$out" "$b"
	long=$(printf '%0300d' 0 | tr 0 L)_KEY
	out=$(export "$long=hidden-$b" PDK_SHORT_NAME="shown-$b" && run -- env)
	check "$b: a variable named past 255 bytes stays out, a short one gets through" sh -c \
		'! echo "$0" | grep -q "hidden-$1" && echo "$0" | grep -q "shown-$1"' "$out" "$b"
	if [ "$b" = bwrap ]; then
		run --yes --config "$T/cfg-$b.json" -- sh -c "echo x > keep-$b/f" >/dev/null
		check "$b: a configured protected path stays read-only inside the root" \
			absent "$T/proj/keep-$b/f"
		run -- sh -c "echo x > keep-$b/g" >/dev/null
		check "$b: ... and without that configuration it is writable" test -f "$T/proj/keep-$b/g"
	fi

	# paddock started in the home: its state, configuration and output store, and the trash,
	# lie in the launch directory. What paddock trusts after the run must stay out of the
	# command's reach: no configuration planted, no directory on the way to them moved, no
	# symlink put in the trash's place for the rm sweep to follow out of the roots.
	H=$T/home-$b
	mkdir -p "$H/.config/paddock" "$H/.local/share"
	echo "{ \"output\": { \"storeDir\": \"$H/store\" } }" > "$H/.config/paddock/config.json"
	cp "$H/.config/paddock/config.json" "$T/home-cfg-$b"
	out=$(cd "$H" && HOME=$H XDG_STATE_HOME=$H/.local/state XDG_CACHE_HOME=$H/.cache \
		"$P" run --yes --backend "$b" -- sh -c "
			echo '{}' > .config/paddock/config.json; mv .config .config.x
			mv .local/share .local/share.x; rm -rf .local/share/Trash
			ln -s '$T/outside' .local/share/Trash; ln -s '$T/outside' store/evil
			echo x > $b-ran; rm $b-ran" 2>&1)
	if [ "$b" = bwrap ]; then
		check "$b: from the home, the configuration cannot be replaced" \
			cmp -s "$H/.config/paddock/config.json" "$T/home-cfg-$b"
		check "$b: ... nor the directories on the way to it and to the trash moved" \
			sh -c "test ! -e '$H/.config.x' -a ! -e '$H/.local/share.x'"
		check "$b: ... nor a symlink put in the trash's place or in the output store" \
			sh -c "test -d '$H/.local/share/Trash' -a ! -L '$H/.local/share/Trash' \
				-a ! -e '$H/store/evil' -a ! -e '$T/outside/files'"
		check "$b: ... while rm still sends a file of the run to that trash" \
			test -e "$H/.local/share/Trash/files/$b-ran"
	else
		check "$b: from the home, the run is refused, naming what paddock trusts there" sh -c \
			'echo "$0" | grep -q "cannot keep $1/.* read-only inside the writable root $1;\\?.*trusts it after the run"' \
			"$out" "$H"
		check "$b: ... and the command did not run" absent "$H/$b-ran"
		out=$(cd "$H" && HOME=$H XDG_STATE_HOME=$T/state XDG_CONFIG_HOME=$T/config \
			XDG_DATA_HOME=$T/data XDG_CACHE_HOME=$H/.cache \
			"$P" run --config "$T/home-cfg-$b" --backend "$b" -- true 2>&1)
		check "$b: ... the output store alone is reason enough" sh -c \
			'echo "$0" | grep -q "cannot keep $1/store read-only"' "$out" "$H"
	fi
	# The way to what paddock trusts must not run through a symlink the command could point
	# elsewhere (a dotfiles link, say), and no root may lie inside it.
	L=$T/link-$b
	mkdir -p "$L/proj" "$L/dotfiles/paddock" "$L/.config"
	ln -s ../dotfiles/paddock "$L/.config/paddock"
	out=$(cd "$L" && HOME=$L XDG_CONFIG_HOME= "$P" run --backend "$b" -- true 2>&1)
	check "$b: a symlink inside a root on the way to the configuration refuses the run" sh -c \
		'echo "$0" | grep -q "is reached through the symlink $1/.config/paddock inside the writable root $1"' \
		"$out" "$L"
	out=$(cd "$L/proj" && HOME=$L XDG_CONFIG_HOME= "$P" run --backend "$b" -- echo ran 2>&1)
	check "$b: ... and from a project beside it the run goes ahead" sh -c \
		'echo "$0" | grep -qx ran' "$out"
	mkdir -p "$XDG_STATE_HOME/paddock/sessions"
	out=$(run --yes -w "$XDG_STATE_HOME/paddock/sessions" -- true 2>&1)
	check "$b: a writable root inside paddock's state is refused" sh -c \
		'echo "$0" | grep -q "the writable root $1 lies in"' "$out" "$XDG_STATE_HOME/paddock/sessions"

	# git's own ways to run code: a commondir or config.worktree the command makes goes to the
	# trash after the run (a placeholder cannot hold them: git would fail on it), under both.
	G=$T/git-$b
	git init -q "$G"
	out=$(cd "$G" && "$P" run --backend "$b" -- sh -c \
		'echo ../evil > .git/commondir; printf "[core]\n" > .git/config.worktree; echo made')
	check "$b: a .git/commondir the command made is gone after the run, and it says so" sh -c \
		'[ ! -e "$1/.git/commondir" ] && [ ! -e "$1/.git/config.worktree" ] &&
		echo "$0" | grep -q "^sandbox: the command made $1/.git/commondir, $1/.git/config.worktree, at protected names"' \
		"$out" "$G"
	check "$b: ... while the repository still works" git -C "$G" status --short
	: >"$T/notadir"
	out=$(cd "$G" && XDG_DATA_HOME=$T/notadir "$P" run --backend "$b" -- sh -c 'echo ../evil > .git/commondir')
	check "$b: ... and deleted when the trash would not take it" sh -c \
		'[ ! -e "$1/.git/commondir" ] && echo "$0" | grep -q "(deleted: the trash would not take it"' "$out" "$G"
	if [ "$b" = bwrap ]; then
		# A submodule's git directory holds hooks and configuration too.
		mkdir -p "$G/.git/modules/sub/hooks" && echo "ref: refs/heads/main" >"$G/.git/modules/sub/HEAD" &&
			: >"$G/.git/modules/sub/config"
		(cd "$G" && "$P" run --backend "$b" -- sh -c \
			'echo "[core] fsmonitor = evil" >> .git/modules/sub/config; touch .git/modules/sub/hooks/pre-commit') \
			>/dev/null 2>&1
		check "$b: a submodule's hooks stay read-only, its config free of what runs a program" \
			sh -c "[ ! -s '$G/.git/modules/sub/config' ] && [ ! -e '$G/.git/modules/sub/hooks/pre-commit' ]"
		# A worktree's .git is a gitdir: file, held read-only; a symlinked .git cannot be held.
		W2=$T/wt-$b
		mkdir -p "$W2" && echo "gitdir: $G/.git" >"$W2/.git"
		(cd "$W2" && "$P" run --backend "$b" -- sh -c 'echo "gitdir: /tmp" > .git') >/dev/null 2>&1
		check "$b: a gitdir: file stays as it was" grep -qx "gitdir: $G/.git" "$W2/.git"
		# ... and the repository it names, when a root holds it, is held as the .git it stands for.
		S=$T/sep-$b
		git init -q --separate-git-dir="$S/.repo" "$S"
		(cd "$S" && "$P" run --backend "$b" -- sh -c 'echo x > .repo/hooks/pre-commit; printf "[core]\\n\\tfsmonitor = evil\\n" >> .repo/config') \
			>/dev/null 2>&1
		check "$b: the repository a gitdir: file names keeps its hooks and config" \
			sh -c "[ ! -e '$S/.repo/hooks/pre-commit' ] && ! grep -q fsmonitor '$S/.repo/config'"
		# Should a swap during bwrap's set-up move a bind elsewhere (a wrapper moves it here,
		# deterministically), the look at the sandbox stops the command before it starts:
		# the pin of .git, or the read-only bind of its hooks.
		mkdir -p "$G/elsewhere" "$G/.git/x"
		for moved in .git:elsewhere .git/hooks:.git/x; do
			cat >"$T/fakebwrap" <<-EOF
				#!/bin/sh
				for a do shift; [ "\$a" = "$G/${moved%%:*}" ] && a="$G/${moved#*:}"; set -- "\$@" "\$a"; done
				exec $(command -v bwrap) "\$@"
			EOF
			chmod +x "$T/fakebwrap"
			echo "{ \"commandPolicy\": { \"sandbox\": { \"bwrap\": \"$T/fakebwrap\" } } }" >"$T/fake.json"
			out=$(cd "$G" && "$P" run --yes --config "$T/fake.json" --backend "$b" -- sh -c 'echo ran' 2>&1)
			check "$b: a bind of ${moved%%:*} made elsewhere stops the command before it starts" sh -c \
				'echo "$0" | grep -q "bwrap did not make the sandbox asked for" && ! echo "$0" | grep -qx ran' "$out"
		done
		rm "$W2/.git" && ln -s "$G/.git" "$W2/.git"
		out=$(cd "$W2" && "$P" run --backend "$b" -- echo ran 2>&1)
		check "$b: a .git that is a symlink refuses the run, saying why" sh -c \
			'echo "$0" | grep -q "$1/.git is a symlink" && ! echo "$0" | grep -qx ran' "$out" "$W2"
	fi
done

# A host mount below a directory the user cannot search (Docker's, another user's) stays
# writable in bwrap's sandbox, which cannot make it read-only, and out of the command's reach:
# no reason to refuse an unprivileged run.
if [ "$(id -u)" = 0 ] && "$P" doctor 2>/dev/null | grep -q "^bwrap: works here" &&
	command -v setpriv >/dev/null && unshare -m --propagation private true 2>/dev/null; then
	NB=$(mktemp -d /var/tmp/pdk-nb.XXXXXX) && chmod 755 "$NB" && mkdir -m 777 "$NB/nb"
	out=$(unshare -m --propagation private sh -c '
		mkdir -p "$1/hid/inner" && chmod 700 "$1/hid" && mount -t tmpfs pdk "$1/hid/inner" &&
		cd "$1/nb" && exec setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$1/nb" \
			XDG_STATE_HOME="$1/nb/state" XDG_CACHE_HOME="$1/nb/cache" TMPDIR="$1/nb" \
			"$2" run --backend bwrap -- echo ran' sh "$NB" "$P" 2>&1)
	rm -rf "$NB"
	check "bwrap: an unprivileged run goes ahead beside a host mount it cannot reach" sh -c \
		'echo "$0" | grep -qx ran' "$out"
fi

# Fallback: where bubblewrap cannot make namespaces, Landlock confines and
# the result says so once.
if "$P" doctor 2>/dev/null | grep -q "^landlock: works here" && command -v unshare >/dev/null &&
	unshare -U -r true 2>/dev/null; then
	fallback() { # fallback PADDOCK-ARGS...: paddock where bwrap cannot make namespaces
		(cd "$T/proj" && unshare -U -r sh -c 'echo 0 > /proc/sys/user/max_user_namespaces
			exec setpriv --inh-caps=-all --bounding-set=-all "$@"' sh "$P" "$@" 2>&1)
	}
	out=$(fallback run -- sh -c "echo x > '$T/outside/fb'; echo once >> '$T/proj/fb-count'; echo ran")
	check "fallback: the command ran" sh -c 'echo "$0" | grep -q "^ran$"' "$out"
	check "fallback: it ran once, not once per backend" \
		sh -c '[ "$(cat "$0")" = once ]' "$T/proj/fb-count"
	check "fallback: one sandbox: line, with bwrap's own error, says Landlock confined it" \
		sh -c '[ "$(echo "$0" | grep -c "^sandbox:")" = 1 ] && echo "$0" | grep -q \
			"^sandbox: bwrap cannot run here (bwrap: Creating new namespace failed: .*); confined with landlock instead$"' "$out"
	check "fallback: what bwrap printed is not in the command's output" \
		sh -c '! echo "$0" | grep -v "^sandbox:" | grep -q "namespace"' "$out"
	check "fallback: still confined (no file outside)" absent "$T/outside/fb"
	out=$(fallback run --backend bwrap -- sh -c "echo once >> '$T/proj/fb-named'")
	rc=$?
	check "fallback: --backend bwrap there is refused (exit 125), naming bwrap's error" \
		sh -c '[ "$1" = 125 ] && echo "$0" | grep -q "backend bwrap does not work here: bwrap: Creating new namespace failed"' "$out" "$rc"
	check "fallback: and the command did not run" absent "$T/proj/fb-named"
else
	echo "ok $((n = n + 1)) - # SKIP fallback: needs Landlock and unprivileged user namespaces"
fi

# Run as root, the same attacks once more as an unprivileged user (nobody), where that user can
# reach the built binary and this script.
if [ "$(id -u)" -eq 0 ] && [ -z "${PDK_CONFINE_UNPRIVILEGED:-}" ] && command -v setpriv >/dev/null; then
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all "$@"; }
	self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
	if as_nobody test -x "$P" -a -r "$self"; then
		out=$(cd / && PDK_CONFINE_UNPRIVILEGED=1 as_nobody sh "$self" 2>&1)
		rc=$?
		printf '%s\n' "$out" | sed 's/^/# as nobody: /'
		check "the same attacks as an unprivileged user (uid 65534) all fail ($(printf '%s\n' \
			"$out" | grep -c '^ok') checks)" test "$rc" -eq 0
	else
		echo "ok $((n = n + 1)) - # SKIP unprivileged run: uid 65534 cannot reach $P or $self"
	fi
fi

echo "1..$n"
[ "$fails" -eq 0 ]
