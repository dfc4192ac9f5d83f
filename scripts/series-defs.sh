#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# List the series/NN-*.txt files of the named series, in the order their
# patches are applied: each series in the order named, each in file name
# order. A file without a "Series:" header line is the kernel's.
#
# Usage: scripts/series-defs.sh DIR SERIES...   (kernel, tools)

set -euo pipefail

dir=$1
shift
mapfile -t all < <(find "$dir" -maxdepth 1 -name '[0-9]*.txt' | LC_ALL=C sort)
for want; do
	for def in "${all[@]}"; do
		series=$(sed -n '/^$/q; s/^Series: *//p' "$def")
		[ "${series:-kernel}" = "$want" ] && echo "$def"
	done
done
exit 0
