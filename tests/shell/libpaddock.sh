#!/bin/sh
# libpaddock.sh - the public library as installed: make install DESTDIR, examples/run.c built
# against it with pkg-config, its result the same as paddock run's; only paddock_* exported.
. "${srcdir:-.}/tests/shell/lib.sh"

top=${top_builddir:-.}
[ -f "$top/libpaddock.so" ] || skip_all "no libpaddock.so in this build (not Linux)"
command -v pkg-config >/dev/null 2>&1 || skip_all "pkg-config is not installed"
cc=${CC:-cc}

# Exported: paddock_* alone.
others=$(nm -D --defined-only "$top/libpaddock.so" | awk '$3 !~ /^paddock_/ { print $3 }')
check "libpaddock.so exports paddock_* alone" test -z "$others"
declared=$(grep -o '^PADDOCK_API [^(]*paddock_[a-z_]*(' "${srcdir:-.}/include/paddock.h" |
	sed 's/.*\(paddock_[a-z_]*\)(/\1/' | sort)
exported=$(nm -D --defined-only "$top/libpaddock.so" | awk '$2 == "T" { print $3 }' | sort)
check "... each function the header declares, and no other" \
	sh -c "[ -n '$declared' ] && [ '$declared' = '$exported' ]"
check "its soname is libpaddock.so.0" sh -c \
	"objdump -p '$top/libpaddock.so' | grep -q 'SONAME *libpaddock.so.0'"

inst="$T/inst"
${MAKE:-make} -s -C "$top" install DESTDIR="$inst" >"$T/install.log" 2>&1
check "make install DESTDIR puts the library in place" test $? = 0
prefix=$(sed -n 's/^prefix=//p' "$top/paddock.pc")
libdir=$(PKG_CONFIG_PATH= pkg-config --variable=libdir "$top/paddock.pc")
for f in "$prefix/include/paddock.h" "$libdir/libpaddock.so.0" "$libdir/libpaddock.a" \
	"$libdir/pkgconfig/paddock.pc" "$prefix/bin/paddock" "$prefix/share/man/man3/paddock.3" \
	"$prefix/share/man/man3/paddock_run.3"; do
	check "installed: $f" test -e "$inst$f"
done

# The example, compiled and linked as a program outside the tree would be.
export PKG_CONFIG_PATH="$inst$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$inst"
flags=$(pkg-config --cflags --libs paddock)
check "pkg-config knows paddock" test -n "$flags"
# shellcheck disable=SC2086
$cc ${SAN_CFLAGS:-} -o "$T/run" "${srcdir:-.}/examples/run.c" $flags >"$T/cc.log" 2>&1
check "examples/run.c builds against the installed library" test -x "$T/run"

# Run from outside /tmp (a writable root), with the installed program as the helper.
S=$(mktemp -d /var/tmp/pdk-lib.XXXXXX)
trap 'lib_cleanup; rm -rf "$S"' EXIT
mkdir -p "$S/state" "$S/proj"
cd "$S/proj" || exit 99
export XDG_STATE_HOME="$S/state" PADDOCK_PROGRAM="$inst$prefix/bin/paddock"
run() { LD_LIBRARY_PATH="$inst$libdir" "$T/run" "$@"; }
run sh -c 'echo out; echo err >&2; exit 4' >"$T/lib.out" 2>"$T/lib.err"
rc=$?
"$PADDOCK" run -- sh -c 'echo out; echo err >&2; exit 4' >"$T/cli.out" 2>"$T/cli.err"
check "the example exits with the command's status" test "$rc" = 4
check "... and prints what paddock run prints" cmp -s "$T/lib.out" "$T/cli.out"
run sh -c 'touch /etc/paddock-lib-was-here' >"$T/lib.out" 2>&1
check "a write outside the roots is refused through the library too" \
	test ! -e /etc/paddock-lib-was-here
run sh -c 'echo twin >twin.txt' >"$T/lib.out" 2>&1
check "... and its twin inside the project is written" grep -qx twin twin.txt
run sudo ls >"$T/lib.out" 2>"$T/lib.err"
rc=$?
check "a refused call: exit 125, the refusal on stderr" \
	sh -c "[ $rc -eq 125 ] && grep -q sudo '$T/lib.err'"
PADDOCK_PROGRAM=/nonexistent/paddock run true >"$T/lib.out" 2>"$T/lib.err"
rc=$?
check "no paddock program: one line naming it, exit 125" \
	sh -c "[ $rc -eq 125 ] && [ \$(wc -l <'$T/lib.err') -eq 1 ] && grep -q /nonexistent '$T/lib.err'"
finish
