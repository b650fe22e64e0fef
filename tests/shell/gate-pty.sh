#!/bin/sh
# gate-pty.sh - the confirm gate on a real pseudo-terminal (tmux): yes once, no, yes for the
# program for the session, Ctrl-C, outside-sandbox and password answers, and the refusal with no tty.
#
# Each run starts tests/drivers/gate-drive in its own tmux session on a private server socket, waits for
# the question on the pane, types the answer, and checks what the gate decided. Section 9 runs
# paddock run itself on the terminal, answered there or with `paddock approvals`.
# Prints TAP; without tmux the suite is skipped.

. "${srcdir:-.}/tests/shell/lib.sh"

if ! command -v tmux >/dev/null 2>&1; then
	skip_all "tmux is not installed"
fi
driver=${GATE_DRIVE:-${top_builddir:-.}/tests/drivers/gate-drive}
[ -x "$driver" ] || driver=$(dirname "$0")/../drivers/gate-drive
if [ ! -x "$driver" ]; then
	echo "Bail out! gate-drive not built (set GATE_DRIVE)"
	exit 99
fi
driver=$(cd "$(dirname "$driver")" && pwd)/$(basename "$driver")

sock="pdk-gate-$$"
cat >"$T/tmux.conf" <<'EOF'
set -g remain-on-exit on
set -g default-shell /bin/sh
set -g history-limit 1000
EOF
tm() { tmux -L "$sock" -f "$T/tmux.conf" "$@"; }
trap 'tm kill-server 2>/dev/null; lib_cleanup' EXIT

# What a failing check shows besides lib.sh's: the current run's output and pane.
show_cur() {
	[ -n "${cur:-}" ] && [ -f "$T/$cur.out" ] && sed 's/^/#   out: /' "$T/$cur.out"
	[ -n "${cur:-}" ] && [ -s "$T/$cur.err" ] && sed 's/^/#   err: /' "$T/$cur.err"
	[ -n "${cur:-}" ] && tm capture-pane -p -t "$cur" 2>/dev/null | grep . | sed 's/^/#   pane: /'
	return 0
}
not_ok_show=show_cur

q() { printf "'%s'" "$(printf %s "$1" | sed "s/'/'\\\\''/g")"; }

# start NAME ARGS...: gate-drive ARGS (or $prog ARGS) in a new tmux session NAME (200x50), with
# this state dir.
start() {
	cur=$1
	shift
	{
		echo "cd $(q "$T") || exit 99"
		echo "HOME=$(q "$HOME") XDG_STATE_HOME=$(q "$XDG_STATE_HOME"); export HOME XDG_STATE_HOME"
		# Ctrl-C reaches the whole foreground group: this shell must live on to write rc.
		echo "trap 'echo interrupted >>$(q "$T/$cur.sig")' INT"
		printf '%s' "$(q "${prog:-$driver}")"
		for a in "$@"; do printf ' %s' "$(q "$a")"; done
		echo " >$(q "$T/$cur.out") 2>$(q "$T/$cur.err")"
		echo "echo rc=\$? >$(q "$T/$cur.rc")"
	} >"$T/$cur.sh"
	tm new-session -d -s "$cur" -x 200 -y 50 "sh $(q "$T/$cur.sh")"
}
pane() { tm capture-pane -p -t "$cur"; }
# wait_pane TEXT: until the pane shows TEXT, up to 10 s.
wait_pane() {
	i=0
	while ! pane | grep -qF -- "$1"; do
		i=$((i + 1))
		[ $i -gt 200 ] && return 1
		sleep 0.05
	done
}
# finished: until the driver's exit code is written, up to 10 s; then $rc holds it.
finished() {
	rc=
	i=0
	while [ ! -s "$T/$cur.rc" ]; do
		i=$((i + 1))
		[ $i -gt 200 ] && return 1
		sleep 0.05
	done
	rc=$(sed -n 's/^rc=//p' "$T/$cur.rc")
}
keys() { tm send-keys -t "$cur" "$@"; }
out_has() { grep -qxF -- "$1" "$T/$cur.out"; }
out_grep() { grep -qF -- "$1" "$T/$cur.out"; }
pane_has() { pane | grep -qF -- "$1"; }

# Everything the gate stores goes under $T, whichever way a run finds its state directory.
HOME="$T/home"
XDG_STATE_HOME="$T/state"
export HOME XDG_STATE_HOME
unset PADDOCK_SESSION
mkdir -p "$HOME" "$XDG_STATE_HOME"
# One project for every run, in the tmux panes and out of them: where the driver runs.
cd "$T" || exit 99
LINE='git push origin main'
MODE='--mode ask'

# 1. y: approved once, nothing remembered.
start once $MODE --session s1 -- "$LINE"
check "the question appears on the terminal" wait_pane "Run it? y = yes, once; a = yes to \`git push\` for the rest of this session (these program files, in this project, no riskier, no wider); n = no [y/a/N]"
check "the whole line is shown" pane_has "  command: git push origin main"
check "the part that needs approval is shown" pane_has "  needs:   \`git push origin main\`: publishes commits to the remote"
check "the risk and rule are shown" pane_has "  risk:    moderate (risk: git-push)"
check "the raises are shown" pane_has "  also:    network on"
keys y Enter
finished
check "y: approved (exit 0)" [ "$rc" = 0 ]
check "y: by the person at the terminal" out_has "by=the person at the terminal"
check "y: asked, not remembered" sh -c "grep -qx asked=1 '$T/$cur.out' && grep -qx remembered=0 '$T/$cur.out'"
check "y: the terminal says so" pane_has "paddock: approved once"
check "y: no approval stored" [ ! -e "$XDG_STATE_HOME/paddock/sessions/s1/approvals" ]

# 2. The same call again is asked again; n refuses.
start again $MODE --session s1 -- "$LINE"
check "after a yes once, the next call is asked again" wait_pane "Run it?"
keys n Enter
finished
check "n: refused (exit 1)" [ "$rc" = 1 ]
check "n: the refusal says the person said no" out_has "message=command not approved: \`git push origin main\`: publishes commits to the remote; the person at the terminal said no; do not run it again as it is; ask the person what they want instead"
check "n: not approved" out_has "approved=0"

# 3. a: approved and remembered; the next call in the session is not asked.
start rem1 $MODE --session s1 -- "$LINE"
wait_pane "Run it?"
keys a Enter
finished
check "a: approved" [ "$rc" = 0 ]
check "a: remembered" out_has "remembered=1"
check "a: the terminal names what it covers" pane_has "paddock: approved, and \`git push\` for the rest of this session"
git_file=$(readlink -f "$(command -v git)")
check "a: the session's approvals file holds one approval: git's file, push, moderate, this project" \
	python3 -c 'import json,sys; l=open(sys.argv[1]).read().splitlines(); g=json.loads(l[0]);
it=g["items"]; assert len(l)==1 and len(it)==1 and it[0]["file"]==sys.argv[2] and it[0]["sub"]=="push"
assert it[0]["risk"]==1 and g["risk"]==1 and g["widen"]==["network on"] and g["project"]==sys.argv[3]' \
	"$XDG_STATE_HOME/paddock/sessions/s1/approvals" "$git_file" "$(pwd -P)"
check "a: the approvals file is 0600" [ "$(stat -c %a "$XDG_STATE_HOME/paddock/sessions/s1/approvals")" = 600 ]
check "a: the session directory is 0700" [ "$(stat -c %a "$XDG_STATE_HOME/paddock/sessions/s1")" = 700 ]
start rem2 $MODE --session s1 -- "git push origin other"
finished
check "remembered: the next git call runs without a question" [ "$rc" = 0 ]
check "remembered: by the session approval" out_has "by=session approval for \`git push\`"
check "remembered: the terminal shows no question" sh -c "! tmux -L $sock capture-pane -p -t rem2 | grep -q 'Run it'"
check "remembered: nobody was asked" out_has "asked=0"

# 4. Another session does not share the approval; Ctrl-C is a no.
start other $MODE --session s2 -- "$LINE"
check "another session is asked" wait_pane "Run it?"
keys C-c
finished
check "Ctrl-C: refused" [ "$rc" = 1 ]
check "Ctrl-C: said so" out_grep "the person at the terminal said no (Ctrl-C)"
start make1 $MODE --session s1 --program make -- "make install"
check "a remembered git does not cover make" wait_pane "a = yes to \`make install\`"
keys n Enter
finished
check "make: refused" [ "$rc" = 1 ]

# 5. Outside the sandbox: asked even though git is remembered, "a" not offered and taken as once.
start out1 $MODE --session s1 --outside -- "$LINE"
check "outside: asked despite the session approval" wait_pane "Run it? y = yes, this once; n = no [y/N]"
check "outside: the question says it runs outside the sandbox" pane_has "OUTSIDE THE SANDBOX"
check "outside: no yes-for-the-session offered" sh -c "! tmux -L $sock capture-pane -p -t out1 | grep -q 'a = yes'"
keys a Enter
finished
check "outside: a is taken as yes once" [ "$rc" = 0 ]
check "outside: nothing remembered" out_has "remembered=0"
start out2 $MODE --session s2 --outside -- "$LINE"
check "outside: the next outside call is asked again" wait_pane "Run it?"
keys n Enter
finished
check "outside: n refuses" [ "$rc" = 1 ]
check "outside: a approval stored nothing for s2" [ ! -e "$XDG_STATE_HOME/paddock/sessions/s2/approvals" ]

# 6. The line cannot redraw the terminal: control bytes are shown escaped.
start esc $MODE --session s3 -- "$(printf 'rm -rf ~\r\033[2Kgit status')"
wait_pane "Run it?"
check "escape sequences in the line are shown, not obeyed" pane_has 'command: rm -rf ~\x0d\x1b[2Kgit status'
keys n Enter
finished
check "escaped line: refused on n" [ "$rc" = 1 ]

# 7. Password-backed: after y, sudo -k -v on the terminal decides (a stand-in sudo here).
cat >"$T/sudo" <<EOF
#!/bin/sh
echo "\$*" >>'$T/sudo.log'
[ "\$1 \${2:-}" = "-k -v" ] || exit 0
printf '[sudo] password: '
read -r pw
[ "\$pw" = secret ]
EOF
chmod +x "$T/sudo"
start pw1 $MODE --session s1 --password /etc/paddock-test --sudo "$T/sudo" -- "$LINE"
check "password: the question names the path" wait_pane "password: it writes outside your home (/etc/paddock-test); after a yes, sudo asks for your password"
check "password: no yes-for-the-session offered" pane_has "[y/N]"
keys y Enter
check "password: sudo asks on the terminal" wait_pane "[sudo] password:"
keys secret Enter
finished
check "password: the right password approves" [ "$rc" = 0 ]
check "password: by the person with their password" out_has "by=the person at the terminal, with their password"
check "password: sudo ran -k -v, then -k" [ "$(tr '\n' '|' <"$T/sudo.log")" = "-k -v|-k|" ]
: >"$T/sudo.log"
start pw2 $MODE --session s1 --password /etc/paddock-test --sudo "$T/sudo" -- "$LINE"
wait_pane "Run it?"
keys y Enter
wait_pane "[sudo] password:"
keys wrong Enter
finished
check "password: a wrong password refuses" [ "$rc" = 1 ]
check "password: the refusal says it was not confirmed" out_grep "needs your password, and it was not confirmed (sudo exit status 1)"
: >"$T/sudo.log"
start pw3 $MODE --session s1 --password /etc/paddock-test --sudo "$T/sudo" -- "$LINE"
wait_pane "Run it?"
keys n Enter
finished
check "password: n refuses without running sudo" sh -c "[ '$rc' = 1 ] && [ ! -s '$T/sudo.log' ]"

# 8. No terminal: nobody can be asked, so it is refused, saying why.
cur=notty
setsid "$driver" --session s4 -- "$LINE" </dev/null >"$T/notty.out" 2>"$T/notty.err"
rc=$?
check "no tty: refused" [ "$rc" = 1 ]
check "no tty: says no one can be asked" out_grep "no one can be asked here (no terminal to ask on); only a person can approve it"
setsid "$driver" --mode ask --session s1 --program make -- "make install" </dev/null >"$T/notty.out" 2>"$T/notty.err"
check "no tty, mode ask: refused" [ $? = 1 ]
setsid "$driver" --session s1 -- "$LINE" </dev/null >"$T/notty.out" 2>"$T/notty.err"
check "no tty: a program remembered in the session still runs" out_has "by=session approval for \`git push\`"
# An "a" covers exactly what was approved: each of these is asked (refused, with no tty).
mkdir -p "$T/fake" "$T/other"
printf '#!/bin/sh\n' >"$T/fake/git"
chmod +x "$T/fake/git"
setsid "$driver" --session s1 -- "git clean -f" </dev/null >"$T/notty.out" 2>"$T/notty.err"
check "exact: another git subcommand is asked" out_has "approved=0"
setsid "$driver" --session s1 --risk dangerous -- "git push --force origin main" </dev/null >"$T/notty.out" 2>"$T/notty.err"
check "exact: the same subcommand in a higher class is asked" out_has "approved=0"
setsid "$driver" --session s1 --program "$T/fake/git" -- "git push origin main" </dev/null >"$T/notty.out" 2>"$T/notty.err"
check "exact: another file named git is asked" out_has "approved=0"
setsid "$driver" --session s1 --raise "writes /srv" -- "$LINE" </dev/null >"$T/notty.out" 2>"$T/notty.err"
check "exact: a call that widens more is asked" out_has "approved=0"
setsid "$driver" --session s1 --project "$T/other" -- "$LINE" </dev/null >"$T/notty.out" 2>"$T/notty.err"
check "exact: another project is asked" out_has "approved=0"
(cd "$T/other" && setsid "$driver" --session s1 -- "$LINE" </dev/null >"$T/notty.out" 2>"$T/notty.err")
check "exact: the same call from another directory is asked" out_has "approved=0"
# The file approved, then changed in place: no longer the file approved.
start tool1 $MODE --session s5 --program "$T/fake/git" -- "git push origin main"
wait_pane "Run it?"
keys a Enter
finished
check "exact: a tool of the project approved for the session" out_has "remembered=1"
cur=notty
setsid "$driver" --session s5 --program "$T/fake/git" -- "git push origin main" </dev/null >"$T/notty.out" 2>"$T/notty.err"
check "exact: ... covers it while it is the same file" out_has "approved=1"
printf '#!/bin/sh\nrm -rf ~\n' >"$T/fake/git"
setsid "$driver" --session s5 --program "$T/fake/git" -- "git push origin main" </dev/null >"$T/notty.out" 2>"$T/notty.err"
check "exact: ... and not once it was rewritten" out_has "approved=0"
cur=notty
setsid "$driver" --session s1 --outside -- "$LINE" </dev/null >"$T/notty.out" 2>"$T/notty.err"
check "no tty, outside: refused although git is remembered" out_grep "running outside the sandbox is asked of a person every time, and no one can be asked here (no terminal to ask on)"
setsid "$driver" --session s1 --password /etc/x -- "$LINE" </dev/null >"$T/notty.out" 2>"$T/notty.err"
check "no tty, password: refused" out_grep "writing outside your home (/etc/x) needs your password, and no one can type it here (no terminal to ask on)"
cur=
check "no run wrote anything to stderr" sh -c "! grep -l . '$T'/*.err"

# 9. paddock run on a terminal: while the question is open, `paddock approvals` lists it and
# can answer it; the first answer wins and the other side is withdrawn.
prog=$(cd "$(dirname "$PADDOCK")" && pwd)/$(basename "$PADDOCK")
echo '{"commandPolicy": {"sandbox": {"allowOutsideSandbox": true}}}' >"$T/oob.json"
echo '{"commandPolicy": {"sandbox": {"allowOutsideSandbox": true}}, "approval": {"outOfBand": false}}' >"$T/nooob.json"
# pending [wait]: the ids `paddock approvals` lists, one a line (with wait: up to 30 s for one).
pending() {
	i=0
	while :; do
		ids=$("$prog" approvals --json | grep -o '"id":"[0-9a-f]*"' | cut -d'"' -f4)
		if [ -n "$ids" ] || [ "${1:-}" != wait ] || [ $i -gt 600 ]; then
			[ -z "$ids" ] || echo "$ids"
			return 0
		fi
		i=$((i + 1))
		sleep 0.05
	done
}
run_oob() { # NAME CONFIG FILE: paddock run, outside the sandbox, of touch FILE
	start "$1" run --config "$2" --outside-sandbox -- touch "$3"
}
run_oob oob1 "$T/oob.json" "$T/made-oob1"
check "run: the question names the id to answer it with elsewhere" wait_pane "or answer from another terminal: paddock approvals approve"
id=$(pending wait | tail -n 1)
check "run: paddock approvals lists the open question" pane_has "paddock approvals approve $id (or deny $id)"
check "run: approvals approve ID answers it" sh -c "'$prog' approvals approve '$id' >/dev/null"
finished
check "run: approved out of band, it ran (exit 0)" sh -c "[ '$rc' = 0 ] && [ -e '$T/made-oob1' ]"
check "run: the result says who approved" out_grep "by the person, with 'paddock approvals'"
check "run: the terminal says it was answered elsewhere" pane_has "paddock: answered elsewhere: approved once with 'paddock approvals'"
check "run: nothing is left pending" [ -z "$(pending)" ]

run_oob oob2 "$T/oob.json" "$T/made-oob2"
wait_pane "Run it?"
id=$(pending wait | tail -n 1)
check "run: approvals deny ID answers it" sh -c "'$prog' approvals deny '$id' >/dev/null"
finished
check "run: denied out of band, refused (exit 125), nothing ran" sh -c "[ '$rc' = 125 ] && [ ! -e '$T/made-oob2' ]"
check "run: the refusal names the call" \
	grep -qF "paddock: error: command not approved: \`touch $T/made-oob2\`" "$T/oob2.err"
check "run: ... with paddock approvals" grep -qF "the person said no (with 'paddock approvals')" "$T/oob2.err"
check "run: the terminal says it was refused elsewhere" pane_has "paddock: answered elsewhere: not approved ('paddock approvals deny')"

run_oob oob3 "$T/oob.json" "$T/made-oob3"
wait_pane "Run it?"
id=$(pending wait | tail -n 1)
check "run: listed while the terminal asks" [ -n "$id" ]
keys y Enter
finished
check "run: answered on the terminal, it ran" sh -c "[ '$rc' = 0 ] && [ -e '$T/made-oob3' ]"
check "run: ... by the person at the terminal" out_grep "by the person at the terminal"
check "run: the pending request is withdrawn" [ -z "$(pending)" ]
"$prog" approvals approve "$id" >"$T/late.out" 2>"$T/late.err"
check "run: a late approvals approve is an error (exit 125)" [ $? = 125 ]
check "run: ... saying no call is waiting" grep -qxF "paddock: approvals: no call $id is waiting: it was answered, withdrawn or never asked; see 'paddock approvals'" "$T/late.err"

run_oob oob4 "$T/nooob.json" "$T/made-oob4"
wait_pane "Run it?"
check "outOfBand false: nothing is listed" [ -z "$(pending)" ]
check "outOfBand false: the question offers no other terminal" sh -c "! tmux -L $sock capture-pane -p -t oob4 | grep -q 'paddock approvals'"
check "outOfBand false: nothing in the approvals directory" sh -c "[ -z \"\$(ls -A '$XDG_STATE_HOME/paddock/approvals' 2>/dev/null)\" ]"
keys n Enter
finished
check "outOfBand false: the terminal still answers" sh -c "[ '$rc' = 125 ] && [ ! -e '$T/made-oob4' ]"

# No terminal: nothing is published and nobody waits.
setsid "$prog" run --config "$T/oob.json" --outside-sandbox -- touch "$T/made-oob5" </dev/null >"$T/oob5.out" 2>"$T/oob5.err"
rc=$?
check "run without a terminal: refused (exit 125), nothing ran" sh -c "[ $rc = 125 ] && [ ! -e '$T/made-oob5' ]"
check "run without a terminal: no one can be asked" grep -qF "no one can be asked here (no terminal to ask on)" "$T/oob5.err"
prog=

finish
