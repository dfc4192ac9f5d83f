#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the persistent-buffer test (vm/persist.sh): the instance
# "pb" lives in memory that survives the guest's reboot, and traces kmem
# events with stack ids from boot (trace_instance=pb^stacktrace^stackmap
# on the kernel command line).
#
#   persist.sh 1   the last boot: the workload until every CPU's buffer
#                  overwrote twice what it holds (with "emit" on every
#                  CPU at the end if the command line has
#                  vm.persist_emit=1), then the
#                  instance's stack_map, stack_map_bin and stack_map_stat
#                  are sent with the count of traced events the buffer
#                  holds, and the guest goes down with reboot -f (by
#                  /init), as after a crash: nothing is read out or
#                  cleared
#   persist.sh 2   the next boot, which traced into the same buffer from
#                  its own boot too (not with vm.persist_emit=1, whose
#                  command line has ^traceoff): a few rounds of the
#                  workload (and "emit" again with vm.persist_emit=1,
#                  which tracing off refuses), then
#                  what the instance's trace text holds (markers, ids
#                  left unexpanded with stackmap-expand), its stack_map and
#                  stack_map_stat, last_boot_info, the kernel's messages
#                  of the buffer, and "trace-cmd extract -B pb" (which
#                  empties it) are sent
#
# Each boot sends its files as a base64 tar stream on stdout between
# PERSIST-BEGIN and PERSIST-END.

T=/sys/kernel/tracing
I=$T/instances/pb
boot=$1
emit=0
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	vm.persist_emit=*) emit=${arg#*=} ;;
	esac
done

log() {
	echo "persist: boot $boot: $*" > /dev/console
}

out=/tmp/persist
rm -rf $out
mkdir -p $out
if [ ! -d $I ]; then
	log "no instance pb"
	echo "persist: no instance pb" > $out/error
fi

# Has every online CPU's buffer of the instance overwritten twice what
# it holds? The boot alone wraps it once: what is left is then the
# steady state of a flight recorder, not the boot's edge.
wrapped() {
	for s in $I/per_cpu/cpu*/stats; do
		n=$(sed -n 's/^overrun: //p' "$s")
		e=$(sed -n 's/^entries: //p' "$s")
		[ "${n:-0}" -gt $((2 * ${e:-0})) ] || return 1
	done
	return 0
}

# "emit" on every CPU: the definitions of all stacks into each CPU's buffer.
emit_all() {
	for c in $(seq 0 $(($(grep -c ^processor /proc/cpuinfo) - 1))); do
		taskset -c "$c" sh -c "echo emit > $I/stack_map" ||
			log "emit on CPU $c failed"
	done
}

save() {
	for f in stack_map stack_map_bin stack_map_stat last_boot_info \
		options/stackmap options/stacktrace; do
		[ -e "$I/$f" ] && cat "$I/$f" > "$out/$(basename $f)"
	done
	for c in $I/per_cpu/cpu*; do
		cat "$c/stats" > "$out/stats.$(basename "$c")"
	done
}

case "$boot" in
1)
	rounds=0
	while [ -d $I ] && ! wrapped && [ $rounds -lt 400 ]; do
		/vm/workload.sh 5 > /dev/null 2>&1
		rounds=$((rounds + 5))
	done
	log "$rounds rounds of the workload, wrapped: $(wrapped && echo yes || echo no)"
	echo "$rounds" > $out/rounds
	[ "$emit" = 1 ] && emit_all
	# The map as it stands when the machine goes down: nothing traced
	# after it, so that every id of the buffer is in it.
	echo 0 > $I/tracing_on
	save
	# The events the next boot will find (make run's retained figure).
	grep -c -e ' kmalloc:' -e ' kmem_cache_alloc:' -e ' mm_page_alloc:' \
		$I/trace > $out/events
	;;
2)
	dmesg | grep -e 'Ring buffer' -e 'Tracing:' -e 'stackmap' > $out/dmesg
	/vm/workload.sh 3 > /dev/null 2>&1
	# emit after the reboot writes this boot's stacks, behind this
	# boot's markers: nothing of the last boot may resolve through them.
	# With ^traceoff on the command line, it is refused.
	[ "$emit" = 1 ] && emit_all
	echo 0 > $I/tracing_on
	save
	# The kernel's own text, counted here: whole, it would double what
	# the results port carries.
	cat $I/trace > /tmp/trace.txt
	head -n 200 /tmp/trace.txt > $out/trace.head
	# The first definitions it prints, with the markers that say whose.
	grep -e '<stack_boot 0x' -e '<stack_def 0x' -e '^  \[[0-9]*\] ' \
		/tmp/trace.txt |
		awk 'NR > 3000 && /<stack_(boot|def) 0x/ { exit } { print }' \
		> $out/trace.defs
	grep -c '<stack_boot 0x' /tmp/trace.txt > $out/trace.markers
	# Full stacks (the events that got no id) print so with or without
	# stackmap-expand: only more of them with it are expansions.
	grep -c '<stack trace>' /tmp/trace.txt > $out/trace.full
	echo 1 > $I/options/stackmap-expand
	cat $I/trace > /tmp/trace.txt
	echo 0 > $I/options/stackmap-expand
	grep -c 'not expanded' /tmp/trace.txt > $out/expand.unexpanded
	grep -c '<stack trace>' /tmp/trace.txt > $out/expand.expanded
	rm /tmp/trace.txt

	trace-cmd extract -B pb -o $out/pb.dat > $out/extract.log 2>&1 ||
		log "trace-cmd extract failed: $(tail -1 $out/extract.log)"

	;;
esac
log "sending $(ls $out | wc -l) files"
echo "PERSIST-BEGIN"
tar -C $out -czf - . | base64
echo "PERSIST-END"
rm -rf $out
