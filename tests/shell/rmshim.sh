#!/bin/sh
# rmshim.sh - rm inside a confined command (sh -c, xargs, find -exec, env) goes to the trash
# through paddock's rm shim: gone from its place, listed by trash-list with its original path,
# back with trash-restore; rm's own semantics; timeouts, a killed paddock, forged staging; and
# that a run which ran no rm does no more than it must (no mount table read, where strace is).
#
# Needs trash-cli. The other-filesystem part mounts a tmpfs in a private mount namespace
# (root); it is skipped, saying so, where that is not permitted.

if [ -z "${RMSHIM_NS:-}" ] && [ "$(id -u)" = 0 ] &&
	unshare --mount --propagation private true 2>/dev/null; then
	RMSHIM_NS=1 exec unshare --mount --propagation private sh "$0" "$@"
fi

. "${srcdir:-$(dirname "$0")/../..}/tests/shell/lib.sh"

if ! command -v trash-list >/dev/null 2>&1 || ! command -v trash-restore >/dev/null 2>&1; then
	skip_all "trash-cli is not installed (apt-get install trash-cli)"
fi

T=$(cd "$T" && pwd -P)
export HOME="$T/home" XDG_DATA_HOME="$T/data" TMPDIR="$T/tmpd"
unset XDG_CACHE_HOME
fresh_state
W="$T/work"
O="$T/outside" # not a writable root: neither the launch directory, TMPDIR nor ~/.cache
mkdir -p "$HOME" "$XDG_DATA_HOME" "$TMPDIR" "$W" "$O" "$T/saved"
cd "$W" || exit 1
uid=$(id -u)
stage=".paddock-rm-$uid"
mounted=
cleanup_mount() { [ -n "$mounted" ] && umount "$mounted" 2>/dev/null; }

run() { # run [OPTION...] -- ARGV...: paddock run, approving what a gate would ask
	"$PADDOCK" run --yes "$@" >"$T/out" 2>"$T/err"
}
listed() { # listed PATH: trash-list shows PATH exactly once per argument count
	trash-list 2>/dev/null | awk '{ $1 = ""; $2 = ""; sub(/^  /, ""); print }' |
		grep -cxF "$1"
}
in_trash() { [ "$(listed "$1")" -ge 1 ]; }
not_in_trash() { [ "$(listed "$1")" = 0 ]; }
said() { grep -qF -- "$1" "$T/out" "$T/err"; }
no_stage() { [ ! -e "$W/$stage" ]; }

# --- sh -c 'rm FILE': gone, in the trash with its path, restorable byte for byte ---
head -c 4096 /dev/urandom >data.bin
cp data.bin "$T/saved/data.bin"
run -- sh -c 'rm data.bin'
check "sh -c 'rm data.bin' exits 0" test $? = 0
check "data.bin left its place" test ! -e data.bin
check "trash-list shows $W/data.bin" in_trash "$W/data.bin"
check "no staging directory is left in the root" no_stage
check "the run's registry entry is gone" \
	sh -c "[ -z \"\$(ls -A '$XDG_STATE_HOME/paddock/shim/runs')\" ]"
# The caller's own PADDOCK_RM_DIRECT (an unconfined rm's) never reaches a confined command,
# whose rm must stage: the shim's environment takes it out.
printf x >direct.txt
PADDOCK_RM_DIRECT=1 run -- sh -c 'echo "direct=${PADDOCK_RM_DIRECT-unset}"; rm direct.txt'
check "a caller's PADDOCK_RM_DIRECT is not in the confined command's environment" \
	said "direct=unset"
check "... and its rm went through the staging to the trash" in_trash "$W/direct.txt"
# A name with a newline in it goes too (the .trashinfo escapes it), and leaves no staging
# or registry behind that later runs would carry along.
run -- sh -c 'printf x > "new
line" && rm "new
line"'
check "a name with a newline goes to the trash" sh -c \
	"[ ! -e '$W/new
line' ] && [ -e '$XDG_DATA_HOME/Trash/files/new
line' ] && grep -qx 'Path=$W/new%0Aline' '$XDG_DATA_HOME/Trash/info/new
line.trashinfo'"
check "... leaving no staging and no registry entry" sh -c \
	"[ ! -e '$W/$stage' ] && [ -z \"\$(ls -A '$XDG_STATE_HOME/paddock/shim/runs')\" ]"
trash-restore </dev/null >"$T/menu" 2>&1
index=$(awk -v p="$W/data.bin" '{ i = $1; $1 = $2 = $3 = ""; sub(/^   /, ""); if ($0 == p) print i }' \
	"$T/menu")
if [ -n "$index" ]; then
	echo "$index" | trash-restore >/dev/null 2>&1
	check "trash-restore brings data.bin back byte for byte" cmp -s data.bin "$T/saved/data.bin"
else
	not_ok "trash-restore offers $W/data.bin"
fi

# --- a run that ran no rm: nothing staged, nothing left, the mount table not read ---
run -- true
check "a run with no rm leaves no staging" no_stage
check "nor its registry entry" \
	sh -c "[ -z \"\$(ls -A '$XDG_STATE_HOME/paddock/shim/runs')\" ]"
if command -v strace >/dev/null 2>&1 &&
	strace -o "$T/strace" -e trace=openat,open "$PADDOCK" run --yes -- true >/dev/null 2>&1; then
	# Its own mount table, that is: bwrap's sandbox is looked at before the command starts.
	check "and paddock did not read the mount table for it" \
		sh -c "! grep -q 'self/mountinfo' '$T/strace'"
else
	echo "# SKIP mount-table check: strace is not usable here"
fi

# --- the shim's pieces gone or stale: the next run puts them back ---
rm -r "$XDG_STATE_HOME/paddock/shim/runs"
echo r1 >r1
run -- sh -c 'rm r1'
check "with runs/ removed, rm still reaches the trash" in_trash "$W/r1"
check "and runs/ is back" test -d "$XDG_STATE_HOME/paddock/shim/runs"
# A registry entry nobody holds locked is a dead run's, even empty (one killed between
# making and writing it): the next run removes it. A run's own is locked from before it is
# visible to others.
reg="$XDG_STATE_HOME/paddock/shim/runs/0123456789abcdef"
: >"$reg"
run -- true
check "an empty registry entry nobody holds is taken for a dead run's, and removed" test ! -e "$reg"
ln -sfn /bin/false "$XDG_STATE_HOME/paddock/shim/rm"
echo r2 >r2
run -- sh -c 'rm r2'
check "with the shim pointing elsewhere, rm still reaches the trash" in_trash "$W/r2"
check "and the shim points at paddock again" \
	test "$(readlink "$XDG_STATE_HOME/paddock/shim/rm")" != /bin/false

# --- rm's own semantics, compared with GNU rm on a twin directory ---
mkdir -p "$T/gnu/d" d
run -- sh -c 'rm d'
check "rm DIR without -r exits 1" test $? = 1
(cd "$T/gnu" && rm d) 2>"$T/gnu.err"
check "with GNU rm's message" said "$(cat "$T/gnu.err")"
check "and the directory stays" test -d d
run -- sh -c 'rm -f missing'
check "rm -f MISSING exits 0" test $? = 0
check "and says nothing" sh -c "! grep -q 'rm:' '$T/out' '$T/err'"
run -- sh -c 'rm missing'
check "rm MISSING exits 1" test $? = 1
check "with GNU rm's message" said "rm: cannot remove 'missing': No such file or directory"
mkdir -p tree/sub && echo x >tree/sub/f && mkdir empty
run -- sh -c 'rm -rv tree && rm -d empty'
check "rm -r DIR and rm -d EMPTY exit 0" test $? = 0
check "both left their place" test ! -e tree -a ! -e empty
check "trash-list shows the tree" in_trash "$W/tree"
check "and the empty directory" in_trash "$W/empty"
check "-v says where it went" said "removed directory 'tree'"
echo t >target && ln -s target link
run -- sh -c 'rm link'
check "rm SYMLINK trashes the link" in_trash "$W/link"
check "and leaves its target" test -f target
run -- sh -c 'rm --bogus x'
check "an unknown option exits 1 as rm does" test $? = 1
check "with rm's message" said "rm: unrecognized option '--bogus'"

# --- wrappers that look rm up on PATH ---
touch x1.tmp x2.tmp y1.tmp y2.tmp e1 e2 n1
run -- sh -c 'ls x*.tmp | xargs rm; find . -maxdepth 1 -name "y*.tmp" -exec rm {} +; env rm e1; find . -maxdepth 1 -name e2 -exec rm {} \;; nice rm n1'
check "xargs rm, find -exec rm, env rm, nice rm exit 0" test $? = 0
for f in x1.tmp x2.tmp y1.tmp y2.tmp e1 e2 n1; do
	check "$f went to the trash" sh -c "[ ! -e '$f' ] && [ \"\$(trash-list | grep -c ' $W/$f\$')\" = 1 ]"
done

# --- name collisions: the same path trashed three times, two files of one name at once ---
for i in 1 2 3; do
	echo "gen $i" >same
	run -- sh -c 'rm same'
done
check "three trashings of one path are three entries" test "$(listed "$W/same")" = 3
mkdir -p a b && echo A >a/f && echo B >b/f
run -- sh -c 'rm a/f b/f'
check "a/f and b/f both in the trash" sh -c "[ $(listed "$W/a/f") = 1 ] && [ $(listed "$W/b/f") = 1 ]"

# --- a run that times out after its rm ---
echo slow >slow
run --timeout 2 -- sh -c 'rm slow; sleep 30'
check "the timed-out run did not exit 0" test $? != 0
check "slow left its place" test ! -e slow
check "and is in the trash after the timeout" in_trash "$W/slow"
check "no staging directory is left" no_stage

# --- paddock killed mid-run: the next run sweeps what the dead one staged ---
echo orphan >orphan
"$PADDOCK" run --yes --timeout 60 -- sh -c "rm orphan; exec sleep 60 # $MARK" >/dev/null 2>&1 &
ppid=$!
bgpids="$bgpids $ppid"
for _ in $(seq 100); do [ -e orphan ] || break; sleep 0.1; done
kill -9 "$ppid" 2>/dev/null
wait "$ppid" 2>/dev/null
kill_marked
check "the killed run had staged orphan" sh -c "ls -d '$W/$stage'/*/1/orphan >/dev/null 2>&1"
check "orphan is not in the trash yet" not_in_trash "$W/orphan"
run -- true
check "the next run moves it to the trash" in_trash "$W/orphan"
check "and leaves no staging behind" no_stage

# --- the staging area is not rm's to remove ---
echo keep >k
run -- sh -c "rm k; rm -r $stage"
check "rm -r of the staging area fails" test $? = 1
check "saying why" said "on their way to the trash"
check "and k still reaches the trash" in_trash "$W/k"

# --- forged staging: records and symlinks planted by the command move nothing outside ---
echo precious >"$O/keep"
mkdir -p "$O/dir" "$O/dir2" && echo in >"$O/dir/file" && echo in >"$O/dir2/file"
enc_keep=$(printf '%s' "$O/keep")
run -- sh -c "set -e; rm -f nothing
r=$stage/0123456789abcdef; mkdir -p \$r/1 \$r/3; echo victim >\$r/1/keep
printf '[Paddock Rm]\nPath=$enc_keep\nDeletionDate=2001-01-01T00:00:00\n' >\$r/1.info
ln -s '$O/dir' \$r/2; ln -s '$O' \$r/3/dir; printf 'Path=$O/dir/file\n' >\$r/3.info
ln -s '$O/dir2' $stage/fedcba9876543210
mkdir \$r/4; echo v >\$r/4/planted; printf 'Path=$TMPDIR/planted\n' >\$r/4.info
mkdir \$r/5; echo v >\$r/5/pre-commit; printf 'Path=$W/.git/hooks/pre-commit\n' >\$r/5.info"
check "the forging run exits 0" test $? = 0
check "the outside file is untouched" grep -qx precious "$O/keep"
check "the outside directories keep their files" test -f "$O/dir/file" -a -f "$O/dir2/file"
check "trash-list names nothing outside the roots" sh -c "! trash-list | grep -qF ' $O/'"
check "the planted file is trashed under its staged place" \
	in_trash "$W/$stage/0123456789abcdef/1/keep"
check "a record naming a file of another root is not believed" sh -c \
	"! trash-list | grep -qF ' $TMPDIR/planted' && trash-list | grep -qF ' $W/$stage/0123456789abcdef/4/planted'"
check "nor one naming a protected path (a restore would plant a hook)" sh -c \
	"! trash-list | grep -qF ' $W/.git/hooks/pre-commit' && trash-list | grep -qF ' $W/$stage/0123456789abcdef/5/pre-commit'"
check "the planted symlinks went to the trash as links" \
	sh -c "[ -L '$XDG_DATA_HOME/Trash/files/2' ] && [ -L '$XDG_DATA_HOME/Trash/files/fedcba9876543210' ]"
check "no staging directory is left" no_stage

# --- argv rm (paddock runs it itself): inside the roots to the trash, outside refused ---
echo direct >direct
run -- rm direct
check "argv rm exits 0" test $? = 0
check "and trashes" in_trash "$W/direct"
run -- rm "$O/keep"
check "argv rm outside the roots exits 1" test $? = 1
check "saying so" said "outside the writable roots"
check "and the file stays" test -f "$O/keep"
run -- sh -c "rm '$O/keep'"
check "rm outside the roots inside sh -c fails too" test $? = 1
check "and the file stays there" grep -qx precious "$O/keep"

# --- first run ever, the state directory inside the root: the shim is still seen ---
saved_state=$XDG_STATE_HOME
XDG_STATE_HOME="$W/newstate"
echo first >first
run -- sh -c 'rm first'
check "a first run with no state directory yet exits 0" test $? = 0
check "and its rm went to the trash" in_trash "$W/first"
check "and first is not simply deleted" sh -c "[ -e first ] || trash-list | grep -q ' $W/first\$'"
XDG_STATE_HOME=$saved_state

# --- the shim started outside paddock removes nothing ---
echo stays >stays
env -u PADDOCK_RM_STAGE -u PADDOCK_RM_ROOTS "$XDG_STATE_HOME/paddock/shim/rm" stays \
	>"$T/out" 2>"$T/err"
check "the shim outside paddock exits 1" test $? = 1
check "points at /bin/rm" said "use /bin/rm"
check "and leaves the file" test -f stays

# --- a file on another filesystem inside the root: staged and trashed on that filesystem ---
mkdir -p vol
if [ "$uid" = 0 ] && mount -t tmpfs -o mode=0755 tmpfs "$W/vol" 2>/dev/null; then
	mounted="$W/vol"
	trap 'cleanup_mount; lib_cleanup' EXIT
	mkdir -p vol/deep && echo far >vol/deep/f
	run -- sh -c 'rm vol/deep/f'
	check "rm on the tmpfs exits 0" test $? = 0
	check "the file left its place" test ! -e vol/deep/f
	check "it is in the tmpfs's own trash" test -f "vol/.Trash-$uid/files/f"
	check "recorded relative to the tmpfs" grep -qx "Path=deep/f" "vol/.Trash-$uid/info/f.trashinfo"
	check "trash-list shows $W/vol/deep/f" in_trash "$W/vol/deep/f"
	check "no staging is left on the tmpfs" test ! -e "vol/$stage"
	check "nor in the root" no_stage
	# The sweep reads the mount table only when a root holds a staging area: the shim
	# marks the root when it stages on a mount below it.
	echo far2 >vol/deep/g
	run -- sh -c "rm vol/deep/g && ls -d $stage/*/"
	check "staging on the tmpfs marks the root while the run goes on" test $? = 0
	check "and the file still reaches the trash" test -f "vol/.Trash-$uid/files/g"
	check "leaving no mark behind" no_stage
	# A killed run that staged on the tmpfs, swept by a run with other roots.
	echo far3 >vol/deep/h
	"$PADDOCK" run --yes --timeout 60 -- sh -c "rm vol/deep/h; exec sleep 60 # $MARK" \
		>/dev/null 2>&1 &
	ppid=$!
	bgpids="$bgpids $ppid"
	for _ in $(seq 100); do [ -e vol/deep/h ] || break; sleep 0.1; done
	kill -9 "$ppid" 2>/dev/null
	wait "$ppid" 2>/dev/null
	kill_marked
	check "the killed run had staged h on the tmpfs" \
		sh -c "ls -d '$W/vol/$stage'/*/1/h >/dev/null 2>&1"
	mkdir -p "$T/elsewhere"
	(cd "$T/elsewhere" && run -- true)
	check "a run elsewhere moves it to the tmpfs's trash" test -f "vol/.Trash-$uid/files/h"
	check "and leaves no staging on the tmpfs" test ! -e "vol/$stage"
	check "nor in the root" no_stage
	# A file no trash can take (the tmpfs's trash is a file) stays staged: its run's registry
	# entry stays, and a later run neither names it (from elsewhere) nor keeps its own entry.
	rm -rf "vol/.Trash-$uid" && : >"vol/.Trash-$uid" && echo far4 >vol/deep/x
	regs() { ls -A "$XDG_STATE_HOME/paddock/shim/runs" | wc -l; }
	run -- sh -c 'rm vol/deep/x'
	check "a file no trash takes stays staged, and the run says so" \
		sh -c "ls -d '$W/vol/$stage'/*/1/x >/dev/null 2>&1 && grep -q 'could not be moved' '$T/out'"
	check "... keeping that run's registry entry" test "$(regs)" = 1
	mkdir -p "$T/elsewhere2"
	(cd "$T/elsewhere2" && run -- sh -c 'echo y >y && rm y')
	check "a run elsewhere does not name it" sh -c "! grep -q 'deep/x' '$T/out' '$T/err'"
	check "... and keeps no registry entry of its own" test "$(regs)" = 1
	run -- true
	check "nor does a later run in the same project, the file still staged" test "$(regs)" = 1
	rm -f "vol/.Trash-$uid"
	run -- true
	check "once a trash can take it, it goes there, and no entry is left" \
		sh -c "test -f '$W/vol/.Trash-$uid/files/x' && test \"\$(ls -A '$XDG_STATE_HOME/paddock/shim/runs' | wc -l)\" = 0"
	# A root that cannot be written, with a writable mount below it: the shim cannot mark
	# the root, and rm there still reaches the mount's trash, under each backend.
	ro="$T/ro-root"
	mkdir -p "$ro"
	if mount -t tmpfs -o mode=0755 tmpfs "$ro" && mkdir "$ro/vol" &&
		mount -t tmpfs -o mode=0755 tmpfs "$ro/vol" && mount -o remount,ro "$ro"; then
		for b in landlock bwrap; do
			"$PADDOCK" doctor | grep -q "^$b: works here" || continue
			echo far >"$ro/vol/k-$b"
			(cd "$ro" && run --backend "$b" -- sh -c "rm vol/k-$b")
			check "$b: rm below a read-only root exits 0" test $? = 0
			check "$b: ... and the file is in the mount's trash" \
				test -f "$ro/vol/.Trash-$uid/files/k-$b"
		done
		umount "$ro/vol" "$ro"
	fi
else
	echo "# SKIP other-filesystem part: mounting a tmpfs is not permitted here"
fi

finish
