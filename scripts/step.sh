#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run one self-recording step of `make test` (a command that appends its
# own PASS/FAIL lines to $OUT/results.txt), note its time, and record one
# FAIL if it exited non-zero without recording any failure of its own, so
# that a step that could not even build is never silent.
#
# Usage: scripts/step.sh NAME COMMAND [ARGS...]

set -uo pipefail

. "$(dirname "$0")/common.sh"
name=$1
shift
before=$(grep -c '^FAIL ' "$out/results.txt" 2>/dev/null || true)
start=$(date +%s)
"$@"
rc=$?
"$record" time "$name" $(($(date +%s) - start))
after=$(grep -c '^FAIL ' "$out/results.txt" 2>/dev/null || true)
if [ "$rc" -ne 0 ] && [ "$after" -eq "$before" ]; then
	"$record" record FAIL "$name:exit-status-$rc"
fi
exit 0
