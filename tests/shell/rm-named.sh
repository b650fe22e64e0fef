#!/bin/sh
# rm-named.sh - only the rm a call names goes to the trash: its argv, a simple command of its
# sh -c script, through wrappers (xargs, find -exec, env) and nested scripts; rm run by the
# programs it starts (a configure script, make's recipes) deletes as usual, and no variable
# the command sets (PATH) changes which, and EXECIGNORE is refused. Needs trash-cli.
. "${srcdir:-$(dirname "$0")/../..}/tests/shell/lib.sh"

if ! command -v trash-list >/dev/null 2>&1; then
	echo "1..0 # SKIP trash-cli is not installed (apt-get install trash-cli)"
	exit 0
fi
T=$(cd "$T" && pwd -P)
export HOME="$T/home" XDG_DATA_HOME="$T/data" TMPDIR="$T/tmpd"
unset XDG_CACHE_HOME
fresh_state
W="$T/work"
mkdir -p "$HOME" "$XDG_DATA_HOME" "$TMPDIR" "$W"
cd "$W" || exit 1
run() { "$PADDOCK" run --yes "$@" >"$T/out" 2>"$T/err" </dev/null; }
entries() { ls "$XDG_DATA_HOME/Trash/info" 2>/dev/null | wc -l; }
in_trash() { trash-list 2>/dev/null | grep -q " $1\$"; }

# A configure-style script and a makefile that clean up after themselves.
cat >configure <<'SH'
#!/bin/sh
for i in 1 2 3 4 5; do echo x >conftest$i.c; rm -f conftest$i.c; done
mkdir conftest.dir && rm -rf conftest.dir
echo configured
SH
chmod +x configure
printf 'all:\n\techo x >tmp.o\n\trm -f tmp.o\n' >Makefile

for mode in "" "--yes --no-sandbox"; do
	what=confined
	[ -n "$mode" ] && what=unconfined
	before=$(entries)
	run $mode -- sh configure
	check "$what: a configure script's rm deletes as usual" \
		sh -c "grep -q configured '$T/out' && [ ! -e conftest1.c ] && [ ! -e conftest.dir ]"
	check "$what: ... and adds no trash entry" test "$(entries)" = "$before"
	run $mode -- sh -c 'make -s'
	check "$what: make's recipes delete as usual, no trash entry" \
		sh -c "[ ! -e tmp.o ] && [ $(entries) = $before ]"
	mkdir -p "build$what/sub" && echo x >"build$what/sub/f"
	run $mode -- sh -c "sh configure >/dev/null && rm -r build$what"
	check "$what: the call's own rm -r build goes to the trash" in_trash "$W/build$what"
	check "$what: ... and only it: one entry more" test "$(entries)" = "$((before + 1))"
done

# The rm the script names, however it reaches rm.
echo x >a.o && echo x >b.o
run -- sh -c 'find . -name "*.o" -exec rm {} +'
check "find -exec rm goes to the trash" sh -c "[ ! -e a.o ] && trash-list | grep -q ' $W/a.o\$'"
echo x >c.txt
run -- sh -c 'echo c.txt | xargs rm'
check "xargs rm goes to the trash" in_trash "$W/c.txt"
echo x >d.txt
run -- sh -c 'bash -c "rm d.txt"'
check "a nested script's rm goes to the trash" in_trash "$W/d.txt"
echo x >e.txt
run -- bash -c 'EXECIGNORE="*/rm"; rm e.txt'
check "EXECIGNORE, which steers what a bare name runs, is refused (exit 125)" \
	sh -c "[ \$1 = 125 ] && grep -q 'EXECIGNORE' '$T/err'" sh $?
check "... before anything ran: e.txt is still there" test -e e.txt
run -- bash -c 'rm e.txt'
check "the call's rm of e.txt goes to the trash" in_trash "$W/e.txt"
echo x >"f'q.txt"
run -- sh -c "rm \"f'q.txt\" && echo \`rm -v nothing-here 2>&1\`"
check "an rm inside backquotes and quotes still works" in_trash "$W/f'q.txt"

# An rm spelled so that it cannot be rewritten is refused before anything runs, saying how
# to write it; written that way, it goes to the trash.
for how in "\$'rm'" "r\\<newline>m"; do
	case $how in
	r*) spelled="r\\
m g.txt" ;;
	*) spelled="\$'rm' g.txt" ;;
	esac
	echo x >g.txt
	run -- sh -c "echo ran >ran.txt; $spelled"
	check "refused: rm spelled $how in sh -c (exit 125, one line)" \
		sh -c "[ \$1 = 125 ] && [ ! -s '$T/out' ] && [ \$(wc -l <'$T/err') = 1 ]" sh $?
	check "... nothing ran, the file is still there" sh -c '[ ! -e ran.txt ] && [ -e g.txt ]'
	check "... and the line says to write it as plain rm" \
		grep -q "nothing ran: write it as plain \`rm\`" "$T/err"
done
run -- sh -c "echo ran >ran.txt; rm g.txt"
check "written as the line says, the rm goes to the trash" in_trash "$W/g.txt"
finish
