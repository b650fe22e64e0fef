#!/bin/sh
# scan.sh - clang's static analyzer (scan-build) over paddock's own sources
# (lib/cjson excluded), on a copy of the tracked files in build-scan/ (a
# configured source tree takes no second build beside it). Prints
# each finding and fails on any, but one kind: clang 14's analyzer does not
# model __attribute__((cleanup)), so every _cleanup_free_ variable reads as a
# "Potential leak". Leaks are LeakSanitizer's (the sanitized suite) and
# valgrind's (tests/shell/memcheck.sh). A false positive of another kind is
# fixed or reworded in the code, with a one-line reason beside it.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${SCAN_DIR:-$top/build-scan}
command -v scan-build >/dev/null || { echo "scan: scan-build not found: apt-get install clang-tools" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/tree"
git -C "$top" ls-files -z | (cd "$top" && xargs -0 tar cf -) | tar xf - -C "$out/tree"
cd "$out/tree"
./autogen.sh >"$out/autogen.log" 2>&1 || { tail -20 "$out/autogen.log"; echo "scan: autogen failed" >&2; exit 1; }
scan-build --use-cc=clang ./configure --quiet --disable-static-deps >configure.log 2>&1 ||
	{ tail -20 configure.log; echo "scan: configure failed" >&2; exit 1; }
scan-build --use-cc=clang --exclude "$out/tree/lib/cjson" --exclude lib/cjson -plist -o "$out/report" \
	make -j"$(nproc)" >build.log 2>&1 || { tail -40 build.log; echo "scan: the build failed" >&2; exit 1; }

# file:line:col: warning: what [checker]
grep -E ': warning: .* \[[a-z]+(\.[A-Za-z]+)+\]$' build.log | sort -u >findings.all || true
grep -v -e 'Potential leak of memory pointed to by' -e 'Potential memory leak' \
	findings.all >findings || true
echo "scan: $(wc -l <findings.all) findings, $(($(wc -l <findings.all) - $(wc -l <findings))) of them leaks through cleanup attributes (not counted)"
if [ -s findings ]; then
	sed 's/^/scan: /' findings >&2
	echo "scan: $(wc -l <findings) findings to fix (report in $out/report)" >&2
	exit 1
fi
echo "scan: no finding"
