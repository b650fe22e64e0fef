#!/bin/sh
# git-hookspath.sh - hooks directories that are not .git/hooks by that name, under each Linux
# backend that works here: the one core.hooksPath names (husky's .husky/_, a relative githooks,
# one that is a symlink), and the one a .git/hooks symlink leads to (../tools/hooks). A
# confined command that writes a hook there is refused (bwrap holds the directory at its real
# path) or undone after the run (Landlock), after paddock's SIGKILL too, and with two runs
# overlapping; a missing one cannot be made. The twins: project files written, git add and
# commit under paddock (the user's hook runs), and --allow-git-hooks letting an install step
# write there, unless the configuration's protected_paths names the directory.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null || skip_all "git missing"
P=$PADDOCK
fresh_state
mkdir -p "$T/tmp" "$T/cache" "$T/data" "$T/home" "$T/config/paddock"
export TMPDIR="$T/tmp" XDG_CACHE_HOME="$T/cache" XDG_DATA_HOME="$T/data" HOME="$T/home" \
	XDG_CONFIG_HOME="$T/config" GIT_CONFIG_NOSYSTEM=1
git config --global user.name t && git config --global user.email t@e.st &&
	git config --global init.defaultBranch master

backends=
for b in bwrap landlock; do
	"$P" doctor 2>/dev/null | grep -q "^$b: works here" && backends="$backends $b"
done
[ -n "$backends" ] || skip_all "no Linux backend works here"

# The hook of the user's own: it leaves $USERMARK. A hook of the command's leaves $MARKFILE.
userhook='#!/bin/sh
touch "$USERMARK"
'
# mkproj DIR LAYOUT: a repository with one commit whose hooks are where LAYOUT says, the user's
# pre-commit there (none for the missing layouts); $hd is the hooks directory as git reaches it.
mkproj() {
	git init -q "$1"
	(cd "$1" && echo a >a && git add a && git commit -qm a --no-verify)
	case $2 in
	husky) hd=.husky/_ && git -C "$1" config core.hooksPath .husky/_ ;;
	githooks) hd=githooks && git -C "$1" config core.hooksPath githooks ;;
	# A global setting, absolute: where the user's git would look too.
	global) hd=githooks && git config --global core.hooksPath "$1/githooks" ;;
	hooklink) hd=githooks && git -C "$1" config core.hooksPath githooks &&
		mkdir -p "$1/tools/gh" && ln -s tools/gh "$1/githooks" ;;
	symlink) hd=.git/hooks && rm -rf "$1/.git/hooks" && mkdir -p "$1/tools/hooks" &&
		ln -s ../tools/hooks "$1/.git/hooks" ;;
	husky-missing) hd=.husky/_ && mkdir -p "$1/.husky" && git -C "$1" config core.hooksPath .husky/_ ;;
	githooks-missing) hd=githooks && git -C "$1" config core.hooksPath githooks ;;
	symlink-missing) hd=.git/hooks && rm -rf "$1/.git/hooks" && ln -s ../tools/hooks "$1/.git/hooks" ;;
	esac
	case $2 in
	*-missing) ;;
	*)
		mkdir -p "$1/$hd"
		printf '%s' "$userhook" >"$1/$hd/pre-commit"
		chmod 755 "$1/$hd/pre-commit"
		;;
	esac
}
unglobal() { git config --global --unset core.hooksPath || :; }
# host_commit DIR: the user's own git commit in DIR, outside paddock.
host_commit() {
	rm -f "$T/mark" "$T/user-mark"
	(cd "$1" && echo x >>a && USERMARK="$T/user-mark" MARKFILE="$T/mark" \
		git commit -qam "c$$" >/dev/null 2>&1)
}
# held DIR LAYOUT: the user's commit after the run runs the user's hook as it was, and nothing
# of the command's; with a missing hooks directory, nothing at all, and nothing is left there.
held() {
	host_commit "$1"
	case $2 in
	*-missing) ! test -e "$T/mark" && ! test -e "$T/user-mark" && ! test -e "$1/$hd/pre-commit" ;;
	*) test -e "$T/user-mark" && ! test -e "$T/mark" && test -x "$1/$hd/pre-commit" &&
		[ "$(cat "$1/$hd/pre-commit")" = "$(printf '%s' "$userhook")" ] &&
		! test -e "$1/$hd/post-commit" ;;
	esac
}
run() { # run B DIR ARGS...: paddock run in DIR, the result in $T/out
	b=$1 d=$2
	shift 2
	(cd "$d" && exec "$P" run --backend "$b" "$@") >"$T/out" 2>"$T/err" </dev/null
	rc=$?
}
# Where the confined commands and the suite signal each other: inside a root (TMPDIR).
S=$T/tmp
journals() { ls -A "$XDG_STATE_HOME/paddock/runs" 2>/dev/null | grep -c .; }
killed() { # killed B DIR SHELL-TEXT: paddock SIGKILLed once the command did SHELL-TEXT
	rm -f "$S/made"
	(cd "$2" && exec "$P" run --backend "$1" -- sh -c "$3; echo > '$S/made'; exec sleep 31.4159") \
		>/dev/null 2>&1 </dev/null &
	pk=$!
	wait_for_file "$S/made" 30
	kill -9 $pk
	wait $pk 2>/dev/null
	i=0
	while [ "$(journals)" != 0 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
}
# The attacks, from the top of the work tree: a hook of the command's written over the user's
# and beside it, at the hooks directory's real path ($real) and by the name git reaches it by.
attack() { # attack DIR-OF-HOOKS
	printf 'mkdir -p %s; printf "#!/bin/sh\\ntouch \\"\\$MARKFILE\\"\\n" > %s/pre-commit;
		chmod +x %s/pre-commit; cp %s/pre-commit %s/post-commit 2>/dev/null; true' \
		"$1" "$1" "$1" "$1" "$1"
}
realdir() { # realdir LAYOUT: where the hooks are in fact
	case $1 in
	hooklink) echo tools/gh ;;
	symlink | symlink-missing) echo tools/hooks ;;
	*) echo "$hd" ;;
	esac
}
layouts="husky githooks global hooklink symlink husky-missing githooks-missing symlink-missing"

for b in $backends; do
	for l in $layouts; do
		# Through the name git reaches them by as well, where that is another.
		vias=real
		case $l in hooklink | symlink) vias="real name" ;; esac
		for via in $vias; do
			R=$T/$b-$l-$via
			mkproj "$R" $l
			[ $via = real ] && dir=$(realdir $l) || dir=$hd
			run "$b" "$R" -- sh -c "$(attack "$dir")"
			check "$b, $l: a hook written at $dir is refused or undone; the user's commit runs the user's hook only" \
				held "$R" $l
			unglobal
		done
		R=$T/$b-$l-kill
		mkproj "$R" $l
		killed "$b" "$R" "$(attack "$(realdir $l)")"
		check "$b, $l: ... and after paddock's SIGKILL mid-run" held "$R" $l
		check "$b, $l: ... leaving no journal" test "$(journals)" = 0
		unglobal
	done
	# The write refused as it happens (held: by bwrap, by Landlock in the run's mount
	# namespace); where Landlock has none, what was undone is said and the command's version is
	# in the trash.
	R=$T/$b-say
	mkproj "$R" husky
	run "$b" "$R" -- sh -c "$(attack .husky/_)"
	if [ "$b" = landlock ] && ! grep -q "Read-only file system" "$T/out"; then
		check "$b: the result says the hook under core.hooksPath was changed and put back" \
			grep -q "^sandbox: .*changed the hook $R/.husky/_/pre-commit: its version is in the trash.*is back" "$T/out"
	else
		check "$b: the result says the hooks directory of core.hooksPath is read-only" \
			grep -q "Read-only file system" "$T/out"
	fi
	# The hooks directory removed, or swapped for a symlink: made again, as .git/hooks is.
	R=$T/$b-swap
	mkproj "$R" githooks
	run "$b" "$R" -- sh -c 'mkdir -p "$TMPDIR/h$$" && printf "#!/bin/sh\ntouch \"\$MARKFILE\"\n" > "$TMPDIR/h$$/pre-commit" &&
		chmod +x "$TMPDIR/h$$/pre-commit" && mv githooks githooks.old && ln -s "$TMPDIR/h$$" githooks'
	check "$b, githooks swapped for a symlink: the user's commit runs the user's hook only" \
		held "$R" githooks
	R=$T/$b-relink
	mkproj "$R" symlink
	run "$b" "$R" -- sh -c "mkdir -p evil && $(attack evil) && ln -sfn ../evil .git/hooks"
	check "$b, a .git/hooks symlink pointed elsewhere: put back after the run" \
		test "$(readlink "$R/.git/hooks")" = ../tools/hooks
	check "$b, ... and the user's commit runs the user's hook only" held "$R" symlink
done

# Two runs overlapping in one root: the first writes a hook, the second starts while it is
# there and ends after the first undid it. After both, the user's hook only.
for b in $backends; do
	for l in husky symlink githooks-missing; do
		R=$T/$b-overlap-$l
		mkproj "$R" $l
		rm -f "$S/a-changed" "$S/b-started" "$S/go-a" "$S/go-b"
		(cd "$R" && exec "$P" run --backend "$b" -- sh -c "$(attack "$(realdir $l)"); touch '$S/a-changed';
			while [ ! -e '$S/go-a' ]; do sleep 0.05; done") >/dev/null 2>&1 </dev/null &
		pa=$!
		wait_for_file "$S/a-changed" 30
		(cd "$R" && exec "$P" run --backend "$b" -- sh -c "touch '$S/b-started';
			while [ ! -e '$S/go-b' ]; do sleep 0.05; done") >/dev/null 2>&1 </dev/null &
		pb=$!
		wait_for_file "$S/b-started" 30
		touch "$S/go-a"
		wait $pa
		touch "$S/go-b"
		wait $pb
		check "$b, $l: overlapping runs, the first writing a hook: the user's hook only after both" \
			held "$R" $l
	done
done

# The twins: ordinary files, and git's own work, with the user's hook running under paddock.
for b in $backends; do
	for l in husky githooks symlink; do
		R=$T/$b-twin-$l
		mkproj "$R" $l
		n0=$(git -C "$R" rev-list --count HEAD)
		run "$b" "$R" -- sh -c 'mkdir -p src && echo hi > src/f && echo b >> a &&
			git add -A && USERMARK="$TMPDIR/in-mark" git commit -qm twin && test -e "$TMPDIR/in-mark"'
		check "$b, $l: project files and git add -A && git commit work, the user's hook running" \
			sh -c "[ $rc -eq 0 ] && grep -q '^exit status: 0' '$T/out' && test \"\$(cat '$R/src/f')\" = hi &&
				[ \$(git -C '$R' rev-list --count HEAD) -eq $((n0 + 1)) ] && git -C '$R' diff --quiet HEAD"
		rm -f "$T/tmp/in-mark"
	done
	# --allow-git-hooks, approved: a husky-style install writes there, and the hook runs.
	for l in husky githooks-missing symlink; do
		R=$T/$b-allow-$l
		mkproj "$R" $l
		run "$b" "$R" --allow-git-hooks --yes -- sh -c "$(attack "$(realdir $l)")"
		check "$b, $l: --allow-git-hooks, approved: the install step writes the hook" \
			sh -c "[ $rc -eq 0 ] && grep -q '^exit status: 0' '$T/out' && test -x '$R/$(realdir $l)/pre-commit'"
		host_commit "$R"
		check "$b, $l: ... and the user's commit runs it" test -e "$T/mark"
	done
	# protected_paths naming the directory holds it even then.
	R=$T/$b-cfg
	mkproj "$R" husky
	printf '{ "protected_paths": [".husky/_"] }\n' >"$T/config/paddock/config.json"
	run "$b" "$R" --allow-git-hooks --yes -- sh -c "$(attack .husky/_)"
	check "$b: protected_paths naming the hooks directory holds it under --allow-git-hooks" held "$R" husky
	rm -f "$T/config/paddock/config.json"
done

# Run as root, the same once more as an unprivileged user (nobody), where that user can reach
# the built binary and this script.
if [ "$(id -u)" -eq 0 ] && [ -z "${PDK_HOOKSPATH_UNPRIVILEGED:-}" ] && command -v setpriv >/dev/null; then
	self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all "$@"; }
	if as_nobody test -x "$P" -a -r "$self" -a -r "$(dirname "$self")/lib.sh"; then
		out=$(cd / && PDK_HOOKSPATH_UNPRIVILEGED=1 TMPDIR=/tmp PADDOCK="$P" as_nobody sh "$self" 2>&1)
		rc=$?
		printf '%s\n' "$out" | sed 's/^/# as nobody: /'
		check "the same as an unprivileged user (uid 65534) ($(printf '%s\n' "$out" |
			grep -c '^ok') checks)" test "$rc" -eq 0
	else
		skip "unprivileged run: uid 65534 cannot reach $P or $self"
	fi
fi
finish
