#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the guest's initramfs for VM_ARCH (see vm/arch.sh): a static
# busybox of that architecture, /init, the ftrace
# selftests of the overlaid tree (ftracetest, test.d with the
# stackmap-*.tc, and the helpers next to ftracetest, built statically),
# the stackmap CLI of the tree's tools/tracing/stackmap (static, in
# /usr/bin), the static helpers of vm/helpers/, the scripts of
# vm/guest/, and Debian's trace-cmd of the guest's architecture with its
# loader and shared libraries (vm/userland.sh, vm/elfdeps.sh). Rebuilt
# only when the content of an input changed: a checksum of them all is
# kept next to the output (mtimes would miss an input older than an
# initramfs built from another checkout).
#
# Every program is built with the guest's compiler.
#
# Usage: vm/mkinitramfs.sh OUTPUT.cpio.gz   (KSRC, VM_ARCH from the
#        environment)

set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/vm/arch.sh"
ksrc=${KSRC:-$root/build/linux}
out=$1
selftests=$ksrc/tools/testing/selftests/ftrace
stackmap=$ksrc/tools/tracing/stackmap
BUILD=$vm_build "$root/vm/userland.sh" "$vm_debarch"
# "GUEST_PATH FILE" lines: trace-cmd, dash and ping, their loader and
# libraries (busybox's ping applet would not do: see vm/userland.sh).
tracecmd=$(for p in /usr/bin/trace-cmd /bin/dash /bin/ping; do
		"$root/vm/elfdeps.sh" "$vm_userland" "$p" || exit 1
	done | sort -u)
inputs=("$root/vm" "$selftests" "$stackmap"
	"$ksrc/tools/include/uapi/linux/trace_stackmap.h" "$vm_busybox")
while read -r _ file; do
	inputs+=("$file")
done <<< "$tracecmd"

want=$( ("$vm_cc" --version | head -1; echo "$tracecmd"
	find -L "${inputs[@]}" -type f -print0 |
	LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1)
if [ -f "$out" ] && [ "$(cat "$out.sha" 2>/dev/null)" = "$want" ]; then
	exit 0
fi
echo "  INITRD  $out"

stage=$(mktemp -d)
tools=$(mktemp -d)
trap 'rm -rf "$stage" "$tools"' EXIT
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,root,vm}
cp "$vm_busybox" "$stage/bin/busybox"
install -m 0755 "$root/vm/init" "$stage/init"
cp -r "$selftests" "$stage/ftrace"
for f in "$root"/vm/guest/*; do
	[ -e "$f" ] && install -m 0755 "$f" "$stage/vm/"
done
for c in "$root"/vm/helpers/*.c; do
	[ -e "$c" ] || continue
	"$vm_cc" -static -O2 -Wall -Werror -o "$stage/bin/$(basename "$c" .c)" "$c"
done
# The selftests find their helpers in $FTRACETEST_ROOT, /ftrace here.
for c in "$selftests"/*.c; do
	[ -e "$c" ] || continue
	"$vm_cc" -static -O2 -Wall -Werror -o "$stage/ftrace/$(basename "$c" .c)" "$c"
done
# Built in the kernel tree, as a user of the tree would build it.
make -s -C "$stackmap" STATIC=1 CC="$vm_cc" OUTPUT="$tools" "$tools/stackmap"
install -m 0755 "$tools/stackmap" "$stage/usr/bin/stackmap"
# Where the packages put them, which is where the loader looks.
while read -r path file; do
	install -D -m 0755 "$file" "$stage$path"
done <<< "$tracecmd"

# ftracetest's ownership tests need at least two groups.
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' \
	> "$stage/etc/passwd"
printf 'root:x:0:\ntracing:x:100:\nnogroup:x:65534:\n' > "$stage/etc/group"
mknod -m 600 "$stage/dev/console" c 5 1

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) \
	> "$out.tmp"
mv "$out.tmp" "$out"
echo "$want" > "$out.sha"
