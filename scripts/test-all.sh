#!/bin/sh
# test-all.sh - every test paddock has: the suite (gcc), the field suite (real
# projects fetched at test time), make distcheck, the macOS cross-build, the
# suite again built by clang with AddressSanitizer and UndefinedBehaviorSanitizer,
# and each libFuzzer target for FUZZ_SECONDS (60) from its corpus.
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh

fail() { cat tests/*/*.log 2>/dev/null | tail -200; exit 1; }

echo "== make check (gcc, warnings are errors)"
./configure --quiet --enable-werror
make -j"$(nproc)" check || fail

echo "== field: real projects directly and through paddock under each backend"
make field || exit 1

echo "== make distcheck"
make -j"$(nproc)" distcheck >distcheck.log 2>&1 || { tail -100 distcheck.log; exit 1; }
grep -A2 "archives ready for distribution" distcheck.log

echo "== cross-build for macOS (Mach-O, arm64 and x86_64)"
scripts/cross-macos.sh
for arch in aarch64:arm64 x86_64:x86_64; do
	what=$(file -b "build-macos/${arch%%:*}/paddock")
	echo "$arch: $what"
	case "$what" in
	"Mach-O 64-bit ${arch#*:} executable"*) ;;
	*) echo "test-all: build-macos/${arch%%:*}/paddock is not a Mach-O ${arch#*:} executable" >&2; exit 1 ;;
	esac
done

echo "== make check built by clang, under ASan and UBSan"
./configure --quiet --enable-sanitizers --enable-werror CC=clang
make clean >/dev/null
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	make -j"$(nproc)" check || fail

# Leave the ordinary build behind, as the quick start expects.
./configure --quiet && make clean >/dev/null && make -j"$(nproc)" >/dev/null

echo "== fuzzing, ${FUZZ_SECONDS:-60} s a target"
tests/fuzz/run.sh
echo "all tests passed"
