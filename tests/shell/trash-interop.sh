#!/bin/sh
# trash-interop.sh - files moved to the trash by paddock's rm are listed by trash-cli's trash-list
# with their original paths and dates, and come back byte for byte with trash-restore.
#
# Needs trash-cli (Debian package "trash-cli"). The other-filesystem part mounts a tmpfs and
# needs root with mount rights; it is skipped, saying so, where that is not permitted.
# Prints TAP: one line per check, the plan at the end.

set -u

if [ -z "${TRASH_INTEROP_NS:-}" ] && [ "$(id -u)" = 0 ] &&
	unshare --mount --propagation private true 2>/dev/null; then
	# A private mount namespace: the tmpfs vanishes with this test whatever happens.
	TRASH_INTEROP_NS=1 exec unshare --mount --propagation private sh "$0" "$@"
fi

driver=${TRASH_DRIVER:-${top_builddir:-.}/tests/drivers/trash-driver}
[ -x "$driver" ] || driver=$(dirname "$0")/../drivers/trash-driver
if [ ! -x "$driver" ]; then
	echo "FAIL: trash-driver not built (set TRASH_DRIVER)"
	exit 1
fi
driver=$(cd "$(dirname "$driver")" && pwd)/$(basename "$driver")

if ! command -v trash-list >/dev/null 2>&1 || ! command -v trash-restore >/dev/null 2>&1; then
	echo "1..0 # SKIP trash-cli is not installed (apt-get install trash-cli)"
	exit 0
fi

failures=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() {
	n=$((n + 1))
	echo "not ok $n - $*"
	failures=$((failures + 1))
}
check() { # check DESCRIPTION COMMAND...
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

tmp=$(mktemp -d /tmp/trash-interop-XXXXXX)
tmp=$(cd "$tmp" && pwd -P)
mounted=
cleanup() {
	[ -n "$mounted" ] && umount "$mounted" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

export HOME="$tmp/home"
unset XDG_DATA_HOME
work="$tmp/work"
mkdir -p "$HOME" "$work/dir/sub" "$work/a" "$work/b" "$tmp/outside" "$tmp/saved"
cd "$work" || exit 1

head -c 65536 /dev/urandom >report.bin
cp report.bin "$tmp/saved/report.bin"
printf 'spaces and UTF-8\n' >"with space ü%.txt"
printf 'nested\n' >dir/sub/file
printf 'first\n' >a/same
printf 'second\n' >b/same
printf 'outside\n' >"$tmp/outside/keep"

before=$(date +%s)
"$driver" "$work" rm -r report.bin "with space ü%.txt" dir a/same b/same
check "rm exits 0" test $? = 0
after=$(date +%s)

for f in report.bin "with space ü%.txt" dir a/same b/same; do
	check "'$f' left its place" test ! -e "$f"
done

"$driver" "$work" rm "$tmp/outside/keep" 2>"$tmp/err"
check "rm outside the writable root exits 1" test $? = 1
check "and says why" grep -q "outside the writable roots" "$tmp/err"
check "and the file stays" test -f "$tmp/outside/keep"

trash-list >"$tmp/list" 2>"$tmp/list.err"
echo "# trash-list:"
sed 's/^/#   /' "$tmp/list"

# trash-list prints "YYYY-MM-DD hh:mm:ss PATH", PATH being the decoded original location.
listed_at() { # listed_at PATH -> the date trash-list shows for it
	awk -v p="$1" '{ d = $1 " " $2; $1 = ""; $2 = ""; sub(/^  /, ""); if ($0 == p) print d }' \
		"$tmp/list"
}
date_ok() { # date_ok PATH: listed once, at a time between $before and $after
	d=$(listed_at "$1")
	[ "$(printf '%s\n' "$d" | grep -c .)" = 1 ] || return 1
	t=$(date -d "$d" +%s) || return 1
	[ "$t" -ge "$before" ] && [ "$t" -le "$after" ]
}
for f in report.bin "with space ü%.txt" dir a/same b/same; do
	check "trash-list shows $work/$f with its deletion date" date_ok "$work/$f"
done
check "trash-list does not show the refused file" sh -c "! grep -q '/outside/keep' '$tmp/list'"
check "trash-list complains about nothing" test ! -s "$tmp/list.err"

menu_index() { # menu_index PATH -> its number in trash-restore's menu ("N date time PATH")
	awk -v p="$1" '{ i = $1; $1 = $2 = $3 = ""; sub(/^   /, ""); if ($0 == p) print i }' \
		"$tmp/menu"
}

# trash-restore lists what was trashed from the current directory, numbered, and asks which
# one to bring back: answer with the number of report.bin.
trash-restore </dev/null >"$tmp/menu" 2>&1
index=$(menu_index "$work/report.bin")
echo "# trash-restore menu:"
sed -n '/What file to restore/q; s/^/#   /p' "$tmp/menu"
if [ -n "$index" ]; then
	echo "$index" | trash-restore >/dev/null 2>&1
	check "trash-restore brings report.bin back byte for byte" \
		cmp -s report.bin "$tmp/saved/report.bin"
	check "and it leaves the trash" sh -c "! trash-list | grep -q ' $work/report.bin\$'"
else
	not_ok "trash-restore offers report.bin"
fi

# Another filesystem: the file goes to $topdir/.Trash-$uid on it, never across.
vol="$work/vol"
mkdir -p "$vol"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o mode=0755 tmpfs "$vol" 2>/dev/null; then
	mounted=$vol
	uid=$(id -u)
	mkdir -p "$vol/deep"
	head -c 4096 /dev/urandom >"$vol/deep/data.bin"
	cp "$vol/deep/data.bin" "$tmp/saved/data.bin"
	before=$(date +%s)
	"$driver" "$work" rm "$vol/deep/data.bin"
	check "rm on the tmpfs exits 0" test $? = 0
	after=$(date +%s)
	check "the file is in \$topdir/.Trash-$uid/files" test -f "$vol/.Trash-$uid/files/data.bin"
	check "its .trashinfo holds the path relative to \$topdir" \
		grep -qx 'Path=deep/data.bin' "$vol/.Trash-$uid/info/data.bin.trashinfo"
	check "nothing went to the home trash" test ! -e "$HOME/.local/share/Trash/files/data.bin"
	trash-list >"$tmp/list" 2>/dev/null
	check "trash-list shows $vol/deep/data.bin" date_ok "$vol/deep/data.bin"
	cd "$vol/deep" || exit 1
	trash-restore </dev/null >"$tmp/menu" 2>&1
	index=$(menu_index "$vol/deep/data.bin")
	if [ -n "$index" ]; then
		echo "$index" | trash-restore >/dev/null 2>&1
		check "trash-restore brings it back on the tmpfs" \
			cmp -s data.bin "$tmp/saved/data.bin"
	else
		not_ok "trash-restore offers $vol/deep/data.bin"
	fi
	cd "$work" || exit 1
else
	echo "# SKIP other-filesystem part: mounting a tmpfs is not permitted here (needs root)"
fi

echo "1..$n"
[ "$failures" -eq 0 ]
