#!/bin/sh
# open-behalf.sh - the opens paddock's supervisor makes on the command's behalf (open with O_CREAT,
# creat, link) behave as the kernel's would: under each Linux backend, as root and as uid 65534,
# in a project with missing protected names; and the attacks through them fail.
. "$(dirname "$0")/lib.sh"

command -v git >/dev/null || skip_all "git missing"
linux_backends
users=root
[ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && users="root nobody"
chmod 755 "$T"
# as U CMD...: CMD as user U, with a home, state and temporary directory of U's own under $T/U
# (the temporary one is a writable root, the rest not).
as() {
	u=$1
	shift
	if [ "$u" = root ]; then
		env HOME="$T/$u" XDG_STATE_HOME="$T/$u/state" TMPDIR="$T/$u/tmp" "$@"
	else
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			env HOME="$T/$u" XDG_STATE_HOME="$T/$u/state" TMPDIR="$T/$u/tmp" "$@"
	fi
}
# The system's python, which uid 65534 can run too.
py=
[ -x /usr/bin/python3 ] && py=/usr/bin/python3

for u in $users; do
	mkdir -p "$T/$u/tmp"
	echo secret-as-it-was >"$T/$u/outside"
	[ "$u" = root ] || chown -R 65534:65534 "$T/$u"
	for b in $backends; do
		R=$T/$u/proj-$b
		as "$u" sh -c 'git init -q "$1" && rm -rf "$1/.git/hooks" && echo in >"$1/inside"' \
			sh "$R"
		run() { (cd "$R" && as "$u" "$PADDOCK" run --backend "$b" -- sh -c "$1") \
			>"$T/out" 2>"$T/err" </dev/null; }

		run 'echo A > /dev/stdout; echo B > /dev/stderr; echo C > /dev/fd/1
			echo D > /proc/self/fd/1; echo E > /proc/thread-self/fd/2'
		check "$u, $b: /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N reach the command's own output" \
			sh -c 'for l in A B C D E; do grep -qx "$l" "$1" || exit 1; done
				! grep -q "^[BE]$" "$2"' sh "$T/out" "$T/err"

		run "exec 3<'$T/$u/outside'; echo pwned > /proc/self/fd/3
			exec 4<inside; echo twin > /proc/self/fd/4"
		check "$u, $b: a file outside the roots held open to read is not reopened to write" \
			grep -qx secret-as-it-was "$T/$u/outside"
		check "$u, $b: ... the twin inside the project is" grep -qx twin "$R/inside"

		run 'ln -s .mcp.json via; echo x > via; ln -s real via2; echo twin > via2'
		check "$u, $b: an open through a symlink to a missing protected name makes nothing there" \
			sh -c '[ ! -e "$1/.mcp.json" ] && grep -q "Operation not permitted" "$2"' \
			sh "$R" "$T/out"
		check "$u, $b: ... through a symlink to an ordinary name it does" grep -qx twin "$R/real"

		run 'umask 077; : > u7; umask 022; : > u2; stat -c %a u7 u2'
		check "$u, $b: the files made take the command's umask" \
			sh -c 'grep -qx 600 "$1" && grep -qx 644 "$1"' sh "$T/out"

		run 'mkfifo f; { echo through-fifo > f; } & cat f; wait
			echo x > /dev/tty || echo no-tty; echo y > /dev/null && echo to-null
			echo made > new && cat new; : > new2 && echo again >> new2 && cat new2'
		check "$u, $b: a fifo's writer waits for its reader, /dev/tty is none, /dev/null takes it" \
			sh -c 'grep -qx through-fifo "$1" && grep -qx no-tty "$1" && grep -qx to-null "$1" &&
				grep -qx made "$1" && grep -qx again "$1"' sh "$T/out"

		run "echo x > /etc/pdk-open-$u-$b"
		check "$u, $b: a file outside the roots is not made" test ! -e "/etc/pdk-open-$u-$b"

		if [ -n "$py" ]; then
			run "$py"' -c "
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(\".\", os.O_TMPFILE | os.O_WRONLY, 0o600)
r = libc.linkat(fd, b\"\", -100, b\".envrc\", 0x1000)
print(\"protected\", ctypes.get_errno() if r else 0)
r = libc.linkat(fd, b\"\", -100, b\"named\", 0x1000)
print(\"ordinary\", ctypes.get_errno() if r else 0)
r = libc.syscall(437, -100, b\"o2\", ctypes.c_char_p(bytes(24)), 24)
print(\"openat2\", ctypes.get_errno() if r < 0 else 0)
"'
			check "$u, $b: an O_TMPFILE file is not linked at a missing protected name (EPERM)" \
				sh -c 'grep -qx "protected 1" "$1" && [ ! -e "$2/.envrc" ]' sh "$T/out" "$R"
			check "$u, $b: ... it is at an ordinary one" test -f "$R/named"
			check "$u, $b: openat2, whose flags the filter cannot see, is ENOSYS" \
				grep -qx "openat2 38" "$T/out"
		else
			skip "$u, $b: O_TMPFILE and openat2: python3 missing"
		fi
	done
done
finish
