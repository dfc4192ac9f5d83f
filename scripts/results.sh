#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The results file of `make test`: one "PASS name", "FAIL name" or
# "SKIP name" line per counted test.
#
#   results.sh reset              start a new run
#   results.sh record STATUS NAME [WHY]
#                                 append one result; a FAIL's WHY goes
#                                 below it as "# NAME: WHY", which
#                                 scripts/summary.sh prints
#   results.sh checks FILE PREFIX CHECK...
#                                 record PREFIXCHECK for each CHECK of a
#                                 checker's output FILE ("PASS CHECK" or
#                                 "FAIL CHECK" lines, each after a
#                                 "# CHECK: why" line, or before lines
#                                 indented by two spaces, the last of
#                                 which says why); FAIL for a CHECK it
#                                 does not name
#   results.sh time NAME SECONDS [CPU]
#                                 note how long a step took, and the
#                                 CPU seconds it used, when known
#
# Inside scripts/step.sh, which sets STEP_RESULTS, a result goes to that
# file first, and the step adds them all at its end: steps that run side
# by side (scripts/lanes.sh) each know their own results.

set -euo pipefail

. "$(dirname "$0")/common.sh"
results=${STEP_RESULTS:-$out/results.txt}
mkdir -p "$out"

case "${1:-}" in
reset)
	: > "$results"
	: > "$out/times.txt"
	;;
time)
	[ $# -eq 3 ] || [ $# -eq 4 ] ||
		{ echo "usage: $0 time NAME SECONDS [CPU]" >&2; exit 2; }
	if [ $# -eq 4 ]; then
		printf '%-14s %4d s  (CPU %4d s)\n' "$2" "$3" "$4" >> "$out/times.txt"
	else
		printf '%-14s %4d s\n' "$2" "$3" >> "$out/times.txt"
	fi
	;;
record)
	[ $# -eq 3 ] || [ $# -eq 4 ] ||
		{ echo "usage: $0 record STATUS NAME [WHY]" >&2; exit 2; }
	case "$2" in
	PASS|FAIL|SKIP) ;;
	*) echo "$0: bad status $2" >&2; exit 2 ;;
	esac
	{
		echo "$2 $3"
		if [ "$2" = FAIL ] && [ -n "${4:-}" ]; then
			printf '# %s: %s\n' "$3" "$4"
		fi
	} >> "$results"
	;;
checks)
	[ $# -ge 3 ] ||
		{ echo "usage: $0 checks FILE PREFIX CHECK..." >&2; exit 2; }
	file=$2 prefix=$3
	shift 3
	for check in "$@"; do
		status=$(sed -n "s/^\(PASS\|FAIL\) $check\$/\1/p" "$file" 2>/dev/null |
			head -1)
		why=$(sed -n "s/^# $check: //p" "$file" 2>/dev/null | head -1)
		# Or the last line of the indented block below its FAIL.
		[ -n "$why" ] || why=$(awk -v c="FAIL $check" '
			$0 == c { on = 1; next }
			on && /^  / { if ($0 ~ /[^ ]/) w = $0; next }
			{ on = 0 }
			END { sub(/^ +/, "", w); print w }' "$file" 2>/dev/null)
		[ -n "$status" ] || why="not in $file${why:+; $why}"
		"$0" record "${status:-FAIL}" "$prefix$check" "$why"
	done
	;;
*)
	echo "usage: $0 reset | record STATUS NAME [WHY] | checks FILE PREFIX CHECK... | time NAME SECONDS" >&2
	exit 2
	;;
esac
