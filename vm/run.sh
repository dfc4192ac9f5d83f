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
# Then the memory peak (vm/peak-report.py): two more boots traced from
# the kernel command line, kmem allocations and frees with their stacks,
# stackmap on and off, into PEAK_KB per CPU (64-65536, default 8192: the
# stackmap boot holds the peak, the other does not), which the everyday
# workload wraps before and after a peak of PEAK_PIPES pipes holding a
# page each (1-100000, default 4000). Then the persistent buffer
# (vm/persist.sh retained): how many of a boot's events the memory kept
# for the next boot holds, stackmap on and off.
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
peak_kb=${PEAK_KB:-8192}
peak_pipes=${PEAK_PIPES:-4000}

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
[[ "$peak_kb" =~ ^[0-9]+$ ]] && [ "$peak_kb" -ge 64 ] && [ "$peak_kb" -le 65536 ] ||
	die "PEAK_KB='$peak_kb': want an integer from 64 to 65536 (KiB per CPU)"
[[ "$peak_pipes" =~ ^[0-9]+$ ]] && [ "$peak_pipes" -ge 1 ] && [ "$peak_pipes" -le 100000 ] ||
	die "PEAK_PIPES='$peak_pipes': want an integer from 1 to 100000"
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

# The memory peak: the same flight recorder from boot, stackmap on, then
# off. The peak's times are on the mono clock, the trace's too.
peak_boot() { # on|off OPTIONS
	VM_KUNIT_GLOB=none "$root/vm/run-qemu.sh" peak "$out/peak-$1" \
		trace_clock=mono trace_options="$2" \
		trace_event=kmem:kmem_cache_alloc,kmem:kmalloc,kmem:mm_page_alloc,kmem:kfree,kmem:kmem_cache_free,kmem:mm_page_free \
		trace_buf_size="${peak_kb}K" "vm.peak=$peak_pipes,50,50" ||
		{ echo "make run: the peak guest failed; see $out/peak-$1/console.log" >&2; return 1; }
	"$root/vm/console-check.sh" "$out/peak-$1/console.log" ||
		{ echo "make run: kernel report on the console" >&2; return 1; }
	mkdir -p "$out/raw/peak-$1"
	tr -d '\r' < "$out/peak-$1/results.txt" |
		sed -n '/^PEAK-BEGIN$/,/^PEAK-END$/p' | sed '1d;$d' |
		base64 -d | tar -xzf - -C "$out/raw/peak-$1" ||
		{ echo "make run: no peak from the guest; see $out/peak-$1/console.log" >&2; return 1; }
}
echo
echo "  STEP    the memory peak: boot traced from the command line, stackmap on, then off"
peak_boot on stackmap,stacktrace || exit 1
peak_boot off stacktrace || exit 1
echo
STACKMAP_TOOLS=$tools/build python3 "$root/vm/peak-report.py" \
	"$out/raw/peak-on" "$out/raw/peak-off" "$out" | tee "$out/peak.txt"

echo
echo "  STEP    the persistent buffer: a boot traced into reserved memory, stackmap on, then off"
OUT=$out "$root/vm/persist.sh" retained | tee "$out/persist.txt"
