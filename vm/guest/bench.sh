#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of `make bench`: the per-event cost of stack tracing with
# stackmap off and on, for two workloads of vm/helpers/tracebench.c:
#
#   getppid  function tracer on sys_getppid with func_stack_trace:
#            one fixed stack per call, the hot path
#   mix      kmem:kmem_cache_alloc with options/stacktrace under file,
#            pipe, mmap and /proc system calls: many stacks
#
# Each repetition runs the workload untraced (base), traced with full
# stacks (off) and traced with stack ids (on), in alternating order, so
# that the three modes share the machine's state; the depot is warmed up
# once first, so "on" measures the steady state of hits. One line per run
# on stdout: "BENCH workload=W mode=M rep=R ns=NS calls=N events=E".
#
# Kernel command line: vm.bench_reps=R vm.bench_getppid=N vm.bench_mix=N

T=/sys/kernel/tracing
reps=5
n_getppid=20000
n_mix=1000
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	vm.bench_reps=*) reps=${arg#*=} ;;
	vm.bench_getppid=*) n_getppid=${arg#*=} ;;
	vm.bench_mix=*) n_mix=${arg#*=} ;;
	esac
done

log() {
	echo "bench: $*" > /dev/console
}

die() {
	log "$*"
	echo "BENCH-ERROR $*"
	exit 1
}

# Events written to the ring buffer since the last clear, all CPUs.
written() {
	cat $T/per_cpu/cpu*/stats |
		awk '/^entries:/ { n += $2 } /^overrun:/ { n += $2 } END { print n + 0 }'
}

# setup WORKLOAD MODE: configure tracing for one run.
setup() {
	echo 0 > $T/tracing_on
	echo 0 > $T/events/enable
	echo nop > $T/current_tracer
	echo > $T/set_ftrace_filter
	echo 0 > $T/options/stacktrace
	[ "$2" = base ] && return 0
	if [ "$1" = getppid ]; then
		echo "$getppid_fn" > $T/set_ftrace_filter ||
			die "cannot filter on '$getppid_fn'"
		echo function > $T/current_tracer
		echo 1 > $T/options/func_stack_trace
	else
		echo 1 > $T/options/stacktrace
		echo 1 > $T/events/kmem/kmem_cache_alloc/enable
	fi
	if [ "$2" = on ]; then
		echo 1 > $T/options/stackmap
	else
		echo 0 > $T/options/stackmap
	fi
}

# run WORKLOAD MODE REP: one timed run, one BENCH line.
run() {
	setup "$1" "$2"
	echo > $T/trace
	echo 1 > $T/tracing_on
	n=$n_mix
	[ "$1" = getppid ] && n=$n_getppid
	res=$(tracebench "$1" "$n") || die "tracebench $1 $n failed"
	echo 0 > $T/tracing_on
	events=$(written)
	echo "BENCH workload=$1 mode=$2 rep=$3 $res events=$events"
}

# __x64_sys_getppid or the __do_sys_getppid it aliases, as kallsyms names it.
getppid_fn=$(grep -m1 -E '^(__x64_sys|__do_sys)_getppid$' $T/available_filter_functions)
[ -n "$getppid_fn" ] || die "no sys_getppid in available_filter_functions"
echo 4096 > $T/buffer_size_kb
# The top-level depot's capacity, before the option first allocates it.
echo "STAT default $(grep '^capacity:' $T/stack_map_stat)"

for w in getppid mix; do
	log "$w: warm-up"
	run "$w" on 0 > /dev/null
	echo 0 > $T/stack_map
	run "$w" on 0 > /dev/null
	r=1
	while [ "$r" -le "$reps" ]; do
		if [ $((r % 2)) -eq 1 ]; then
			order="base off on"
		else
			order="on off base"
		fi
		for m in $order; do
			run "$w" "$m" "$r"
		done
		r=$((r + 1))
	done
	# The depot's view of the last "on" runs: ids, not drops.
	sed "s/^/STAT $w /" $T/stack_map_stat
	# The depth of the stacks the events had, weighted by their events.
	awk -v w="$w" '/^stack_id/ { gsub(/[][,]/, " "); n += $4; s += $4 * $6 }
		END { printf "DEPTH %s %.2f\n", w, n ? s / n : 0 }' $T/stack_map
	log "$w: done"
done
setup mix base
echo 0 > $T/options/stackmap
echo "BENCH-END"
