#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the peak of `make run`: a flight recorder traced from
# boot (the kernel command line sets the events, the stack options, the
# buffer and trace_clock=mono), the everyday workload before and after a
# memory peak of N pipes holding a page each (/bin/peak), then the
# wrapped buffer read out with trace-cmd extract, as a user would after
# the peak. Sends peak.dat, the peak's times, the buffers' stats and
# stack_map_stat as a base64 tar stream on stdout between PEAK-BEGIN
# and PEAK-END.
#
# vm/guest/vmtest.sh runs it too, in its boot traced from the command
# line, for the host to check the peak's stacks.
#
# Usage: peak-run.sh [PIPES BEFORE AFTER] (pipes of the peak, rounds of
# vm/guest/workload.sh before and after it); without them, from the
# kernel command line's vm.peak=PIPES,BEFORE,AFTER.

T=/sys/kernel/tracing
pipes=4000
before=50
after=50
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	vm.peak=*) args=$(echo "${arg#*=}" | tr ',' ' ') ;;
	esac
done
[ $# -eq 3 ] || set -- $args
[ $# -ne 3 ] || { pipes=$1 before=$2 after=$3; }

log() {
	echo "peak: $*" > /dev/console
}

out=/tmp/peak
rm -rf $out
mkdir -p $out
log "tracing since boot: $(cat $T/set_event | tr '\n' ' ')"
log "workload ($before rounds), peak of $pipes pipes, workload ($after rounds)"
/vm/workload.sh "$before" > /dev/null 2>&1
peak "$pipes" 500 > $out/peak.txt 2> $out/peak.err ||
	log "peak failed: $(cat $out/peak.err)"
/vm/workload.sh "$after" > /dev/null 2>&1
echo 0 > $T/tracing_on
for c in $T/per_cpu/cpu*; do
	cp "$c/stats" "$out/stats.$(basename "$c")"
done
[ -f $T/stack_map_stat ] && cp $T/stack_map_stat $out/stack_map_stat
cat $T/trace_clock > $out/trace_clock
cat $T/buffer_size_kb > $out/buffer_size_kb
trace-cmd extract -o $out/peak.dat > $out/extract.log 2>&1 ||
	log "trace-cmd extract failed: $(tail -1 $out/extract.log)"
log "done ($(wc -c < $out/peak.dat) bytes of trace.dat)"
echo "PEAK-BEGIN"
tar -C $out -czf - . | base64
echo "PEAK-END"
rm -rf $out
echo 1 > $T/tracing_on
