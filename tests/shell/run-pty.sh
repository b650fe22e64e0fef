#!/bin/sh
# run-pty.sh - the confirm gate through `paddock run` itself, on a real pseudo-terminal (tmux):
# a moderate call is asked, and yes runs it, no leaves everything as it was, "yes for this
# program" covers the next call of the session without a question; with no terminal it is refused.
# The call is `rm -rf DIR`: moderate by the shipped rules (its files go to the trash), which
# the default threshold asks about.

. "${srcdir:-.}/tests/shell/lib.sh"

if ! command -v tmux >/dev/null 2>&1; then
	skip_all "tmux is not installed"
fi
fresh_state
export HOME="$T/home" XDG_DATA_HOME="$T/data" XDG_CONFIG_HOME="$T/config"
mkdir -p "$HOME" "$T/proj"
for d in d1 d2 d3 d4 d5; do mkdir -p "$T/proj/$d/sub" && echo "$d" >"$T/proj/$d/sub/f"; done
P=$(cd "$(dirname "$PADDOCK")" && pwd)/$(basename "$PADDOCK")

sock="pdk-run-pty-$$"
printf 'set -g remain-on-exit on\nset -g default-shell /bin/sh\n' >"$T/tmux.conf"
tm() { tmux -L "$sock" -f "$T/tmux.conf" "$@"; }
trap 'tm kill-server 2>/dev/null; lib_cleanup' EXIT

# start NAME DIR [OPTION...]: `paddock run OPTION... -- rm -rf DIR` in tmux session NAME, in the
# project, in this session.
start() {
	cur=$1
	dir=$2
	shift 2
	cat >"$T/$cur.sh" <<EOF
cd '$T/proj' && export HOME='$HOME' XDG_STATE_HOME='$XDG_STATE_HOME' XDG_DATA_HOME='$XDG_DATA_HOME' \
	XDG_CONFIG_HOME='$XDG_CONFIG_HOME' PADDOCK_SESSION=pty
'$P' run $* -- rm -rf '$dir' >'$T/$cur.out' 2>'$T/$cur.err'
echo rc=\$? >'$T/$cur.rc'
EOF
	tm new-session -d -s "$cur" -x 200 -y 50 "sh '$T/$cur.sh'"
}
pane() { tm capture-pane -p -t "$cur"; }
until_true() { # until_true COMMAND...: up to 10 s
	i=0
	while ! "$@"; do
		i=$((i + 1))
		[ $i -gt 200 ] && return 1
		sleep 0.05
	done
}
asked() { pane | grep -q 'Run it?'; }
done_rc() { [ -s "$T/$cur.rc" ]; }
rc_is() { grep -qx "rc=$1" "$T/$cur.rc"; }
gone_to_trash() { [ ! -e "$T/proj/$1" ] && grep -qx "$1" "$T/data/Trash/files/$1/sub/f"; }

# yes, once
start yes d1
check "y: the question appears on the terminal" until_true asked
check "y: it names the call and its class" sh -c 'tmux -L "$0" capture-pane -p -t yes |
	grep -q "rm -rf d1" && tmux -L "$0" capture-pane -p -t yes | grep -q moderate' "$sock"
tm send-keys -t "$cur" y Enter
check "y: the run ends" until_true done_rc
check "y: exit 0" rc_is 0
check "y: the directory went to the trash" gone_to_trash d1
check "y: the result says who approved it" grep -q '^approved: .*by the person at the terminal' \
	"$T/$cur.out"

# no
start no d2
check "n: the question appears" until_true asked
tm send-keys -t "$cur" n Enter
check "n: the run ends" until_true done_rc
check "n: exit 125" rc_is 125
check "n: nothing was removed" test -e "$T/proj/d2/sub/f"
check "n: the refusal says the person said no" grep -q 'said no' "$T/$cur.err"

# yes for this program, then the next call runs without a question
start always d3
check "a: the question appears" until_true asked
tm send-keys -t "$cur" a Enter
check "a: the run ends" until_true done_rc
check "a: exit 0" rc_is 0
check "a: the directory went to the trash" gone_to_trash d3
check "a: the result says it is remembered" grep -q 'remembered for this session' "$T/$cur.out"
start again d4
check "a: the next rm of the session runs without a question" until_true done_rc
check "a: ... exit 0" rc_is 0
check "a: ... and no question was shown" sh -c '! tmux -L "$0" capture-pane -p -t again |
	grep -q "Run it?"' "$sock"
check "a: ... by the session's approval" grep -q 'by session approval for `rm`' "$T/$cur.out"
check "a: ... the directory went to the trash" gone_to_trash d4

# An "a" covers exactly what it approved: `git stash drop` (moderate) approved for the session
# does not let `git clean -f` (dangerous) through, nor a `git` the project holds; `check` says
# what the session would decide.
git -C "$T/proj" init -q && git -C "$T/proj" -c user.name=t -c user.email=t@t commit -q --allow-empty -m init &&
	echo x >"$T/proj/f" && git -C "$T/proj" add f && git -C "$T/proj" stash -q
cur=stash
cat >"$T/$cur.sh" <<EOF
cd '$T/proj' && export HOME='$HOME' XDG_STATE_HOME='$XDG_STATE_HOME' XDG_DATA_HOME='$XDG_DATA_HOME' \
	XDG_CONFIG_HOME='$XDG_CONFIG_HOME' PADDOCK_SESSION=pty
'$P' run -- git stash drop >'$T/$cur.out' 2>'$T/$cur.err'
echo rc=\$? >'$T/$cur.rc'
EOF
tm new-session -d -s "$cur" -x 200 -y 50 "sh '$T/$cur.sh'"
check "exact: git stash drop is asked" until_true asked
check "exact: the a it offers names git stash" sh -c 'tmux -L "$0" capture-pane -p -t stash |
	grep -q "a = yes to .git stash. for the rest of this session"' "$sock"
tm send-keys -t "$cur" a Enter
check "exact: the run ends" until_true done_rc
check "exact: exit 0" rc_is 0
cd "$T/proj" || exit 99
echo y >"$T/proj/untracked"
PADDOCK_SESSION=pty "$P" check -- git stash drop >"$T/out" 2>"$T/err"
check "exact: check says the session covers another git stash drop (exit 0)" test $? -eq 0
check "exact: ... in one line" grep -qxF 'session: an approval given earlier in this session (pty) covers it: it runs without asking' "$T/out"
PADDOCK_SESSION=pty "$P" check -- git clean -f >"$T/out" 2>"$T/err"
check "exact: check says git clean -f is still asked (exit 1)" test $? -eq 1
PADDOCK_SESSION=pty setsid "$P" run -- git clean -f >"$T/out" 2>"$T/err" </dev/null
check "exact: git clean -f is not let through by the approval of git stash drop" test $? -eq 125
check "exact: ... and removed nothing" test -e "$T/proj/untracked"
mkdir -p "$T/proj/fake" && printf '#!/bin/sh\ntouch "$HOME/pwned"\n' >"$T/proj/fake/git" && chmod +x "$T/proj/fake/git"
PADDOCK_SESSION=pty setsid "$P" run -- ./fake/git stash drop >"$T/out" 2>"$T/err" </dev/null
check "exact: a git of the project's is not the git approved" test $? -eq 125
check "exact: ... and did not run" test ! -e "$HOME/pwned"
PADDOCK_SESSION=pty setsid "$P" run -n -- git stash drop >"$T/out" 2>"$T/err" </dev/null
check "exact: the approved call with the network on is asked again" test $? -eq 125

# outside the sandbox, where the configuration allows it: asked every time, once only, even for
# a program the session approved above; it runs unconfined and the result ends saying so.
far=$(mktemp -d /var/tmp/pdk-run-pty.XXXXXX)
mkdir -p "$far/d6/sub"
printf '{ "commandPolicy": { "sandbox": { "allowOutsideSandbox": true } } }\n' >"$T/outside.json"
start outside "$far/d6" --config "$T/outside.json" --outside-sandbox
check "outside: the question appears, though rm was approved for the session" until_true asked
check "outside: only yes-once and no are offered" sh -c 'tmux -L "$0" capture-pane -p -t outside |
	grep -q "y = yes, this once; n = no"' "$sock"
tm send-keys -t "$cur" y Enter
check "outside: the run ends" until_true done_rc
check "outside: exit 0" rc_is 0
check "outside: it reached outside the writable roots" test ! -e "$far/d6"
check "outside: the result ends with the sandbox line" sh -c \
	'tail -n 1 "$0" | grep -qx "sandbox: ran outside the sandbox, as the person approved, this once"' \
	"$T/$cur.out"
rm -rf "$far"

# nobody to ask: no terminal at all
cd "$T/proj" || exit 99
PADDOCK_SESSION=other setsid "$P" run -- rm -rf d5 >"$T/out" 2>"$T/err" </dev/null
rc=$?
check "no terminal: exit 125 (got $rc)" test "$rc" -eq 125
check "no terminal: refused, saying nobody can be asked" err_has 'no one can be asked here'
check "no terminal: nothing was removed" test -e "$T/proj/d5/sub/f"

finish
