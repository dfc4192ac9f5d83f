#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the guest's initramfs: busybox-static, /init, the ftrace
# selftests of the overlaid tree (ftracetest, test.d with our
# stackmap-*.tc), the static helpers of vm/helpers/, and the scripts of
# vm/guest/. Rebuilt only when the content of an input changed: a
# checksum of them all is kept next to the output (mtimes would miss an
# input older than an initramfs built from another checkout).
#
# Usage: vm/mkinitramfs.sh OUTPUT.cpio.gz   (KSRC from the environment)

set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
ksrc=${KSRC:-$root/build/linux}
out=$1
selftests=$ksrc/tools/testing/selftests/ftrace
inputs=("$root/vm" "$selftests" /bin/busybox)

want=$(find "${inputs[@]}" -type f -print0 | LC_ALL=C sort -z |
	xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
if [ -f "$out" ] && [ "$(cat "$out.sha" 2>/dev/null)" = "$want" ]; then
	exit 0
fi
echo "  INITRD  $out"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,root,vm}
cp /bin/busybox "$stage/bin/busybox"
install -m 0755 "$root/vm/init" "$stage/init"
cp -r "$selftests" "$stage/ftrace"
for f in "$root"/vm/guest/*; do
	[ -e "$f" ] && install -m 0755 "$f" "$stage/vm/"
done
for c in "$root"/vm/helpers/*.c; do
	[ -e "$c" ] || continue
	gcc -static -O2 -Wall -Werror -o "$stage/bin/$(basename "$c" .c)" "$c"
done

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
