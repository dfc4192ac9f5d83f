#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build a busybox-static initramfs whose /init runs the given test script.
# Usage: mkinitramfs.sh TEST_SCRIPT OUTPUT
set -euo pipefail
test_script=$1
out=$(realpath -m "$2")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir"/{bin,sbin,proc,sys,dev,tmp,etc}
cp /bin/busybox "$dir/bin/busybox"
for tool in sh mount echo cat grep head tail wc sed awk sleep ls mkdir \
	rmdir reboot hexdump od dd ps seq cut sort uniq tr true false; do
	ln -s busybox "$dir/bin/$tool"
done
cp "$test_script" "$dir/test.sh"
cat > "$dir/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing
echo "=== stackmap test start"
sh /test.sh
echo "=== stackmap test end rc=$?"
reboot -f
INIT
chmod +x "$dir/init" "$dir/test.sh"
(cd "$dir" && find . | cpio -o -H newc --quiet | gzip -9) > "$out"
