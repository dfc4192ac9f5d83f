#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run one self-recording step of `make test` (a command that appends its
# own PASS/FAIL lines to $STEP_RESULTS, or $RESULTS in make), note its
# time, add its results to $OUT/results.txt, and record one
# FAIL if it exited non-zero without recording any failure of its own, so
# that a step that could not even build is never silent.
#
# Usage: scripts/step.sh NAME COMMAND [ARGS...]

set -uo pipefail

. "$(dirname "$0")/common.sh"
name=$1
shift
# The step's results go to a file of its own (scripts/results.sh, and
# RESULTS of the harness's and the tools' makefiles), added to
# $out/results.txt at its end, in one piece, under a lock: a step running
# beside it (scripts/lanes.sh) does not mix its results in.
mkdir -p "$out"
STEP_RESULTS=$(mktemp "$out/.step-$name.XXXXXX")
RESULTS=$STEP_RESULTS
export STEP_RESULTS RESULTS
finish() {
	flock "$out/results.txt" cat "$STEP_RESULTS" >> "$out/results.txt"
	rm -f "$STEP_RESULTS"
}
trap finish EXIT
# CPU seconds of the finished children of this shell, user + system
# (fields 16 and 17 of /proc/PID/stat, in clock ticks): on two cores, the
# steps that run side by side share the CPU, and this is what a step
# costs whatever ran beside it.
child_cpu() {
	local f
	read -ra f < /proc/$$/stat
	echo $(( (f[15] + f[16]) / $(getconf CLK_TCK) ))
}
start=$(date +%s)
"$@"
rc=$?
"$record" time "$name" $(($(date +%s) - start)) "$(child_cpu)"
if [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$STEP_RESULTS"; then
	"$record" record FAIL "$name:exit-status-$rc"
fi
exit 0
