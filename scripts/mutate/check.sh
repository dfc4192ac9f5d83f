#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The cheap half of mutate.sh, for every `make test` (a result of its
# harness step): each patch in mutants/ must still apply, exactly as
# mutate.sh applies it (no fuzz), to the library as it is now, and the
# mutant must compile against the harness shim. A library change that
# moves a mutant's context fails here, in the same commit, instead of
# leaving the set to rot until the next `make mutate`. Whether the
# mutants are killed is mutate.sh's to say. The mutants are this
# project's, not the kernel's: they stay out of the patch series.
#
# Usage: scripts/mutate/check.sh [CC]   (prints one line per broken
#        mutant; exit status 1 if there is any)

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common.sh"
harness=$overlay/tools/testing/stackdepot_lf
cc=${1:-clang}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bad=0
n=0
for patch in "$here"/mutants/*.patch; do
	name=$(basename "$patch" .patch)
	n=$((n + 1))
	rm -rf "$tmp/tree"
	mkdir -p "$tmp/tree/lib/stackdepot_lf"
	cp "$overlay"/lib/stackdepot_lf/stackdepot_lf.c \
		"$overlay"/lib/stackdepot_lf/stackdepot_lf_internal.h \
		"$tmp/tree/lib/stackdepot_lf/"
	if ! why=$(patch -d "$tmp/tree" -p1 -F0 -N --batch \
			--no-backup-if-mismatch < "$patch" 2>&1); then
		echo "$name: does not apply: $(echo "$why" | tail -1)"
		bad=$((bad + 1))
		continue
	fi
	if ! why=$("$cc" -fsyntax-only -I"$harness" -I"$harness/include" \
			-I"$overlay/include" -include "$harness/harness.h" \
			"$tmp/tree/lib/stackdepot_lf/stackdepot_lf.c" 2>&1); then
		echo "$name: does not build: $(echo "$why" | grep -m1 error)"
		bad=$((bad + 1))
	fi
done
echo "mutants: $n, $bad broken"
[ "$bad" -eq 0 ]
