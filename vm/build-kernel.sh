#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the x86_64 QEMU kernel: tinyconfig + vm/kernel.config, in
# $BUILD/vm. The config is regenerated only when the fragment changes, and
# kbuild does the rest incrementally, so a second run with no change
# rebuilds nothing. Every option of the fragment must survive olddefconfig:
# a dependency that silently drops one (FTRACE_STACKMAP, UNWINDER_ORC, ...)
# fails the build instead of producing a kernel that tests something else.
#
# Usage: vm/build-kernel.sh   (KSRC, BUILD, JOBS from the environment)

set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
ksrc=${KSRC:-$root/build/linux}
obj=${VM_OBJ:-${BUILD:-$root/build}/vm}
frag=$root/vm/kernel.config
jobs=${JOBS:-2}
kmake=(make -s -C "$ksrc" O="$obj" ARCH=x86_64 -j"$jobs")

mkdir -p "$obj"
want=$(sha256sum "$frag" | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.fragment.sha" 2>/dev/null)" != "$want" ]; then
	echo "  CONFIG  tinyconfig + vm/kernel.config"
	"${kmake[@]}" tinyconfig >/dev/null
	KCONFIG_CONFIG="$obj/.config" "$ksrc/scripts/kconfig/merge_config.sh" \
		-m -O "$obj" "$obj/.config" "$frag" >/dev/null
	"${kmake[@]}" olddefconfig >/dev/null
	missing=0
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			if ! grep -qx "$line" "$obj/.config"; then
				echo "vm/kernel.config: $line did not survive olddefconfig" >&2
				missing=1
			fi
			;;
		esac
	done < "$frag"
	[ "$missing" -eq 0 ] || { rm -f "$obj/.config"; exit 1; }
	echo "$want" > "$obj/.fragment.sha"
fi

echo "  BUILD   $obj/arch/x86/boot/bzImage"
"${kmake[@]}" bzImage
