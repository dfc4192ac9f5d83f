#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What a dynamically linked program of an unpacked Debian root needs to
# run in the guest: the program, its dynamic loader (PT_INTERP) and every
# shared library of its DT_NEEDED closure, found in the root's library
# directories (lib/TRIPLET, usr/lib/TRIPLET, lib, usr/lib), which are
# also the directories the loader searches without an ld.so.cache.
#
# Prints one "GUEST_PATH ROOT_FILE" line per file: where the guest's
# loader looks for it, and the regular file of ROOT that holds it (the
# packages' symlinks, even absolute ones, are followed inside ROOT,
# never into the host). Any file it cannot find fails the script.
#
# Usage: vm/elfdeps.sh ROOT /usr/bin/PROGRAM

set -euo pipefail

root=$(cd "${1:?usage: $0 ROOT PROGRAM}" && pwd)
prog=${2:?usage: $0 ROOT PROGRAM}

# The regular file that the path $1 of ROOT names, symlinks followed
# inside ROOT; fails if there is none.
resolve() {
	local path=$1 target hops=0

	while [ -L "$root$path" ]; do
		target=$(readlink "$root$path")
		case "$target" in
		/*) path=$target ;;
		*) path=$(dirname "$path")/$target ;;
		esac
		hops=$((hops + 1))
		[ $hops -lt 40 ] || { echo "elfdeps: $1: symlink loop" >&2; return 1; }
	done
	[ -f "$root$path" ] || { echo "elfdeps: $1: not in $root" >&2; return 1; }
	echo "$root$path"
}

needed() {
	readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'
}

interp=$(readelf -l "$(resolve "$prog")" |
	sed -n 's/.*\[Requesting program interpreter: \(.*\)\]$/\1/p')
[ -n "$interp" ] || { echo "elfdeps: $prog: not dynamically linked" >&2; exit 1; }
echo "$prog $(resolve "$prog")"
echo "$interp $(resolve "$interp")"

declare -A seen=(["$(basename "$interp")"]=1)
queue=("$(resolve "$prog")")
while [ ${#queue[@]} -gt 0 ]; do
	file=${queue[0]}
	queue=("${queue[@]:1}")
	for lib in $(needed "$file"); do
		[ -z "${seen[$lib]:-}" ] || continue
		seen[$lib]=1
		found=
		for dir in "$root"/lib/*-linux-gnu* "$root"/usr/lib/*-linux-gnu* \
			   "$root/lib" "$root/usr/lib"; do
			if [ -e "$dir/$lib" ] || [ -L "$dir/$lib" ]; then
				found=${dir#"$root"}/$lib
				break
			fi
		done
		[ -n "$found" ] || { echo "elfdeps: $lib (needed by ${file#"$root"}): not in $root" >&2; exit 1; }
		src=$(resolve "$found")
		echo "$found $src"
		queue+=("$src")
	done
done
