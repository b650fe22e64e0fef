#!/bin/sh
# test-all.sh - every test paddock has: the suite (gcc), the field suite (real
# projects fetched at test time), make distcheck with the suite built by clang
# under AddressSanitizer and UndefinedBehaviorSanitizer, clang's static
# analyzer, the macOS cross-build, and each libFuzzer target for FUZZ_SECONDS
# (60) from its corpus.
set -eu
cd "$(dirname "$0")/.."
t0=$(date +%s)
# Each step says when it starts, in seconds since the first.
step() { echo "== [$(($(date +%s) - t0)) s] $*"; }
step "setup"
scripts/setup.sh
fail() { cat tests/*/*.log 2>/dev/null | tail -200; exit 1; }

# The suites spend much of their time waiting on processes they start: the
# analyzer runs beside them, on a copy of the tree (scripts/scan.sh).
step "layers: every include across folders goes down the data flow"
scripts/check-layers.sh
step "make check (gcc, warnings are errors), clang's analyzer beside it"
scripts/scan.sh >scan.log 2>&1 &
scan=$!
./configure --quiet --enable-werror
make -j"$(nproc)" check || { kill "$scan" 2>/dev/null; fail; }
step "static analysis"
wait "$scan" || { cat scan.log; exit 1; }
tail -2 scan.log

# The macOS cross-build (downloads, then a compiler) runs beside the field
# suite; each keeps its own apt lists.
step "field: real projects directly and through paddock under each backend; macOS cross-build beside it"
scripts/cross-macos.sh >cross-macos.log 2>&1 &
cross=$!
make field || { kill "$cross" 2>/dev/null; exit 1; }
step "macOS cross-build: Mach-O, arm64 and x86_64"
wait "$cross" || { tail -40 cross-macos.log; exit 1; }
for arch in aarch64:arm64 x86_64:x86_64; do
	what=$(file -b "build-macos/${arch%%:*}/paddock")
	echo "$arch: $what"
	case "$what" in
	"Mach-O 64-bit ${arch#*:} executable"*) ;;
	*) echo "test-all: build-macos/${arch%%:*}/paddock is not a Mach-O ${arch#*:} executable" >&2; exit 1 ;;
	esac
done

# distcheck's own make check is the sanitized run: the tarball built by clang
# with ASan and UBSan, so the whole suite runs twice, not three times.
step "make distcheck, built by clang under ASan and UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	make -j"$(nproc)" distcheck DISTCHECK_CONFIGURE_FLAGS="--enable-sanitizers --enable-werror CC=clang" \
	>distcheck.log 2>&1 || { grep -E '^(FAIL|ERROR)' distcheck.log; tail -150 distcheck.log; exit 1; }
grep -A2 "archives ready for distribution" distcheck.log

step "fuzzing, ${FUZZ_SECONDS:-60} s a target, one a core at a time"
tests/fuzz/run.sh
step "all tests passed"
