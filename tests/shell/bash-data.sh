#!/bin/sh
# bash-data.sh - a differential test of the command policy against real bash: each hostile
# script hides a call in text the parser takes as data (an array subscript in a variable name,
# a -C callback, ${x@P}). It runs under bash in a throwaway directory with a marker program on
# PATH; whenever the marker ran, `paddock check` must have seen the call (the marker among its
# commands) or classed it above safe. The legitimate twins stay read-only.

. "${srcdir:-.}/tests/shell/lib.sh"

if ! command -v bash >/dev/null 2>&1; then
	echo "1..0 # SKIP bash is not installed"
	exit 0
fi
mkdir -p "$T/bin" "$T/work"
cat >"$T/bin/pdkmark" <<EOF
#!/bin/sh
: >'$T/ran'
EOF
chmod +x "$T/bin/pdkmark"
printf 'one\ntwo\n' >"$T/work/lines"

# hostile SCRIPT: under bash, then paddock check on the same script.
hostile() {
	rm -f "$T/ran"
	(cd "$T/work" && PATH="$T/bin:$PATH" bash -c "$1" >/dev/null 2>&1 </dev/null)
	if [ ! -e "$T/ran" ]; then
		# bash did not run it here: nothing to compare, but say so
		ok "bash did not run the marker for: $1 # (nothing hidden)"
		return
	fi
	(cd "$T/work" && "$PADDOCK" check -- bash -c "$1" >"$T/out" 2>"$T/err")
	check "seen or above safe: $1" sh -c \
		'grep -q "runs pdkmark" "$0/out" || ! grep -qx "risk: safe.*" "$0/out"' "$T"
}
# twin SCRIPT: the same builtin on plain data stays read-only.
twin() {
	(cd "$T/work" && "$PADDOCK" check -- bash -c "$1" >"$T/out" 2>"$T/err")
	check "plain data stays read-only: $1" grep -qx "risk: safe (read-only)" "$T/out"
}

for b in declare typeset readonly export; do
	hostile "$b 'a[\$(pdkmark)]=1'"
	twin "$b 'a[1]=1'"
done
hostile "f() { local 'a[\$(pdkmark)]=1'; }; f"
hostile "printf -v 'a[\$(pdkmark)]' %s x"
twin "printf -v 'a[1]' %s x"
hostile "declare -a a; test -v 'a[\$(pdkmark)]'"
hostile "declare -a a; [ -v 'a[\`pdkmark\`]' ]"
hostile "read 'a[\$(pdkmark)]' <lines"
hostile "read -a 'a[\$(pdkmark)]' <lines"
hostile "declare -a a; unset 'a[\$(pdkmark)]'"
hostile "let 'a[\$(pdkmark)]=1'"
hostile "declare -a a; let 'x=a[\${b:-\$(pdkmark)}]'"
hostile "x='\$(pdkmark)'; echo \"\${x@P}\""
hostile "compgen -C pdkmark x"
hostile "mapfile -C pdkmark -c 1 a <lines"
hostile "readarray -t -C pdkmark -c 1 a <lines"
hostile "f() { pdkmark; }; complete -F f x; compgen -F f x"
# trap's action runs later: judged, and the trap at least moderate
hostile "trap pdkmark EXIT"
hostile "trap -- 'pdkmark' EXIT; true"
# arithmetic evaluates a variable's value as an expression, subscripts and all
hostile "x='a[\$(pdkmark)]'; echo \$((x))"
hostile "x='a[\$(pdkmark)]'; echo \$(( \$x ))"
hostile "x='a[\$(pdkmark)]'; echo \$[x]"
hostile "x='a[\$(pdkmark)]'; [[ \$x -eq 1 ]]"
hostile "x='a[\$(pdkmark)]'; [[ 1 -lt x ]]"
hostile "x='a[\$(pdkmark)]'; let x"
hostile "x='a[\$(pdkmark)]'; (( x ))"
hostile "x='a[\`pdkmark\`]'; for ((i=0; i<x; i++)); do :; done"
hostile "y=x; x='a[\$(pdkmark)]'; echo \$((y))"
hostile "x=\"a[\$(printf '\$')(pdkmark)]\"; ((x))"
hostile "for x in 'a[\$(pdkmark)]'; do echo \$((x)); done"
hostile "declare -i x; x='a[\$(pdkmark)]'"
twin "echo 'a[\$(pdkmark)]'"
twin "declare a"
# everyday arithmetic stays read-only or safe
calm() {
	(cd "$T/work" && "$PADDOCK" check -- bash -c "$1" >"$T/out" 2>"$T/err")
	check "everyday arithmetic stays safe: $1" grep -qx "risk: safe.*" "$T/out"
}
calm "for ((i=0;i<3;i++)); do echo \$i; done"
calm "n=\$(wc -l <lines); echo \$((n+1))"
calm "n=3; [[ \$n -eq 3 ]] && echo \$((n*2))"

finish
