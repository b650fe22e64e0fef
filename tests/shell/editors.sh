#!/bin/sh
# editors.sh - no call waits for a person it cannot reach: with real git, a commit
# without -m, git rebase -i and git merge return at once, saying what to pass instead,
# unless the call sets its own editor; pagers are cat and prompts are off.
. "${srcdir:-.}/tests/shell/lib.sh"

if ! command -v git >/dev/null; then
	echo "Bail out! git is needed (Debian package: git)"
	exit 99
fi
fresh_state
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t \
	GIT_COMMITTER_EMAIL=t@example.org GIT_CONFIG_NOSYSTEM=1 HOME="$T/home"
unset GIT_EDITOR GIT_SEQUENCE_EDITOR EDITOR VISUAL GIT_PAGER PAGER GIT_TERMINAL_PROMPT \
	DEBIAN_FRONTEND GIT_MERGE_AUTOEDIT MANPAGER SYSTEMD_PAGER GCM_INTERACTIVE PIP_NO_INPUT
mkdir -p "$HOME" "$T/repo"
# The person's own settings name a terminal editor: the case that hangs.
printf '[core]\n\teditor = vim\n' >"$HOME/.gitconfig"
cd "$T/repo" || exit 99
git init -q -b main . && echo a >a && git add a && git commit -qm first || exit 99

for how in confined --no-sandbox; do
	opt=
	[ "$how" = --no-sandbox ] && opt="--yes --no-sandbox"
	echo "$how" >>a && git add a
	pcall run $opt -t 300 -- git commit
	check "$how: git commit without -m returns at once ($ms ms), not at the timeout" \
		sh -c "[ $ms -lt 60000 ] && ! grep -q '^timed out' '$T/out'"
	check "$how: it failed (rc $rc)" test "$rc" -ne 0
	check "$how: and says what to pass instead" \
		grep -q 'paddock: nobody can use an editor here.*git commit -m MESSAGE' "$T/out"
	check "$how: nothing was committed" test "$(git rev-list --count HEAD)" -eq 1
	pcall run $opt -- git commit -m "by -m"
	check "$how: git commit -m works (rc $rc)" test "$rc" -eq 0
	git reset -q --soft HEAD~1
done

# The call's own editor is used: in the environment, or set in the script.
pcall run -t 30 -- env GIT_EDITOR='sed -i 1s/^/from-env/' git commit
check "an editor the call sets (env) is used (rc $rc)" \
	sh -c "[ $rc -eq 0 ] && [ \"\$(git log -1 --format=%s)\" = from-env ]"
git reset -q --soft HEAD~1
GIT_EDITOR='sed -i 1s/^/from-paddock-env/' pcall run -t 30 -- git commit
check "an editor in paddock's own environment is the call's (rc $rc)" \
	sh -c "[ $rc -eq 0 ] && [ \"\$(git log -1 --format=%s)\" = from-paddock-env ]"
git reset -q --soft HEAD~1
EDITOR=vim VISUAL=/usr/bin/nano pcall run -- sh -c 'echo "$EDITOR|$VISUAL"'
check "an inherited terminal editor (vim, nano) is replaced" \
	sh -c "grep -q '^echo .paddock: nobody can use an editor.*|echo .paddock' '$T/out'"
git commit -qm second

# git rebase -i: the sequence editor fails at once; the call's own works.
pcall run --yes -t 300 -- git rebase -i HEAD~1
check "git rebase -i without GIT_SEQUENCE_EDITOR returns at once ($ms ms)" \
	sh -c "[ $ms -lt 60000 ] && ! grep -q '^timed out' '$T/out'"
check "... saying to pass GIT_SEQUENCE_EDITOR" grep -q 'GIT_SEQUENCE_EDITOR' "$T/out"
git rebase --abort 2>/dev/null
pcall run --yes -t 30 -- sh -c 'GIT_SEQUENCE_EDITOR="sed -i 1s/^pick/reword/" GIT_EDITOR="sed -i 1s/^/reworded-/" git rebase -i HEAD~1'
check "a rebase -i with the call's own editors works (rc $rc)" \
	sh -c "[ $rc -eq 0 ] && git log -1 --format=%s | grep -qx reworded-second"

# git merge of diverged branches takes its default message.
git checkout -qb side HEAD~1 && echo b >b && git add b && git commit -qm side && git checkout -q main
pcall run -t 30 -- git merge side
check "git merge without --no-edit merges with the default message (rc $rc)" \
	sh -c "[ $rc -eq 0 ] && git log -1 --format=%s | grep -q \"^Merge branch 'side'\""

# Pagers are cat; prompts are off, unless the call says otherwise.
pcall run -- sh -c 'echo "$GIT_PAGER $PAGER $GIT_TERMINAL_PROMPT $DEBIAN_FRONTEND"'
check "pagers are cat, prompts off" has_line "cat cat 0 noninteractive"
DEBIAN_FRONTEND=readline GIT_PAGER=tac pcall run -- sh -c 'echo "$GIT_PAGER $DEBIAN_FRONTEND"'
check "the call's own values are kept" has_line "tac readline"
pcall run -t 300 -- git -p log --oneline -1
check "git -p log prints, no pager waits (rc $rc)" sh -c "[ $rc -eq 0 ] && [ $ms -lt 60000 ]"

finish
