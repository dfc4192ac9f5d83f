#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the QEMU guest's kernel: tinyconfig + configs/vm.config + the
# fragment of its architecture (VM_ARCH, see vm/arch.sh), in $BUILD/vm
# (x86_64) or $BUILD/vm-ARCH. The config is regenerated only when a
# fragment changes, and kbuild does the rest incrementally, so a second
# run with no change rebuilds nothing. Every option of the fragments must survive
# olddefconfig: a dependency that silently drops one (FTRACE_STACKMAP,
# UNWINDER_ORC, ...) fails the build instead of producing a kernel that
# tests something else.
#
# Usage: vm/build-kernel.sh   (KSRC, BUILD, JOBS from the environment;
#        VM_ARCH; VM_OBJ and VM_EXTRA_CONFIG, fragments merged last,
#        separated by spaces, select another kernel such as the
#        benchmark's; VM_FRAGS, fragments that replace configs/vm.config
#        and the architecture's, and VM_TARGET, the make target, build a
#        kernel that is no guest's, such as the KUnit runs')

set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/vm/arch.sh"
ksrc=${KSRC:-$root/build/linux}
obj=${VM_OBJ:-$vm_obj}
if [ -n "${VM_FRAGS:-}" ]; then
	read -ra frags <<< "$VM_FRAGS"
else
	frags=("${vm_frags[@]}")
fi
read -ra extra <<< "${VM_EXTRA_CONFIG:-}"
frags+=("${extra[@]}")
jobs=${JOBS:-2}
kmake=(make -s -C "$ksrc" O="$obj" ARCH="$vm_karch" -j"$jobs")
[ -z "$vm_cross" ] || kmake+=(CROSS_COMPILE="$vm_cross")
[ -z "${CCACHE:-}" ] || kmake+=(CC="$CCACHE ${vm_cross}gcc" HOSTCC="$CCACHE gcc")

mkdir -p "$obj"
want=$(cat "${frags[@]}" | sha256sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.fragment.sha" 2>/dev/null)" != "$want" ]; then
	echo "  CONFIG  tinyconfig +${frags[*]#"$root"/}"
	"${kmake[@]}" tinyconfig >/dev/null
	KCONFIG_CONFIG="$obj/.config" "$ksrc/scripts/kconfig/merge_config.sh" \
		-m -O "$obj" "$obj/.config" "${frags[@]}" >/dev/null
	"${kmake[@]}" olddefconfig >/dev/null
	# What the last fragment says of an option wins, as in merge_config.
	missing=0
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			grep -qx "$line" "$obj/.config" && continue ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			grep -q "^$opt=" "$obj/.config" || continue ;;
		*)
			continue ;;
		esac
		echo "${frags[*]#"$root"/}: '$line' did not survive olddefconfig" >&2
		missing=1
	done < <(cat "${frags[@]}" | awk '
		/^CONFIG_[A-Za-z0-9_]+=/ { o = $0; sub(/=.*/, "", o); last[o] = $0 }
		/^# CONFIG_[A-Za-z0-9_]+ is not set/ { last[$2] = $0 }
		END { for (o in last) print last[o] }')
	[ "$missing" -eq 0 ] || { rm -f "$obj/.config"; exit 1; }
	echo "$want" > "$obj/.fragment.sha"
fi

# Options the tree gained since (a Kconfig entry added by patches/ or the
# overlay) take their defaults here, instead of kbuild prompting for them
# on a closed stdin.
"${kmake[@]}" olddefconfig >/dev/null
target=${VM_TARGET:-$(basename "$vm_image")}
echo "  BUILD   $obj ($target)"
"${kmake[@]}" "$target"
