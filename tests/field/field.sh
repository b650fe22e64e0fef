#!/bin/sh
# field.sh - three real projects, fetched at test time, built and tested the way
# an agent would, directly and through `paddock run` under each Linux backend,
# as this user with no terminal: the pass counts and the exit status of every
# step must be the same.
#
#   - GNU hello, an autotools C program, from Debian's source package:
#     ./configure, make, make check;
#   - on-finished, a Node module whose tests start local HTTP servers, from
#     Debian's source package, its test runner (mocha) from the npm registry:
#     npm test;
#   - toolz, a Python library, from Debian's source package: a venv that sees
#     Debian's pytest (python3-pytest), pip install -e ., python -m pytest.
#
# The Debian sources come through an apt state of the script's own (a deb-src
# list for the main archive), so the machine's sources and lists are left alone;
# only the .orig tarballs are used. Downloads are kept in FIELD_CACHE (default
# tests/field-cache under the build tree) for the next run.
#
# Environment: PADDOCK, FIELD_CACHE, FIELD_PYTHON (the Python with python3-pytest,
# default /usr/bin/python3), FIELD_BACKENDS (default: bwrap landlock, those that
# work here), DEBIAN_MIRROR, DEBIAN_SUITE.
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${srcdir:=$top}"
: "${top_builddir:=$top}"
# The projects and paddock's state may not lie under a default writable root
# (/tmp is one), or landlock cannot keep paddock's state read-only and refuses
# to run. The commands themselves keep the usual TMPDIR.
TMPDIR=/var/tmp
. "$srcdir/tests/shell/lib.sh"
unset TMPDIR
PADDOCK=$(cd "$(dirname "$PADDOCK")" && pwd)/$(basename "$PADDOCK")

cache=${FIELD_CACHE:-$top_builddir/tests/field-cache}
py=${FIELD_PYTHON:-/usr/bin/python3}
mkdir -p "$cache/apt/lists/partial" "$cache/dl"
cache=$(cd "$cache" && pwd)
T=$(cd "$T" && pwd -P)
export XDG_STATE_HOME="$T/state" XDG_CACHE_HOME="$T/cache" XDG_DATA_HOME="$T/data"
mkdir -p "$XDG_STATE_HOME" "$XDG_CACHE_HOME" "$XDG_DATA_HOME"
unset PADDOCK_SESSION

bail() { echo "Bail out! $*"; exit 99; }
for tool in apt-get npm node setsid; do
	command -v $tool >/dev/null 2>&1 || bail "$tool not found (scripts/setup.sh installs what this needs)"
done
"$py" -c 'import pytest, venv' 2>/dev/null ||
	bail "$py has no pytest or venv: apt-get install python3-pytest python3-venv (scripts/setup.sh does)"

# --- fetching -------------------------------------------------------------
apt_o="-o Dir::Etc::SourceList=$cache/apt/sources.list -o Dir::Etc::SourceParts=/dev/null
	-o Dir::State::Lists=$cache/apt/lists -o APT::Sandbox::User=root"
apt_ready=
# orig PACKAGE: the path of the Debian source package's .orig tarball, fetched if need be.
orig() {
	f=$(ls "$cache"/dl/"$1"_*.orig.tar.* 2>/dev/null | grep -v '\.asc$' | head -n 1)
	if [ -z "$f" ]; then
		if [ -z "$apt_ready" ]; then
			printf 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' \
				"${DEBIAN_MIRROR:-http://deb.debian.org/debian}" "${DEBIAN_SUITE:-bookworm}" \
				>"$cache/apt/sources.list"
			# shellcheck disable=SC2086 # apt_o is a list of options
			apt-get -qq $apt_o update >&2 || bail "apt-get update of the deb-src list failed"
			apt_ready=1
		fi
		# The .orig tarball is all that is used: a missing .debian.tar.xz is no matter.
		# shellcheck disable=SC2086
		(cd "$cache/dl" && apt-get -qq $apt_o source --download-only "$1") >/dev/null 2>&1
		f=$(ls "$cache"/dl/"$1"_*.orig.tar.* 2>/dev/null | grep -v '\.asc$' | head -n 1)
	fi
	[ -n "$f" ] || bail "apt-get source --download-only $1 brought no .orig tarball"
	echo "$f"
}
# unpack TARBALL DIR: its one top folder's content into DIR.
unpack() { mkdir -p "$2" && tar -C "$2" --strip-components=1 -xf "$1"; }

echo "# fetching the projects into $cache"
hello_tar=$(orig hello) || exit 99
onf_tar=$(orig node-on-finished) || exit 99
toolz_tar=$(orig toolz) || exit 99

# The Node project's own dependency and its test runner, from the npm registry,
# once: the lint and coverage tools among its devDependencies are left out.
onf=$cache/on-finished
if [ ! -x "$onf/node_modules/.bin/mocha" ]; then
	rm -rf "$onf"
	unpack "$onf_tar" "$onf"
	(cd "$onf" &&
		node -e 'const f="package.json",j=require("./"+f);
			j.devDependencies={mocha:j.devDependencies.mocha};
			require("fs").writeFileSync(f,JSON.stringify(j,null,2)+"\n")' &&
		npm install --silent --no-audit --no-fund --ignore-scripts --no-package-lock) >&2 ||
		bail "npm install of on-finished's dependencies failed"
fi

# --- running ----------------------------------------------------------------
# Each mode gets fresh copies of the projects and runs each step in a session of
# its own, with no terminal and stdin from /dev/null, output to a log.
backends=${FIELD_BACKENDS:-}
if [ -z "$backends" ]; then
	for b in bwrap landlock; do
		"$PADDOCK" doctor 2>/dev/null | grep -q "^$b: works here" && backends="$backends $b"
	done
fi
[ -n "$backends" ] || bail "no Linux backend works here (paddock doctor)"

# step MODE PROJECT NAME PROGRAM [ARG...]: run one step; its log is
# $T/MODE/PROJECT.NAME.log and its exit status is kept in $T/MODE/PROJECT.NAME.rc.
step() {
	mode=$1 proj=$2 name=$3
	shift 3
	log=$T/$mode/$proj.$name.log
	if [ "$mode" = direct ]; then
		(cd "$T/$mode/$proj" && setsid -w "$@" >"$log" 2>&1 </dev/null)
	else
		(cd "$T/$mode/$proj" && setsid -w "$PADDOCK" run --backend "$mode" -t 1800 -- "$@" \
			>"$log" 2>&1 </dev/null)
	fi
	echo $? >"$T/$mode/$proj.$name.rc"
}

run_mode() {
	mode=$1
	mkdir -p "$T/$mode"
	echo "# $mode: hello (./configure, make, make check)"
	unpack "$hello_tar" "$T/$mode/hello"
	step "$mode" hello configure ./configure
	step "$mode" hello make make
	step "$mode" hello check make check
	echo "# $mode: on-finished (npm test)"
	cp -a "$onf" "$T/$mode/onf"
	step "$mode" onf test npm test
	echo "# $mode: toolz (venv, pip install -e ., pytest)"
	unpack "$toolz_tar" "$T/$mode/toolz"
	step "$mode" toolz venv "$py" -m venv --system-site-packages .venv
	step "$mode" toolz install .venv/bin/pip install --no-index --no-deps --no-build-isolation -e .
	step "$mode" toolz test .venv/bin/python -m pytest
}

# passes MODE PROJECT: the pass count its test step printed (empty: none found).
passes() {
	case $2 in
	hello) sed -n 's/^# PASS: *\([0-9][0-9]*\).*/\1/p' "$T/$1/hello.check.log" ;;
	onf) sed -n 's/^ *\([0-9][0-9]*\) passing.*/\1/p' "$T/$1/onf.test.log" ;;
	toolz) sed -n 's/.* \([0-9][0-9]*\) passed.*/\1/p' "$T/$1/toolz.test.log" ;;
	esac | tail -n 1
}
steps_of() {
	case $1 in
	hello) echo configure make check ;;
	onf) echo test ;;
	toolz) echo venv install test ;;
	esac
}
# summary MODE PROJECT: "N passed, exit a/b/c" for the table and the comparison.
summary() {
	s="$(passes "$1" "$2") passed, exit"
	sep=" "
	for st in $(steps_of "$2"); do
		s="$s$sep$(cat "$T/$1/$2.$st.rc")"
		sep=/
	done
	echo "$s"
}

for mode in direct $backends; do
	run_mode "$mode"
done

echo "# project      direct                       $(for b in $backends; do printf '%-29s' "$b"; done)"
for proj in hello onf toolz; do
	line=$(printf '%-12s %-28s' "$proj" "$(summary direct $proj)")
	for b in $backends; do
		line="$line $(printf '%-28s' "$(summary "$b" $proj)")"
	done
	echo "# $line"
done

show_logs() { # the tail of each log of the failing comparison
	for f in "$T/$cmp_mode/$cmp_proj".*.log; do
		tail -n 12 "$f" | cut -c1-200 | sed "s|^|#   $(basename "$f"): |"
	done
}
for proj in hello onf toolz; do
	d=$(passes direct $proj)
	check "$proj: the direct run passes tests ($(summary direct $proj))" test -n "$d" -a "${d:-0}" -gt 0
	for b in $backends; do
		desc="$proj under $b: the same passes and exit statuses as the direct run"
		cmp_mode=$b cmp_proj=$proj
		not_ok_show=show_logs
		check "$desc" test "$(summary "$b" $proj)" = "$(summary direct $proj)"
		not_ok_show=
	done
done
finish
