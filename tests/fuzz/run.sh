#!/bin/sh
# tests/fuzz/run.sh - build the libFuzzer harnesses (make fuzz, with clang)
# and run each for FUZZ_SECONDS (60) from its seed corpus in
# tests/fuzz/corpus/TARGET/. Run from the build directory; a crash, a leak, a
# hang or a broken promise fails the run and leaves the input in
# fuzz-artifacts/TARGET/: add it to the corpus once fixed, as a regression.
# FUZZ_TARGETS (e.g. "config render") picks some targets only.
set -eu
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-"shparse config recall render package agent"}

make fuzz >fuzz-build.log 2>&1 || { tail -50 fuzz-build.log; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/pdk-fuzz-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=
for t in $targets; do
	seeds=$srcdir/tests/fuzz/corpus/$t
	[ -d "$seeds" ] || { echo "fuzz: no corpus for $t at $seeds" >&2; exit 1; }
	mkdir -p "$work/$t" "fuzz-artifacts/$t"
	# The new inputs go to a scratch corpus; the seeds are only read.
	if ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		"tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="fuzz-artifacts/$t/" \
		"$work/$t" "$seeds" >"$work/$t.log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log")
		cov=$(grep -o 'cov: [0-9]*' "$work/$t.log" | tail -1)
		echo "fuzz $t: ${runs:-?} executions in ${seconds} s, $cov, no crash"
	else
		echo "fuzz $t: FAILED" >&2
		grep -v '^#[0-9]' "$work/$t.log" | tail -60 >&2
		for f in "fuzz-artifacts/$t"/*; do
			[ -f "$f" ] && { echo "input $f (base64):" >&2; base64 "$f" | head -40 >&2; }
		done
		failed="$failed $t"
	fi
done
[ -z "$failed" ] || { echo "fuzz: failed:$failed" >&2; exit 1; }
echo "fuzz: all targets ran clean"
