#!/bin/sh
# check-layers.sh - the stages include only what lies below them: every #include "DIR/..."
# across folders of src/ and backends/ is checked against the order written here.
set -eu
cd "$(dirname "$0")/.."

# Who may include whom: a folder may include its own headers and those of any folder
# after it in this list (a lower stage), never one before it. The order is the data
# flow read by dependency: the faces, then the decision and the gate (which reads the
# decision), confinement and its backends, then what they use.
ORDER="main api cli agent pkg audit gate policy shparse backends confine trash config net run output
core"

# The few edges that still go up, each with why; a new one fails until it is moved or
# written here with its reason.
EXCEPT="
agent cli	the MCP server runs each call through the CLI's run, recall and pkg verbs
trash confine	the rm shim reads the sandbox's writable roots and protected paths
run confine	the runner and the zygote host (zygote.c) call the backend's ops around the fork
"

rank() { # rank FOLDER: its place in ORDER, or nothing
	i=0
	for s in $ORDER; do
		[ "$s" = "$1" ] && { echo "$i"; return; }
		i=$((i + 1))
	done
}

bad=0
n=0
for f in $(git ls-files 'src/*.[ch]' 'backends/*.[ch]'); do
	case $f in
	src/main.c) from=main ;;
	backends/*) from=backends ;;
	src/*/*) from=${f#src/}; from=${from%%/*} ;;
	*) continue ;;
	esac
	rf=$(rank "$from")
	if [ -z "$rf" ]; then
		echo "check-layers: $f: the folder '$from' is not in ORDER; place it there" >&2
		bad=1
		continue
	fi
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z_0-9]*\)\/[^"]*".*/\1/p' "$f" |
		sort -u); do
		[ "$inc" = "$from" ] && continue
		n=$((n + 1))
		ri=$(rank "$inc")
		if [ -z "$ri" ]; then
			echo "check-layers: $f includes from '$inc', which is not in ORDER" >&2
			bad=1
		elif [ "$ri" -lt "$rf" ] &&
			! printf '%s\n' "$EXCEPT" | grep -q "^$from $inc	"; then
			echo "check-layers: $f ($from) includes $inc/, a stage above it;" \
				"call down the data flow, or move what both need lower" >&2
			bad=1
		fi
	done
done
[ "$bad" -eq 0 ] || exit 1
echo "check-layers: $n includes across folders, all down the data flow" \
	"($(printf '%s\n' "$EXCEPT" | grep -c .) written exceptions)"
