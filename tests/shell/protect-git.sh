#!/bin/sh
# protect-git.sh - attacks through the git directories a project's git reaches besides its
# own .git: a submodule's .git repointed, a new submodule or worktree git directory with a
# program in its configuration, hooks or commondir, a repository made at a submodule's path,
# and a commondir or config.worktree made in .git. Each is checked by running the host's git
# after the run and after paddock's SIGKILL, next to its legitimate twin (git submodule add,
# git submodule update --init, git worktree add), under each Linux backend that works here;
# as root, once more as an unprivileged user.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null || { echo "1..0 # SKIP git missing"; exit 0; }
P=$PADDOCK
fresh_state
mkdir -p "$T/tmp" "$T/cache" "$T/data" "$T/home"
export TMPDIR="$T/tmp" XDG_CACHE_HOME="$T/cache" XDG_DATA_HOME="$T/data" HOME="$T/home" \
	XDG_CONFIG_HOME="$T/config" GIT_CONFIG_NOSYSTEM=1
git config --global user.name t && git config --global user.email t@e.st &&
	git config --global init.defaultBranch master && git config --global protocol.file.allow always

backends=
for b in bwrap landlock; do
	"$P" doctor 2>/dev/null | grep -q "^$b: works here" && backends="$backends $b"
done
[ -n "$backends" ] || { echo "1..0 # SKIP no Linux backend works here"; exit 0; }

# A submodule's upstream, and a project with it checked out.
git init -q "$T/subsrc" && (cd "$T/subsrc" && echo s >s && git add s && git commit -qm s) ||
	{ echo "Bail out! git setup failed"; exit 1; }
mkproj() { # mkproj DIR: a repository with the submodule sub checked out
	git init -q "$1" && (cd "$1" && echo a >a && git add a && git commit -qm a &&
		git submodule -q add "$T/subsrc" sub 2>/dev/null && git commit -qm sub)
}
journals() { ls -A "$XDG_STATE_HOME/paddock/runs" 2>/dev/null | grep -c .; }
# host_git DIR TAG: the user's own git status in DIR ran nothing of the command's.
host_git() {
	git -C "$1" status >/dev/null 2>&1
	git -C "$1" submodule status >/dev/null 2>&1
	! ls "$T"/pw."$2"* >/dev/null 2>&1
}
# killed B DIR SHELL-TEXT: paddock runs SHELL-TEXT then sleeps, and is SIGKILLed once the
# command wrote $T/made; returns when its guardian has finished (no journal left).
killed() {
	rm -f "$T/made"
	(cd "$2" && exec "$P" run --backend "$1" -- sh -c "$3; echo > '$T/made'; exec sleep 31.4159") \
		>/dev/null 2>&1 </dev/null &
	pk=$!
	wait_for_file "$T/made"
	kill -9 $pk
	wait $pk 2>/dev/null
	i=0
	while [ "$(journals)" != 0 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
}
run() { # run B DIR SHELL-TEXT: paddock run, its result in $T/out
	(cd "$2" && exec "$P" run --backend "$1" -- sh -c "$3") >"$T/out" 2>"$T/err" </dev/null
}

# The command points the submodule's .git at a git directory of its own, whose configuration
# runs a program: the superproject's git status would run it and show nothing new.
repoint='cp -r .git/modules/sub .git/evil && git config -f .git/evil/config core.worktree ../../sub &&
	git config -f .git/evil/config core.fsmonitor "touch $PW" && echo "gitdir: ../.git/evil" > sub/.git'
# A submodule it adds (legitimate), then a program in its new git directory's configuration
# and a hook there.
newsub='git submodule -q add "$SRC" sub2 && git config -f .git/modules/sub2/config core.fsmonitor "touch $PW" &&
	printf "#!/bin/sh\ntouch $PW.hook\n" > .git/modules/sub2/hooks/post-checkout && chmod +x .git/modules/sub2/hooks/post-checkout'
# A repository of its own at a submodule's path, recorded in the index as one.
nested='git init -q nest && git -C nest commit -q --allow-empty -m n && git -C nest config core.fsmonitor "touch $PW" &&
	git update-index --add --cacheinfo 160000,$(git -C nest rev-parse HEAD),nest'
# A commondir in .git naming a repository of its own, and a config.worktree git is told to read.
common='git init -q --bare "$TMPDIR/evil.git" && git -C "$TMPDIR/evil.git" config core.fsmonitor "touch $PW" &&
	echo "$TMPDIR/evil.git" > .git/commondir'
wtconf='git config extensions.worktreeConfig true && printf "[core]\n\tfsmonitor = touch $PW\n" > .git/config.worktree'
# A worktree it adds (legitimate), then its commondir pointed at a repository of its own.
newwt='git worktree add -q wt3 -b w3 && git init -q --bare "$TMPDIR/evil2.git" &&
	git -C "$TMPDIR/evil2.git" config core.fsmonitor "touch $PW" && echo "$TMPDIR/evil2.git" > .git/worktrees/wt3/commondir'

for b in $backends; do
	export SRC="$T/subsrc"
	for a in repoint newsub nested common wtconf newwt; do
		eval "text=\$$a"
		R=$T/$a-$b
		mkproj "$R"
		export PW="$T/pw.$a-$b"
		run "$b" "$R" "$text"
		check "$b: $a: the user's git runs nothing of the command's after the run" host_git "$R" "$a-$b"
		case $a in newwt) W=$R/wt3 ;; *) W= ;; esac
		[ -n "$W" ] && check "$b: $a: ... nor in the new worktree" host_git "$W" "$a-$b"
		check "$b: $a: ... and the result says what was undone" grep -q "^sandbox: .*the command" "$T/out"
		R=$T/$a-$b-kill
		mkproj "$R"
		export PW="$T/pw.$a-$b-kill"
		killed "$b" "$R" "$text"
		check "$b: $a: ... and after paddock's SIGKILL too" host_git "$R" "$a-$b-kill"
		[ -n "$W" ] && check "$b: $a: ... there too" host_git "$R/wt3" "$a-$b-kill"
		check "$b: $a: ... leaving no journal" test "$(journals)" = 0
	done
	check "$b: repoint: the submodule's .git is back" \
		grep -qx 'gitdir: ../.git/modules/sub' "$T/repoint-$b/sub/.git"

	# The legitimate twins: what git itself makes stays, and works for the user.
	R=$T/legit-$b
	mkproj "$R"
	git clone -q "$R" "$R-clone" 2>/dev/null
	run "$b" "$R-clone" 'git submodule -q update --init 2>&1'
	check "$b: git submodule update --init works in a run" test "$(git -C "$R-clone/sub" log --format=%s -1)" = s
	check "$b: ... with nothing undone" sh -c "! grep -q '^sandbox: .*the command' '$T/out'"
	check "$b: ... and the user's git sees it checked out" \
		sh -c "git -C '$R-clone' submodule status | grep -q '^ [0-9a-f]* sub'"
	run "$b" "$R" 'git submodule -q add "$SRC" sub2 && git commit -qm sub2 && git worktree add -q wt4 -b w4 &&
		cd wt4 && echo w > w && git add w && git commit -qm w'
	check "$b: git submodule add and git worktree add work in a run" \
		sh -c "git -C '$R/sub2' log --format=%s -1 | grep -qx s && git -C '$R' log --format=%s -1 w4 | grep -qx w"
	check "$b: ... with nothing undone" sh -c "! grep -q '^sandbox: .*the command' '$T/out'"
	check "$b: ... and the user's git works in both" \
		sh -c "git -C '$R' status --porcelain | grep -v '^?? wt4/' | wc -l | grep -qx 0 && git -C '$R/wt4' status >/dev/null"
done

# Where a write stays refused (bwrap holds what exists), the result names the protected path
# and why, not a bare "Device or resource busy".
case " $backends " in *" bwrap "*)
	R=$T/held
	mkproj "$R"
	run bwrap "$R" 'mv .git/hooks .git/h2'
	check "bwrap: moving .git/hooks away: the result names it as protected" \
		grep -q "^sandbox: $R/.git/hooks is protected: paddock holds it read-only" "$T/out"
	run bwrap "$R" 'echo x > .git/hooks/pre-commit'
	check "bwrap: writing a hook: the result names the hook and the protected path it lies in" \
		grep -q "^sandbox: $R/.git/hooks/pre-commit is protected, as it lies in $R/.git/hooks:" "$T/out"
	run bwrap "$R" 'echo x > /usr/pdk-held-x'
	check "bwrap: ... while a write outside the roots is still told as one" \
		grep -q "^sandbox: the sandbox refused a write to /usr/pdk-held-x" "$T/out"
	;;
esac

# Run as root, the same once more as an unprivileged user (nobody), where that user can reach
# the built binary and this script.
if [ "$(id -u)" -eq 0 ] && [ -z "${PDK_PROTECT_UNPRIVILEGED:-}" ] && command -v setpriv >/dev/null; then
	self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all "$@"; }
	if as_nobody test -x "$P" -a -r "$self" -a -r "$(dirname "$self")/lib.sh"; then
		out=$(cd / && PDK_PROTECT_UNPRIVILEGED=1 TMPDIR=/tmp PADDOCK="$P" as_nobody sh "$self" 2>&1)
		rc=$?
		printf '%s\n' "$out" | sed 's/^/# as nobody: /'
		check "the same as an unprivileged user (uid 65534) ($(printf '%s\n' "$out" |
			grep -c '^ok') checks)" test "$rc" -eq 0 -o "$rc" -eq 77
	else
		skip "unprivileged run: uid 65534 cannot reach $P or $self"
	fi
fi
finish
