#!/bin/sh
# test-all.sh - every test paddock has: the suite in the source tree, the
# suite again under AddressSanitizer and UndefinedBehaviorSanitizer, and
# make distcheck.
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh
top=$(pwd)

echo "== make check"
make -j"$(nproc)" check || { cat tests/*.log 2>/dev/null | tail -200; exit 1; }

echo "== make check under ASan and UBSan"
rm -rf build-san && mkdir build-san && cd build-san
"$top/configure" --quiet --enable-sanitizers
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	make -j"$(nproc)" check || { cat tests/*.log | tail -200; exit 1; }
cd "$top"

echo "== make distcheck"
make -j"$(nproc)" distcheck >distcheck.log 2>&1 || { tail -100 distcheck.log; exit 1; }
grep -A3 "archives ready for distribution" distcheck.log
echo "all tests passed"
