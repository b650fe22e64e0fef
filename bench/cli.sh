#!/bin/sh
# cli.sh - paddock binaries side by side: `paddock run --backend B -- true` in a git project,
# rounds interleaved by bench/timeit.c, medians and ratios as a Markdown table, and system calls.
#
# Usage: bench/cli.sh OLD NEW... (paddock binaries, each named by its directory, paths without
# blanks; every NEW is judged against OLD).
# Environment: CC (cc), BENCH_ROUNDS (200), BENCH_BACKENDS ("landlock bwrap"), BENCH_USERS
# ("root nobody" as root: each table again as uid 65534; else the caller alone),
# BENCH_STRICT=1 (exit 2 when a NEW is slower than 1.0x OLD on a backend).
# shellcheck disable=SC2016
set -u

bench=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-cc}
rounds=${BENCH_ROUNDS:-200}
backends=${BENCH_BACKENDS:-landlock bwrap}
strict=
[ "${BENCH_STRICT:-0}" = 1 ] && strict=-s
if [ $# -lt 2 ]; then
	echo "usage: bench/cli.sh OLD NEW... (paddock binaries, each NEW judged against OLD)" >&2
	exit 1
fi
bins=
for b in "$@"; do
	if [ ! -x "$b" ] || [ -d "$b" ]; then
		echo "bench: $b is not an executable; name paddock binaries" >&2
		exit 1
	fi
	bins="$bins $(cd "$(dirname "$b")" && pwd)/$(basename "$b")"
done
# A binary's name in the tables: the directory it was built in.
name() {
	basename "$(dirname "$1")"
}
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
echo "paddock CLI on $(uname -srm), $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') CPUs," \
	"$(date -u '+%Y-%m-%d'): medians of $rounds interleaved rounds of" \
	"\`paddock run --backend B -- true\` in a git project"
for u in $users; do
	project "$tmp/$u" || exit 1
	[ "$u" = nobody ] && chown -R 65534:65534 "$tmp/$u"
	set --
	for b in $backends; do
		ok=true
		for bin in $bins; do
			as_user "$u" "$bin" run --backend "$b" -- true >/dev/null 2>&1 || ok=false
		done
		if ! $ok; then
			echo "bench: not measured: $b as $u fails here" >&2
			continue
		fi
		base=
		for bin in $bins; do
			if [ -z "$base" ]; then
				base="$b $(name "$bin")"
				set -- "$@" :: "$b, $(name "$bin")" as="$base" -- \
					"$bin" run --backend "$b" -- true
			else
				set -- "$@" :: "$b, $(name "$bin")" vs="$base@1.0" -- \
					"$bin" run --backend "$b" -- true
			fi
		done
	done
	[ $# -eq 0 ] && continue
	echo
	as_user "$u" "$tmp/timeit" $strict -n "$rounds" -w 5 -t "**As $u**" "$@" || rc=$?
	command -v strace >/dev/null || continue
	printf '\n| system calls (`strace -f -c`, one call) |'
	for bin in $bins; do
		printf ' %s |' "$(name "$bin")"
	done
	printf '\n|---|'
	for bin in $bins; do
		printf -- '--:|'
	done
	echo
	for b in $backends; do
		printf '| %s |' "$b"
		for bin in $bins; do
			printf ' %s |' "$(calls "$u" "$bin" "$b")"
		done
		echo
	done
done
exit $rc
