#!/bin/sh
# cli.sh - two paddock binaries side by side: `paddock run --backend B -- true` in a git project,
# rounds interleaved by bench/timeit.c, medians and ratios as a Markdown table, and system calls.
#
# Usage: bench/cli.sh OLD NEW (two paddock binaries; NEW is judged against OLD).
# Environment: CC (cc), BENCH_ROUNDS (200), BENCH_BACKENDS ("landlock bwrap"), BENCH_USERS
# ("root nobody" as root: each table again as uid 65534; else the caller alone),
# BENCH_STRICT=1 (exit 2 when NEW is slower than 1.0x OLD on a backend).
# shellcheck disable=SC2016
set -u

bench=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-cc}
rounds=${BENCH_ROUNDS:-200}
backends=${BENCH_BACKENDS:-landlock bwrap}
strict=
[ "${BENCH_STRICT:-0}" = 1 ] && strict=-s
if [ $# -ne 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ]; then
	echo "usage: bench/cli.sh OLD NEW (two paddock binaries, NEW judged against OLD)" >&2
	exit 1
fi
old=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
new=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
if [ "$(id -u)" = 0 ]; then
	users=${BENCH_USERS:-root nobody}
else
	users=$(id -un)
fi

# Not under /tmp, a writable root: the project lies where a project does, outside the roots
# paddock adds of its own. Readable by uid 65534, which gets a project and state of its own.
tmp=$(mktemp -d /var/tmp/paddock-bench-cli.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
chmod 755 "$tmp"
$CC -O2 -std=gnu11 -o "$tmp/timeit" "$bench/timeit.c" || exit 1

# A git project with one commit, as an agent's working tree is.
project() {
	mkdir -p "$1/home" "$1/proj" "$1/tmp" "$1/cache" "$1/state" "$1/config" &&
		git -C "$1/proj" init -q && echo x >"$1/proj/README" &&
		git -C "$1/proj" add README &&
		git -C "$1/proj" -c user.name=b -c user.email=b@e.st commit -q -m one
}

# As the user u (root, or nobody: uid 65534): the environment of a person's shell, pointed at
# the bench's own directories for u.
as_user() {
	d=$tmp/$1
	if [ "$1" = nobody ]; then
		shift
		set -- setpriv --reuid 65534 --regid 65534 --clear-groups "$@"
	else
		shift
	fi
	env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$d/home" TMPDIR="$d/tmp" \
		XDG_STATE_HOME="$d/state" XDG_CACHE_HOME="$d/cache" XDG_CONFIG_HOME="$d/config" \
		sh -c 'cd "$0/proj" && exec "$@"' "$d" "$@"
}

# System calls of one call, all processes (strace -f -c's total).
calls() {
	as_user "$1" strace -f -c -o "$tmp/$1/tmp/sc" "$2" run --backend "$3" -- true \
		>/dev/null 2>&1 && awk '$NF == "total" { print $4 }' "$tmp/$1/tmp/sc"
}

rc=0
echo "paddock CLI, $(basename "$old") against $(basename "$new"), on $(uname -srm)," \
	"$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') CPUs, $(date -u '+%Y-%m-%d')"
echo "(medians of $rounds interleaved rounds of \`paddock run --backend B -- true\` in a git project)"
for u in $users; do
	project "$tmp/$u" || exit 1
	[ "$u" = nobody ] && chown -R 65534:65534 "$tmp/$u"
	set --
	for b in $backends; do
		if ! as_user "$u" "$new" run --backend "$b" -- true >/dev/null 2>&1 ||
			! as_user "$u" "$old" run --backend "$b" -- true >/dev/null 2>&1; then
			echo "bench: not measured: $b as $u fails here" >&2
			continue
		fi
		set -- "$@" :: "$b, old" as="$b old" -- "$old" run --backend "$b" -- true \
			:: "$b, new" vs="$b old@1.0" -- "$new" run --backend "$b" -- true
	done
	[ $# -eq 0 ] && continue
	echo
	as_user "$u" "$tmp/timeit" $strict -n "$rounds" -w 5 -t "**As $u**" "$@" || rc=$?
	command -v strace >/dev/null || continue
	echo
	echo '| system calls (`strace -f -c`, one call) | old | new |'
	echo '|---|--:|--:|'
	for b in $backends; do
		n_old=$(calls "$u" "$old" "$b")
		n_new=$(calls "$u" "$new" "$b")
		echo "| $b | ${n_old:-?} | ${n_new:-?} |"
	done
done
exit $rc
