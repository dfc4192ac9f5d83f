#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Exercise the stackmap option in a booted kernel; print what it shows.
T=/sys/kernel/tracing
cd $T || exit 1
echo "--- cmdline: $(cat /proc/cmdline)"
echo "--- options at boot: stackmap=$(cat options/stackmap) stacktrace=$(cat options/stacktrace)"
echo "--- stack_map_stat at boot"; cat stack_map_stat
echo "--- boot trace excerpt"; grep -m3 -A1 stack_id trace
echo "--- file modes"; ls -l stack_map* options/stackmap-expand
echo "--- last trace option bits"; tail -3 trace_options
echo nostackmap > trace_options; echo "via trace_options off: $(cat options/stackmap)"
echo stackmap > trace_options; echo "via trace_options on: $(cat options/stackmap)"

echo 0 > tracing_on; echo > trace
echo 0 > options/stackmap
echo "--- size write while off: 4096"; echo 4096 > stack_map_size && cat stack_map_size
echo "--- size out of range (5)"; echo 5 > stack_map_size || echo "rc=$? (expected EINVAL)"
echo 1 > options/stacktrace
echo 1 > options/stackmap
echo "--- size write while on"; echo 2048 > stack_map_size || echo "rc=$? (expected EBUSY)"
echo 1 > events/sched/sched_switch/enable
echo 1 > events/sched/sched_wakeup/enable
echo 1 > tracing_on
for i in 1 2 3 4 5; do ls /proc > /dev/null; sleep 0.1; done
echo 0 > tracing_on
echo "--- trace excerpt"; grep -v '^#' trace | head -12
echo "--- events: stack_id=$(grep -c '<stack_id' trace) full=$(grep -c '<stack trace>' trace)"
echo "--- stack_map excerpt"; head -20 stack_map
echo "--- stack_map_stat"; cat stack_map_stat
echo "--- format"; cat events/ftrace/kernel_stack_id/format
echo 1 > options/stackmap-expand
echo "--- expanded trace excerpt"; grep -v '^#' trace | head -14
echo "--- stack_map_bin header+first record"; hexdump -C stack_map_bin | head -8
echo "--- stack_map_bin size $(cat stack_map_bin | wc -c)"
echo "--- bin reset mid-walk"
exec 3< stack_map_bin
dd bs=40 count=1 <&3 2>/dev/null | wc -c
echo reset > stack_map
dd bs=64 count=1 <&3 > /dev/null || echo "second read failed as expected"
exec 3<&-
echo "--- bad write"; echo foo > stack_map || echo "rc=$? (expected EINVAL)"
echo 0 > stack_map && echo "write 0 ok"
echo "--- after reset stat"; grep -E 'generation|records|resets' stack_map_stat
echo "--- old ids with expand on (must stay unexpanded)"; grep -v '^#' trace | grep -m3 stack_id
echo "--- finished bin walk ends with EOF"
echo 1 > tracing_on; ls -R /proc/self > /dev/null; sleep 0.2; echo 0 > tracing_on
exec 3< stack_map_bin
cat <&3 | wc -c
echo reset > stack_map
cat <&3 | wc -c
exec 3<&-

echo "--- instance"
mkdir instances/foo
cd instances/foo
echo "stackmap=$(cat options/stackmap)"; cat stack_map_stat
echo 1 > options/stacktrace; echo 1 > options/stackmap
echo 1 > events/sched/sched_switch/enable
sleep 0.3; ls / > /dev/null
echo 0 > tracing_on
echo "instance events: stack_id=$(grep -c '<stack_id' trace) full=$(grep -c '<stack trace>' trace)"
grep -E 'allocated|generation|records|mem_total|hits|inserts' stack_map_stat
head -4 stack_map
echo 0 > events/sched/sched_switch/enable
cd $T
rmdir instances/foo && echo "instance removed"
echo "--- top-level off -> size change frees depot"
echo 0 > options/stackmap; echo 1000 > stack_map_size; cat stack_map_stat
echo 1 > options/stackmap; grep -E 'allocated|generation|max_records' stack_map_stat
