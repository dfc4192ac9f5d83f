#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fail if a guest console log holds a kernel report: WARN, BUG, oops,
# lockdep splat, KASAN/KCSAN/UBSAN report, RCU or atomic-sleep complaint,
# stall (the list is scripts/kernel-reports.sh, shared with the KUnit runs).
#
# Usage: vm/console-check.sh CONSOLE.LOG

root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/kernel-reports.sh"
pattern=$KERNEL_REPORTS
if grep -nE "$pattern" "$1" > /dev/null; then
	echo "$1: kernel report on the console:" >&2
	grep -nE -A20 "$pattern" "$1" | head -60 >&2
	exit 1
fi
grep -q '^vm: done' "$1" || { echo "$1: the guest did not finish" >&2; exit 1; }
exit 0
