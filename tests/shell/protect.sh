#!/bin/sh
# protect.sh - attacks on what paddock keeps from the command in and around the writable
# roots: doctor's probe files, protected names the command creates, overlapping runs.
# Each attack checks the effect did not happen, next to its twin that works.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || { echo "1..0 # SKIP python3 missing"; exit 0; }
P=$PADDOCK
fresh_state
# The default roots apart from the projects: a private temp and cache directory, and a trash
# of the test's own.
mkdir -p "$T/tmp" "$T/cache" "$T/data"
export TMPDIR="$T/tmp" XDG_CACHE_HOME="$T/cache" XDG_DATA_HOME="$T/data" XDG_CONFIG_HOME="$T/config"
absent() { [ ! -e "$1" ] && [ ! -L "$1" ]; }
# A project: a git repository with one commit, .git/hooks as git makes it.
mkrepo() {
	git init -q "$1" && git -C "$1" config user.email t@e.st && git -C "$1" config user.name t &&
		echo one >"$1/a" && git -C "$1" add a && git -C "$1" commit -qm one
}
# Nothing but what git tracks, ignored files included.
clean_tree() { [ -z "$(git -C "$1" status --porcelain --ignored)" ]; }
# wait_gone PATH...: until none of them exists, up to 20 s (a guardian finishing).
wait_gone() {
	i=0
	for f in "$@"; do
		while [ -e "$f" ] || [ -L "$f" ]; do
			i=$((i + 1))
			[ $i -gt 400 ] && return 1
			sleep 0.05
		done
	done
}
journals() { ls -A "$XDG_STATE_HOME/paddock/runs" 2>/dev/null | grep -c .; }

# --- doctor's probe ------------------------------------------------------
# A process of the same user (a confined command has /tmp as a root) swaps doctor's probe
# file for a symlink to a file of the user's, as fast as it can: doctor must act on the
# file it made, never on what the name points at.
if [ -z "${PROTECT_SKIP_DOCTOR:-}" ] && "$P" doctor 2>/dev/null | grep -q "^landlock: works here"; then
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

# --- missing protected paths -----------------------------------------------
backends=
for b in bwrap landlock; do
	"$P" doctor 2>/dev/null | grep -q "^$b: works here" && backends="$backends $b"
done
command -v git >/dev/null || backends=

for b in $backends; do
	fresh_state
	R=$T/miss-$b
	mkrepo "$R"
	rm -rf "$R/.git/hooks"
	# While the run lasts nothing of paddock's is in the tree, nor a directory of the command's
	# at a protected name; after the run nothing of the command's there at all.
	(cd "$R" && exec "$P" run --backend "$b" -- sh -c 'echo go > '"$T/go-$b"'; mkdir -p .vscode .git/hooks;
		echo evil > .vscode/tasks.json; printf "#!/bin/sh\necho pwned\n" > .git/hooks/pre-commit;
		chmod +x .git/hooks/pre-commit; echo "{}" > .mcp.json; echo evil > .bashrc; echo legit > b;
		while [ ! -e '"$T/stop-$b"' ]; do sleep 0.05; done') >"$T/out" 2>"$T/err" </dev/null &
	pr=$!
	wait_for_file "$T/go-$b"
	check "$b: while a run lasts, nothing of paddock's is in the tree" \
		test "$(git -C "$R" status --porcelain --ignored | grep -v -e '^?? \.vscode/$' \
			-e '^?? \.mcp\.json$' -e '^?? \.bashrc$' -e '^?? b$' | wc -l)" = 0
	touch "$T/stop-$b"
	wait $pr
	check "$b: after the run what the command made at protected names is gone" sh -c \
		"[ ! -e '$R/.vscode' ] && [ ! -e '$R/.git/hooks' ] && [ ! -e '$R/.mcp.json' ] && [ ! -e '$R/.bashrc' ]"
	check "$b: ... its legitimate twin stays" grep -qx legit "$R/b"
	# They are missing while their directory is there: each is refused at once (EPERM), the
	# directories and the files open() would make alike, so nothing goes to the trash after.
	check "$b: ... the directories were refused at once, as the command's errors say" sh -c \
		"grep -q \"directory .*\\.vscode.*Operation not permitted\" '$T/out' &&
		grep -q \"directory .*\\.git/hooks.*Operation not permitted\" '$T/out'"
	check "$b: ... and the files, by open()" sh -c \
		"grep -q \"\\.mcp\\.json: Operation not permitted\" '$T/out' &&
		grep -q \"\\.bashrc: Operation not permitted\" '$T/out'"
	check "$b: ... so nothing of theirs went to the trash" \
		test ! -e "$XDG_DATA_HOME/Trash/files/.mcp.json"
	rm -f "$R/b"
	check "$b: ... the tree is as git left it, and no journal stays" sh -c \
		"[ -z \"\$(git -C '$R' status --porcelain --ignored)\" ] && [ \"\$(ls -A '$XDG_STATE_HOME/paddock/runs' 2>/dev/null)\" = '' ]"
	out=$(cd "$R" && git commit -q --allow-empty -m two 2>&1)
	check "$b: ... and the user's next git commit runs no hook of the command's" \
		sh -c '! echo "$0" | grep -q pwned' "$out"
done

# Protected paths that are there: held read-only (bwrap; Landlock in the run's mount
# namespace), and, where the backend cannot hold them, put back after the run, and after
# paddock's SIGKILL: what the command changed there, and what it added, goes to the trash.
for b in $backends; do
	fresh_state
	R=$T/held-$b
	mkrepo "$R"
	mkdir -p "$R/.vscode" "$R/.idea"
	echo '{"tasks": []}' >"$R/.vscode/tasks.json"
	echo 'alias ll="ls -l"' >"$R/.bashrc"
	echo '{}' >"$R/.mcp.json"
	echo ok >"$R/.idea/workspace.xml"
	cp -a "$R" "$T/held-before-$b"
	(cd "$R" && exec "$P" run --backend "$b" -- sh -c 'echo "touch pwned" >>.bashrc
		echo "{\"tasks\": [\"evil\"]}" >.vscode/tasks.json; echo evil >.vscode/extra.json
		echo "{\"mcpServers\": {}}" >.mcp.json; rm -f .idea/workspace.xml; echo legit >b
		true') >"$T/out" 2>"$T/err" </dev/null
	check "$b: protected paths that are there are as before the run" sh -c \
		"diff -r '$T/held-before-$b/.vscode' '$R/.vscode' && cmp '$T/held-before-$b/.bashrc' '$R/.bashrc' &&
		cmp '$T/held-before-$b/.mcp.json' '$R/.mcp.json' && [ ! -e '$R/.vscode/extra.json' ]"
	check "$b: ... while the legitimate twin stays" grep -qx legit "$R/b"
	# Held for the whole run (Landlock: by a bind in the run's mount namespace), so the
	# write fails as it happens and there is nothing to put back.
	check "$b: ... the write failed as it happened" grep -q '\.bashrc: Read-only file system' "$T/out"
	# paddock SIGKILLed while the command's .bashrc is there: the guardian puts it back.
	(cd "$R" && exec "$P" run --backend "$b" -- sh -c 'echo "touch pwned" >>.bashrc; exec sleep 29.7714') \
		>/dev/null 2>&1 </dev/null &
	pk=$!
	i=0
	sleep 0.3
	kill -9 $pk
	wait $pk 2>/dev/null
	i=0
	while ! cmp -s "$R/.bashrc" "$T/held-before-$b/.bashrc" && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
	check "$b: after paddock's SIGKILL the .bashrc the command wrote is put back" \
		cmp -s "$R/.bashrc" "$T/held-before-$b/.bashrc"
done

# .git/config: writable for what git's everyday commands set, put back when the command set
# what makes the user's git run a program; the command's version is kept in the trash.
for b in $backends; do
	fresh_state
	R=$T/cfg-$b
	mkrepo "$R"
	(cd "$R" && exec "$P" run --backend "$b" -- sh -c 'git config user.email new@e.st &&
		git remote add up https://example.org/x.git && git config branch.master.remote up &&
		echo configured') >"$T/out" 2>"$T/err" </dev/null
	check "$b: git config and git remote add work in a run" grep -qx configured "$T/out"
	check "$b: ... and what they set stays" sh -c \
		"[ \"\$(git -C '$R' config user.email)\" = new@e.st ] && git -C '$R' remote | grep -qx up"
	check "$b: ... with no note of anything undone" sh -c "! grep -q '^sandbox: the command' '$T/out'"
	for setting in "core.fsmonitor=touch $T/pwned-$b" "alias.st=!touch $T/pwned-$b" \
		"core.hooksPath=$T" "includeIf.onbranch:master.path=$T/inc" "diff.x.textconv=touch $T/pwned-$b"; do
		key=${setting%%=*}
		cp "$R/.git/config" "$T/config.before"
		(cd "$R" && exec "$P" run --backend "$b" -- git config "$key" "${setting#*=}") \
			>"$T/out" 2>"$T/err" </dev/null
		check "$b: $key set by the command is undone after the run" cmp -s "$R/.git/config" "$T/config.before"
		check "$b: ... the result says so, naming it" grep -qi "^sandbox: the command set $key in $R/.git/config" "$T/out"
	done
	git -C "$R" status >/dev/null 2>&1
	check "$b: ... the user's git status ran none of them" test ! -e "$T/pwned-$b"
	check "$b: ... and the command's versions are in the trash" \
		test "$(ls "$XDG_DATA_HOME/Trash/files" | grep -c '^config')" -ge 5
	# An alias that runs git, not a program, is the command's to set.
	(cd "$R" && exec "$P" run --backend "$b" -- git config alias.co checkout) >/dev/null 2>&1
	check "$b: ... while a plain alias stays" test "$(git -C "$R" config alias.co)" = checkout
	# paddock SIGKILLed after the command set core.fsmonitor: the guardian puts it back.
	cp "$R/.git/config" "$T/config.before"
	(cd "$R" && exec "$P" run --backend "$b" -- sh -c "git config core.fsmonitor 'touch $T/pwned-$b'; exec sleep 29.7713") \
		>/dev/null 2>&1 </dev/null &
	pk=$!
	i=0
	while ! grep -q fsmonitor "$R/.git/config" && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	kill -9 $pk
	wait $pk 2>/dev/null
	i=0
	while ! cmp -s "$R/.git/config" "$T/config.before" && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
	check "$b: after paddock's SIGKILL its guardian undoes core.fsmonitor" cmp -s "$R/.git/config" "$T/config.before"
	i=0
	while [ "$(journals)" != 0 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	check "$b: ... and leaves no journal" test "$(journals)" = 0
done

# The home directory as the root: the start-up files of shells, git, ssh and the desktop, and
# the prompt's cache, each checked by running the host's shell and git after the run, and
# after paddock's SIGKILL. paddock's own directories lie outside it here, so that Landlock
# takes such a root too.
home_attack='mkdir -p .ssh .local/bin .config/systemd/user .config/autostart .config/git
	for f in .zshenv .zlogin .bash_login .bashrc .profile; do echo "touch $PW.$f" >> $f; done
	printf "[core]\n\tfsmonitor = touch $PW.gitconfig\n" >> .gitconfig
	printf "[core]\n\tfsmonitor = touch $PW.xdggit\n" > .config/git/config
	echo "ssh-ed25519 AAAA evil" >> .ssh/authorized_keys
	printf "#!/bin/sh\ntouch $PW.bin\n" > .local/bin/git; chmod +x .local/bin/git
	echo "[Service]" > .config/systemd/user/evil.service
	echo "[Desktop Entry]" > .config/autostart/evil.desktop
	echo "touch $PW.p10k" > "$XDG_CACHE_HOME/p10k-instant-prompt-$USER.zsh"
	echo "touch $PW.legit" > legit.sh'
home_check() { # home_check B WHEN: the host's shell and git run nothing of the command's
	H=$1
	env -i HOME="$H" PATH="$H/.local/bin:/usr/bin:/bin" USER="$USER" bash -l -c true </dev/null >/dev/null 2>&1
	env -i HOME="$H" PATH="$H/.local/bin:/usr/bin:/bin" bash -i -c true </dev/null >/dev/null 2>&1
	env -i HOME="$H" PATH="$H/.local/bin:/usr/bin:/bin" sh -c "cd '$T/hrepo' && git status" >/dev/null 2>&1
	[ ! -e "$T/pw.$2.gitconfig" ] && [ ! -e "$T/pw.$2.xdggit" ] && [ ! -e "$T/pw.$2.bin" ] &&
		! ls "$T"/pw."$2".* >/dev/null 2>&1 &&
		[ ! -e "$H/.ssh/authorized_keys" ] && [ ! -e "$H/.config/systemd" ] &&
		[ ! -e "$H/.config/autostart" ] && [ ! -e "$H/.local/bin/git" ] &&
		[ ! -e "$XDG_CACHE_HOME/p10k-instant-prompt-$USER.zsh" ]
}
mkrepo "$T/hrepo"
export USER="${USER:-$(id -un)}"
for b in $backends; do
	fresh_state
	H=$T/home-$b
	mkdir -p "$H/.config" "$H/.local"
	(cd "$H" && HOME=$H PW=$T/pw.run-$b exec "$P" run --yes --backend "$b" -- sh -c "$home_attack") \
		>"$T/out" 2>"$T/err" </dev/null
	check "$b: HOME as the root: the command's start-up files are undone, the host's shell and git run none" \
		home_check "$H" "run-$b"
	check "$b: ... while its other files stay" test -s "$H/legit.sh"
	check "$b: ... and the result says so" grep -q "^sandbox: the command made .*$H/.zshenv" "$T/out"
	rm -rf "$H"
	mkdir -p "$H/.config" "$H/.local"
	(cd "$H" && HOME=$H PW=$T/pw.kill-$b exec "$P" run --yes --backend "$b" -- sh -c "$home_attack; echo > '$T/made-$b'; exec sleep 29.7713") \
		>/dev/null 2>&1 </dev/null &
	pk=$!
	wait_for_file "$T/made-$b"
	kill -9 $pk
	wait $pk 2>/dev/null
	i=0
	while [ "$(journals)" != 0 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
	check "$b: ... and after paddock's SIGKILL too" home_check "$H" "kill-$b"
done

# The home directory as the root with paddock's own directories in it, still to be made (bwrap;
# Landlock refuses such a root): what paddock makes for itself is not taken for the command's,
# while the command's own start-up files below them are still undone.
case " $backends " in *" bwrap "*)
	H=$T/home-own
	mkdir -p "$H"
	(cd "$H" && exec env -u XDG_STATE_HOME -u XDG_CONFIG_HOME -u XDG_DATA_HOME HOME="$H" \
		"$P" run --yes --backend bwrap -- sh -c \
		'echo x > legit; mkdir -p .local/bin; echo evil > .local/bin/git; echo ran') \
		>"$T/out" 2>"$T/err" </dev/null
	check "bwrap: HOME as the root, paddock's directories made in it: the run works" grep -qx ran "$T/out"
	check "bwrap: ... its configuration and state directories stay" \
		test -d "$H/.config/paddock" -a -d "$H/.local/state/paddock"
	check "bwrap: ... the command's .local/bin is undone, its other file stays" \
		sh -c "test ! -e '$H/.local/bin' && grep -qx x '$H/legit'"
	check "bwrap: ... and the result names only what the command made" sh -c \
		"grep '^sandbox: the command made' '$T/out' | grep -q '$H/.local/bin' &&
		! grep '^sandbox: the command made' '$T/out' | grep -q -e '$H/.config' -e '$H/.local,'"
	;;
esac

# Parallel runs over four roots: every one succeeds, nothing is left behind.
for b in $backends; do
	for count in 8 64; do
		fresh_state
		for k in 1 2 3 4; do
			rm -rf "$T/par$k"
			mkrepo "$T/par$k"
		done
		i=0
		pids=
		while [ $i -lt $count ]; do
			k=$((i % 4 + 1))
			(cd "$T/par$k" && exec "$P" run --backend "$b" -- sh -c 'git status --short >/dev/null && echo ran') \
				>"$T/par.out.$i" 2>&1 </dev/null &
			pids="$pids $!"
			i=$((i + 1))
		done
		bad=0
		for p in $pids; do wait "$p" || bad=$((bad + 1)); done
		check "$b: $count runs at once over 4 roots all succeed ($bad failed)" test $bad = 0
		i=0
		good=0
		while [ $i -lt $count ]; do
			grep -qx ran "$T/par.out.$i" && good=$((good + 1))
			i=$((i + 1))
		done
		check "$b: ... and each ran its command ($good of $count)" test $good = $count
		check "$b: ... nothing is left in the roots, nor a journal" sh -c \
			"for k in 1 2 3 4; do [ -z \"\$(git -C '$T'/par\$k status --porcelain --ignored)\" ] || exit 1; done;
			[ \"\$(ls -A '$XDG_STATE_HOME/paddock/runs' 2>/dev/null)\" = '' ]"
	done
done

# Overlapping runs racing to make a hook and an editor's tasks: nothing survives them.
for b in $backends; do
	fresh_state
	R=$T/race-$b
	mkrepo "$R"
	rm -rf "$R/.git/hooks"
	i=0
	pids=
	while [ $i -lt 6 ]; do
		(cd "$R" && exec "$P" run --backend "$b" -- sh -c 'j=0; while [ $j -lt 40 ]; do
			mkdir -p .git/hooks .vscode 2>/dev/null; printf "#!/bin/sh\necho pwned\n" > .git/hooks/pre-commit 2>/dev/null;
			chmod +x .git/hooks/pre-commit 2>/dev/null; echo evil > .vscode/tasks.json 2>/dev/null;
			j=$((j + 1)); sleep 0.01; done; true') >/dev/null 2>&1 </dev/null &
		pids="$pids $!"
		sleep 0.1
		i=$((i + 1))
	done
	for p in $pids; do wait "$p"; done
	check "$b: overlapping runs racing for .git/hooks and .vscode leave neither" sh -c \
		"[ ! -e '$R/.git/hooks/pre-commit' ] && [ ! -e '$R/.vscode/tasks.json' ]"
	check "$b: ... and the tree is clean" clean_tree "$R"
done

# paddock SIGKILLed at random points of a run: its guardian finishes what it started. The
# command's sleep is told apart from any other suite's by this shell's pid.
SL=29.$$
for b in $backends; do
	fresh_state
	R=$T/kill-$b
	mkrepo "$R"
	bad=0
	for d in 0 0.05 0.1 0.2 0.3 0.5 0.8 1.2; do
		(cd "$R" && exec "$P" run --backend "$b" -- sh -c \
			'mkdir -p .vscode; echo evil > .vscode/tasks.json; echo "{}" > .mcp.json; exec sleep '"$SL") \
			>/dev/null 2>&1 </dev/null &
		pk=$!
		sleep $d
		kill -9 $pk
		wait $pk 2>/dev/null
		wait_gone "$R/.vscode" "$R/.mcp.json" || bad=$((bad + 1))
	done
	check "$b: paddock SIGKILLed at 8 points: what the command made goes ($bad stayed)" test $bad = 0
	i=0
	while [ "$(journals)" != 0 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	check "$b: ... no journal stays" test "$(journals)" = 0
	# Killed, a process may take a moment to go on a loaded machine; its sleep would last 30 s.
	i=0
	while pgrep -f "sleep $SL\$" >/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	check "$b: ... nor a process of the run (within 10 s)" sh -c "! pgrep -f 'sleep $SL\$' >/dev/null"
	check "$b: ... and the tree is clean" clean_tree "$R"
	# Killed between making its journal and writing it: the next run removes it at once.
	: >"$XDG_STATE_HOME/paddock/runs/1-0badf00d"
	(cd "$R" && "$P" run --backend "$b" -- true) >/dev/null 2>&1 </dev/null
	check "$b: an empty journal nobody holds goes with the next run" test "$(journals)" = 0
done

finish
