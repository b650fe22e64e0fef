#!/bin/sh
# tests/fuzz/run.sh - build the libFuzzer harnesses (make fuzz, with clang)
# and run each for FUZZ_SECONDS (60) from its seed corpus in
# tests/fuzz/corpus/TARGET/. Run from the build directory; a crash, a leak, a
# hang or a broken promise fails the run and leaves the input in
# fuzz-artifacts/TARGET/: add it to the corpus once fixed, as a regression.
# FUZZ_TARGETS (e.g. "config render") picks some targets only; FUZZ_JOBS (the
# number of cores) run at once.
set -eu
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-"shparse config recall render package agent"}

make fuzz >fuzz-build.log 2>&1 || { tail -50 fuzz-build.log; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/pdk-fuzz-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}

# One target, its verdict on standard output and its record in $work/$t.result.
fuzz_one() {
	t=$1
	seeds=$srcdir/tests/fuzz/corpus/$t
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
		{
			echo "fuzz $t: FAILED"
			grep -v '^#[0-9]' "$work/$t.log" | tail -60
			for f in "fuzz-artifacts/$t"/*; do
				[ -f "$f" ] && { echo "input $f (base64):"; base64 "$f" | head -40; }
			done
		} >&2
		echo "$t" >"$work/$t.failed"
	fi
}

for t in $targets; do
	[ -d "$srcdir/tests/fuzz/corpus/$t" ] || { echo "fuzz: no corpus for $t at $srcdir/tests/fuzz/corpus/$t" >&2; exit 1; }
done
# FUZZ_JOBS targets at a time (one a core by default): each still gets its own
# FUZZ_SECONDS of one core.
n=0
for t in $targets; do
	fuzz_one "$t" &
	n=$((n + 1))
	if [ $n -ge "$jobs" ]; then
		wait
		n=0
	fi
done
wait
failed=$(cat "$work"/*.failed 2>/dev/null | tr '\n' ' ')
[ -z "$failed" ] || { echo "fuzz: failed: $failed" >&2; exit 1; }
echo "fuzz: all targets ran clean"
