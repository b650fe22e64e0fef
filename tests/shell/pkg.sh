#!/bin/sh
# pkg.sh - paddock pkg: the exact argv given to dnf, yum, pacman and apk (fake
# managers on PATH that record it), the confirm gate on what changes the system,
# every rejected name shape, sudo for a user who is not root (a fake sudo), the
# result bounded and stored like any run's, the pkg_manage tool of paddock mcp,
# and apt for real: search, info, then install and remove of the tiny package hello.
. "${srcdir:-.}/tests/shell/lib.sh"

fresh_state
cd "$T" || exit 99
FAKE="$T/fake"
REC="$T/rec"
mkdir -p "$FAKE" "$REC"
chmod 755 "$T" "$FAKE"
chmod 777 "$REC"
# Each fake manager writes its argv, one word a line, to $REC/NAME, and prints
# $FAKE_LINES lines (1 by default).
for m in dnf yum pacman apk; do
	cat >"$FAKE/$m" <<EOF
#!/bin/sh
printf '%s\n' "\$(basename "\$0")" "\$@" >"$REC/$m"
i=0
while [ \$i -lt "\${FAKE_LINES:-1}" ]; do i=\$((i + 1)); echo "$m line \$i"; done
exit "\${FAKE_EXIT:-0}"
EOF
	chmod 755 "$FAKE/$m"
	printf '{"pkg": {"manager": "%s"}}\n' "$m" >"$T/$m.json"
done
chmod 644 "$T"/*.json
PATH_FAKE="$FAKE:$PATH"

# pkg ARGS...: paddock pkg with the fake managers first on PATH.
pkg() {
	rm -f "$REC"/*
	PATH="$PATH_FAKE" "$PADDOCK" pkg "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
}
# recorded NAME WORDS...: the fake NAME ran with exactly these words.
recorded() {
	f="$REC/$1"
	shift
	[ -f "$f" ] && [ "$(cat "$f" | tr '\n' ' ')" = "$* " ]
}
nothing_ran() { [ -z "$(ls "$REC")" ]; }

## The exact argv of each action, for each manager.
expect() { # expect MANAGER ACTION [NAME] -- WORDS...
	m=$1 a=$2
	shift 2
	name=
	if [ "$1" != -- ]; then name=$1; shift; fi
	shift
	pkg "$a" $name --yes --config "$T/$m.json"
	if [ "$rc" -eq 0 ] && recorded "$m" "$@"; then
		ok "$m $a: $*"
	else
		not_ok "$m $a: want '$*', got '$(tr '\n' ' ' <"$REC/$m" 2>/dev/null)' rc=$rc"
	fi
}
expect dnf install hello -- dnf install -y hello
expect dnf remove hello -- dnf remove -y hello
expect dnf update -- dnf makecache -y
expect dnf upgrade -- dnf upgrade -y
expect dnf search hello -- dnf search hello
expect dnf info hello -- dnf info hello
expect yum install hello -- yum install -y hello
expect yum remove hello -- yum remove -y hello
expect yum update -- yum makecache -y
expect yum upgrade -- yum upgrade -y
expect yum search hello -- yum search hello
expect yum info hello -- yum info hello
expect pacman install hello -- pacman -S --noconfirm --needed hello
expect pacman remove hello -- pacman -R --noconfirm hello
expect pacman update -- pacman -Sy --noconfirm
expect pacman upgrade -- pacman -Syu --noconfirm
expect pacman search hello -- pacman -Ss hello
expect pacman info hello -- pacman -Si hello
expect apk install hello -- apk add --no-progress hello
expect apk remove hello -- apk del --no-progress hello
expect apk update -- apk update --no-progress
expect apk upgrade -- apk upgrade --no-progress
expect apk search hello -- apk search hello
expect apk info hello -- apk info hello

## The confirm gate: changes are asked (no one here: refused), reads are not.
for a in "install hello" "remove hello" update upgrade; do
	pkg $a --config "$T/dnf.json"
	if [ "$rc" -eq 125 ] && nothing_ran && err_has "command not approved"; then
		ok "$a without --yes: not approved, nothing ran"
	else
		not_ok "$a without --yes: not approved, nothing ran (rc=$rc)"
	fi
done
pkg install hello --json --config "$T/dnf.json"
check "refused install as JSON: not_approved, valid, dangerous, nothing ran" \
	sh -c '[ "$0" -eq 125 ]' "$rc"
check "refused install JSON valid against the schema" json_valid run
check "refused install JSON says not_approved and the call" \
	jq_ok 'd["error_kind"] == "not_approved" and "install `hello` with dnf" in d["error"] and d["rule"] == "pkg"'
check "nothing ran for the refused install" nothing_ran
pkg search hello --config "$T/dnf.json"
check "search without --yes runs" sh -c '[ "$0" -eq 0 ]' "$rc"
check "search: the result names the manager and where it ran" \
	sh -c 'grep -q "^dnf line 1$" "$0" && grep -q "^sandbox: none: paddock pkg ran dnf outside the sandbox, as this user$" "$0"' "$T/out"
pkg info hello --json --config "$T/dnf.json"
check "info --json: valid against the schema" json_valid run
check "info --json: ran, exit 0, the output" \
	jq_ok 'd["ran"] and d["exit_code"] == 0 and d["stdout"] == "dnf line 1\n"'
pkg install hello --yes --config "$T/dnf.json"
check "approved install names --yes" \
	grep -qF 'approved: install `hello` with dnf, as root, outside the sandbox (paddock pkg), by --yes' "$T/out"
export FAKE_EXIT=100
pkg install hello --yes --config "$T/dnf.json"
unset FAKE_EXIT
check "the manager's own exit status passes through" sh -c '[ "$0" -eq 100 ]' "$rc"

## Bounded and stored like any run: a long output is held back and recallable.
export FAKE_LINES=3000
pkg search hello --config "$T/apk.json"
unset FAKE_LINES
id=$(note_id)
check "a long search is held back with an output id" sh -c '[ -n "$0" ]' "$id"
pcall recall "$id" --match 'apk line 2999$'
check "recall finds its last lines" has_text "apk line 2999"

## Every rejected name shape: exit 125, one line, nothing ran.
reject() { # reject MANAGER WANT NAME
	pkg install "$3" --yes --config "$T/$1.json"
	if [ "$rc" -eq 125 ] && one_error_line && err_has "$2" && nothing_ran; then
		ok "$1 refuses '$3': $2"
	else
		not_ok "$1 refuses '$3': want '$2' (rc=$rc)"
	fi
}
for m in dnf yum pacman apk; do
	reject $m "nor a package name" -y
	reject $m "nor a package name" --allow-downgrades
	reject $m "nor a package name" -oDebug::pkgProblemResolver=1
	reject $m "more than one package" "hello curl"
	reject $m "more than one package" "hello,curl"
	reject $m "is a URL" https://example.com/hello.rpm
	reject $m "is a path" /tmp/hello
	reject $m "is a path" ./hello
	reject $m "is a path" extra/hello
	reject $m "package file" hello.rpm
	reject $m "pins a version" "hello=2.10"
	reject $m "pins a version" "hello>=2"
	reject $m "is a pattern" "hello*"
	reject $m "control" "$(printf 'hello\033[31m')"
	reject $m "empty" ""
done
reject dnf "with a version" hello-2.10-3.fc39
reject yum "architecture" hello.x86_64
reject dnf "is a group" @core
reject apk "pins a version" "hello~2"
reject apk "repository tag" hello@testing
reject pacman "not a pacman package name" Hello
reject apk "not an apk package name" so:libc.so.6
reject dnf "paddock run" "requests==2.0"
pkg install hello curl --yes --config "$T/dnf.json"
check "two package arguments: one per call" sh -c '[ "$0" -eq 125 ]' "$rc"
check "two package arguments: says the second" err_has "'curl' is a second one"
pkg install --config "$T/dnf.json"
check "install without a name: asks for one" err_has "install needs one package name"
pkg upgrade hello --yes --config "$T/dnf.json"
check "upgrade with a name: takes none" err_has "upgrade takes no package name"
pkg frobnicate --config "$T/dnf.json"
check "an unknown action lists the actions" err_has "give install, remove, update, upgrade, search or info"
pkg pip install requests --config "$T/dnf.json"
check "pip: use paddock run" sh -c '[ "$0" -eq 125 ] && grep -q "paddock run -- pip install" "$1"' "$rc" "$T/err"
pkg npm install left-pad
check "npm: use paddock run" err_has "paddock run -- npm install"
pkg
check "no action: says what to give" sh -c '[ "$0" -eq 125 ]' "$rc"
pkg install 'hello;rm' --json --config "$T/dnf.json"
check "a bad name as JSON: bad_request, valid" json_valid run
check "a bad name as JSON: says why" jq_ok 'd["error_kind"] == "bad_request" and "more than one package" in d["error"]'
check "nothing ran for any rejected name" nothing_ran

## Configuration: pkg.manager must name a manager, found on PATH.
printf '{"pkg": {"manager": "zypper"}}\n' >"$T/zypper.json"
pkg search hello --config "$T/zypper.json"
check "pkg.manager zypper: a configuration error naming the choices" \
	sh -c '[ "$0" -eq 125 ] && grep -q "pkg.manager.*not one of apt, dnf, yum, pacman or apk" "$1"' "$rc" "$T/err"
rc=0
PATH=/usr/bin:/bin pcall pkg search hello --config "$T/apk.json"
if command -v apk >/dev/null 2>&1; then
	skip "apk is installed here"
else
	check "pkg.manager apk without apk on PATH: says so" \
		sh -c '[ "$0" -eq 125 ] && grep -q "pkg.manager is apk, but apk is not on PATH" "$1"' "$rc" "$T/err"
fi

## Not root: changes go through sudo -n; a password no terminal can give is a clear error.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 && command -v setsid >/dev/null 2>&1; then
	cat >"$FAKE/sudo" <<EOF
#!/bin/sh
# A sudo that needs no password unless $T/needs-password exists.
if [ "\$1" = -n ] && [ -e "$T/needs-password" ]; then echo "sudo: a password is required" >&2; exit 1; fi
[ "\$1" = -n ] && [ "\$2" = true ] && exit 0
printf '%s\n' "\$@" >"$REC/sudo"
shift 2
exec "\$@"
EOF
	chmod 755 "$FAKE/sudo"
	mkdir -p "$T/nb/state" "$T/nb/home"
	chmod -R 777 "$T/nb"
	as_nobody() {
		rm -f "$REC"/*
		(cd "$T/nb" && setsid -w setpriv --reuid=65534 --regid=65534 --clear-groups \
			env PATH="$PATH_FAKE" HOME="$T/nb/home" XDG_STATE_HOME="$T/nb/state" \
			"$PADDOCK" pkg "$@" >"$T/out" 2>"$T/err" </dev/null)
		rc=$?
	}
	as_nobody install hello --yes --config "$T/dnf.json"
	check "not root: install runs through sudo -n" \
		sh -c '[ "$0" -eq 0 ]' "$rc"
	check "not root: sudo got -n -- and the exact argv" recorded sudo -n -- dnf install -y hello
	check "not root: the manager ran with its argv" recorded dnf dnf install -y hello
	as_nobody search hello --config "$T/dnf.json"
	check "not root: search runs without sudo" sh -c '[ "$0" -eq 0 ] && [ ! -e "$1" ]' "$rc" "$REC/sudo"
	touch "$T/needs-password"
	as_nobody install hello --yes --config "$T/dnf.json"
	check "sudo needs a password, no terminal: exit 125" sh -c '[ "$0" -eq 125 ]' "$rc"
	check "sudo needs a password, no terminal: says what to do" \
		err_has "sudo needs a password that no terminal can give here; run paddock pkg as root"
	check "sudo needs a password: nothing ran" sh -c '[ ! -e "$0" ]' "$REC/dnf"
	rm -f "$T/needs-password" "$FAKE/sudo"
	if [ -x /usr/bin/sudo ]; then
		# The real sudo: nobody may not use it, and -n says so without asking.
		as_nobody install hello --yes --config "$T/dnf.json"
		check "the real sudo, for nobody: the same clear error" \
			sh -c '[ "$0" -eq 125 ] && grep -q "sudo needs a password that no terminal can give" "$1"' "$rc" "$T/err"
	fi
else
	skip "sudo: needs root and setpriv to become another user"
fi

## pkg_manage, the MCP tool, on the same code (tests/drivers/mcp-pkg.py).
if command -v python3 >/dev/null 2>&1; then
	out=$(PADDOCK="$PADDOCK" T="$T" REC="$REC" PATH_FAKE="$PATH_FAKE" CONFIG="$T/dnf.json" \
		START=$n python3 "${srcdir:-.}/tests/drivers/mcp-pkg.py")
	py=$?
	printf '%s\n' "$out" | grep -v '^# [0-9][0-9]*$'
	last=$(printf '%s\n' "$out" | sed -n 's/^# \([0-9][0-9]*\)$/\1/p' | tail -n 1)
	[ -n "$last" ] && n=$last
	[ "$py" -eq 0 ] || not_ok "mcp-pkg.py: every check passed (exit $py)"
else
	skip "pkg_manage: needs python3"
fi

## apt for real: search and info, then install and remove of hello.
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	skip "apt: needs root and apt-get"
else
	printf '{"pkg": {"manager": "apt"}}\n' >"$T/apt.json"
	if ! apt-cache show hello >/dev/null 2>&1; then
		pcall pkg update --yes --config "$T/apt.json" --timeout 600
		check "apt update (no package lists yet)" sh -c '[ "$0" -eq 0 ]' "$rc"
	fi
	pcall pkg search hello --config "$T/apt.json"
	check "apt search hello: finds it" sh -c '[ "$0" -eq 0 ] && grep -q "^hello - " "$1"' "$rc" "$T/out"
	pcall pkg info hello --json --config "$T/apt.json"
	check "apt info hello --json: valid" json_valid run
	check "apt info hello: the package's record" jq_ok '"Package: hello\n" in d["stdout"] and d["exit_code"] == 0'
	pcall pkg install hello --config "$T/apt.json"
	check "apt install without --yes: not approved" sh -c '[ "$0" -eq 125 ]' "$rc"
	was=no
	dpkg -s hello >/dev/null 2>&1 && was=yes
	apt_install() {
		pcall pkg install hello --yes --config "$T/apt.json" --timeout 600
		check "apt install hello --yes: exit 0" sh -c '[ "$0" -eq 0 ]' "$rc"
		check "apt install hello: it runs" sh -c '[ "$(hello)" = "Hello, world!" ]'
	}
	apt_remove() {
		pcall pkg remove hello --yes --json --config "$T/apt.json" --timeout 600
		check "apt remove hello --yes --json: exit 0" sh -c '[ "$0" -eq 0 ]' "$rc"
		check "apt remove hello: valid JSON" json_valid run
		check "apt remove hello: gone" sh -c '! dpkg -s hello >/dev/null 2>&1 || dpkg -s hello | grep -q "deinstall"'
	}
	# Leave the machine as it was found.
	if [ $was = yes ]; then apt_remove; apt_install; else apt_install; apt_remove; fi
fi

finish
