#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Boot a bzImage with an initramfs in QEMU (TCG) and print the console.
# Usage: boot.sh BZIMAGE INITRAMFS [EXTRA_CMDLINE]
set -euo pipefail
exec timeout 600 qemu-system-x86_64 -accel tcg,thread=multi -smp 2 -m 512 \
	-nographic -no-reboot -kernel "$1" -initrd "$2" \
	-append "console=ttyS0 panic=-1 oops=panic ${3:-}"
