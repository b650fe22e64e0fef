#!/bin/sh
# gpu.sh - --gpu under each Linux backend: the GPU's device nodes are opened to the run only
# with it, and asked; tested with a stand-in node (a char device that behaves as /dev/null)
# named by PADDOCK_GPU_DEVICES, and with the host's real nodes where it has them.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "making a stand-in device node needs root"
own_home gpu dev
mknod "$S/dev/card0" c 1 3 && chmod 666 "$S/dev/card0" || skip_all "mknod failed here"

linux_backends

# Real nodes first, as the host has them (the default list).
real=$(ls -d /dev/nvidia* /dev/dri /dev/kfd 2>/dev/null | head -n 1)
for b in $backends; do
	if [ -n "$real" ]; then
		node=$real
		[ -d "$node" ] && node=$(ls -d "$node"/* | head -n 1)
		pcall run --backend "$b" --gpu --yes -- python3 -c \
			"import os; os.close(os.open('$node', os.O_RDWR)); print('opened')"
		check "$b: --gpu opens the host's $node" grep -qx opened "$T/out"
	else
		skip "$b: no GPU device node here (/dev/nvidia*, /dev/dri, /dev/kfd)"
	fi
done

export PADDOCK_GPU_DEVICES="$S/dev/card0"
write='echo x > "$0" && echo wrote'
for b in $backends; do
	pcall run --backend "$b" -- sh -c "$write" "$S/dev/card0"
	check "$b: without --gpu the node is not writable" sh -c "! grep -qx wrote '$T/out'"
	pcall run --backend "$b" --gpu -- sh -c "$write" "$S/dev/card0"
	check "$b: --gpu is asked, naming the node (no one to ask here: not run)" \
		sh -c "! grep -qx wrote '$T/out' &&
			grep -q \"opens the GPU's device nodes $S/dev/card0 (--gpu)\" '$T/err'"
	pcall run --backend "$b" --gpu --yes -- sh -c "$write" "$S/dev/card0"
	check "$b: --gpu --yes: the node is writable" grep -qx wrote "$T/out"
	pcall run --backend "$b" --gpu --yes -- sh -c "touch '$S/dev/other'"
	check "$b: --gpu opens the node, not its directory" test ! -e "$S/dev/other"
	pcall run --backend "$b" --gpu --print-profile -- true
	check "$b: --print-profile names the node" \
		has_line "device: $S/dev/card0, writable and its ioctls (--gpu)"
done
pcall doctor --json
check "doctor says what --gpu would open" jq_ok "d['grants']['gpu'] == ['$S/dev/card0']"
PADDOCK_GPU_DEVICES=$S/dev/none pcall run --gpu --yes -- true
check "--gpu with no node there: exit 125" test "$rc" -eq 125
check "--gpu with no node there: one error line" one_error_line
finish
