#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Prepare the kernel tree the project is laid over:
#
#   1. unpack Debian's linux-source-6.12 tarball once into $KSRC,
#   2. apply patches/*.patch in sorted order with patch -p1,
#   3. lay the overlay, linux/, over the tree.
#
# Steps 1 and 2 are redone from scratch whenever the set of patches or any
# patch's content changes (a checksum of all of them is kept in the tree),
# and when a file left the overlay (the list is kept in the tree too);
# the fresh tree is synced into place by content, so that kbuild rebuilds
# exactly what changed.
# Step 3 runs every time; rsync -c only rewrites files whose content
# changed, so unchanged files keep their mtime and kbuild stays incremental.
#
# Usage: scripts/tree.sh [KSRC]   (default: build/linux)

set -euo pipefail

# The overlay's folders are common.sh's overlay_dirs.
. "$(dirname "$0")/common.sh"
cd "$root"

ksrc=${1:-$ksrc}
stamp=$ksrc/.stackdepot_lf-patches

# The steps of make test that run side by side (scripts/lanes.sh) each
# run this first: one at a time.
mkdir -p "$(dirname "$ksrc")"
exec 9> "$ksrc.lock"
flock 9

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

# A file that left the overlay would stay behind in the tree: unpack
# again whenever the list of overlaid files lost one. The list holds what
# the rsync below lays: tracked files and untracked ones not ignored (a
# scratch test tried once and deleted must not outlive its deletion).
listing=$ksrc/.stackdepot_lf-overlay
overlay_files=$(git -C "$overlay" ls-files --cached --others --exclude-standard \
	-- "${overlay_dirs[@]}" 2>/dev/null | LC_ALL=C sort)
if [ -f "$listing" ] &&
   [ -n "$(LC_ALL=C comm -23 "$listing" <(echo "$overlay_files"))" ]; then
	rm -f "$stamp"
fi

if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
	echo "  TREE    unpacking $tarball, applying patches/"
	fresh=$ksrc.fresh
	rm -rf "$fresh"
	mkdir -p "$fresh"
	tar -xf "$tarball" -C "$fresh"
	for p in "${patches[@]}"; do
		echo "  PATCH   $p"
		# Each hunk must apply where it says: an offset or fuzz
		# means the patch was made against another tree, and would
		# leave a .orig that the series check finds in no patch.
		msg=$(patch -p1 -N --no-backup-if-mismatch \
			-d "$fresh/linux-source-6.12" < "$p") ||
			{ echo "$msg" >&2; exit 1; }
		if grep -E 'offset|fuzz' <<< "$msg" >&2; then
			echo "  TREE    $p does not apply exactly; make it again against the tree of the patches before it" >&2
			exit 1
		fi
	done
	# Sync the fresh tree into place: untouched files keep their mtime,
	# the ones that differ (those the old or the new patch set changes)
	# are copied and then touched, so that kbuild rebuilds them even
	# when they go back to their older, pristine content.
	if [ -d "$ksrc" ]; then
		echo "  TREE    syncing $ksrc"
		rsync -rlpt --delete --out-format='%n' \
			"$fresh/linux-source-6.12/" "$ksrc/" |
			{ grep -v '/$' || true; } |
			(cd "$ksrc" && xargs -r -d '\n' touch -c --)
	else
		mv "$fresh/linux-source-6.12" "$ksrc"
	fi
	rm -rf "$fresh"
	echo "$want" > "$stamp"
fi

# -c: compare by checksum, never by mtime; no -t: files that did change
# get a fresh mtime so that kbuild notices them. Files ignored by the
# project's .gitignore files (harness binaries, ...) stay out of the tree.
dirs=()
for d in "${overlay_dirs[@]}"; do
	[ -d "$overlay/$d" ] && dirs+=("$overlay/$d")
done
if [ ${#dirs[@]} -gt 0 ]; then
	rsync -rcp --filter=':- .gitignore' "${dirs[@]}" "$ksrc/"
fi
echo "$overlay_files" > "$listing"
