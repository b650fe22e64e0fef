#!/bin/sh
# trash-expire.sh - the trash paddock fills does not grow without bound: entries paddock made
# expire after trash.maxAgeDays and beyond trash.maxSize, oldest first, while the user's own
# entries, younger ones, and anything a symlink in the trash points at stay; trash-cli's
# trash-list and trash-restore agree with what is left. Needs trash-cli.
. "${srcdir:-.}/tests/shell/lib.sh"

driver=${TRASH_DRIVER:-${top_builddir:-.}/tests/drivers/trash-driver}
[ -x "$driver" ] || skip_all "trash-driver not built"
driver=$(cd "$(dirname "$driver")" && pwd)/$(basename "$driver")
PADDOCK=$(cd "$(dirname "$PADDOCK")" && pwd)/$(basename "$PADDOCK")
command -v trash-list >/dev/null 2>&1 && command -v trash-put >/dev/null 2>&1 &&
	command -v trash-restore >/dev/null 2>&1 ||
	skip_all "trash-cli is not installed (apt-get install trash-cli)"

export HOME="$T/home" XDG_CONFIG_HOME="$T/config"
mkdir -p "$HOME" "$XDG_CONFIG_HOME/paddock" "$T/outside"
printf 'keep me\n' >"$T/outside/precious"

ago() { date -d "$1 days ago" +%Y-%m-%dT%H:%M:%S; }
# A fresh trash, state and project for each part.
part=0
fresh() {
	part=$((part + 1))
	fresh_state
	export XDG_DATA_HOME="$T/data$part"
	W="$T/w$part"
	TR="$XDG_DATA_HOME/Trash"
	mkdir -p "$W" "$XDG_DATA_HOME"
	cd "$W" || exit 1
	rm -f "$XDG_CONFIG_HOME/paddock/config.json"
}
config() { printf '%s\n' "$1" >"$XDG_CONFIG_HOME/paddock/config.json"; }
# paddock_old NAME DAYS: NAME (made in the project) goes to the trash as paddock puts it there,
# DAYS days ago.
paddock_old() { "$driver" put-as "$W/$1" "$(ago "$2")" >/dev/null; }
# user_old NAME DAYS: the user's own trash-put of NAME, its date set back DAYS days.
user_old() {
	trash-put "$W/$1" || return 1
	sed -i "s/^DeletionDate=.*/DeletionDate=$(ago "$2")/" "$TR/info/$1.trashinfo"
}
in_trash() { [ -e "$TR/files/$1" ] || [ -L "$TR/files/$1" ]; }
gone() { ! in_trash "$1" && [ ! -e "$TR/info/$1.trashinfo" ]; }
# What trash-list shows from this part's project (other trashes on this machine, at the top of
# other mounts, are listed too and are not this test's).
listed() {
	trash-list 2>/dev/null | awk -v w="$W/" '{ $1 = $2 = ""; sub(/^  /, "") }
		substr($0, 1, length(w)) == w' | sort
}
# The trigger: a call whose rm goes to the trash.
trigger() {
	: >"$W/$1"
	pcall run -- rm "$1"
}

# ---- age ----
fresh
for f in old young mine re; do printf '%s\n' "$f" >"$f"; done
paddock_old old 40
paddock_old young 10
user_old mine 400
# An entry paddock made, put back by the user and trashed again by them: same name and inode,
# but now the user's.
paddock_old re 40
(cd "$W" && echo 0 | trash-restore "$W/re" >/dev/null 2>&1)
check "trash-restore put 're' back" test -f "$W/re"
user_old re 50
check "before: paddock's old and young entries are in the trash" \
	sh -c "[ -e '$TR/files/old' ] && [ -e '$TR/info/old.trashinfo' ] && [ -e '$TR/files/young' ]"
trigger t1
check "the triggering rm ran" test "$rc" = 0
check "an entry paddock made 40 days ago expired (file and .trashinfo)" gone old
check "one paddock made 10 days ago stays" in_trash young
check "the user's own 400-day-old entry stays" in_trash mine
check "an entry of paddock's that the user restored and trashed again stays" in_trash re
check "the rm's own entry is there" in_trash t1
printf '%s\n' "$W/mine" "$W/re" "$W/t1" "$W/young" | sort >"$T/want"
listed >"$T/got"
check "trash-list shows what is left, and only that" cmp -s "$T/want" "$T/got"
check "the record no longer names the expired entry" \
	sh -c "! grep -q ' old ' '$XDG_STATE_HOME/paddock/trash/made'"

# At most once a day: a second call the same day leaves even an old entry.
printf 'old2\n' >old2
paddock_old old2 40
check "before: old2 is in the trash" in_trash old2
trigger t2
check "no second expiry the same day" in_trash old2
touch -d '25 hours ago' "$XDG_STATE_HOME/paddock/trash/expired"
: >t3
pcall run -- sh -c 'rm t3'
check "a day later it runs again, for an rm in sh -c too" gone old2
check "the confined rm's entry, moved after the run, is recorded as paddock's" \
	sh -c "in_trash() { [ -e '$TR/files/t3' ]; }; in_trash && grep -q ' t3 ' '$XDG_STATE_HOME/paddock/trash/made'"
check "and the rest stays" sh -c "[ -e '$TR/files/young' ] && [ -e '$TR/files/mine' ]"
echo 0 | trash-restore "$W/young" >/dev/null 2>&1
check "trash-restore still brings back what is left" grep -qx young "$W/young"

# A configured age.
printf 'y\n' >y5
paddock_old y5 5
check "before: y5 is in the trash" in_trash y5
config '{"trash": {"maxAgeDays": 3}}'
rm -f "$XDG_STATE_HOME/paddock/trash/expired"
trigger t4
check "trash.maxAgeDays 3: a 5-day-old entry expires" gone y5
check "trash.maxAgeDays 3: today's stays" in_trash t4

# ---- size: the oldest of paddock's go until the rest fits ----
fresh
config '{"trash": {"maxSize": 1048576}}'
head -c 409600 /dev/urandom >s1
head -c 409600 /dev/urandom >s2
mkdir s3
head -c 204800 /dev/urandom >s3/a
head -c 204800 /dev/urandom >s3/b
cp -r s3 "$T/s3.saved"
head -c 2097152 /dev/urandom >big
paddock_old s1 3
paddock_old s3 1
paddock_old s2 2
user_old big 1
check "before: s1, s2, s3 and big are in the trash" \
	sh -c "[ -e '$TR/files/s1' ] && [ -e '$TR/files/s2' ] && [ -e '$TR/files/s3' ] && [ -e '$TR/files/big' ]"
trigger t5
check "over trash.maxSize: the oldest entry of paddock's went" gone s1
check "the younger ones fit under the cap and stay" sh -c "[ -e '$TR/files/s2' ] && [ -d '$TR/files/s3' ]"
check "the user's 2 MiB entry neither counts nor goes" in_trash big
printf '%s\n' "$W/big" "$W/s2" "$W/s3" "$W/t5" | sort >"$T/want"
listed >"$T/got"
check "trash-list agrees" cmp -s "$T/want" "$T/got"
echo 0 | trash-restore "$W/s3" >/dev/null 2>&1
check "trash-restore brings the directory back whole" diff -r "$T/s3.saved" "$W/s3"
config '{"trash": {"maxSize": 0, "maxAgeDays": 0}}'
rm -f "$XDG_STATE_HOME/paddock/trash/expired"
printf 'x\n' >s4
paddock_old s4 400
trigger t6
check "maxAgeDays 0 and maxSize 0: nothing expires" sh -c "[ -e '$TR/files/s4' ] && [ -e '$TR/files/s2' ]"

# ---- nothing outside the trash is followed ----
fresh
hostile="-rf ..
 x"
mkdir -p "./$hostile/ro"
ln -s "$T/outside" "./$hostile/dirlink"
ln -s "$T/outside/precious" "./$hostile/filelink"
: >"./$hostile/ro/f"
chmod 555 "./$hostile/ro"
paddock_old "$hostile" 40
mkdir swapped
paddock_old swapped 40
check "before: the hostile entry and 'swapped' are in the trash" \
	sh -c '[ -d "$1/$2/ro" ] && [ -d "$1/swapped" ]' sh "$TR/files" "$hostile"
# The entry is swapped for a symlink to a directory outside: not the entry paddock made.
mv "$TR/files/swapped" "$T/swapped.real"
ln -s "$T/outside" "$TR/files/swapped"
trigger t7
check "an entry with a hostile name, symlinks and a read-only directory expired" \
	sh -c '[ -z "$(find "$1" -mindepth 1 -maxdepth 1 -name "-rf*")" ]' sh "$TR/files"
check "what its symlinks pointed at stays" grep -qx 'keep me' "$T/outside/precious"
check "a symlink put in place of an entry is not followed" test -f "$T/outside/precious"
check "and is left alone, since paddock did not make it" test -L "$TR/files/swapped"
check "the directory it replaced was not touched" test -d "$T/swapped.real"

# ---- bad values: one line, exit 125 ----
fresh
: >keep
config '{"trash": {"maxAgeDays": -1}}'
pcall run -- rm keep
check "maxAgeDays -1: exit 125" test "$rc" = 125
check "maxAgeDays -1: one error line" one_error_line
check "maxAgeDays -1: the line names trash.maxAgeDays" err_has "trash.maxAgeDays"
check "and nothing was removed" test -e keep
config '{"trash": {"maxSize": "1G"}}'
pcall run -- rm keep
check "maxSize \"1G\": exit 125" test "$rc" = 125
check "maxSize \"1G\": one error line" one_error_line
check "maxSize \"1G\": the line names trash.maxSize" err_has "trash.maxSize"
config '{"trash": {"maxAgeDays": 2.5}}'
pcall run -- rm keep
check "maxAgeDays 2.5: exit 125, one line" sh -c "[ $rc = 125 ] && [ \$(wc -l <'$T/err') = 1 ]"
echo "# $(cat "$T/err")"
finish
