#!/bin/sh
# secrets.sh - `make bench`: what keeping the secrets unread costs a call of `true`, per Linux
# backend, against the same call with the list emptied (what a build before it did), and how the
# cost grows with the list and with the directories around it. Markdown tables, as run.sh prints.
#
# Environment: PADDOCK, CC (cc), BENCH_ROUNDS (100), BENCH_STRICT=1 (exit 2 on a missed target),
# PADDOCK_BEFORE (an older paddock binary: timed beside, instead of the list emptied).
# shellcheck disable=SC2016
set -u

bench=$(cd "$(dirname "$0")" && pwd)
PADDOCK=${PADDOCK:-./paddock}
CC=${CC:-cc}
rounds=${BENCH_ROUNDS:-100}
strict=
[ "${BENCH_STRICT:-0}" = 1 ] && strict=-s
PADDOCK=$(cd "$(dirname "$PADDOCK")" && pwd)/$(basename "$PADDOCK")
# Not under /tmp: that is a writable root, and a secret under a root costs nothing to hold.
tmp=$(mktemp -d /var/tmp/paddock-bench-secrets.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
$CC -O2 -std=gnu11 -o "$tmp/timeit" "$bench/timeit.c" || exit 1

# A home as a developer's looks: every default secret, and a hundred other entries beside them
# (dotfiles, tool directories), with ~/.config and ~/.local/share as full as usual.
home=$tmp/home
mkdir -p "$home" "$tmp/work" "$tmp/tmp" "$tmp/cache" "$tmp/state" "$tmp/xdg/paddock"
for d in .ssh .aws .gnupg .kube .config/gh .config/gcloud .azure .password-store \
	.local/share/keyrings .mozilla .config/google-chrome .config/chromium; do
	mkdir -p "$home/$d" && echo secret >"$home/$d/key"
done
for f in .docker/config.json .netrc .git-credentials .pypirc .npmrc .cargo/credentials.toml \
	.bash_history .zsh_history .python_history .node_repl_history .psql_history; do
	mkdir -p "$(dirname "$home/$f")" && echo secret >"$home/$f"
done
echo kh >"$home/.ssh/known_hosts"
echo pub >"$home/.ssh/id.pub"
i=0
while [ $i -lt 100 ]; do
	i=$((i + 1))
	: >"$home/.dot$i"
	[ $i -le 40 ] && mkdir -p "$home/.config/app$i" "$home/.local/share/app$i"
done
echo secret >"$tmp/work/.env"
echo '{"commandPolicy": {"sandbox": {"allowRead": ["/"]}}}' >"$tmp/none.json"
HOME=$home XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache TMPDIR=$tmp/tmp
XDG_CONFIG_HOME=$tmp/xdg
export HOME XDG_STATE_HOME XDG_CACHE_HOME TMPDIR XDG_CONFIG_HOME
cd "$tmp/work" || exit 1

doctor=$("$PADDOCK" doctor 2>&1)
set --
for b in bwrap landlock; do
	printf '%s\n' "$doctor" | grep -q "^$b: works here" || {
		echo "bench: not measured: $b does not work here" >&2
		continue
	}
	if [ -n "${PADDOCK_BEFORE:-}" ]; then
		set -- "$@" :: "$b, the build before" as="$b before" \
			-- "$PADDOCK_BEFORE" run --backend "$b" -- true
	else
		set -- "$@" :: "$b, the list emptied (\`allowRead: [\"/\"]\`)" as="$b before" \
			-- "$PADDOCK" run --config "$tmp/none.json" --yes --backend "$b" -- true
	fi
	set -- "$@" :: "\`paddock run --backend $b -- true\`, default list" \
		vs="$b before@1.10" -- "$PADDOCK" run --backend "$b" -- true
done
[ $# -gt 0 ] || exit 0
held=$("$PADDOCK" run --backend landlock --print-profile -- true 2>/dev/null | grep -c '^secret, unread')
rules=$("$PADDOCK" run --backend landlock --print-profile -- true 2>/dev/null |
	grep -c '^landlock: allow read_file')
echo "### Secrets: the default list against none (as $(id -un); $held secrets held, $rules Landlock" \
	"rules around them)"
echo
"$tmp/timeit" $strict -n "$rounds" "$@"
rc=$?

# How it grows: the list, by denyRead entries in a directory of its own (Landlock grants one
# rule per entry beside each, bwrap binds one blank per secret), and the home, by entries beside.
set --
for n in 10 100; do
	mkdir -p "$tmp/many$n"
	list=
	i=0
	while [ $i -lt "$n" ]; do
		i=$((i + 1))
		echo s >"$tmp/many$n/s$i"
		echo o >"$tmp/many$n/o$i"
		list="$list\"$tmp/many$n/s$i\","
	done
	echo "{\"commandPolicy\": {\"sandbox\": {\"denyRead\": [${list%,}]}}}" >"$tmp/many$n.json"
done
mkdir -p "$tmp/bighome/.ssh"
echo k >"$tmp/bighome/.ssh/id"
i=0
while [ $i -lt 1000 ]; do i=$((i + 1)); : >"$tmp/bighome/f$i"; done
for b in bwrap landlock; do
	printf '%s\n' "$doctor" | grep -q "^$b: works here" || continue
	set -- "$@" :: "$b, default list" as="$b" -- "$PADDOCK" run --backend "$b" -- true
	for n in 10 100; do
		set -- "$@" :: "$b, $n more secrets (\`denyRead\`)" vs="$b" \
			-- "$PADDOCK" run --config "$tmp/many$n.json" --yes --backend "$b" -- true
	done
	set -- "$@" :: "$b, a home of 1000 entries" vs="$b" \
		-- env HOME="$tmp/bighome" "$PADDOCK" run --backend "$b" -- true
done
echo
echo "### Secrets: how the cost grows"
echo
"$tmp/timeit" -n "$((rounds / 2 > 10 ? rounds / 2 : 10))" "$@" || rc=$?
exit $rc
