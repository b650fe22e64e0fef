#!/bin/sh
# run.sh - `make bench`: paddock's cost against its floors, timed side by side by bench/timeit.c
# and printed as Markdown tables for the README. paddock comes from $PADDOCK, else ./paddock.
#
# Environment: PADDOCK, CC (cc), BENCH_ROUNDS (200 rounds of the short commands),
# BENCH_BIG_ROUNDS (11 rounds of the 1 GiB stream), BENCH_STRICT=1 (exit 2 when a target is
# missed; by default the tables say so and the exit status stays 0).
# Labels are Markdown: the backquotes in single quotes are meant literally.
# shellcheck disable=SC2016
set -u

bench=$(cd "$(dirname "$0")" && pwd)
PADDOCK=${PADDOCK:-./paddock}
CC=${CC:-cc}
rounds=${BENCH_ROUNDS:-200}
big_rounds=${BENCH_BIG_ROUNDS:-11}
strict=
[ "${BENCH_STRICT:-0}" = 1 ] && strict=-s
GIB=1073741824

if [ ! -x "$PADDOCK" ] || [ -d "$PADDOCK" ]; then
	echo "bench: $PADDOCK is not an executable; build paddock or set PADDOCK" >&2
	exit 1
fi
# Absolute: the runs start in a scratch directory.
PADDOCK=$(cd "$(dirname "$PADDOCK")" && pwd)/$(basename "$PADDOCK")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/paddock-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
# Every writable root and the output store are scratch directories of the bench: the 1 GiB
# runs fill a store, and bwrap leaves mount points behind where a protected path is missing.
mkdir "$tmp/work" "$tmp/tmp" "$tmp/cache" "$tmp/state" || exit 1
XDG_STATE_HOME=$tmp/state
XDG_CACHE_HOME=$tmp/cache
TMPDIR=$tmp/tmp
export XDG_STATE_HOME XDG_CACHE_HOME TMPDIR
# Notes go to stderr at once and, under the tables, to stdout.
skipped=
note() {
	printf 'bench: not measured: %s\n' "$*" >&2
	skipped="$skipped
Not measured: $*"
}

if ! $CC -O2 -std=gnu11 -o "$tmp/timeit" "$bench/timeit.c"; then
	echo "bench: cannot compile bench/timeit.c with $CC" >&2
	exit 1
fi
cd "$tmp/work" || exit 1

# A command joins a table only after one checked run: a broken backend is reported and
# skipped, never timed as if it had worked.
works() {
	out=$("$@" 2>&1) && printf '%s\n' "$out" | grep -q '^exit status: 0$' && return 0
	note "\`$*\` fails here"
	printf '%s\n' "$out" | sed -n '1,5s/^/bench:   /p' >&2
	return 1
}

doctor=$("$PADDOCK" doctor 2>&1)
# "compiled" when paddock has the backend; "works" when doctor also says it works here.
backend_state() {
	printf '%s\n' "$doctor" | grep -Eq "^compiled backends:(.*[ ,])? ?$1(,|\$)" || {
		echo absent
		return
	}
	printf '%s\n' "$doctor" | grep -q "^$1: works here" && echo works || echo broken
}

# --- Table 1: the cost of one call (short commands, one interleaved run) ---------------------
set -- \
	:: '`true`' -- true \
	:: '`env true`' -- env true
if works "$PADDOCK" run --yes --no-sandbox -- true; then
	set -- "$@" :: '`paddock run --yes --no-sandbox -- true`' vs='`env true`@1.25' vs='`true`' \
		-- "$PADDOCK" run --yes --no-sandbox -- true
fi

case $(backend_state landlock) in
works)
	if $CC -O2 -std=gnu11 -o "$tmp/landlock-floor" "$bench/landlock-floor.c" &&
		"$tmp/landlock-floor" true; then
		set -- "$@" :: 'Landlock floor (`bench/landlock-floor.c`)' as='the floor' \
			vs='`true`' -- "$tmp/landlock-floor" true
		if works "$PADDOCK" run --backend landlock -- true; then
			set -- "$@" :: '`paddock run --backend landlock -- true`' \
				vs='the floor@1.25' vs='`true`' \
				-- "$PADDOCK" run --backend landlock -- true
		fi
	else
		note "landlock: bench/landlock-floor.c does not build or run here"
	fi
	;;
broken) note "$(printf '%s\n' "$doctor" | grep '^landlock:')" ;;
absent) note "landlock: not compiled into $PADDOCK" ;;
esac

case $(backend_state bwrap) in
works)
	profile=$("$PADDOCK" run --backend bwrap --print-profile -- true 2>&1)
	# The argv is printed shell-quoted between its header and the next comment.
	# paddock binds by descriptor what it opened itself, and has bwrap wait while it looks at
	# the sandbox (that look is part of paddock's cost): the bare call binds the same paths by
	# path and does not wait, nor runs paddock's reaper inside.
	bw=$(printf '%s\n' "$profile" |
		awk '/^# bwrap: the command runs as/ { on = 1; next } on && /^#/ { exit } on' |
		sed -e 's/^\([[:space:]]*--\)\(ro-\)\{0,1\}bind-fd [0-9][0-9]* \(.*\) \\$/\1\2bind \3 \3 \\/' \
			-e '/^[[:space:]]*--block-fd [0-9][0-9]* \\$/d' \
			-e 's|^\([[:space:]]*--\) [^ ]*/paddock-reap [0-9][0-9]* -- |\1 |')
	fd=$(printf '%s\n' "$profile" | sed -n 's/^# seccomp program passed as fd \([0-9]*\):.*/\1/p')
	# bwrap writes its status (child-pid, exit-code) there; the bare call gets /dev/null.
	sfd=$(printf '%s\n' "$profile" | sed -n 's/^# bwrap reports its status .* to fd \([0-9]*\)$/\1/p')
	# Mount points bwrap makes for missing protected paths: paddock removes its own after
	# each run; for the bare call timeit does, untimed.
	held=$(printf '%s\n' "$profile" | awk '/^# missing protected paths/ { on = 1; next }
		on && /^#\t/ { print substr($0, 3); next } on { exit }')
	seccomp="paddock's filter"
	# The same filter when the library paddock was linked with is at hand, else allow-all.
	lib=$(dirname "$PADDOCK")/libpaddock.a
	# shellcheck disable=SC2046 # pkg-config's flags are words
	if ! { [ -f "$lib" ] &&
		$CC -O2 -std=gnu11 -iquote "$bench/../src" -iquote "$bench/.." -o "$tmp/seccomp-dump" \
			"$bench/seccomp-dump.c" "$lib" \
			$(pkg-config --libs libseccomp 2>/dev/null || echo -lseccomp) 2>/dev/null &&
		"$tmp/seccomp-dump" "$tmp/seccomp.bpf"; }; then
		# One instruction: BPF_RET|BPF_K, SECCOMP_RET_ALLOW (little-endian).
		printf '\006\000\000\000\000\000\377\177' >"$tmp/seccomp.bpf"
		seccomp="an allow-all filter"
	fi
	if [ -z "$bw" ] || [ -z "$fd" ]; then
		note "bare bwrap: no bwrap argv or seccomp fd in --print-profile"
	elif printf '%s\n' "$bw$held" | grep -q "\\\$'"; then
		note "bare bwrap: its argv needs \$'...' quoting, which sh lacks"
	else
		# Each line is one shell-quoted path: rm='PATH' is one word to eval.
		rmdirs=
		while IFS= read -r d; do
			[ -n "$d" ] && rmdirs="$rmdirs rm=$d"
		done <<-EOF
			$held
		EOF
		eval "set -- \"\$@\" :: 'bare \`bwrap\`, same flags' as='bare \`bwrap\`' vs='\`true\`' \
			fd=$fd:\"\$tmp/seccomp.bpf\" ${sfd:+wfd=$sfd:/dev/null} $rmdirs -- $bw"
	fi
	if works "$PADDOCK" run --backend bwrap -- true; then
		vs=
		[ -n "$bw" ] && [ -n "$fd" ] && vs='bare `bwrap`@1.10'
		set -- "$@" :: '`paddock run --backend bwrap -- true`' ${vs:+"vs=$vs"} vs='`true`' \
			-- "$PADDOCK" run --backend bwrap -- true
	fi
	;;
broken) note "$(printf '%s\n' "$doctor" | grep '^bwrap:')" ;;
absent) note "bwrap: not compiled into $PADDOCK" ;;
esac

cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')
echo "paddock bench on $(uname -srm), $cpus CPUs, $(date -u '+%Y-%m-%d')"
echo "(\`make bench\`: medians of wall time; a ratio divides two medians, \"paired\" is the median"
echo "of the per-round ratios; targets are judged on the first)"
echo
"$tmp/timeit" $strict -n "$rounds" -w 5 -t '**One call**' "$@"
rc1=$?
[ -n "${bw:-}" ] && echo "The bare \`bwrap\` call loads $seccomp through --seccomp $fd."
[ -n "$skipped" ] && printf '%s\n' "$skipped" | sed 1d

# --- Table 1b: a call that makes 10,000 files, paddock's bwrap against bare bwrap ---------------
# What paddock does around a run (the journal of protected paths and git's configuration, the
# look at them and at new submodules after it) does not grow with what the command writes: a
# build's worth of files costs the same. It runs in a git project with a submodule, as a
# build does, so that all of it is paid.
# Each call makes a directory of its own and leaves it (removing is no part of a build, and
# paddock would send an rm or a find -delete to the trash, or ask): the files pile up in the
# bench's own temporary project, which goes at the end.
files='d=$(mktemp -d -p .) && cd "$d" && seq 10000 | xargs touch'
if command -v git >/dev/null && mkdir "$tmp/proj" "$tmp/sub" &&
	git -C "$tmp/sub" init -q && git -C "$tmp/sub" -c user.name=b -c user.email=b@e.st \
		commit -q --allow-empty -m s && git -C "$tmp/proj" init -q &&
	git -C "$tmp/proj" -c protocol.file.allow=always submodule -q add "$tmp/sub" sub 2>/dev/null; then
	cd "$tmp/proj" || exit 1
	where="in a git project with a submodule"
else
	where="in a directory that is no git project (git is missing)"
fi
if [ -n "${bw:-}" ] && [ -n "${fd:-}" ] && works "$PADDOCK" run --backend bwrap -- sh -c "$files"; then
	fprofile=$("$PADDOCK" run --backend bwrap --print-profile -- sh -c "$files" 2>&1)
	fbw=$(printf '%s\n' "$fprofile" |
		awk '/^# bwrap: the command runs as/ { on = 1; next } on && /^#/ { exit } on' |
		sed -e 's/^\([[:space:]]*--\)\(ro-\)\{0,1\}bind-fd [0-9][0-9]* \(.*\) \\$/\1\2bind \3 \3 \\/' \
			-e '/^[[:space:]]*--block-fd [0-9][0-9]* \\$/d' \
			-e 's|^\([[:space:]]*--\) [^ ]*/paddock-reap [0-9][0-9]* -- |\1 |')
	ffd=$(printf '%s\n' "$fprofile" | sed -n 's/^# seccomp program passed as fd \([0-9]*\):.*/\1/p')
	fsfd=$(printf '%s\n' "$fprofile" | sed -n 's/^# bwrap reports its status .* to fd \([0-9]*\)$/\1/p')
	echo
	eval "\"\$tmp/timeit\" -n \"${BENCH_FILES_ROUNDS:-21}\" -w 2 \
		-t '**A call that makes 10,000 files**' \
		:: 'bare \`bwrap\`, same flags' as='bare \`bwrap\`' \
		fd=$ffd:\"\$tmp/seccomp.bpf\" ${fsfd:+wfd=$fsfd:/dev/null} -- $fbw \
		:: '\`paddock run --backend bwrap -- sh -c ...\`' vs='bare \`bwrap\`' \
		-- \"\$PADDOCK\" run --backend bwrap -- sh -c \"\$files\""
	echo "Both run \`$files\` $where."
fi
cd "$tmp/work" || exit 1

# --- Table 3 (printed second): the resident cost of `paddock mcp` --------------------------
# One server, sequential run_command calls of `true`, each round trip interleaved with a run of
# the floor; then the server's RSS after 100 calls and after 10,000 (BENCH_MCP_CALLS).
mcp_table() {
	if ! $CC -O2 -std=gnu11 -o "$tmp/mcp-rtt" "$bench/mcp-rtt.c"; then
		echo "bench: cannot compile bench/mcp-rtt.c with $CC" >&2
		return 1
	fi
	echo
	echo "**Resident: \`paddock mcp\`, $rounds sequential run_command calls of \`true\`** (medians)"
	echo
	echo '| server | round trip | floor | ratio |'
	echo '|---|---|---|---|'
	rc3=0
	# Each backend with its confined zygotes (the default) and set up afresh (--no-zygote).
	if [ -x "$tmp/landlock-floor" ] && works "$PADDOCK" run --backend landlock -- true; then
		for z in '' --no-zygote; do
			"$tmp/mcp-rtt" $strict -n "$rounds" -t 1.0 "$PADDOCK" --backend landlock $z \
				:: 'Landlock floor (target 1.0x)' -- "$tmp/landlock-floor" true || rc3=$?
		done
		ll=1
	fi
	if [ -n "${bw:-}" ] && [ -n "${fd:-}" ] && works "$PADDOCK" run --backend bwrap -- true; then
		for z in '' --no-zygote; do
			eval "\"\$tmp/mcp-rtt\" $strict -n \"\$rounds\" -t 1.10 \"\$PADDOCK\" --backend bwrap $z \
				:: 'bare bwrap (target 1.10x)' fd=$fd:\"\$tmp/seccomp.bpf\" \
				${sfd:+wfd=$sfd:/dev/null} -- $bw" || rc3=$?
		done
		bwr=1
	fi
	if [ -n "${ll:-}${bwr:-}" ]; then
		# 8 calls at once against 8 floors at once: throughput, not round trips.
		echo
		echo "**8 \`run_command\` calls at once, $((rounds / 10 + 1)) rounds** (medians)"
		echo
		echo '| server | throughput | floor | ratio |'
		echo '|---|---|---|---|'
		for z in '' --no-zygote; do
			[ -z "${ll:-}" ] || "$tmp/mcp-rtt" $strict -n "$((rounds / 10 + 1))" -w 2 -c 8 \
				-t 0.9 "$PADDOCK" --backend landlock $z \
				:: '8 Landlock floors at once (target 0.9x)' \
				-- "$tmp/landlock-floor" true || rc3=$?
			[ -z "${bwr:-}" ] || eval "\"\$tmp/mcp-rtt\" $strict -n \"\$((rounds / 10 + 1))\" \
				-w 2 -c 8 -t 0.9 \"\$PADDOCK\" --backend bwrap $z \
				:: '8 bare bwraps at once (target 0.9x)' fd=$fd:\"\$tmp/seccomp.bpf\" \
				${sfd:+wfd=$sfd:/dev/null} -- $bw" || rc3=$?
		done
	fi
	echo
	echo '| memory | early | late | growth |'
	echo '|---|---|---|---|'
	"$tmp/mcp-rtt" $strict -n 1 -w 0 -m "${BENCH_MCP_CALLS:-10000}" "$PADDOCK" | sed -n 's/^| server RSS/| server RSS/p' || rc3=$?
	return $rc3
}
mcp_table
rc3=$?

# --- The same through libpaddock, in the caller's process ---------------------------------
# paddock_run() in a loop against the same floors, then the caller's and the engine's RSS
# after 100 calls and after BENCH_MCP_CALLS. Built against the tree's libpaddock.so.
api_table() {
	lib=$(dirname "$PADDOCK")
	[ -f "$lib/libpaddock.so" ] || return 0
	if ! $CC -O2 -std=gnu11 -I"$bench/../include" -o "$tmp/api-loop" "$bench/api-loop.c" \
		-L"$lib" -lpaddock -Wl,-rpath,"$lib"; then
		echo "bench: cannot compile bench/api-loop.c with $CC" >&2
		return 1
	fi
	echo
	echo "**In-process: libpaddock, $rounds \`paddock_run()\` calls of \`true\`** (medians)"
	echo
	echo '| call | paddock_run | floor | ratio |'
	echo '|---|---|---|---|'
	rc4=0
	if [ -x "$tmp/landlock-floor" ] && works "$PADDOCK" run --backend landlock -- true; then
		PADDOCK_PROGRAM=$PADDOCK "$tmp/api-loop" $strict -n "$rounds" -b landlock -t 1.0 \
			:: 'Landlock floor' -- "$tmp/landlock-floor" true || rc4=$?
		# The session's engine setting each call up afresh (PADDOCK_ZYGOTE=0, paddock(1)).
		PADDOCK_ZYGOTE=0 PADDOCK_PROGRAM=$PADDOCK "$tmp/api-loop" $strict -n "$rounds" \
			-b landlock -t 1.0 :: 'Landlock floor, PADDOCK_ZYGOTE=0' \
			-- "$tmp/landlock-floor" true || rc4=$?
	fi
	echo
	echo '| memory | early | late | growth |'
	echo '|---|---|---|---|'
	PADDOCK_PROGRAM=$PADDOCK "$tmp/api-loop" -m "${BENCH_MCP_CALLS:-10000}" || rc4=$?
	return $rc4
}
api_table || rc3=$?

# --- Table 2: 1 GiB through paddock against a plain pipe, and paddock's memory ---------------
echo
works "$PADDOCK" run --yes --no-sandbox -- head -c 1 /dev/zero || exit 1
"$tmp/timeit" $strict -n "$big_rounds" -w 1 -t '**1 GiB on stdout**' \
	:: '`head -c 1073741824 /dev/zero | cat >/dev/null`' as='the `cat` pipe' rss \
	-- head -c $GIB /dev/zero '|' cat \
	:: '`paddock run --yes --no-sandbox -- head -c 1073741824 /dev/zero`' \
	as=paddock vs='the `cat` pipe@1.25' rss@8192 \
	-- "$PADDOCK" run --yes --no-sandbox -- head -c $GIB /dev/zero
rc2=$?

[ $rc1 -eq 1 ] || [ $rc2 -eq 1 ] || [ $rc3 -eq 1 ] && exit 1
[ $rc1 -eq 2 ] || [ $rc2 -eq 2 ] || [ $rc3 -eq 2 ] && exit 2
exit 0
