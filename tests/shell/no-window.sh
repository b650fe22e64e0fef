#!/bin/sh
# no-window.sh - what a running command writes at a protected path is not there for the user's
# own tools while the run lasts: under each Linux backend, as root and as uid 65534, a command
# writes a git hook, .claude/settings.json and .vscode/tasks.json, then waits on a fifo while
# the user commits and looks; after paddock's SIGKILL and with two runs at once too; a missing
# protected path is not made at all, by any call, the attempt failing at once; and the twins:
# ordinary files beside them are written, a build works, and each grant, approved, lets its own.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null || skip_all "git missing"
P=$PADDOCK
backends=
for b in bwrap landlock; do
	"$P" doctor 2>/dev/null | grep -q "^$b: works here" && backends="$backends $b"
done
[ -n "$backends" ] || skip_all "no Linux backend works here"
users=root
[ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && users="root nobody"
chmod 755 "$T"

# as U CMD...: CMD as user U (root: as it is), with U's own home, state and temp directories;
# with EXEC=exec, in place of the shell.
EXEC=
as() {
	u=$1
	shift
	H=$T/$u
	if [ "$u" = root ]; then
		$EXEC env HOME="$H/home" TMPDIR="$H/tmp" XDG_STATE_HOME="$H/state" XDG_CACHE_HOME="$H/cache" \
			XDG_DATA_HOME="$H/data" XDG_CONFIG_HOME="$H/config" GIT_CONFIG_NOSYSTEM=1 "$@"
	else
		$EXEC setpriv --reuid=65534 --regid=65534 --clear-groups \
			env HOME="$H/home" TMPDIR="$H/tmp" XDG_STATE_HOME="$H/state" \
			XDG_CACHE_HOME="$H/cache" XDG_DATA_HOME="$H/data" XDG_CONFIG_HOME="$H/config" \
			GIT_CONFIG_NOSYSTEM=1 "$@"
	fi
}
for u in $users; do
	mkdir -p "$T/$u/home" "$T/$u/tmp" "$T/$u/state" "$T/$u/cache" "$T/$u/data" "$T/$u/config"
	[ "$u" = root ] || chown -R 65534:65534 "$T/$u"
	as "$u" git config --global user.name t && as "$u" git config --global user.email t@e.st
done

# mkproj U DIR: a repository of U's with a commit, git's .git/hooks, and a .claude and a .vscode
# of the user's own (not tracked), as an agent and an editor leave them.
mkproj() {
	as "$1" sh -c 'git init -q "$1" && cd "$1" && echo a >a && git add a &&
		git commit -qm a && mkdir .claude .vscode && echo "{}" >.claude/settings.local.json &&
		echo "{\"mine\":1}" >.vscode/settings.json' sh "$2"
}
# host_commit U DIR: the user's own git commit in DIR, outside paddock; 0 when a hook ran.
host_commit() {
	rm -f "$T/mark"
	as "$1" sh -c 'cd "$1" && echo x >>a && MARKFILE="$2" git commit -qam c >/dev/null 2>&1' \
		sh "$2" "$T/mark"
	test -e "$T/mark"
}
# What the command does: each protected kind, an ordinary file beside them, then it says it is
# ready and waits until the test has looked ($GO, a fifo, written by the test); it fails, so that
# the result has the refusal hints.
attack='printf "#!/bin/sh\ntouch \"\$MARKFILE\"\n" > .git/hooks/pre-commit
chmod +x .git/hooks/pre-commit
echo "{\"hooks\":{\"SessionStart\":[]}}" > .claude/settings.json
echo "{\"tasks\":[]}" > .vscode/tasks.json
echo ok > notes.txt; echo ok > .vscode-notes.txt
: > "$READY"; read x < "$GO"; exit 3'
# start U B DIR TAG [ARGS...]: paddock runs the attack in DIR in the background ($pid); its
# $READY and $GO are TAG's.
start() {
	u=$1 b=$2 d=$3 tag=$4
	shift 4
	READY=$T/$u/tmp/ready-$tag GO=$T/$u/tmp/go-$tag
	rm -f "$READY" "$GO"
	mkfifo "$GO"
	[ "$u" = root ] || chown 65534:65534 "$GO"
	export READY GO
	(cd "$d" && EXEC=exec as "$u" "$P" run --backend "$b" "$@" -- sh -c "$attack") \
		>"$T/out-$tag" 2>"$T/err-$tag" </dev/null &
	pid=$!
	bgpids="$bgpids $pid"
}
# release TAG: let TAG's command end; the writer waits for a reader, so it is a background one,
# killed at the end when the command is gone.
release() {
	(echo go >"$T/$u/tmp/go-$1") 2>/dev/null &
	bgpids="$bgpids $!"
}

no_hook() { ! host_commit "$1" "$2"; }
nothing_planted() { # nothing_planted U DIR: no hook ran, no agent or editor file is there
	! host_commit "$1" "$2" && [ ! -e "$2/.claude/settings.json" ] &&
		[ ! -e "$2/.vscode/tasks.json" ]
}

for u in $users; do
	for b in $backends; do
		R=$T/$u/home/proj-$b
		mkproj "$u" "$R"
		start "$u" "$b" "$R" one
		if ! wait_for_file "$READY" 60; then
			check "$u, $b: the command got to its wait" false
			release one
			continue
		fi
		check "$u, $b, mid-run: the user's git commit runs no planted hook, no agent or editor file is there" \
			nothing_planted "$u" "$R"
		check "$u, $b, mid-run: the ordinary files beside them are written" \
			test -e "$R/notes.txt" -a -e "$R/.vscode-notes.txt"
		check "$u, $b, mid-run: the user's own agent and editor files are as they were" \
			grep -q mine "$R/.vscode/settings.json"
		release one
		wait "$pid"
		check "$u, $b, after the run: still nothing planted" nothing_planted "$u" "$R"
		check "$u, $b: the refusal names the grant" \
			grep -q 'allow-agent-config' "$T/out-one"

		# Two runs at once in one project: each held for the whole of the other.
		start "$u" "$b" "$R" a
		ready_a=$READY
		start "$u" "$b" "$R" b
		pid_b=$pid
		if wait_for_file "$ready_a" 60 && wait_for_file "$READY" 60; then
			check "$u, $b, two runs at once: nothing planted mid-run" \
				nothing_planted "$u" "$R"
		else
			check "$u, $b, two runs at once: both got to their wait" false
		fi
		release a
		release b
		wait "$pid_b"
		check "$u, $b, two runs at once: nothing planted after them" \
			nothing_planted "$u" "$R"

		# paddock killed mid-run: nothing planted while its command lived, nor after.
		start "$u" "$b" "$R" kill
		if wait_for_file "$READY" 60; then
			check "$u, $b, before SIGKILL: nothing planted" nothing_planted "$u" "$R"
			kill -9 "$pid"
			wait "$pid" 2>/dev/null
			check "$u, $b, after paddock's SIGKILL: nothing planted" \
				nothing_planted "$u" "$R"
		else
			check "$u, $b: the command got to its wait before the SIGKILL" false
		fi
		release kill

		# The twin: a person's --allow-agent-config, approved, lets the agent's and the
		# editor's configuration be written and stay; hooks stay held.
		start "$u" "$b" "$R" grant --allow-agent-config --yes
		if wait_for_file "$READY" 60; then
			check "$u, $b, --allow-agent-config: the agent's and editor's files are written" \
				test -e "$R/.claude/settings.json" -a -e "$R/.vscode/tasks.json"
			check "$u, $b, --allow-agent-config: no hook runs" no_hook "$u" "$R"
		else
			check "$u, $b, --allow-agent-config: the command got to its wait" false
		fi
		release grant
		wait "$pid"
		check "$u, $b, --allow-agent-config: they stay after the run" \
			test -e "$R/.claude/settings.json" -a -e "$R/.vscode/tasks.json"
		rm -f "$R/.claude/settings.json" "$R/.vscode/tasks.json"
		# Not approved (no one to ask): refused, naming it.
		(cd "$R" && as "$u" "$P" run --backend "$b" --allow-agent-config -- true) \
			>"$T/out" 2>"$T/err" </dev/null
		check "$u, $b: --allow-agent-config with no one to ask is refused, naming it" \
			grep -q 'allow-agent-config' "$T/err"
	done
done
# A protected path that is missing cannot be made while the run lasts, by any call: a directory,
# a symlink, a rename onto it, a file by open() (directly, and through a symlink the command made
# to the name first) or a hard link; the attempt fails at once. The ordinary names beside them
# are made, and each grant lets its own kind be made.
# Its errors go to $READY.err too, there before $READY is, for the test to read mid-run.
miss_attack='exec 3>&2 2>"$READY.err"
mkdir .claude; mkdir .git/hooks; echo "{}" > .mcp.json; ln -s a .envrc; ln a .aider.conf.yml
ln -s .envrc via; echo x > via
mkdir d.tmp && mv d.tmp .vscode; echo x > f.tmp && mv f.tmp .profile
mkdir -p made/sub && echo ok > made/sub/f && mv made/sub/f made/g && ln -s g made/l && ln made/g made/h
cat "$READY.err" >&3; : > "$READY"; read x < "$GO"; exit 3'
# none_made DIR [NAME...]: nothing at the protected names (those refused at once by default)
none_made() {
	d=$1
	shift
	[ $# -gt 0 ] || set -- .claude .git/hooks .mcp.json .envrc .aider.conf.yml .vscode .profile
	for name in "$@"; do
		[ -e "$d/$name" ] || [ -L "$d/$name" ] && return 1
	done
	return 0
}
twins_made() { [ -d "$1/made/sub" ] && [ -f "$1/made/g" ] && [ -L "$1/made/l" ] && [ -f "$1/made/h" ]; }
# mkmiss U DIR: a repository of U's with a commit and no .git/hooks, .claude or .vscode.
mkmiss() {
	as "$1" sh -c 'git init -q "$1" && cd "$1" && echo a >a && git add a && git commit -qm a &&
		rm -rf .git/hooks' sh "$2"
}
one_attack=$attack
attack=$miss_attack
for u in $users; do
	for b in $backends; do
		R=$T/$u/home/miss-$b
		mkmiss "$u" "$R"
		start "$u" "$b" "$R" miss
		if wait_for_file "$READY" 60; then
			check "$u, $b, mid-run: no missing protected path was made, by any call" \
				none_made "$R"
			check "$u, $b, mid-run: ... each attempt failed at once with EPERM" \
				test "$(grep -c 'Operation not permitted' "$READY.err")" -ge 8
			check "$u, $b, mid-run: the ordinary names beside them are made" twins_made "$R"
		else
			check "$u, $b, missing paths: the command got to its wait" false
		fi
		release miss
		wait "$pid"
		check "$u, $b, missing paths: after the run nothing is there either" none_made "$R"
		check "$u, $b, missing paths: the refusal names --allow-agent-config" \
			grep -q 'allow-agent-config' "$T/out-miss"
		check "$u, $b, missing paths: ... and --allow-git-hooks" \
			grep -q 'allow-git-hooks' "$T/out-miss"

		# The twins: with each grant, approved, its own kind is made; the other stays held.
		rm -rf "$R/made" "$R/d.tmp" "$R/f.tmp"
		start "$u" "$b" "$R" agent --allow-agent-config --yes
		if wait_for_file "$READY" 60; then
			check "$u, $b, --allow-agent-config: .claude, .mcp.json and .vscode are made, no hooks" \
				sh -c '[ -d "$1/.claude" ] && [ -f "$1/.mcp.json" ] && [ -d "$1/.vscode" ] &&
					[ ! -e "$1/.git/hooks" ]' sh "$R"
		else
			check "$u, $b, --allow-agent-config: the command got to its wait" false
		fi
		release agent
		wait "$pid"
		rm -rf "$R/made" "$R/d.tmp" "$R/f.tmp"
		start "$u" "$b" "$R" hooks --allow-git-hooks --yes
		if wait_for_file "$READY" 60; then
			check "$u, $b, --allow-git-hooks: .git/hooks is made" test -d "$R/.git/hooks"
		else
			check "$u, $b, --allow-git-hooks: the command got to its wait" false
		fi
		release hooks
		wait "$pid"
	done
done
attack=$one_attack
# A real build beside the missing paths: cc compiles and links (its temporary files, an
# output renamed into place), make's targets are made.
if command -v cc >/dev/null && command -v make >/dev/null; then
	for b in $backends; do
		R=$T/root/home/build-$b
		mkmiss root "$R"
		printf 'int main(void) { return 0; }\n' >"$R/m.c"
		printf 'all: m\nm: m.o\n\tcc -o m m.o\nm.o: m.c\n\tcc -c -o m.o m.c\n' >"$R/Makefile"
		(cd "$R" && as root "$P" run --backend "$b" -- sh -c 'make -s && ./m && echo built') \
			>"$T/out" 2>"$T/err" </dev/null
		check "$b: a build with make and cc works beside the missing protected paths" \
			grep -qx built "$T/out"
	done
else
	skip "a build beside the missing protected paths: cc or make missing"
fi

# HOME as the writable root: its start-up files, the agents' configuration there and a
# directory of the PATH in it are held while the run lasts; a file of its own beside them is not.
home_attack='echo "touch \"\$MARKFILE\"" >> .bashrc; echo "{}" > .claude/settings.json
printf "#!/bin/sh\ntouch \"\$MARKFILE\"\n" > pbin/git; chmod +x pbin/git; echo ok > notes.txt
: > "$READY"; read x < "$GO"; exit 3'
for b in $backends; do
	u=root H=$T/root/home
	mkdir -p "$H/.claude" "$H/pbin"
	echo "# the user's" >"$H/.bashrc"
	READY=$T/$u/tmp/ready-home GO=$T/$u/tmp/go-home
	rm -f "$READY" "$GO" "$H/notes.txt"
	mkfifo "$GO"
	export READY GO
	(cd "$H" && PATH="$H/pbin:$PATH" EXEC=exec as root "$P" run --backend "$b" -- \
		sh -c "$home_attack") >"$T/out" 2>"$T/err" </dev/null &
	pid=$!
	bgpids="$bgpids $pid"
	if wait_for_file "$READY" 60; then
		check "$b, HOME as the root, mid-run: .bashrc, .claude and a PATH directory are held" \
			sh -c '! grep -q MARKFILE "$1/.bashrc" && [ ! -e "$1/.claude/settings.json" ] &&
				[ ! -e "$1/pbin/git" ] && [ -e "$1/notes.txt" ]' sh "$H"
	else
		check "$b, HOME as the root: the command got to its wait" false
	fi
	release home
	wait "$pid"
done

# .git moved aside with its held hooks, and a copy of the command's own put in its place: the
# directories between a root and a held path are pinned, so the move fails.
swap_attack='mv .git .git2 && cp -a .git2 .git &&
printf "#!/bin/sh\ntouch \"\$MARKFILE\"\n" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit
: > "$READY"; read x < "$GO"; exit 3'
swap_held() { ! host_commit "$1" "$2" && [ ! -e "$2/.git2" ]; }
for u in $users; do
	for b in $backends; do
		R=$T/$u/home/swap-$b
		mkproj "$u" "$R"
		READY=$T/$u/tmp/ready-swap GO=$T/$u/tmp/go-swap
		rm -f "$READY" "$GO"
		mkfifo "$GO"
		[ "$u" = root ] || chown 65534:65534 "$GO"
		export READY GO
		(cd "$R" && EXEC=exec as "$u" "$P" run --backend "$b" -- sh -c "$swap_attack") \
			>"$T/out" 2>"$T/err" </dev/null &
		pid=$!
		bgpids="$bgpids $pid"
		if wait_for_file "$READY" 60; then
			check "$u, $b, mid-run: .git cannot be moved aside for a copy with a hook" \
				swap_held "$u" "$R"
		else
			check "$u, $b, .git moved aside: the command got to its wait" false
		fi
		release swap
		wait "$pid"
	done
done

# What git itself does keeps working beside the held paths (.claude, .git/hooks): a checkout of
# a branch that tracks .vscode and back, a stash and its pop, a worktree added in the project.
# (A .vscode of the user's own that git does not track is held, as under bwrap before: a
# checkout that would write in it fails.)
for b in $backends; do
	R=$T/root/home/git-$b
	as root sh -c 'git init -q "$1" && cd "$1" && echo a >a && git add a && git commit -qm a &&
		mkdir .claude && echo "{}" >.claude/settings.local.json && git checkout -qb v &&
		mkdir .vscode && echo "{}" >.vscode/tasks.json && git add .vscode && git commit -qm v &&
		git checkout -q master' sh "$R"
	(cd "$R" && as root "$P" run --backend "$b" -- sh -c 'git checkout -q v &&
		test -e .vscode/tasks.json && git checkout -q master && test ! -e .vscode &&
		echo y >>a && git stash -q && git stash pop -q && git worktree add -q wt-x -b x &&
		test -e wt-x/a && echo fine') >"$T/out" 2>"$T/err" </dev/null
	check "$b: git checkout of a branch with .vscode and back, stash, worktree add work" \
		grep -qx fine "$T/out"
done

# Landlock without a mount namespace (a container that refuses user namespaces, as bwrap's
# --disable-userns makes one for uid 65534): no bind can hold the protected paths, so the
# supervisor does, refusing each write as it happens: mid-run the user's commit runs no hook
# and the files are absent, and the command's own errors say EPERM; the twins are written, and
# its legitimate twin, an ordinary file beside them, changes and goes as the command does.
case " $backends " in *" landlock "*) ll=1 ;; *) ll= ;; esac
if [ -n "$ll" ] && [ "${users#* }" = nobody ] &&
	bwrap --dev-bind / / --unshare-user --disable-userns -- true 2>/dev/null; then
	u=nobody
	R=$T/$u/home/proj-nons
	mkproj "$u" "$R"
	READY=$T/$u/tmp/ready-nons GO=$T/$u/tmp/go-nons
	rm -f "$READY" "$GO"
	mkfifo "$GO" && chown 65534:65534 "$GO"
	export READY GO
	(cd "$R" && as "$u" bwrap --dev-bind / / --unshare-user --disable-userns -- \
		"$P" run --backend landlock -- sh -c "$attack") >"$T/out" 2>"$T/err" </dev/null &
	pid=$!
	bgpids="$bgpids $pid"
	if wait_for_file "$READY" 60; then
		check "landlock, no mount namespace, mid-run: nothing planted, the user's commit runs no hook" \
			nothing_planted "$u" "$R"
		check "landlock, no mount namespace, mid-run: ... the ordinary files beside them are written" \
			sh -c '[ -f "$1/notes.txt" ] && [ -f "$1/.vscode-notes.txt" ]' sh "$R"
		release nons
		wait "$pid"
		check "landlock, no mount namespace: after the run nothing is planted" \
			nothing_planted "$u" "$R"
		check "landlock, no mount namespace: ... each write was refused at once (EPERM)" \
			test "$(grep -c 'Operation not permitted' "$T/out")" -ge 3
		check "landlock, no mount namespace: ... the user's own files in them are as they were" \
			sh -c 'grep -q mine "$1/.vscode/settings.json" &&
				[ -f "$1/.claude/settings.local.json" ]' sh "$R"
		# Nor can they be removed or moved aside, nor .git with them; a commit still works.
		ls "$R/.git/hooks" >"$T/hooks-before"
		(cd "$R" && as "$u" bwrap --dev-bind / / --unshare-user --disable-userns -- \
			"$P" run --yes --backend landlock -- sh -c 'rm -f .git/hooks/*; mv .claude c2
				mv .git g2; echo b > b && git add b && git commit -qm b && echo committed') \
			>"$T/out" 2>"$T/err" </dev/null
		check "landlock, no mount namespace: held paths are not removed or moved, .git not moved" \
			sh -c 'ls "$1/.git/hooks" | cmp -s - "$2" && [ -d "$1/.claude" ] && [ ! -e "$1/c2" ] &&
				[ ! -e "$1/g2" ]' sh "$R" "$T/hooks-before"
		check "landlock, no mount namespace: ... and the command's git commit works" \
			grep -qx committed "$T/out"
	else
		check "landlock, no mount namespace: the command got to its wait" false
		release nons
	fi
	# A missing protected path is refused there too: the supervisor needs no namespace.
	R=$T/$u/home/miss-nons
	mkmiss "$u" "$R"
	READY=$T/$u/tmp/ready-mnons GO=$T/$u/tmp/go-mnons
	rm -f "$READY" "$GO"
	mkfifo "$GO" && chown 65534:65534 "$GO"
	(cd "$R" && as "$u" bwrap --dev-bind / / --unshare-user --disable-userns -- \
		"$P" run --backend landlock -- sh -c "$miss_attack") >"$T/out" 2>"$T/err" </dev/null &
	pid=$!
	bgpids="$bgpids $pid"
	if wait_for_file "$READY" 60; then
		check "landlock, no mount namespace, mid-run: no missing protected path was made" \
			none_made "$R"
		check "landlock, no mount namespace, mid-run: ... the ordinary names beside them are" \
			twins_made "$R"
	else
		check "landlock, no mount namespace, missing paths: the command got to its wait" false
	fi
	release mnons
	wait "$pid"
else
	skip "landlock without a mount namespace: needs root, Landlock and bwrap --disable-userns"
fi
finish
