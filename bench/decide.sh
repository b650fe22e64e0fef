#!/bin/sh
# decide.sh - builds bench/decide in the build tree and runs it: the median
# decision time for a plain argv and for a 1,000-command sh -c script.
# Usage (from the build directory): sh $(srcdir)/bench/decide.sh [RUNS]
set -eu
make bench/decide >/dev/null
exec ./bench/decide "${1:-2000}"
