# SPDX-License-Identifier: GPL-2.0-only
#
# What the QEMU guest scripts need to know of the guest's architecture,
# sourced by vm/build-kernel.sh, vm/mkinitramfs.sh, vm/run-qemu.sh,
# vm/vmtest.sh and vm/run.sh. VM_ARCH selects it:
#
#   x86_64  (default) qemu-system-x86_64, ORC unwinder, results on ttyS1
#   arm64   qemu-system-aarch64 -M virt -cpu max, built with the
#           aarch64-linux-gnu- cross compiler, results on a virtio console
#   i386    qemu-system-i386, a 32-bit kernel (frame-pointer unwinder),
#           userland built with i686-linux-gnu-gcc
#
# Sets: vm_arch, vm_karch (kbuild's ARCH), vm_cross (CROSS_COMPILE),
# vm_image (the boot image, relative to the object directory), vm_obj
# (the object directory), vm_initrd (the initramfs), vm_frags (the config fragments, in merge
# order), vm_cc (the userland C compiler), vm_busybox (a static busybox
# of the guest's architecture, see vm/userland.sh), vm_qemu (the QEMU
# command up to its accelerator), vm_accel (its -accel options),
# vm_console (the console device),
# vm_results (QEMU options of the port the guest writes its results to),
# vm_mem (MiB of guest memory), vm_debarch (Debian's name of the
# architecture), vm_userland (where vm/userland.sh unpacks Debian's
# packages of it: trace-cmd and its libraries, and the foreign busybox),
# vm_tag ("" for x86_64, "-ARCH" otherwise: names of outputs and results).
#
# The variables are for the scripts that source this file, and the commas
# are QEMU's own option syntax.
# shellcheck shell=bash disable=SC2034,SC2054

vm_arch=${VM_ARCH:-x86_64}
vm_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
vm_build=${BUILD:-$vm_root/build}
# x86 guests run their two vCPUs on one host thread. Under multi-threaded
# TCG (QEMU 7.2) a vCPU can run a stale translation of text the other
# has just patched with text_poke_bp(), and oopses on an int3 byte that
# is no longer there ("Oops: int3" in trace_kmem_cache_alloc() as
# trace-cmd enabled the kmem events; function_graph hit it too). One
# host thread sees each patch in order; the test boots took as long.
# arm64 patches its text under stop_machine() and keeps both threads.
vm_accel_x86=tcg,thread=single
vm_frags=("$vm_root/configs/vm.config" "$vm_root/configs/vm-$vm_arch.config")
case "$vm_arch" in
x86_64)
	vm_karch=x86_64
	vm_debarch=amd64
	vm_cross=
	vm_image=arch/x86/boot/bzImage
	vm_cc=gcc
	vm_busybox=/bin/busybox
	vm_qemu=(qemu-system-x86_64)
	vm_accel=$vm_accel_x86
	vm_console=ttyS0
	vm_results=(-serial "file:RESULTS")
	vm_mem=1024
	vm_tag=
	;;
arm64)
	vm_karch=arm64
	vm_debarch=arm64
	vm_cross=aarch64-linux-gnu-
	vm_image=arch/arm64/boot/Image
	vm_cc=aarch64-linux-gnu-gcc
	vm_busybox=$vm_build/userland/$vm_debarch/bin/busybox
	# pauth-impdef: TCG's QARMA pointer authentication costs more than
	# the rest of the guest.
	vm_qemu=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on)
	vm_console=ttyAMA0
	# virt has one UART; the guest's /init writes to /dev/hvc0.
	vm_results=(-device virtio-serial-device
		    -chardev "file,id=results,path=RESULTS"
		    -device virtconsole,chardev=results)
	vm_accel=tcg,thread=multi
	vm_mem=1024
	vm_tag=-arm64
	;;
i386)
	vm_karch=i386
	vm_debarch=i386
	vm_cross=
	vm_image=arch/x86/boot/bzImage
	vm_cc=i686-linux-gnu-gcc
	vm_busybox=$vm_build/userland/$vm_debarch/bin/busybox
	vm_qemu=(qemu-system-i386)
	vm_accel=$vm_accel_x86
	vm_console=ttyS0
	vm_results=(-serial "file:RESULTS")
	# All of it lowmem: the kernel has no HIGHMEM.
	vm_mem=768
	vm_tag=-i386
	;;
*)
	echo "VM_ARCH=$vm_arch: want x86_64, arm64 or i386" >&2
	exit 2
	;;
esac
vm_obj=$vm_build/vm$vm_tag
vm_userland=$vm_build/userland/$vm_debarch
vm_initrd=$vm_build/vm-initramfs$vm_tag.cpio.gz
