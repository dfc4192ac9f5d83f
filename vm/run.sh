#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `make run`: boot the project kernel of VM_ARCH (`make run ARCH=arm64`;
# see vm/arch.sh), trace the workload with stackmap
# off and on, and report what deduplication bought (vm/run-report.py).
#
# Knobs (environment): BUFFER_KB (per-CPU ring buffer, 16-65536, default
# 256), EVENTS (comma-separated system:event, default
# kmem:kmem_cache_alloc,sched:sched_switch), WORKLOAD (a shell command run
# in the guest, default vm/guest/workload.sh), DURATION (seconds after
# which the workload is stopped, 1-600, default 60), REDEFINE (the
# stackmap session's stack_map_redefine, 0-100, default the kernel's).
# Writes out/run/ (x86_64) or out/run-ARCH/.

set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/vm/arch.sh"
out=${OUT:-$root/out}/run$vm_tag
buffer_kb=${BUFFER_KB:-256}
events=${EVENTS:-kmem:kmem_cache_alloc,sched:sched_switch}
duration=${DURATION:-60}
workload=${WORKLOAD:-}
redefine=${REDEFINE:-}

die() {
	echo "make run: $*" >&2
	exit 2
}

# Check the knobs before anything is built or booted.
[[ "$buffer_kb" =~ ^[0-9]+$ ]] && [ "$buffer_kb" -ge 16 ] && [ "$buffer_kb" -le 65536 ] ||
	die "BUFFER_KB='$buffer_kb': want an integer from 16 to 65536 (KiB per CPU)"
[[ "$events" =~ ^[a-z0-9_]+:[a-z0-9_]+(,[a-z0-9_]+:[a-z0-9_]+)*$ ]] ||
	die "EVENTS='$events': want system:event[,system:event...], e.g. kmem:kmem_cache_alloc"
[[ "$duration" =~ ^[0-9]+$ ]] && [ "$duration" -ge 1 ] && [ "$duration" -le 600 ] ||
	die "DURATION='$duration': want an integer from 1 to 600 (seconds)"
[ -z "$redefine" ] || { [[ "$redefine" =~ ^(0|[1-9][0-9]?|100)$ ]] ||
	die "REDEFINE='$redefine': want an integer from 0 to 100 (percent)"; }
args="vm.buffer_kb=$buffer_kb vm.events=$events vm.duration=$duration"
[ -z "$redefine" ] || args="$args vm.redefine=$redefine"
if [ -n "$workload" ]; then
	args="$args vm.workload=$(printf '%s' "$workload" | base64 -w0)"
	[ ${#args} -lt 1500 ] || die "WORKLOAD is too long for the kernel command line"
fi

echo "  STEP    kernel (first build takes a few minutes)"
"$root/vm/build-kernel.sh"
echo "  STEP    initramfs"
"$root/vm/mkinitramfs.sh" "$vm_initrd"

rm -rf "$out"
mkdir -p "$out/vm" "$out/raw"
echo "  STEP    boot and trace twice: stackmap off, then on"
VM_TIMEOUT=$((4 * duration + 300)) "$root/vm/run-qemu.sh" run "$out/vm" $args ||
	{ echo "make run: the guest failed; see $out/vm/console.log" >&2; exit 1; }
tr -d '\r' < "$out/vm/results.txt" |
	sed -n '/^STACKMAP-RUN-BEGIN$/,/^STACKMAP-RUN-END$/p' | sed '1d;$d' |
	base64 -d | tar -xzf - -C "$out/raw" ||
	{ echo "make run: no results from the guest; see $out/vm/console.log" >&2; exit 1; }
"$root/vm/console-check.sh" "$out/vm/console.log" ||
	{ echo "make run: kernel report on the console" >&2; exit 1; }
# The plugin and "stackmap report" read the trace-cmd session's trace.dat.
tools=$root/linux/tools/tracing/stackmap
make -s -C "$tools" all
echo
STACKMAP_TOOLS=$tools/build python3 "$root/vm/run-report.py" "$out/raw" "$out" |
	tee "$out/report.txt"
