#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fail if a guest console log holds a kernel report: WARN, BUG, oops,
# lockdep splat, KASAN/KCSAN report, RCU or atomic-sleep complaint.
#
# Usage: vm/console-check.sh CONSOLE.LOG

pattern='WARNING:|BUG:|Oops|Kernel panic|KASAN|KCSAN|possible recursive locking|possible circular locking|inconsistent lock state|suspicious RCU usage|sleeping function called from invalid context|INFO: task .* blocked|Call Trace:'
if grep -nE "$pattern" "$1" > /dev/null; then
	echo "$1: kernel report on the console:" >&2
	grep -nE -A20 "$pattern" "$1" | head -60 >&2
	exit 1
fi
grep -q '^vm: done' "$1" || { echo "$1: the guest did not finish" >&2; exit 1; }
exit 0
