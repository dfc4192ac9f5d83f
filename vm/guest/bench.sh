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
# on stdout: "BENCH workload=W mode=M rep=R ns=NS calls=N events=E
# retained=K overrun=O depot_bytes=D": the entries written, those the
# buffer still holds and those it overwrote, and the depot's allocated
# bytes in a stackmap run (0 in the others); "BUFFER kb=K cpus=C" gives
# the buffer they were written to.
#
# Then the same two workloads under a histogram trigger keyed on
# common_stacktrace (a kprobe event on sys_getppid, kmem:kmem_cache_alloc),
# with no trigger (base) and with it (hist): "HIST workload=W mode=M rep=R
# ns=NS calls=N hits=H dropped=X". "HISTMEM when=W kb=K" is the slab,
# vmalloc and per-CPU memory a size=2048 trigger took at its creation and
# after make run's workload (with the hits and Dropped of that workload),
# "HISTDEPTH max=D entries=E" the deepest of that
# workload's stacks. `make bench` boots a kernel with
# HIST_TRIGGERS_STACK_IDS and one without, to compare the stack id key
# with the 16 frames of 6.12's key; vm.bench_only=hist runs only this part.
#
# Kernel command line: vm.bench_reps=R vm.bench_getppid=N vm.bench_mix=N
#                      vm.bench_only=hist

T=/sys/kernel/tracing
reps=5
n_getppid=20000
n_mix=1000
only=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	vm.bench_reps=*) reps=${arg#*=} ;;
	vm.bench_getppid=*) n_getppid=${arg#*=} ;;
	vm.bench_mix=*) n_mix=${arg#*=} ;;
	vm.bench_only=*) only=${arg#*=} ;;
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

# What the buffer holds of them, and what it overwrote, all CPUs.
retained() {
	cat $T/per_cpu/cpu*/stats |
		awk '/^entries:/ { n += $2 } /^overrun:/ { o += $2 }
			END { printf "retained=%d overrun=%d\n", n, o }'
}

# The depot's allocated bytes, when the run used it: 0 otherwise.
depot_bytes() { # MODE
	b=0
	[ "$1" = on ] &&
		b=$(awk '/^mem_allocated:/ { print $2 }' $T/stack_map_stat)
	echo "${b:-0}"
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
	echo "BENCH workload=$1 mode=$2 rep=$3 $res events=$events" \
		"$(retained) depot_bytes=$(depot_bytes "$2")"
}

# __x64_sys_getppid or the __do_sys_getppid it aliases, as kallsyms names it.
getppid_fn=$(grep -m1 -E '^(__x64_sys|__do_sys)_getppid$' $T/available_filter_functions)
[ -n "$getppid_fn" ] || die "no sys_getppid in available_filter_functions"
echo 4096 > $T/buffer_size_kb
echo "BUFFER kb=$(cat $T/buffer_size_kb) cpus=$(ls -d $T/per_cpu/cpu* | wc -l)"
# The top-level depot's capacity, before the option first allocates it.
echo "STAT default $(grep '^capacity:' $T/stack_map_stat)"

for w in getppid mix; do
	[ "$only" != hist ] || break
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

# Histogram triggers keyed on stacks. The kprobe stands for the function
# tracer of the getppid workload: a hist trigger needs an event.
HP=kprobes/bench_getppid
echo "p:$HP $getppid_fn" >> $T/kprobe_events || die "no kprobe on $getppid_fn"

hist_event() { # WORKLOAD: the event its trigger goes on
	if [ "$1" = getppid ]; then
		echo $T/events/$HP
	else
		echo $T/events/kmem/kmem_cache_alloc
	fi
}

# Hits of the trigger on DIR, from the totals its hist file ends with.
hist_hits() { # DIR
	awk '/^ *Hits:/ { print $2; exit }' "$1/hist"
}

# Its hits that found no entry: the map full, or (keys on stack ids) no id.
hist_dropped() { # DIR
	awk '/^ *Dropped:/ { print $2; exit }' "$1/hist"
}

# Slab, vmalloc and per-CPU memory in use, kB.
hist_mem() {
	awk '/^(Slab|VmallocUsed|Percpu):/ { n += $2 } END { print n }' /proc/meminfo
}

# Write a command to the trigger file of DIR. Appended: an open with
# O_TRUNC (">") removes every hist trigger of the event first, so that
# a :pause or :cont would find none.
hist_cmd() { # DIR CMD
	echo "$2" >> "$1/trigger" || die "trigger refused: $2"
}

# hist_run WORKLOAD MODE REP: one timed run, one HIST line.
hist_run() {
	ev=$(hist_event "$1")
	[ "$2" = hist ] && hist_cmd "$ev" "hist:keys=common_stacktrace"
	n=$n_mix
	[ "$1" = getppid ] && n=$n_getppid
	res=$(tracebench "$1" "$n") || die "tracebench $1 $n failed"
	hits=0
	dropped=0
	if [ "$2" = hist ]; then
		hits=$(hist_hits "$ev")
		dropped=$(hist_dropped "$ev")
		hist_cmd "$ev" "!hist:keys=common_stacktrace"
	fi
	echo "HIST workload=$1 mode=$2 rep=$3 $res hits=${hits:-0}" \
		"dropped=${dropped:-0}"
}

for w in getppid mix; do
	log "hist $w"
	hist_run "$w" hist 0 > /dev/null
	r=1
	while [ "$r" -le "$reps" ]; do
		if [ $((r % 2)) -eq 1 ]; then
			order="base hist"
		else
			order="hist base"
		fi
		for m in $order; do
			hist_run "$w" "$m" "$r"
		done
		r=$((r + 1))
	done
done

# The memory of a size=2048 map keyed on stacks, created paused, then
# after make run's workload, whose deepest stack the histogram shows.
ev=$(hist_event mix)
r=1
while [ "$r" -le 3 ]; do
	m0=$(hist_mem)
	hist_cmd "$ev" "hist:keys=common_stacktrace:size=2048:pause"
	m1=$(hist_mem)
	hist_cmd "$ev" "hist:keys=common_stacktrace:size=2048:cont"
	/vm/workload.sh 50
	hist_cmd "$ev" "hist:keys=common_stacktrace:size=2048:pause"
	m2=$(hist_mem)
	echo "HISTMEM when=created rep=$r kb=$((m1 - m0))"
	echo "HISTMEM when=workload rep=$r kb=$((m2 - m0))" \
		"hits=$(hist_hits "$ev") dropped=$(hist_dropped "$ev")"
	[ "$r" -lt 3 ] || awk '$1 == "{" && $2 == "common_stacktrace:" { n = 0; e++; next }
		/^} hitcount:/ { if (n > m) m = n; next }
		/^ +[^ ]/ { n++ }
		END { printf "HISTDEPTH max=%d entries=%d\n", m, e; exit !e }' "$ev/hist" ||
		die "the size=2048 histogram counted no stack"
	hist_cmd "$ev" "!hist:keys=common_stacktrace:size=2048"
	r=$((r + 1))
done
echo "-:$HP" >> $T/kprobe_events
echo "BENCH-END"
