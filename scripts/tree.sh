#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Prepare the kernel tree the project is laid over:
#
#   1. unpack Debian's linux-source-6.12 tarball once into $KSRC,
#   2. apply patches/*.patch in sorted order with patch -p1,
#   3. lay the project's kernel-side files over the tree.
#
# Steps 1 and 2 are redone from scratch whenever the set of patches or any
# patch's content changes (a checksum of all of them is kept in the tree).
# Step 3 runs every time; rsync -c only rewrites files whose content
# changed, so unchanged files keep their mtime and kbuild stays incremental.
#
# Usage: scripts/tree.sh [KSRC]   (default: build/linux)

set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

tarball=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}
ksrc=${1:-build/linux}
stamp=$ksrc/.stackdepot_lf-patches

# Kernel-side directories of the repository that are copied into the tree.
overlay_dirs=(lib include kernel Documentation tools)

patches=()
while IFS= read -r p; do
	patches+=("$p")
done < <(find patches -maxdepth 1 -name '*.patch' 2>/dev/null | LC_ALL=C sort)

want=$({
	echo "tarball $(stat -c '%s %Y' "$tarball")"
	for p in "${patches[@]}"; do
		sha256sum "$p"
	done
} | sha256sum | cut -d' ' -f1)

if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
	echo "  TREE    unpacking $tarball into $ksrc"
	rm -rf "$ksrc" "$ksrc.tmp"
	mkdir -p "$ksrc.tmp"
	tar -xf "$tarball" -C "$ksrc.tmp"
	mv "$ksrc.tmp/linux-source-6.12" "$ksrc"
	rmdir "$ksrc.tmp"
	for p in "${patches[@]}"; do
		echo "  PATCH   $p"
		patch -p1 -s -N -d "$ksrc" < "$p"
	done
	echo "$want" > "$stamp"
fi

# -c: compare by checksum, never by mtime; no -t: files that did change
# get a fresh mtime so that kbuild notices them. Files ignored by the
# project's .gitignore files (harness binaries, ...) stay out of the tree.
dirs=()
for d in "${overlay_dirs[@]}"; do
	[ -d "$d" ] && dirs+=("$d")
done
if [ ${#dirs[@]} -gt 0 ]; then
	rsync -rcp --filter=':- .gitignore' "${dirs[@]}" "$ksrc/"
fi
