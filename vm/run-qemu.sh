#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Boot the project kernel in QEMU (TCG: KVM does not boot here) with the
# console on the first serial port and the guest's results on the second.
# A hung guest is killed after VM_TIMEOUT seconds and fails the run.
# VM_ACCEL replaces the accelerator options, e.g. "tcg,thread=single
# -icount shift=0,sleep=off" for a guest clock that counts instructions.
#
# Usage: vm/run-qemu.sh MODE OUTDIR [EXTRA KERNEL ARGS...]
# Writes OUTDIR/console.log and OUTDIR/results.txt; exits with QEMU's
# status (124 on timeout).

set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
mode=$1
outdir=$2
shift 2
kernel=${VM_KERNEL:-$build/vm/arch/x86/boot/bzImage}
initrd=${VM_INITRD:-$build/vm-initramfs.cpio.gz}
timeout=${VM_TIMEOUT:-1200}

mkdir -p "$outdir"
: > "$outdir/console.log"
: > "$outdir/results.txt"
echo "  QEMU    $mode (-smp ${QEMU_SMP:-2}, TCG, timeout ${timeout}s), console in $outdir/console.log"
timeout --kill-after=10 "$timeout" \
	qemu-system-x86_64 -accel ${VM_ACCEL:-tcg,thread=multi} -smp "${QEMU_SMP:-2}" \
	-m "${VM_MEM:-1024}" -display none -monitor none -no-reboot \
	-serial "file:$outdir/console.log" -serial "file:$outdir/results.txt" \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 loglevel=5 panic=-1 vm.mode=$mode $*" \
	< /dev/null
