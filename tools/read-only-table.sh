#!/bin/sh
# read-only-table.sh - compiles data/read_only_command.json (a JSON array of
# strings, one a line) into a sorted C table that paddock searches with bsearch.
# Usage: read-only-table.sh read_only_command.json > src/policy/read_only_table.h
set -eu
in=${1:?usage: read-only-table.sh FILE.json}
LC_ALL=C
export LC_ALL
body=$(awk '
	BEGIN { n = 0 }
	/^[ \t]*$/ { next }
	NR == 1 && /^[ \t]*\[[ \t]*$/ { next }
	/^[ \t]*\][ \t]*$/ { done = 1; next }
	{
		line = $0
		sub(/^[ \t]*/, "", line); sub(/[ \t]*,?[ \t]*$/, "", line)
		if (done || line !~ /^"[^"\\]+"$/ || line ~ /"  / || line ~ / "$/) {
			printf "%s:%d: expected one \"string\" per line (no quotes, backslashes or stray spaces inside)\n", FILENAME, NR > "/dev/stderr"
			bad = 1; exit 1
		}
		print line
	}
	END { if (bad) exit 1 }
' "$in" | sort)
dups=$(printf '%s\n' "$body" | uniq -d)
if [ -n "$dups" ]; then
	printf '%s: duplicate entries: %s\n' "$in" "$dups" >&2
	exit 1
fi
count=$(printf '%s\n' "$body" | grep -c .)
printf '/* read_only_table.h - generated from read_only_command.json by read-only-table.sh;\n'
printf ' * do not edit. Sorted (C locale) for bsearch; included by src/policy/policy_data.c. */\n'
printf 'static const char *const pdk_read_only_table[] = {\n'
printf '%s\n' "$body" | sed 's/^/\t/; s/$/,/'
printf '};\nstatic const size_t pdk_read_only_table_n = %s;\n' "$count"
