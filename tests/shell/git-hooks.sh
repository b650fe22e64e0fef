#!/bin/sh
# git-hooks.sh - a hook manager's install step through `paddock run`, under each Linux backend
# that works here: refused (held, or undone after the run) without --allow-git-hooks, so that
# the user's own git commit runs nothing of the command's; kept with it, once the confirm gate
# said yes, so that the user's git commit runs the hook. The real pre-commit when it is
# installed, and what husky does (core.hooksPath and a hook in the work tree) by script. And a
# hook of the user's own that the command changes, under Landlock too, after paddock's SIGKILL too.
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

# A project whose pre-commit configuration runs a local hook that leaves a mark ($MARKFILE).
# nohooks: with no .git/hooks at all (a clone made with an empty template).
mkproj() { # mkproj DIR [nohooks]
	if [ "${2:-}" = nohooks ]; then
		mkdir -p "$T/empty-template" && git init -q --template="$T/empty-template" "$1"
	else
		git init -q "$1"
	fi
	(cd "$1" && cat >.pre-commit-config.yaml <<EOF
repos:
- repo: local
  hooks:
  - id: mark
    name: mark
    entry: sh -c 'touch "\$MARKFILE"'
    language: system
    pass_filenames: false
    always_run: true
EOF
	echo a >a && git add a .pre-commit-config.yaml && git commit -qm a --no-verify)
}
# host_commit DIR: the user's own git commit in DIR, outside paddock; 0 when a hook ran.
host_commit() {
	rm -f "$T/mark"
	(cd "$1" && echo x >>a && MARKFILE="$T/mark" git commit -qam "c$$" >/dev/null 2>&1)
	test -e "$T/mark"
}
no_hook_ran() { ! host_commit "$1"; }
run() { # run B DIR ARGS...: paddock run in DIR, the result in $T/out
	b=$1 d=$2
	shift 2
	(cd "$d" && exec "$P" run --backend "$b" "$@") >"$T/out" 2>"$T/err" </dev/null
	rc=$?
}
# What husky's install step does: core.hooksPath to a directory of the work tree, and a hook there.
husky='mkdir -p .husky/_ && printf "#!/bin/sh\ntouch \"\$MARKFILE\"\n" > .husky/_/pre-commit &&
	chmod +x .husky/_/pre-commit && git config core.hooksPath .husky/_'
# What pre-commit's install step does, where pre-commit is not installed.
script_install='mkdir -p .git/hooks && printf "#!/bin/sh\ntouch \"\$MARKFILE\"\n" > .git/hooks/pre-commit &&
	chmod +x .git/hooks/pre-commit && echo "installed at .git/hooks/pre-commit"'
if command -v pre-commit >/dev/null; then
	install='pre-commit install'
	what="pre-commit install"
else
	install=$script_install
	what="a script doing what pre-commit install does (pre-commit is not installed)"
fi

for b in $backends; do
	for layout in hooks nohooks; do
		R=$T/$b-$layout
		mkproj "$R" "$([ $layout = nohooks ] && echo nohooks)"
		# Without the flag: refused while the run lasts (bwrap holds what exists), or undone
		# after it; the user's git commit runs nothing of the command's.
		run "$b" "$R" -- sh -c "$install"
		check "$b, $layout: $what without --allow-git-hooks: the user's commit runs no hook" \
			no_hook_ran "$R"
		check "$b, $layout: ... and the result says why" grep -q "^sandbox: .*hooks" "$T/out"
		# With it but no one to ask: refused before anything runs, naming the widening.
		run "$b" "$R" --allow-git-hooks -- sh -c "$install"
		check "$b, $layout: --allow-git-hooks with no one to ask is refused, naming it" \
			sh -c "[ $rc -ne 0 ] && grep -q 'not approved.*installs git hooks.*--allow-git-hooks' '$T/err' &&
				! test -e '$R/.git/hooks/pre-commit'"
		# With it, approved: the hook stays and the user's commit runs it.
		run "$b" "$R" --allow-git-hooks --yes -- sh -c "$install"
		check "$b, $layout: --allow-git-hooks, approved: the install step works" \
			sh -c "[ $rc -eq 0 ] && grep -q '^exit status: 0' '$T/out' && ! grep -q '^sandbox: .*hooks' '$T/out'"
		check "$b, $layout: ... and the user's git commit runs the hook" host_commit "$R"
	done

	# husky's way: core.hooksPath. Without the flag the setting is undone (the hook file in
	# the work tree is the project's own); with it, it stays and the hook runs.
	R=$T/$b-husky
	mkproj "$R"
	run "$b" "$R" -- sh -c "$husky"
	check "$b, husky: core.hooksPath without --allow-git-hooks is undone" \
		sh -c "! git -C '$R' config core.hooksPath && grep -q '^sandbox: .*core.hookspath' '$T/out'"
	check "$b, husky: ... and the user's commit runs no hook" no_hook_ran "$R"
	run "$b" "$R" --allow-git-hooks --yes -- sh -c "$husky"
	check "$b, husky: with --allow-git-hooks, approved, core.hooksPath stays" \
		sh -c "git -C '$R' config core.hooksPath | grep -qx .husky/_ && ! grep -q '^sandbox: .*core.hookspath' '$T/out'"
	check "$b, husky: ... and the user's git commit runs the hook" host_commit "$R"
	# The flag covers hooks only: core.fsmonitor set beside it is still undone.
	run "$b" "$R" --allow-git-hooks --yes -- sh -c 'git config core.fsmonitor "touch $MARKFILE"'
	check "$b: --allow-git-hooks does not let core.fsmonitor stay" \
		sh -c "! git -C '$R' config core.fsmonitor && grep -q '^sandbox: .*core.fsmonitor' '$T/out'"
done

# A hook of the user's own, which the command changes, or a hook it adds beside it, or the
# hooks directory swapped for a symlink to one of its own: the write is refused as it happens
# (the directory is held: by bwrap, by Landlock in the run's mount namespace), and where it is
# not held it is undone after the run and after paddock's SIGKILL, the command's version in
# the trash. Either way the user's next git commit runs the user's hook and nothing of the
# command's.
journals() { ls -A "$XDG_STATE_HOME/paddock/runs" 2>/dev/null | grep -c .; }
killed() { # killed B DIR SHELL-TEXT: paddock SIGKILLed once the command did SHELL-TEXT
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
userhook() { # userhook DIR: the user's own pre-commit, which leaves $T/user-mark
	printf '#!/bin/sh\ntouch "%s"\n' "$T/user-mark" >"$1/.git/hooks/pre-commit"
	chmod 755 "$1/.git/hooks/pre-commit"
	cp -p "$1/.git/hooks/pre-commit" "$T/userhook"
}
# user_hook_only DIR: the user's commit ran the user's hook, as it was, and no hook of the command's.
user_hook_only() {
	rm -f "$T/user-mark" "$T/mark"
	(cd "$1" && echo y >>a && MARKFILE="$T/mark" git commit -qam "u$$" >/dev/null 2>&1)
	test -e "$T/user-mark" && ! test -e "$T/mark" && cmp -s "$1/.git/hooks/pre-commit" "$T/userhook" &&
		test -x "$1/.git/hooks/pre-commit" && test -d "$1/.git/hooks" && ! test -L "$1/.git/hooks"
}
change='printf "#!/bin/sh\ntouch \"\$MARKFILE\"\n" > .git/hooks/pre-commit'
add='printf "#!/bin/sh\ntouch \"\$MARKFILE\"\n" > .git/hooks/post-commit && chmod +x .git/hooks/post-commit'
swap='mkdir -p "$TMPDIR/h$$" && printf "#!/bin/sh\ntouch \"\$MARKFILE\"\n" > "$TMPDIR/h$$/pre-commit" &&
	chmod +x "$TMPDIR/h$$/pre-commit" && mv .git/hooks .git/hooks.old && ln -s "$TMPDIR/h$$" .git/hooks'
remove='for f in .git/hooks/*; do unlink "$f"; done; rmdir .git/hooks'
for b in $backends; do
	for a in change add swap remove; do
		eval "text=\$$a"
		R=$T/$b-user-$a
		mkproj "$R"
		userhook "$R"
		run "$b" "$R" -- sh -c "$text"
		check "$b, $a: the user's commit runs the user's hook only, after the run" user_hook_only "$R"
		[ "$b" = landlock ] && check "$b, $a: ... the result says what was undone" \
			grep -q '^sandbox: .*hook.*--allow-git-hooks' "$T/out"
		[ "$b" = landlock ] && [ "$a" = change ] && check "$b, $a: ... the write failed as it happened" \
			grep -q 'pre-commit: Read-only file system' "$T/out"
		R=$T/$b-user-$a-kill
		mkproj "$R"
		userhook "$R"
		killed "$b" "$R" "$text"
		check "$b, $a: ... and after paddock's SIGKILL" user_hook_only "$R"
		check "$b, $a: ... leaving no journal" test "$(journals)" = 0
	done
done

# Two runs overlapping in one root: the first changes the user's hook, the second starts while
# it is changed and ends after the first put it back. The second must take the first's copy of
# the hooks for the user's, not the changed hook it found: after both, the user's hook is there.
for b in $backends; do
	R=$T/$b-overlap
	mkproj "$R"
	userhook "$R"
	rm -f "$T/a-changed" "$T/b-started" "$T/go-a" "$T/go-b"
	(cd "$R" && exec "$P" run --backend "$b" -- sh -c "$change; touch '$T/a-changed';
		while [ ! -e '$T/go-a' ]; do sleep 0.05; done") >/dev/null 2>&1 </dev/null &
	pa=$!
	wait_for_file "$T/a-changed" 30
	(cd "$R" && exec "$P" run --backend "$b" -- sh -c "touch '$T/b-started';
		while [ ! -e '$T/go-b' ]; do sleep 0.05; done") >/dev/null 2>&1 </dev/null &
	pb=$!
	wait_for_file "$T/b-started" 30
	touch "$T/go-a"
	wait $pa
	touch "$T/go-b"
	wait $pb
	check "$b: overlapping runs, the first changing the user's hook: the user's hook after both" \
		user_hook_only "$R"
done

# The gate: an approval.command sees the widening among the raises, and a session "yes" without
# it does not cover a call with it.
cat >"$T/approve" <<EOF
#!/bin/sh
cat > "$T/asked"
grep -q -- '--allow-git-hooks' "$T/asked"
EOF
chmod +x "$T/approve"
printf '{ "approval": { "mode": "command", "command": "%s" } }\n' "$T/approve" \
	>"$T/config/paddock/config.json"
b=${backends# }
b=${b%% *}
R=$T/gate
mkproj "$R"
run "$b" "$R" --allow-git-hooks -- sh -c "$script_install"
check "approval.command is asked, with the widening in the request's raises" \
	sh -c "[ $rc -eq 0 ] && grep -q 'installs git hooks' '$T/asked' && test -x '$R/.git/hooks/pre-commit'"
rm -f "$T/config/paddock/config.json"

# The JSON request and run_command take it as allowGitHooks.
R=$T/json
mkproj "$R"
printf '{"argv": ["sh", "-c", "true"], "allowGitHooks": true}' >"$T/req.json"
(cd "$R" && "$P" run --backend "$b" --request "$T/req.json") >"$T/out" 2>"$T/err" </dev/null
check "a JSON request with allowGitHooks is asked as --allow-git-hooks" \
	grep -q 'installs git hooks.*--allow-git-hooks' "$T/out"
printf '{"argv": ["true"], "allowGitHooks": "yes"}' >"$T/req.json"
(cd "$R" && "$P" run --request "$T/req.json") >"$T/out" 2>"$T/err" </dev/null
check "... and a value that is not a boolean is refused, naming the key" \
	grep -q "'allowGitHooks' must be true or false" "$T/out"
finish
