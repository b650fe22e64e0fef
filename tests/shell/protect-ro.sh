#!/bin/sh
# protect-ro.sh - protected paths on a read-only file system, or that paddock cannot make,
# never stop a run: a project on a read-only tmpfs, a .git and a .git/hooks that are read-only
# bind mounts, an editor's directory on a read-only mount, paddock's state and trash on a
# read-only file system, HOME as the root on a read-only file system (where paddock cannot make
# its own directories), and a project the user cannot write, as an unprivileged user. Each
# under each Linux backend that works here; the mounts are made in a mount namespace of the
# test's own (unshare -m), as root. The run must work, git in it must work where it can
# write, and the after-run vetting must still undo what it should.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null || skip_all "git missing"
[ "$(id -u)" -eq 0 ] || skip_all "needs root to mount file systems in a namespace of its own"
command -v unshare >/dev/null || skip_all "unshare missing"

# Inside the namespace: the suite's body, run again by itself with PDK_RO_INSIDE set.
if [ -z "${PDK_RO_INSIDE:-}" ]; then
	unshare -m --propagation private true 2>/dev/null || skip_all "unshare -m does not work here"
	# lib.sh made $T and its cleanup trap; the inner run has its own.
	rm -rf "$T"
	PDK_RO_INSIDE=1 PADDOCK="$PADDOCK" exec unshare -m --propagation private sh "$0"
fi

P=$PADDOCK
fresh_state
mkdir -p "$T/tmp" "$T/cache" "$T/data" "$T/home"
export TMPDIR="$T/tmp" XDG_CACHE_HOME="$T/cache" XDG_DATA_HOME="$T/data" HOME="$T/home" \
	XDG_CONFIG_HOME="$T/config" GIT_CONFIG_NOSYSTEM=1
git config --global user.name t && git config --global user.email t@e.st &&
	git config --global init.defaultBranch master

backends=
for b in bwrap landlock; do
	"$P" doctor 2>/dev/null | grep -q "^$b: works here" && backends="$backends $b"
done
[ -n "$backends" ] || skip_all "no Linux backend works here"

ro_mount() { # ro_mount DIR: DIR becomes a read-only bind mount of itself
	mount --bind "$1" "$1" && mount -o remount,bind,ro "$1"
}
run() { # run B DIR SHELL-TEXT [ENV...]: paddock run in DIR, the result in $T/out
	b=$1 d=$2 text=$3
	shift 3
	(cd "$d" && exec env "$@" "$P" run --backend "$b" -- sh -c "$text") >"$T/out" 2>"$T/err" </dev/null
	rc=$?
}
worked() { # worked WORD: the run exited 0 and printed WORD, with no error from paddock
	[ "$rc" -eq 0 ] && grep -q '^exit status: 0' "$T/out" && grep -qx "$1" "$T/out" &&
		! grep -q '^paddock: ' "$T/err"
}
nothing_new() { # nothing_new DIR: git status --ignored shows nothing
	test -z "$(git -C "$1" status --porcelain --ignored)"
}

M=$T/mnt
mkdir -p "$M"
mount -t tmpfs tmpfs "$M" || { echo "Bail out! cannot mount a tmpfs"; exit 1; }
trap 'umount -R "$M" 2>/dev/null; lib_cleanup' EXIT

# 1. The whole project on a read-only file system: no protected path can be made there.
git init -q "$M/roproj" && (cd "$M/roproj" && echo a >a && git add a && git commit -qm a) ||
	{ echo "Bail out! git setup failed"; exit 1; }
ro_mount "$M/roproj"
for b in $backends; do
	run "$b" "$M/roproj" 'git status --short && git log --oneline | wc -l'
	check "$b: a project on a read-only file system: the run works" worked 1
	check "$b: ... and nothing new is in it" nothing_new "$M/roproj"
	run "$b" "$M/roproj" 'echo x > .git/hooks/pre-commit; mkdir .vscode; echo done'
	check "$b: ... a write there fails as the file system says, and the run goes on" worked done
done

# 2. A writable project whose .git/hooks is a read-only mount, and whose .vscode lies on one;
# missing protected paths in a read-only directory (.mcp.json in sub/) cannot be made either.
git init -q "$M/proj" && (cd "$M/proj" && echo a >a && git add a && git commit -qm a) ||
	{ echo "Bail out! git setup failed"; exit 1; }
mkdir -p "$M/proj/.vscode" "$M/proj/sub"
echo '{}' >"$M/proj/.vscode/settings.json"
ro_mount "$M/proj/.git/hooks"
ro_mount "$M/proj/.vscode"
ro_mount "$M/proj/sub"
k=0
for b in $backends; do
	k=$((k + 1))
	run "$b" "$M/proj" "echo $k >a && git add a && git commit -qm c$k && git config user.email me@e.st && echo committed"
	check "$b: read-only .git/hooks and .vscode: git add, commit and config work" worked committed
	check "$b: ... and the commit is the user's" sh -c "git -C '$M/proj' log --format=%s -1 | grep -qx c$k"
	git -C "$M/proj" config --unset user.email
	run "$b" "$M/proj/sub" 'echo ok'
	check "$b: ... a run started in a read-only directory of it works" worked ok
done

# 3. A .git that is itself a read-only bind mount (git can only read): the run still starts,
# and git status works.
git init -q "$M/rogit" && (cd "$M/rogit" && echo a >a && git add a && git commit -qm a) ||
	{ echo "Bail out! git setup failed"; exit 1; }
ro_mount "$M/rogit/.git"
for b in $backends; do
	run "$b" "$M/rogit" 'git log --format=%s && echo x > b && echo ok'
	check "$b: a read-only .git in a writable project: the run works" worked ok
	rm -f "$M/rogit/b"
done

# 4. paddock's state (the journals) and the trash on a read-only file system: the run works, and
# what the command set in .git/config is still undone.
S=$M/state
mkdir -p "$S/state" "$S/data"
ro_mount "$S"
git init -q "$M/p4" && (cd "$M/p4" && echo a >a && git add a && git commit -qm a)
for b in $backends; do
	run "$b" "$M/p4" 'git config core.fsmonitor "touch $TMPDIR/pw" && echo ok' \
		XDG_STATE_HOME="$S/state" XDG_DATA_HOME="$S/data"
	check "$b: state and trash on a read-only file system: the run works" worked ok
	check "$b: ... and core.fsmonitor is still undone" sh -c "! git -C '$M/p4' config core.fsmonitor"
done

# 5. HOME as the root, on a read-only file system: paddock cannot make its own directories there
# (bwrap only: the landlock backend refuses a root that holds them, read-only or not).
H=$M/rohome
mkdir -p "$H"
ro_mount "$H"
case " $backends " in *" bwrap "*)
	run bwrap "$H" 'echo ok' HOME="$H" XDG_STATE_HOME= XDG_DATA_HOME= XDG_CONFIG_HOME= XDG_CACHE_HOME=
	check "bwrap: HOME as the root on a read-only file system: the run works" worked ok
	check "bwrap: ... and paddock made nothing there" test -z "$(ls -A "$H")"
	;;
esac

# 6. As an unprivileged user, in a project it cannot write (root's, mode 755): the run works.
if command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$P"; then
	git init -q "$M/rootproj" && (cd "$M/rootproj" && echo a >a && git add a && git commit -qm a)
	chmod a+rx "$T" "$M" 2>/dev/null; chmod -R a+rX "$M/rootproj" "$(dirname "$P")" 2>/dev/null
	mkdir -p "$M/nb/tmp" "$M/nb/state" && chown -R 65534:65534 "$M/nb"
	for b in $backends; do
		(cd "$M/rootproj" && setpriv --reuid=65534 --regid=65534 --clear-groups \
			env HOME="$M/nb" TMPDIR="$M/nb/tmp" XDG_STATE_HOME="$M/nb/state" \
			XDG_DATA_HOME="$M/nb/data" XDG_CACHE_HOME="$M/nb/cache" XDG_CONFIG_HOME= \
			"$P" run --backend "$b" -- sh -c 'git -c safe.directory="*" log --format=%s; echo ok') \
			>"$T/out" 2>"$T/err" </dev/null
		rc=$?
		check "$b, uid 65534: a project it cannot write, nothing of it makeable: the run works" worked ok
	done
else
	skip "uid 65534 cannot reach $P"
fi
finish
