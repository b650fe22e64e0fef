#!/bin/sh
# setup.sh - install what paddock needs on Debian (as root or through sudo),
# then build it in the source tree.
set -eu
cd "$(dirname "$0")/.."

PACKAGES="build-essential autoconf automake pkg-config libpcre2-dev
libseccomp-dev check bubblewrap mandoc trash-cli tmux python3 iproute2 util-linux
procps git sudo valgrind file clang clang-tools libclang-rt-dev python3-jsonschema
python3-pytest python3-venv pre-commit redis-server redis-tools openssh-client"
# python3-pytest and python3-venv run the Python project of tests/field; pre-commit is
# the hook manager tests/shell/git-hooks.sh installs hooks with; redis-server,
# redis-tools and openssh-client (ssh-agent) are the real programs of tests/shell/unix-own.sh.
# Node.js runs the MCP client test and the Node project of tests/field, npm
# brings it and the macOS cross-compiler (scripts/cross-macos.sh). A Node.js
# that is there already (with its own npm) is used as it is: Debian's npm
# conflicts with it.
command -v node >/dev/null 2>&1 || PACKAGES="$PACKAGES nodejs"
command -v npm >/dev/null 2>&1 || PACKAGES="$PACKAGES npm"

missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
	echo "setup: installing:$missing"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
fi
[ -x configure ] || ./autogen.sh
[ -f Makefile ] || ./configure --quiet
make -j"$(nproc)" >/dev/null
echo "setup: built ./paddock ($(./paddock --version))"
