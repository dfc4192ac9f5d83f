#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run the steps of `make test` in lanes, side by side: the steps of a lane
# one after the other, as `make STEP`, and the lanes at once. On two
# cores one step seldom keeps both busy (a guest's vCPUs on one host
# thread, checkpatch, a link, a test run on one CPU), so two lanes finish
# sooner than the steps one by one; what a lane runs, and in which
# order, is the Makefile's TEST_LANE_N. Steps that share a build
# directory (the i386 kernel of kunit-i386 and vmtest-i386) belong to
# one lane.
#
# Each lane's output is printed as it comes, every line led by the
# lane's number. A step that fails to run is recorded as
# "FAIL <step>:crashed", and its lane goes on. The time each lane took is
# noted as "lane-N" in $OUT/times.txt.
#
# Usage: scripts/lanes.sh "STEP..." ["STEP..." ...]   (MAKE from the
#        environment: the make to run each step with)

set -uo pipefail

. "$(dirname "$0")/common.sh"

lane() { # N STEP...
	local n=$1 step start
	shift
	start=$(date +%s)
	for step; do
		${MAKE:-make} --no-print-directory "$step" < /dev/null ||
			"$record" record FAIL "$step:crashed"
	done
	"$record" time "lane-$n" $(($(date +%s) - start))
}

n=0
for steps; do
	n=$((n + 1))
	# shellcheck disable=SC2086 # a lane is a list of step names
	lane $n $steps 2>&1 | sed -u "s/^/$n| /" &
done
wait
