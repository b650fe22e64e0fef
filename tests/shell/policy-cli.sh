#!/bin/sh
# policy-cli.sh - the command policy through the real binary: refusals with their exit code
# and guidance, `check`, the configuration file, cd and the session directory, argv rm,
# --yes and --outside-sandbox. Each refusal has a twin that runs.

. "${srcdir:-.}/tests/shell/lib.sh"
fresh_state
export XDG_CONFIG_HOME="$T/config" HOME="$T/home"
mkdir -p "$XDG_CONFIG_HOME" "$HOME" "$T/proj/sub"
cd "$T/proj" || exit 99

refusal_says() { one_error_line && err_has "$1"; }
# refused DESCRIPTION TEXT ARGS...: paddock ARGS is refused with 125, one line on stderr
# containing TEXT, nothing on stdout, and the marker file was not made.
refused() {
	desc=$1 text=$2
	shift 2
	rm -f "$T/proj/made"
	pcall "$@"
	check "$desc: exit 125 (got $rc)" test "$rc" -eq 125
	check "$desc: one line naming '$text'" refusal_says "$text"
	check "$desc: nothing ran" test ! -e "$T/proj/made"
}

# --- argv first ---------------------------------------------------------------
refused "a pipe in argv" 'sh' run -- touch made '|' cat
refused "a redirect in argv" 'sh' run -- touch made '>' out
refused "&& in argv" 'sh' run -- touch made '&&' true
touch "$T/proj/a.c" "$T/proj/b.c"
refused "a glob that matches files here" 'sh' run -- touch made '*.c'
refused "a leading ~" 'sh' run -- touch made '~/x'
pcall run -- grep -c 'a*b' /dev/null
check "a pattern that matches no file is taken literally (rc $rc)" test "$rc" -eq 1
pcall run -- touch made
check "the plain twin runs" test "$rc" -eq 0 -a -e "$T/proj/made"

# --- sh -c scripts --------------------------------------------------------------
refused "sudo inside sh -c" 'sudo' run -- sh -c 'touch made; sudo true'
refused "a path as the command word" '/bin/rm' run -- sh -c 'touch made && /bin/rm -f x'
refused "eval" 'eval' run -- sh -c 'touch made; eval rm x'
refused "an unparsable script says where" '1:' run -- sh -c 'touch made; echo "oops'
pcall run -- sh -c 'touch made && ls | wc -l >/dev/null'
check "a script of bare names runs" test "$rc" -eq 0 -a -e "$T/proj/made"

# --- programs of the project, sourcing, PATH -----------------------------------------
printf '#!/bin/sh\necho configured >made\n' >"$T/proj/configure"
mkdir -p "$T/proj/.venv/bin"
printf 'PATH="$PWD/.venv/bin:$PATH"\nexport PATH\n' >"$T/proj/.venv/bin/activate"
printf '#!/bin/sh\necho venv-tool >made\n' >"$T/proj/.venv/bin/mytool"
chmod +x "$T/proj/configure" "$T/proj/.venv/bin/mytool"
rm -f "$T/proj/made"
pcall run -- sh -c './configure && test -s made'
check "./configure runs inside sh -c (rc $rc)" test "$rc" -eq 0 -a -s "$T/proj/made"
rm -f "$T/proj/made"
pcall run -- ./configure
check "./configure runs as argv (rc $rc)" test "$rc" -eq 0 -a -s "$T/proj/made"
pcall run -C "$T/proj/sub" -- sh -c '../configure'
check "../configure from a subdirectory runs (rc $rc)" test "$rc" -eq 0 -a -s "$T/proj/sub/made"
rm -f "$T/proj/made"
pcall run -- sh -c '. .venv/bin/activate && mytool'
check "a venv is sourced and its program runs (rc $rc)" grep -qx venv-tool "$T/proj/made"
rm -f "$T/proj/made"
pcall run -- sh -c 'export PATH="$PWD/.venv/bin:$PATH"; mytool'
check "export PATH=... then a program of it (rc $rc)" grep -qx venv-tool "$T/proj/made"
pcall check -- sh -c '. .venv/bin/activate && git status'
check "check: after sourcing, git is the project's, not read-only" \
	grep -q 'runs git: safe, project-program: git (runs after `. .venv/bin/activate`): found after PATH changed or a file was sourced, so its name says nothing of what it does: runs confined$' "$T/out"
pcall check --no-sandbox -- sh -c 'git status; make; sudo true'
check "check: each command says why in one line: read-only, default (unconfined), refused" \
	sh -c 'grep -q "^command 1 at 1:1: \`git status\`: runs git: read-only, read_only_command: git status: on the read-only list\$" "$1" &&
		grep -q "^command 2 at 1:13: \`make\`: runs make: safe, default: not on the read-only list: runs without the sandbox\$" "$1" &&
		grep -q "^command 3 at 1:19: \`sudo true\`: runs sudo: refused, privilege: sudo: command denied by policy: \`sudo true\` uses sudo" "$1"' _ "$T/out"
refused "a file outside the roots is not sourced" 'outside the writable roots' \
	run -- sh -c 'touch made; . /etc/profile'
printf '{ "commandPolicy": { "deny": ["^wget"] } }\n' >"$T/wget.json"
refused "a deny rule sees the name behind /usr/bin/wget" '^wget' \
	run --config "$T/wget.json" -- sh -c 'touch made; /usr/bin/wget -q http://127.0.0.1:9/'
refused "... and behind ./wget" '^wget' run --config "$T/wget.json" -- sh -c 'touch made; ./wget'

# --- a project under /root, run by root with HOME=/root ---------------------------------------
if [ "$(id -u)" -eq 0 ] && [ -d /root ] && [ -w /root ]; then
	rp=$(mktemp -d /root/pdk-policy-cli.XXXXXX)
	(cd "$rp" && git init -q && printf 'test:\n\t@echo make-test-ran\n' >Makefile &&
		printf '{ "name": "p", "scripts": { "test": "echo npm-test-ran" } }\n' >package.json)
	root_run() { (cd "$rp" && HOME=/root pcall run -- "$@" && echo "$rc" >"$T/rc") </dev/null; rc=$(cat "$T/rc"); }
	root_run git status
	check "under /root: git status runs without asking (rc $rc)" test "$rc" -eq 0
	root_run make test
	check "under /root: make test runs without asking (rc $rc)" grep -q make-test-ran "$T/out"
	if command -v npm >/dev/null; then
		root_run npm test
		check "under /root: npm test runs without asking (rc $rc)" grep -q npm-test-ran "$T/out"
	fi
	root_run cat /root/.ssh/id_rsa
	check "under /root: ~/.ssh still asks (rc $rc)" err_has 'sensitive-path: ~/.ssh'
	rm -rf "$rp"
fi

# --- --json refusal -------------------------------------------------------------
pcall run --json -- sh -c 'sudo id'
check "a --json refusal exits 125" test "$rc" -eq 125
check "a --json refusal is one object with ran:false and the error" \
	jq_ok "d['ran'] is False and d['error'].startswith('command denied by policy: ') and
	'sudo' in d['error'] and d['error_kind'] == 'refused'"

# --- check -------------------------------------------------------------------------
pcall check -- ls -l
check "check: ls runs now (rc $rc)" test "$rc" -eq 0
check "check: ls is read-only" grep -q 'read-only' "$T/out"
pcall check -- sh -c 'sudo id'
check "check: sudo is refused (rc $rc)" test "$rc" -eq 2
pcall check -- sh -c 'git push --force origin main'
check "check: a force push would be asked (rc $rc)" test "$rc" -eq 1
check "check: the force push names its class" grep -q 'dangerous' "$T/out"
pcall check --json -- git status
check "check --json: one object" grep -q '^{.*"verdict":"run"' "$T/out"

# --- the gate without a terminal ------------------------------------------------------
refused "a dangerous command with nobody to ask" 'command not approved' \
	run -- sh -c 'touch made; git push --force origin main'
pcall run --yes -- sh -c 'touch made; git reset --hard 2>/dev/null; true'
check "--yes approves it and runs (rc $rc)" test "$rc" -eq 0 -a -e "$T/proj/made"
check "--yes says so in the result" grep -q '^approved: .*--yes' "$T/out"

# --- outside the sandbox -----------------------------------------------------------------
refused "--outside-sandbox is off by default" 'allowOutsideSandbox is false' \
	run --outside-sandbox -- touch made
printf '{ "commandPolicy": { "sandbox": { "allowOutsideSandbox": true } } }\n' >"$T/out.json"
refused "--outside-sandbox with nobody to ask" 'command not approved' \
	run --config "$T/out.json" --outside-sandbox -- touch made
refused "--yes does not approve an outside run" 'command not approved' \
	run --config "$T/out.json" --yes --outside-sandbox -- touch made

# --- configuration ---------------------------------------------------------------------------
printf '{\n  "commandPolicy": {\n    "deny": ["^touch made"]\n  }\n}\n' >"$T/deny.json"
refused "a configured deny pattern" '^touch made' run --config "$T/deny.json" -- touch made
pcall run --config "$T/deny.json" -- touch other
check "the deny pattern's twin runs" test "$rc" -eq 0 -a -e "$T/proj/other"
printf '{\n  "commandPolicy": {\n    "deny": ["(unclosed"]\n  }\n}\n' >"$T/bad.json"
refused "an invalid pattern names file:line:col and key" "bad.json:3:" \
	run --config "$T/bad.json" -- touch made
check "the pattern error names the key" err_has 'commandPolicy.deny[0]'
printf '{ "commandPolicy": { "sandbox": { "enabled": "yes" } } }\n' >"$T/type.json"
refused "a wrong type" 'commandPolicy.sandbox.enabled' run --config "$T/type.json" -- touch made
printf '{ "commandPolicy": [1,\n' >"$T/syntax.json"
refused "invalid JSON" 'syntax.json:' run --config "$T/syntax.json" -- touch made
refused "a missing --config file" 'nope.json' run --config "$T/nope.json" -- touch made
printf '{ "timeouts": { "default": 300 }, "colour": "blue" }\n' >"$XDG_CONFIG_HOME/paddock.tmp"
mkdir -p "$XDG_CONFIG_HOME/paddock" && mv "$XDG_CONFIG_HOME/paddock.tmp" "$XDG_CONFIG_HOME/paddock/config.json"
pcall run -- true
check "an unknown key is only a warning (rc $rc)" test "$rc" -eq 0
check "the warning names the key" grep -q "^paddock: warning: .*colour" "$T/err"
rm -f "$XDG_CONFIG_HOME/paddock/config.json"

# --- every widening passes the gate, named ---------------------------------------------------
mkdir -p "$T/far" "$HOME/r"
refused "--root outside HOME needs the person's password" 'writing outside your home ('"$T/far"')' \
	run --root "$T/far" -- sh -c "touch made; touch '$T/far/f'"
check "... and nothing was written there" test ! -e "$T/far/f"
refused "--root / is no way around -w" 'writing outside your home (/)' \
	run --root / -- sh -c "touch made; touch '$T/far/g'"
refused "--root inside HOME is asked, named" 'writable root '"$HOME/r"' (--root)' \
	run --root "$HOME/r" -- touch made
pcall run --yes --root "$HOME/r" -- touch "$HOME/r/made-r"
check "... and --yes approves it (rc $rc)" test "$rc" -eq 0 -a -e "$HOME/r/made-r"
pcall run --root "$T/proj/sub" -- touch "$T/proj/sub/made-sub"
check "a --root inside the launch directory narrows: no question (rc $rc)" \
	test "$rc" -eq 0 -a -e "$T/proj/sub/made-sub"
pcall check -w "$T/far" -w "$HOME/r" -- ls
check "check: each -w path is named in the question" \
	grep -q "^ask: .*raised: writes $T/far, writes $HOME/r" "$T/out"
printf '{ "commandPolicy": { "sandbox": { "enabled": false } }, "approval": { "mode": "allow" } }\n' \
	>"$T/off.json"
refused "--config that turns the sandbox off is asked, naming it" \
	'configuration '"$T"'/off.json (--config, inside a writable root): turns the sandbox off, approves every question' \
	run --config "$T/off.json" -- touch made
pcall run --yes --config "$T/off.json" -- touch made-off
check "... and --yes approves it (rc $rc)" test "$rc" -eq 0 -a -e "$T/proj/made-off"
mkdir -p "$XDG_CONFIG_HOME/paddock"
printf '{ "commandPolicy": { "sandbox": { "allowNetwork": true } } }\n' >"$XDG_CONFIG_HOME/paddock/config.json"
refused "a user configuration inside a writable root that widens is asked" \
	'(inside a writable root): network for every call' run -- touch made
rm -f "$XDG_CONFIG_HOME/paddock/config.json"

# --- cd ------------------------------------------------------------------------------------
export PADDOCK_SESSION=cdtest
pcall run -- cd sub
check "cd into a directory: exit 0 (rc $rc)" test "$rc" -eq 0
check "cd says where it now is" grep -q "now in $T/proj/sub" "$T/out"
pcall run -- pwd
check "the next call of the session runs there" grep -qx "$T/proj/sub" "$T/out"
pcall run -- cd ..
pcall run -- pwd
check "a relative cd resolves against the session's directory" grep -qx "$T/proj" "$T/out"
pcall run -- cd a.c
check "cd into a file fails (rc $rc)" test "$rc" -eq 1
check "cd into a file says why and where it stays" grep -q 'not a directory; still in' "$T/out"
pcall run -- cd nowhere
check "cd into a missing directory fails (rc $rc)" test "$rc" -eq 1
PADDOCK_SESSION=other pcall run -- pwd
check "another session is not moved" grep -qx "$T/proj" "$T/out"
pcall run -C "$T/proj/sub" -- pwd
check "-C wins over the session's directory" grep -qx "$T/proj/sub" "$T/out"
check "-C elsewhere: the result says where it ran" sed -n 2p "$T/out" | grep -qx "cwd: $T/proj/sub"
pcall run -C "$T/proj" -- pwd
check "a call run where paddock started has no cwd: line" sh -c "! grep -q '^cwd:' '$T/out'"

# Sessions are kept per launch directory: one project's cd never moves another's calls.
mkdir -p "$T/projB/lib" "$T/proj/sub/deep"
pcall run -- cd sub
(cd "$T/projB" && pcall run -- pwd)
check "a call launched in another project runs there, not in the first one's cd" \
	grep -qx "$T/projB" "$T/out"
(cd "$T/projB" && pcall run -- cd lib)
pcall run -- pwd
check "that project's cd does not move this one's calls" grep -qx "$T/proj/sub" "$T/out"
check "a result away from the launch directory says where it ran" \
	sed -n 2p "$T/out" | grep -qx "cwd: $T/proj/sub"
pcall run --json -- pwd
check "--json: cwd says where it ran" jq_ok "d['cwd'] == '$T/proj/sub'"
pcall run -C deep -- pwd
check "a relative -C is taken from the session's directory, as cd is" \
	grep -qx "$T/proj/sub/deep" "$T/out"
pcall run -- cd
check "a bare cd goes back to the launch directory (rc $rc)" grep -q "now in $T/proj\$" "$T/out"
pcall run -- pwd
check "the next call runs in the launch directory" grep -qx "$T/proj" "$T/out"
check "and says no cwd: line" sh -c "! grep -q '^cwd:' '$T/out'"
(cd "$T/projB" && pcall run -- pwd)
check "the other project is still in its own lib" grep -qx "$T/projB/lib" "$T/out"
pcall run -- cd a b
check "cd with two directories fails (rc $rc)" test "$rc" -eq 1
unset PADDOCK_SESSION

# --- argv rm goes to the trash ------------------------------------------------------------------
echo keep >"$T/proj/doomed"
export XDG_DATA_HOME="$T/data"
pcall run -- rm doomed
check "argv rm: exit 0 (rc $rc)" test "$rc" -eq 0
check "argv rm: the file left its place" test ! -e "$T/proj/doomed"
check "argv rm: the file is in the trash, whole" grep -qx keep "$T/data/Trash/files/doomed"
check "argv rm: the trash knows where it came from" \
	grep -qx "Path=$T/proj/doomed" "$T/data/Trash/info/doomed.trashinfo"
# --no-sandbox from the call is a widening: asked, refused with no one to ask.
far=$(mktemp -d /var/tmp/pdk-nosandbox.XXXXXX)
pcall run --no-sandbox -- sh -c "echo x > '$far/escaped'"
check "--no-sandbox, no terminal: refused (rc $rc)" test "$rc" -eq 125
check "... the write outside every root did not happen" test ! -e "$far/escaped"
check "... and the refusal names --no-sandbox and who may approve" \
	sh -c "grep -q 'no sandbox at all.*(--no-sandbox)' '$T/err' && grep -q -- '--yes' '$T/err'"
pcall check --no-sandbox -- true
check "check: --no-sandbox makes even true an ask" grep -qx 'verdict: ask' "$T/out"
pcall run --yes --no-sandbox -- sh -c "echo x > '$far/escaped'"
check "--yes --no-sandbox: the harness's yes runs it unconfined (rc $rc)" \
	sh -c "[ $rc -eq 0 ] && [ -e '$far/escaped' ]"
rm -rf "$far"
echo keep >"$T/proj/unconfined"
pcall run --yes --no-sandbox -- sh -c 'rm unconfined'
check "unconfined, rm in a script: exit 0 (rc $rc)" test "$rc" -eq 0
check "unconfined, rm in a script still goes to the trash" \
	grep -qx keep "$T/data/Trash/files/unconfined"
# Outside every root: not under the project, the temp or the cache directory.
far=$(mktemp -d /var/tmp/pdk-policy-cli.XXXXXX)
echo keep >"$far/outside"
pcall run -- rm "$far/outside"
check "argv rm outside the roots fails (rc $rc)" test "$rc" -eq 1
check "argv rm outside the roots leaves the file" test -e "$far/outside"
check "argv rm outside the roots says why" grep -q 'outside the writable roots' "$T/out"
rm -rf "$far"

finish
