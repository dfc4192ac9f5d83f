#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Print the failures of the run recorded in out/results.txt, then one last
# line "N passed, N failed". Exits non-zero when anything failed or when
# nothing was recorded at all. With SUMMARY_SAVE=DIR it also copies the
# results and times into DIR.

set -euo pipefail

. "$(dirname "$0")/common.sh"
results=$out/results.txt
[ -f "$results" ] || : > "$results"

passed=$(grep -c '^PASS ' "$results" || true)
failed=$(grep -c '^FAIL ' "$results" || true)
skipped=$(grep -c '^SKIP ' "$results" || true)

if [ -s "$out/times.txt" ]; then
	echo "Times:"
	sed 's/^/  /' "$out/times.txt"
fi
if [ "$failed" -gt 0 ]; then
	echo "Failures (logs in $out/):"
	# Each failure, and why when its step said (scripts/results.sh).
	awk '/^FAIL / { print "  " substr($0, 6) }
	     /^# / { sub(/^# [^ ]*: /, "")
		     if (length($0) > 300) $0 = substr($0, 1, 297) "..."
		     print "    " $0 }' "$results"
fi
[ "$skipped" -eq 0 ] || echo "$skipped skipped"
if [ "$passed" -eq 0 ] && [ "$failed" -eq 0 ]; then
	echo "no results recorded" >&2
	failed=1
fi
echo "$passed passed, $failed failed"
# A whole make test keeps its results for the series' cover letter.
if [ -n "${SUMMARY_SAVE:-}" ]; then
	mkdir -p "$SUMMARY_SAVE"
	cp "$results" "$SUMMARY_SAVE/results.txt"
	cp "$out/times.txt" "$SUMMARY_SAVE/times.txt" 2>/dev/null || true
fi
[ "$failed" -eq 0 ]
