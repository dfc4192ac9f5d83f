#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Fallback paths and resets while tracing runs on both CPUs.
T=/sys/kernel/tracing
cd $T || exit 1
echo "--- full depot falls back to full stacks"
echo 16 > stack_map_size
echo 1 > options/stacktrace; echo 1 > options/stackmap
echo 1 > events/sched/enable
for i in 1 2 3; do ls -R /proc/self > /dev/null; sleep 0.1; done
echo 0 > tracing_on
echo "events: stack_id=$(grep -c '<stack_id' trace) full=$(grep -c '<stack trace>' trace)"
grep -E 'records|drops_full|drops_probe|hits|inserts' stack_map_stat
echo "--- resets while tracing on 2 CPUs"
echo 0 > options/stackmap; echo 4096 > stack_map_size; echo 1 > options/stackmap
echo > trace; echo 1 > tracing_on
(while :; do ls -R /proc/self > /dev/null; done) & L1=$!
(while :; do cat /proc/interrupts > /dev/null; done) & L2=$!
(while :; do cat stack_map > /dev/null; cat stack_map_bin > /dev/null 2>&1; done) & L3=$!
i=0
while [ $i -lt 30 ]; do echo reset > stack_map; sleep 0.05; i=$((i+1)); done
kill $L1 $L2 $L3; wait $L1 $L2 $L3 2>/dev/null
echo 0 > tracing_on
grep -E 'generation|records|hits|inserts|lost_races|drops_busy|resets' stack_map_stat
echo "events: stack_id=$(grep -c '<stack_id' trace) full=$(grep -c '<stack trace>' trace)"
echo "--- check: every record of stack_map once"
grep -c '^stack_id' stack_map; grep '^stack_id' stack_map | cut -d' ' -f2 | sort | uniq -d | wc -l
echo "--- function tracer with func_stack_trace"
echo 0 > events/sched/enable
echo > trace
echo schedule > set_ftrace_filter
echo function > current_tracer
echo 1 > options/func_stack_trace
echo 1 > tracing_on
sleep 0.5
echo 0 > tracing_on
grep -v '^#' trace | head -6
echo "events: stack_id=$(grep -c '<stack_id' trace) full=$(grep -c '<stack trace>' trace)"
grep -m1 -B1 -A3 "TRAMPOLINE" stack_map
echo 1 > options/stackmap-expand
grep -v '^#' trace | head -8
echo 0 > options/stackmap-expand
echo 0 > options/func_stack_trace
echo nop > current_tracer
echo "--- instances in parallel with top level"
mkdir instances/a instances/b
for d in a b; do
	echo 1 > instances/$d/options/stacktrace
	echo 1 > instances/$d/options/stackmap
	echo 1 > instances/$d/events/sched/sched_switch/enable
done
echo 1 > events/sched/sched_switch/enable; echo 1 > tracing_on
sleep 0.5
for d in a b; do echo 0 > instances/$d/events/sched/sched_switch/enable; done
echo "a: $(grep -E '^(records|inserts)' instances/a/stack_map_stat | tr '\n' ' ')"
echo "b: $(grep -E '^(records|inserts)' instances/b/stack_map_stat | tr '\n' ' ')"
exec 3< instances/a/stack_map
rmdir instances/a || echo "rmdir busy while open (expected)"
exec 3<&-
rmdir instances/a instances/b && echo "removed"
