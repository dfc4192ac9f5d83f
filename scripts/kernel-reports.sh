# SPDX-License-Identifier: GPL-2.0-only
#
# The kernel reports that fail a run whatever its tests said, as one
# extended regular expression (grep -E), for every console check: the
# KUnit runs (scripts/kunit-run.sh) and the QEMU guests
# (vm/console-check.sh). KASAN, KCSAN and atomic-sleep reports start
# with "BUG:", lockdep and RCU-lockdep ones with "WARNING:"; arm64
# spells the backtrace "Call trace:" and a bad access "Unable to handle
# kernel ...".
# shellcheck disable=SC2034
KERNEL_REPORTS='WARNING:|BUG:|kernel BUG|Oops|Kernel panic|UBSAN:'
KERNEL_REPORTS+='|general protection fault|possible recursive locking'
KERNEL_REPORTS+='|possible circular locking|inconsistent lock state'
KERNEL_REPORTS+='|suspicious RCU usage|sleeping function called from invalid context'
KERNEL_REPORTS+='|INFO: task .* blocked|self-detected stall|detected stalls'
KERNEL_REPORTS+='|RCU stall|Call Trace:|Call trace:|Unable to handle kernel'
