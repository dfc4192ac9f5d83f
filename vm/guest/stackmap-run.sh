#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of `make run`: trace the same workload twice with the same
# per-CPU buffer, stackmap off then on, then record a few seconds of it
# with trace-cmd, stackmap on, and send everything the host needs for its
# report as a base64 tar stream on stdout (the results port).
#
# Kernel command line: vm.buffer_kb=N vm.events=sys:ev,sys:ev
# vm.duration=SECONDS vm.workload=BASE64 (a shell command; default below)
# vm.redefine=PERCENT (stack_map_redefine of the stackmap session).

T=/sys/kernel/tracing
buffer_kb=256
events=kmem:kmem_cache_alloc,sched:sched_switch
duration=20
workload=
redefine=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	vm.buffer_kb=*) buffer_kb=${arg#*=} ;;
	vm.events=*) events=${arg#*=} ;;
	vm.duration=*) duration=${arg#*=} ;;
	vm.workload=*) workload=$(echo "${arg#*=}" | base64 -d) ;;
	vm.redefine=*) redefine=${arg#*=} ;;
	esac
done
[ -n "$workload" ] || workload=/vm/workload.sh

log() {
	echo "run: $*" > /dev/console
}

set_events() { # 0|1
	for ev in $(echo "$events" | tr ',' ' '); do
		echo "$1" > "$T/events/${ev%%:*}/${ev#*:}/enable" || return 1
	done
}

# One session: $1 = off|on
session() {
	mode=$1
	dir=/tmp/out/$mode
	mkdir -p "$dir"
	echo 0 > $T/tracing_on
	set_events 0
	echo "$buffer_kb" > $T/buffer_size_kb
	echo 1 > $T/options/stacktrace
	if [ "$mode" = on ]; then
		echo 1 > $T/options/stackmap
		echo reset > $T/stack_map
		[ -z "$redefine" ] || echo "$redefine" > $T/stack_map_redefine
		cat $T/stack_map_redefine > "$dir/redefine"
	else
		echo 0 > $T/options/stackmap
	fi
	echo > $T/trace
	set_events 1 || { log "bad events: $events"; return 1; }
	log "$mode: tracing $events, ${buffer_kb} KiB per CPU, workload: $workload"
	start=$(cut -d' ' -f1 /proc/uptime)
	echo 1 > $T/tracing_on
	sh -c "$workload" > /dev/null 2>&1 &
	pid=$!
	# Stop the workload after the duration if it is still running.
	(sleep "$duration"; kill $pid 2>/dev/null) &
	timer=$!
	wait $pid
	echo 0 > $T/tracing_on
	kill $timer 2>/dev/null
	end=$(cut -d' ' -f1 /proc/uptime)
	set_events 0
	echo "$start $end" > "$dir/wallclock"
	for c in $T/per_cpu/cpu*; do
		cp "$c/stats" "$dir/stats.$(basename "$c")"
	done
	cat $T/trace > "$dir/trace"
	cp $T/stack_map_stat "$dir/stack_map_stat"
	if [ "$mode" = on ]; then
		cat $T/stack_map > "$dir/stack_map"
		cat $T/stack_map_bin > "$dir/stack_map_bin"
		# The same wrapped buffer as a flight recorder's reader gets
		# it, with no "emit": trace-cmd extract (which consumes it,
		# after the trace text above).
		command -v trace-cmd > /dev/null &&
			trace-cmd extract -o "$dir/flight.dat" > "$dir/flight.log" 2>&1
	fi
	for f in $T/events/ftrace/kernel_stack/format \
		 $T/events/ftrace/kernel_stack_id/format \
		 $T/events/ftrace/kernel_stack_def/format; do
		[ -f "$f" ] && cp "$f" "$dir/format.$(basename "$(dirname "$f")")"
	done
	for ev in $(echo "$events" | tr ',' ' '); do
		cp "$T/events/${ev%%:*}/${ev#*:}/format" "$dir/format.${ev#*:}"
	done
	echo 1 > $T/tracing_on
	log "$mode: done ($(wc -l < "$dir/trace") trace lines)"
}

# trace-cmd record of the first seconds of the workload with stackmap on:
# the host reports the trace.dat alone, with no map file.
tracecmd_session() {
	dir=/tmp/out/tracecmd
	secs=$((duration < 3 ? duration : 3))
	mkdir -p "$dir"
	command -v trace-cmd > /dev/null || { log "tracecmd: no trace-cmd"; return 0; }
	echo 0 > $T/tracing_on
	set_events 0
	echo reset > $T/stack_map
	# Its counters are the instance's, since boot: the host subtracts.
	cp $T/stack_map_stat "$dir/stack_map_stat.before"
	set --
	for ev in $(echo "$events" | tr ',' ' '); do
		set -- "$@" -e "$ev"
	done
	log "tracecmd: trace-cmd record of ${secs} s of the workload, stackmap on"
	trace-cmd record -b "$buffer_kb" -O stacktrace -O stackmap "$@" \
		-o "$dir/trace.dat" timeout "$secs" sh -c "$workload" \
		> "$dir/record.log" 2>&1
	echo $? > "$dir/rc"
	cp $T/stack_map_stat "$dir/stack_map_stat"
	cat $T/stack_map > "$dir/stack_map"
	echo 1 > $T/tracing_on
	log "tracecmd: done ($(wc -c < "$dir/trace.dat") bytes)"
}

session off && session on && tracecmd_session
cat /proc/kallsyms > /tmp/out/kallsyms
echo "$buffer_kb $events $duration" > /tmp/out/params
echo "$workload" > /tmp/out/workload
echo "STACKMAP-RUN-BEGIN"
tar -C /tmp/out -czf - . | base64
echo "STACKMAP-RUN-END"
