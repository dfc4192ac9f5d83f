#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Boot the project kernel of VM_ARCH (see vm/arch.sh) in QEMU (TCG: KVM
# does not boot here) with the console on the first serial port and the
# guest's results on the second (arm64: on a virtio console).
# A hung guest, one whose console and results have not grown for VM_STALL
# seconds (600), is killed and fails the run; so is one still running
# after VM_TIMEOUT seconds (3600). A guest on a loaded host is slow, not
# hung: it keeps writing, and is given the time.
# VM_ACCEL replaces the accelerator options (vm/arch.sh's vm_accel),
# e.g. "tcg,thread=single -icount shift=0,sleep=off" for a guest clock
# that counts instructions. VM_MEM_FILE puts the guest's memory in that
# file, shared: a second boot on the same file finds what the first left
# in it (vm/persist.sh).
# The x86_64 kernel has KASLR (for vm/persist.sh's text delta): every
# boot passes nokaslr, which keeps addresses the same from boot to boot,
# unless VM_KASLR=1.
# Of the KUnit suites built in, the boot runs those VM_KUNIT_GLOB matches
# (kunit.filter_glob; the adapter's suite, trace_stackmap, by default):
# the library's, built into the i386 kernel for scripts/kunit-run.sh,
# runs there.
#
# Usage: vm/run-qemu.sh MODE OUTDIR [EXTRA KERNEL ARGS...]
# Writes OUTDIR/console.log and OUTDIR/results.txt; exits with QEMU's
# status (124 on timeout).

set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/vm/arch.sh"
mode=$1
outdir=$2
shift 2
kernel=${VM_KERNEL:-$vm_obj/$vm_image}
initrd=${VM_INITRD:-$vm_initrd}
timeout=${VM_TIMEOUT:-3600}
stall=${VM_STALL:-600}
# Quoted: bash 5.2 would replace an "&" of the path with the match.
results=("${vm_results[@]//RESULTS/"$outdir"/results.txt}")

kaslr=nokaslr shown=
[ "${VM_KASLR:-0}" = 1 ] && kaslr= shown=" KASLR,"

mem=(-m "${VM_MEM:-$vm_mem}")
if [ -n "${VM_MEM_FILE:-}" ]; then
	mem+=(-object "memory-backend-file,id=mem,size=${VM_MEM:-$vm_mem}M,mem-path=$VM_MEM_FILE,share=on"
	      -machine memory-backend=mem)
fi

mkdir -p "$outdir"
: > "$outdir/console.log"
: > "$outdir/results.txt"
echo "  QEMU    $vm_arch $mode (-smp ${QEMU_SMP:-2}, TCG,$shown killed after ${stall}s without output), console in $outdir/console.log"
timeout --kill-after=10 "$timeout" \
	"${vm_qemu[@]}" -accel ${VM_ACCEL:-$vm_accel} -smp "${QEMU_SMP:-2}" \
	"${mem[@]}" -display none -monitor none -no-reboot \
	-serial "file:$outdir/console.log" "${results[@]}" \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=$vm_console loglevel=5 panic=-1 $kaslr vm.mode=$mode kunit.filter_glob=${VM_KUNIT_GLOB:-trace_stackmap} $*" \
	< /dev/null &
qemu=$!

# The watchdog: SIGTERM to timeout(1) reaches QEMU through it.
last=-1
idle=0
while kill -0 "$qemu" 2> /dev/null; do
	sleep 5
	size=$(cat "$outdir/console.log" "$outdir/results.txt" | wc -c)
	if [ "$size" -ne "$last" ]; then
		last=$size
		idle=0
		continue
	fi
	idle=$((idle + 5))
	if [ "$idle" -ge "$stall" ]; then
		echo "  QEMU    $vm_arch $mode: no output for ${stall}s, killed" >&2
		kill "$qemu" 2> /dev/null || true
		wait "$qemu" || true
		exit 124
	fi
done
wait "$qemu"
