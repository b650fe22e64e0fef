#!/bin/sh
# soak.sh - `make soak`: long sessions stay flat. SOAK_N (10000) CLI calls in one project, then as
# many through one `paddock mcp`; what a session leaves (state, cgroups, mounts, temp files,
# zombies, the server's descriptors and RSS) before and after, as a Markdown table. SOAK_PARTS
# ("cli mcp") picks the halves; every 1000 calls a line of figures goes to stderr.
set -u
: "${PADDOCK:=./paddock}"
N=${SOAK_N:-10000}
PARTS=" ${SOAK_PARTS:-cli mcp} "
[ -x "$PADDOCK" ] || { echo "soak: $PADDOCK not built" >&2; exit 1; }
P=$(cd "$(dirname "$PADDOCK")" && pwd)/$(basename "$PADDOCK")
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/pdk-soak.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/proj" "$T/tmp" "$T/home"
export XDG_STATE_HOME="$T/state" XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache"
export XDG_CONFIG_HOME="$T/config" HOME="$T/home" TMPDIR="$T/tmp"
cd "$T/proj" || exit 1

base=$("$P" doctor --json 2>/dev/null | python3 -c \
	'import json,sys; print((json.load(sys.stdin).get("cgroup") or {}).get("base") or "")')
# What a session leaves, as "state_kib state_files trash_files cgroups busy_cgroups mounts tmp
# zombies store_outputs store_kib audit_files audit_kib".
measure() {
	kib=$(du -sk "$XDG_STATE_HOME" 2>/dev/null | cut -f1)
	files=$(find "$XDG_STATE_HOME" 2>/dev/null | wc -l)
	trash=$(find "$XDG_DATA_HOME" -type f 2>/dev/null | wc -l)
	cg=0 busy=0
	if [ -n "$base" ] && [ -d "$base" ]; then
		for d in "$base"/*/; do
			[ -e "$d/pids.max" ] || continue
			cg=$((cg + 1))
			[ -s "$d/cgroup.procs" ] && busy=$((busy + 1))
		done
	fi
	mounts=$(wc -l </proc/self/mountinfo)
	tmp=$(find "$TMPDIR" /tmp -maxdepth 1 2>/dev/null | wc -l)
	zombies=$(grep -l '^State:.*Z' /proc/[0-9]*/status 2>/dev/null | wc -l)
	out=$XDG_STATE_HOME/paddock/output
	outs=$(find "$out" -type f 2>/dev/null | wc -l)
	outkib=$(du -sk "$out" 2>/dev/null | cut -f1)
	audits=$(find "$XDG_STATE_HOME/paddock" -maxdepth 1 -name 'audit.log*' 2>/dev/null | wc -l)
	auditkib=$(du -ck "$XDG_STATE_HOME"/paddock/audit.log* 2>/dev/null | tail -n 1 | cut -f1)
	echo "${kib:-0} $files $trash $cg $busy $mounts $tmp $zombies $outs ${outkib:-0} $audits" \
		"${auditkib:-0}"
}

# The mix a session makes, as soak-mcp.py's.
cli_call() {
	case $(($1 % 4)) in
	0) "$P" run --yes -- true ;;
	1) "$P" run --yes -- seq 1 20000 ;;
	2) "$P" run --yes -- sh -c 'touch soak-f && rm soak-f' ;;
	3) "$P" run --yes -- sh -c 'sleep 1000 & echo x' ;;
	esac >/dev/null 2>&1 </dev/null
}

before=$(measure)
t0=$(date +%s)
bad=0 i=1
case $PARTS in *" cli "*) ;; *) i=$((N + 1)) ;; esac
while [ $i -le "$N" ]; do
	cli_call $i || bad=$((bad + 1))
	[ $i -eq 100 ] && after100=$(measure)
	[ $((i % 1000)) -eq 0 ] && echo "soak: $i CLI calls: $(measure)" >&2
	i=$((i + 1))
done
cli_s=$(($(date +%s) - t0))
after_cli=$(measure)
t0=$(date +%s)
mcp="- - - - -"
case $PARTS in
*" mcp "*) mcp=$(python3 "$here/soak-mcp.py" "$P" "$N" "$T/proj") || exit 1 ;;
esac
mcp_s=$(($(date +%s) - t0))
after_mcp=$(measure)

row() { # row NAME FIELD
	printf '| %s | %s | %s | %s | %s |\n' "$1" "$(echo "$before" | cut -d' ' -f"$2")" \
		"$(echo "${after100:-$before}" | cut -d' ' -f"$2")" \
		"$(echo "$after_cli" | cut -d' ' -f"$2")" "$(echo "$after_mcp" | cut -d' ' -f"$2")"
}
echo "$N CLI calls ($cli_s s, $bad failed), then $N calls through one paddock mcp ($mcp_s s," \
	"$(echo "$mcp" | cut -d' ' -f5) failed)"
echo
echo "| what | before | after 100 CLI calls | after $N CLI calls | after $N MCP calls |"
echo "|---|---|---|---|---|"
row "state directory (KiB)" 1
row "state directory (files)" 2
row "output store (outputs)" 9
row "output store (KiB)" 10
row "audit log (files)" 11
row "audit log (KiB)" 12
row "trash (files)" 3
row "cgroup slots" 4
row "cgroup slots with a process" 5
row "mounts" 6
row "entries in TMPDIR and /tmp" 7
row "zombies" 8
echo
set -- $mcp
echo "| paddock mcp | after 100 calls | after $N calls |"
echo "|---|---|---|"
echo "| descriptors | $1 | $2 |"
echo "| RSS (KiB) | $3 | $4 |"
