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
# [[ -v ]] evaluates the subscript: quoted, its $(...) is no command to the parser
hostile "declare -a a; [[ -v 'a[\$(pdkmark)]' ]]"
hostile "declare -a a; [[ -v a\\[\\\$\\(pdkmark\\)\\] ]]"
hostile "declare -a a; x='a[\$(pdkmark)]'; [[ -v a[x] ]]"
# subscripts and substring offsets are arithmetic too
hostile "x='a[\$(pdkmark)]'; echo \${a[\$x]}"
hostile "x='a[\$(pdkmark)]'; echo \${a[x]}"
hostile "x='a[\$(pdkmark)]'; declare -a b; echo \${b[x]:-none}"
hostile "x='a[\$(pdkmark)]'; s=hello; echo \${s:x}"
hostile "x='a[\$(pdkmark)]'; s=hello; echo \${s:1:x}"
hostile "x='a[\$(pdkmark)]'; declare 'b[x]=1'"
hostile "x='a[\$(pdkmark)]'; printf -v 'b[x]' %s 1"
hostile "x='a[\$(pdkmark)]'; declare -a b; unset 'b[x]'"
hostile "x='a[\$(pdkmark)]'; declare -a b; test -v 'b[x]'"
hostile "x='a[\$(pdkmark)]'; b=([x]=1)"
# values known only when it runs: the file holds the subscript
printf '%s\n' 'a[$(pdkmark)]' >"$T/work/evil"
hostile "read x <evil; echo \$((x))"
hostile "read -r x <evil; s=abc; echo \${s:x}"
hostile "while read -r n; do echo \$((n+1)); done <evil"
hostile "mapfile x <evil; echo \$((x))"
hostile "readarray -t x <evil; (( x ))"
hostile "read -a arr <evil; echo \$((arr))"
hostile "x=\$(cat evil); echo \$((x))"
hostile "x=\`cat evil\`; [[ \$x -gt 0 ]]"
hostile "for x in \$(cat evil); do echo \$((x)); done"
hostile "y=\$(cat evil); for x in \$y; do echo \$((x)); done"
hostile "printf -v x %s \"\$(cat evil)\"; echo \$((x))"
hostile "set -- -n \"\$(cat evil)\"; while getopts n: o; do echo \$((OPTARG)); done"
twin "echo 'a[\$(pdkmark)]'"
twin "declare a"
# the subscripts of a compound value given to declare and its kin are arithmetic too
hostile "x='a[\$(pdkmark)]'; declare -a b=([x]=1)"
hostile "x='a[\$(pdkmark)]'; declare -a \"b=([\$x]=1)\""
hostile "f() { x='a[\$(pdkmark)]'; local -a b=([2]=3 [x]=1); }; f"
twin "declare -a b=([0]=1 [1]=2)"
twin "declare -A m=([k]=v)"
# everyday arithmetic stays read-only or safe
calm() {
	(cd "$T/work" && "$PADDOCK" check -- bash -c "$1" >"$T/out" 2>"$T/err")
	check "everyday arithmetic stays safe: $1" grep -qx "risk: safe.*" "$T/out"
}
calm "for ((i=0;i<3;i++)); do echo \$i; done"
calm "n=\$(wc -l <lines); echo \$((n+1))"
calm "n=3; [[ \$n -eq 3 ]] && echo \$((n*2))"
calm "i=0; i=\$((i+1)); echo \$i"
calm "n=\$(ls | wc -l); echo \$((n*2))"
calm "for i in {1..3}; do echo \$((i*2)); done"
calm "for i in \$(seq 1 3); do echo \$((i+1)); done"
calm "t=\$(date +%s); echo \$((t+60))"
calm "j=\$(nproc); echo \$((j+1))"
calm "u=\$(id -u); [[ \$u -eq 0 ]] || echo user"
calm "c=\$(grep -c one lines); echo \$((c))"
calm "s=\$(stat -c %s lines); echo \$((s/1024))"
calm "n=\$(expr 1 + 2); echo \$((n))"
calm "n=\$(echo \$((3*4))); echo \$((n))"
calm "printf -v n %d 5; echo \$((n+1))"
calm "s=hello; n=2; echo \${s:n} \${s:1:2}"
calm "a=(1 2 3); i=1; echo \${a[i]} \${a[\$i]} \${#a[@]} \${a[@]:1}"
calm "declare -A m; k=foo; echo \${m[\$k]}"
calm "read -a arr <lines; echo \${arr[1]}"
calm "while read -r line; do echo \"\$line\"; done <lines"
calm "x=\$(cat lines); echo \"\$x\""

finish
