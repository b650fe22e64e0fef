#!/bin/sh
# setup.sh - install what paddock needs on Debian (as root or through sudo),
# then build it in the source tree.
set -eu
cd "$(dirname "$0")/.."

PACKAGES="build-essential autoconf automake pkg-config libpcre2-dev
libseccomp-dev check bubblewrap mandoc trash-cli tmux python3 iproute2 util-linux
procps git sudo valgrind nodejs npm clang libclang-rt-dev"

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
