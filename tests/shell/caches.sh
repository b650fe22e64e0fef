#!/bin/sh
# caches.sh - package tools at work under each Linux backend that works here: npm, cargo,
# go and maven write their caches (paddock points them at its own, under the cache
# directory), and a write the sandbox refused gets its sandbox: hint from the real message
# of Node, Python, Go, Rust and Java. A tool that is not installed is reported as skipped.
set -u
P=${PADDOCK:-./paddock}
# Nothing here may lie under a default root (/tmp is one).
T=$(mktemp -d /var/tmp/pdk-caches.XXXXXX)
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
REAL_HOME=${HOME:-/root}
export XDG_STATE_HOME="$T/state" TMPDIR="$T/tmp" XDG_CACHE_HOME="$T/cache" HOME="$T/home"
unset npm_config_cache CARGO_HOME GOMODCACHE GOPATH GOFLAGS GRADLE_USER_HOME MAVEN_OPTS \
	MAVEN_USER_HOME NUGET_PACKAGES YARN_GLOBAL_FOLDER BUN_INSTALL_CACHE_DIR
# rustup's cargo finds its toolchains through the real home.
[ -d "$REAL_HOME/.rustup" ] && export RUSTUP_HOME="${RUSTUP_HOME:-$REAL_HOME/.rustup}"
mkdir -p "$T/tmp" "$T/home" "$T/proj"
n=0
fails=0
check() { # check DESCRIPTION COMMAND...
	d=$1; shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; fails=$((fails + 1)); sed -n '1,12p' "$T/out" | sed 's/^/#   /'; fi
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
has() { grep -qF -- "$1" "$T/out"; }
hint_for() { grep -q "^sandbox: the sandbox refused a write to $1, outside the writable roots" "$T/out"; }
run() { # run BACKEND ARGS...: paddock run in $T/proj, result in $T/out
	b=$1; shift
	(cd "$T/proj" && "$P" run --backend "$b" "$@" >"$T/out" 2>&1 </dev/null)
}

backends=
for b in bwrap landlock; do
	"$P" run --backend "$b" -- true >/dev/null 2>&1 && backends="$backends $b"
done
[ -n "$backends" ] || { echo "1..0 # SKIP no Linux backend works here"; exit 0; }

# A local npm package, packed without paddock: installing it needs npm's cache, and no network.
if command -v npm >/dev/null 2>&1; then
	mkdir -p "$T/pkg"
	printf '{"name":"pdk-cache-probe","version":"1.0.0","main":"index.js"}\n' >"$T/pkg/package.json"
	echo 'module.exports = 42;' >"$T/pkg/index.js"
	(cd "$T" && npm_config_cache="$T/pack-cache" npm pack ./pkg >/dev/null 2>&1)
	printf '{"name":"proj","version":"1.0.0"}\n' >"$T/proj/package.json"
fi
# A Go module served from a file:// proxy: go mod download fills the module cache.
if command -v go >/dev/null 2>&1; then
	mkdir -p "$T/goproxy/example.com/probe/@v"
	printf 'module example.com/probe\n' >"$T/goproxy/example.com/probe/@v/v1.0.0.mod"
	printf '{"Version":"v1.0.0"}\n' >"$T/goproxy/example.com/probe/@v/v1.0.0.info"
	echo v1.0.0 >"$T/goproxy/example.com/probe/@v/list"
	python3 - "$T/goproxy/example.com/probe/@v/v1.0.0.zip" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("example.com/probe@v1.0.0/go.mod", "module example.com/probe\n")
    z.writestr("example.com/probe@v1.0.0/probe.go", "package probe\n\nconst X = 1\n")
PY
fi
if command -v cargo >/dev/null 2>&1 && cargo --version >/dev/null 2>&1; then
	mkdir -p "$T/crate/src"
	printf '[package]\nname = "probe"\nversion = "0.1.0"\nedition = "2021"\n' >"$T/crate/Cargo.toml"
	echo 'fn main() {}' >"$T/crate/src/main.rs"
fi
printf '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion><groupId>x</groupId><artifactId>y</artifactId><version>1</version></project>\n' >"$T/proj/pom.xml"

for b in $backends; do
	if [ -f "$T/pdk-cache-probe-1.0.0.tgz" ]; then
		rm -rf "$T/proj/node_modules" "$T/proj/package-lock.json"
		run "$b" -- npm install --offline --no-audit --no-fund "$T/pdk-cache-probe-1.0.0.tgz"
		check "$b: npm install of a package fills npm's cache" \
			sh -c "grep -q '^exit status: 0' '$T/out' && [ -f '$T/proj/node_modules/pdk-cache-probe/index.js' ] && [ -d '$T/cache/paddock/npm/_cacache' ]"
		check "$b: npm's cache is not the user's own" test ! -e "$T/home/.npm"
	else
		skip "$b: npm install fills npm's cache" "npm is not installed"
	fi
	if [ -d "$T/goproxy" ]; then
		run "$b" -- sh -c "cd /; GOPROXY=file://$T/goproxy GOSUMDB=off go mod download example.com/probe@v1.0.0"
		check "$b: go mod download fills the module cache" \
			sh -c "grep -q '^exit status: 0' '$T/out' && [ -f '$T/cache/paddock/go-mod/example.com/probe@v1.0.0/probe.go' ]"
	else
		skip "$b: go mod download fills the module cache" "go is not installed"
	fi
	if [ -d "$T/crate" ]; then
		(cd "$T/crate" && "$P" run --backend "$b" -- cargo install --offline --path . >"$T/out" 2>&1 </dev/null)
		check "$b: cargo install writes CARGO_HOME" \
			sh -c "grep -q '^exit status: 0' '$T/out' && [ -x '$T/cache/paddock/cargo/bin/probe' ]"
		rm -rf "$T/crate/target"
	else
		skip "$b: cargo install writes CARGO_HOME" "cargo is not installed"
	fi
	if command -v mvn >/dev/null 2>&1; then
		run "$b" -- mvn -o -B -q validate
		check "$b: mvn -o makes its local repository" \
			sh -c "grep -q '^exit status: 0' '$T/out' && [ -d '$T/cache/paddock/m2/repository' ]"
	else
		skip "$b: mvn -o makes its local repository" "maven is not installed"
	fi

	# The hints, from each tool's own message about a write outside the roots.
	run "$b" -- python3 -c "import os; os.makedirs('$T/home/py/x')"
	check "$b: Python's refused write has its hint" hint_for "$T/home/py"
	if command -v node >/dev/null 2>&1; then
		run "$b" -- node -e "require('fs').mkdirSync('$T/home/node-dir')"
		check "$b: Node's refused write has its hint" hint_for "$T/home/node-dir"
	else
		skip "$b: Node's refused write has its hint" "node is not installed"
	fi
	if command -v go >/dev/null 2>&1; then
		run "$b" -- sh -c "cd /; GOMODCACHE=$T/home/gomod GOPROXY=file://$T/goproxy GOSUMDB=off go mod download example.com/probe@v1.0.0"
		check "$b: Go's refused write has its hint" hint_for "$T/home/gomod"
	else
		skip "$b: Go's refused write has its hint" "go is not installed"
	fi
	if [ -d "$T/crate" ]; then
		(cd "$T/crate" && "$P" run --backend "$b" -- sh -c "CARGO_HOME=$T/home/cargo-ro cargo install --offline --path ." >"$T/out" 2>&1 </dev/null)
		check "$b: cargo's refused write has its hint" hint_for "$T/home/cargo-ro"
		rm -rf "$T/crate/target"
	else
		skip "$b: cargo's refused write has its hint" "cargo is not installed"
	fi
	if command -v java >/dev/null 2>&1; then
		printf 'public class W { public static void main(String[] a) throws Exception { java.nio.file.Files.createDirectories(java.nio.file.Paths.get("%s/home/java-dir")); } }\n' "$T" >"$T/proj/W.java"
		run "$b" -- java W.java
		check "$b: Java's refused write has its hint" hint_for "$T/home/java-dir"
	else
		skip "$b: Java's refused write has its hint" "java is not installed"
	fi
done

# toolCaches false: the tools keep their own caches (and the sandbox refuses them).
printf '{"commandPolicy":{"sandbox":{"toolCaches":false}}}\n' >"$T/off.json"
b=${backends# }
b=${b%% *}
run "$b" --config "$T/off.json" -- sh -c 'echo "cache=${npm_config_cache-unset} cargo=${CARGO_HOME-unset}"'
check "toolCaches false leaves the tools' variables alone" has "cache=unset cargo=unset"
run "$b" -- sh -c 'echo "cache=${npm_config_cache-unset}"'
check "by default npm is pointed at paddock's cache" has "cache=$T/cache/paddock/npm"
run "$b" -- sh -c 'npm_config_cache=/x; echo "opts=$MAVEN_OPTS"'
check "maven's local repository is added to MAVEN_OPTS" has "opts=-Dmaven.repo.local=$T/cache/paddock/m2/repository"
(cd "$T/proj" && GOMODCACHE=/elsewhere "$P" run --backend "$b" -- sh -c 'echo "mod=$GOMODCACHE"' >"$T/out" 2>&1 </dev/null)
check "a variable the user set is left as it is" has "mod=/elsewhere"
echo "1..$n"
[ "$fails" -eq 0 ]
