#!/bin/sh
# git-workflow.sh - the everyday git of an agent through `paddock run`, no terminal, under each
# Linux backend that works here, while a second run is going on in the same root: every step
# must succeed, and what git writes (the index, a stash, config keys, a worktree) stay.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null || { echo "1..0 # SKIP git missing"; exit 0; }
P=$PADDOCK
fresh_state
mkdir -p "$T/tmp" "$T/cache" "$T/data" "$T/home"
export TMPDIR="$T/tmp" XDG_CACHE_HOME="$T/cache" XDG_DATA_HOME="$T/data" HOME="$T/home"
export GIT_CONFIG_NOSYSTEM=1
git config --global user.name t && git config --global user.email t@e.st &&
	git config --global init.defaultBranch master

# The upstream, outside the roots: master, and x with a file of its own.
O=$T/origin.git
git init -q --bare "$O"
git clone -q "$O" "$T/seed" 2>/dev/null
(cd "$T/seed" && echo one >a && git add a && git commit -qm one && git push -q origin master &&
	git checkout -qb x && echo x >x && git add x && git commit -qm x && git push -q origin x &&
	git checkout -q master && git checkout -qb vs && mkdir .vscode &&
	seq 1 300 | sed 's/.*/"k&": &,/' >.vscode/settings.json && echo '{}' >.mcp.json &&
	git add -A && git commit -qm vs && git push -q origin vs) ||
	{ echo "Bail out! git setup failed"; exit 1; }

backends=
for b in bwrap landlock; do
	"$P" doctor 2>/dev/null | grep -q "^$b: works here" && backends="$backends $b"
done
[ -n "$backends" ] || { echo "1..0 # SKIP no Linux backend works here"; exit 0; }

for b in $backends; do
	W=$T/w-$b
	git clone -q "$O" "$W"
	# The second run, in the same root, for as long as the steps take.
	(cd "$W" && exec "$P" run --backend "$b" -t 1800 -- sh -c \
		"while [ ! -e '$T/stop-$b' ]; do sleep 0.05; done; echo second-done") \
		>"$T/second-$b" 2>&1 </dev/null &
	second=$!
	step() { # step DESCRIPTION SHELL-TEXT: one paddock run in W, which must exit 0
		desc=$1
		(cd "$W" && exec "$P" run --backend "$b" -- sh -c "$2") >"$T/out" 2>"$T/err" </dev/null
		rc=$?
		if [ $rc -eq 0 ] && ! grep -q "^sandbox: the command" "$T/out"; then
			ok "$b: $desc"
		else
			not_ok "$b: $desc (exit $rc)"
		fi
	}
	step "git add -A" 'echo n1 >n1 && git add -A'
	step "git add ." 'echo n2 >n2 && git add .'
	step "git stash -u, and pop" 'echo u >u1 && git stash -u -q && test ! -e u1 && git stash pop -q && test -e u1'
	step "git commit" 'git add -A && git commit -qm two'
	step "git config user.email" 'git config user.email w@e.st'
	check "$b: ... which the user's git then sees" test "$(git -C "$W" config user.email)" = w@e.st
	step "git remote add and set-url" "git remote add up2 '$O' && git remote set-url up2 '$O'"
	step "git branch --set-upstream-to" 'git branch -q --set-upstream-to=up2/master 2>/dev/null ||
		{ git fetch -q up2 && git branch -q --set-upstream-to=up2/master; }'
	step "git checkout -b t origin/x (tracking)" 'git checkout -q -b t origin/x'
	check "$b: ... and t tracks origin/x" test "$(git -C "$W" config branch.t.merge)" = refs/heads/x
	step "git checkout back" 'git checkout -q master'
	# A branch that tracks .vscode/ and .mcp.json: git's checkout of them stays, and back.
	step "git checkout of a branch tracking .vscode/ and .mcp.json" 'git checkout -q -b vs origin/vs'
	check "$b: ... whose files stay, as git checked them out" sh -c \
		"[ -f '$W/.vscode/settings.json' ] && [ -f '$W/.mcp.json' ] && [ -z \"\$(git -C '$W' status --porcelain)\" ]"
	step "git checkout back from it" 'git checkout -q master'
	check "$b: ... which takes them away" sh -c "[ ! -e '$W/.vscode' ] && [ ! -e '$W/.mcp.json' ]"
	# A tracked .vscode/ held by nothing (a checkout must change it) is still vetted: what
	# the command writes there, beyond what git checks out, is undone.
	git -C "$W" checkout -q vs
	(cd "$W" && "$P" run --backend "$b" -- sh -c 'echo evil >.vscode/settings.json; echo evil >.vscode/tasks.json') \
		>"$T/out" 2>&1 </dev/null
	check "$b: a tracked .vscode/ the command wrote into is put back as git has it" sh -c \
		"[ -z \"\$(git -C '$W' status --porcelain)\" ] && [ ! -e '$W/.vscode/tasks.json' ]"
	check "$b: ... and the result says so" grep -q "^sandbox: .*the command changed the protected file .*settings.json" "$T/out"
	git -C "$W" checkout -q master
	# The attacks beside it: a file git does not track there, or one in a commit the command
	# made itself, goes to the trash.
	(cd "$W" && "$P" run --backend "$b" -- sh -c 'git checkout -q vs && echo evil >.vscode/tasks.json') \
		>"$T/out" 2>&1 </dev/null
	check "$b: a checkout with a file of the command's own in .vscode: .vscode goes" sh -c \
		"[ ! -e '$W/.vscode' ] && grep -q '^sandbox: the command made .*\.vscode' '$T/out'"
	check "$b: ... while .mcp.json, as git checked it out, stays" test -f "$W/.mcp.json"
	git -C "$W" checkout -q -f master 2>/dev/null
	git -C "$W" clean -qfd >/dev/null
	# (A mkdir of the missing .vscode is refused at once: the file goes into the index, and git
	# itself checks the branch out.)
	(cd "$W" && "$P" run --backend "$b" -- sh -c 'git checkout -q -b evil &&
		f=$(echo evil | git hash-object -w --stdin) &&
		git update-index --add --cacheinfo 100644,$f,.vscode/tasks.json && git commit -qm evil &&
		git checkout -q master && git checkout -q evil') >"$T/out" 2>&1 </dev/null
	check "$b: .vscode/tasks.json committed by the command itself goes" sh -c \
		"[ ! -e '$W/.vscode' ] && grep -q '^sandbox: the command made .*\.vscode' '$T/out'"
	git -C "$W" checkout -q -f master 2>/dev/null
	# In two runs: the first commits .vscode/tasks.json on a branch of its own and leaves
	# it; the second checks that branch out. A commit a sandbox made is never git's own.
	(cd "$W" && "$P" run --backend "$b" -- sh -c 'git checkout -q -b evil2 &&
		f=$(echo evil | git hash-object -w --stdin) &&
		git update-index --add --cacheinfo 100644,$f,.vscode/tasks.json &&
		git commit -qm evil2 && git checkout -q master') >/dev/null 2>&1 </dev/null
	(cd "$W" && "$P" run --backend "$b" -- git checkout -q evil2) >"$T/out" 2>&1 </dev/null
	check "$b: a branch an earlier run committed .vscode/tasks.json on, checked out: .vscode goes" \
		sh -c "[ ! -e '$W/.vscode' ] && grep -q '^sandbox: the command made .*\.vscode' '$T/out'"
	git -C "$W" checkout -q -f master 2>/dev/null
	git -C "$W" branch -q -D evil evil2 vs
	step "git worktree add inside the root" 'git worktree add -q wt2 -b w2 && test -e wt2/a'
	step "git commit in that worktree" 'cd wt2 && echo w >w && git add w && git commit -qm w'
	touch "$T/stop-$b"
	wait $second
	check "$b: the second run ran alongside, to its end" grep -q second-done "$T/second-$b"
	check "$b: the tree holds what git made and nothing else" test \
		"$(git -C "$W" status --porcelain --ignored | grep -v '^?? wt2/$' | wc -l)" = 0
	check "$b: the commits are there" test "$(git -C "$W" log --format=%s -1 master)" = two

	# A run started in a linked worktree whose repository lies outside the roots, as agent
	# harnesses lay them out: the worktree's git directory, objects and refs are writable
	# (where the backend can hold the repository's hooks), its configuration is vetted.
	M=$T/main-$b
	git clone -q "$O" "$M"
	git -C "$M" worktree add -q "$T/lw-$b" -b lw-$b
	(cd "$T/lw-$b" && exec "$P" run --backend "$b" -- sh -c 'echo l >l && git add l && git commit -qm linked') \
		>"$T/out" 2>"$T/err" </dev/null
	rc=$?
	if [ "$b" = landlock ]; then
		check "$b: in a linked worktree, the repository outside the roots stays read-only" \
			test "$(git -C "$M" log --format=%s -1 lw-$b)" != linked
	else
		check "$b: git commit in a linked worktree whose repository lies outside the roots (exit $rc)" \
			test "$(git -C "$M" log --format=%s -1 lw-$b)" = linked
		(cd "$T/lw-$b" && exec "$P" run --backend "$b" -- sh -c \
			"printf '#!/bin/sh\\ntouch $T/pw-lw-$b\\n' > '$M/.git/hooks/pre-commit'; git config core.fsmonitor 'touch $T/pw-lw-$b'") \
			>"$T/out" 2>"$T/err" </dev/null
		check "$b: ... while the repository's hooks stay read-only" test ! -e "$M/.git/hooks/pre-commit"
		check "$b: ... and what the command set in its configuration is undone" \
			sh -c "! git -C '$M' config core.fsmonitor >/dev/null"
	fi
done
finish
