#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of `make vmtest`: run the ftrace selftests in KTAP form, and
# send their KTAP, the guest's own checks (KTAP lines too) and the kernel
# log with the boot-time KUnit suites to the host, which parses them all.
# The stackmap tests first, then the existing tests that exercise stacks,
# run with stackmap on to show that the option breaks nothing, then the
# histogram trigger tests, whose stack keys are the library's other user.

cd /ftrace || exit 1

# Each section's start, with the guest's uptime, so that a log shows
# which one used the time.
section() {
	echo "vmtest: $1"
	echo "# vmtest: $1: at $(cut -d' ' -f1 /proc/uptime) s of uptime"
}

if [ "$1" = boottest ]; then
	# Second boot, with trace_options=stackmap,stacktrace on the command
	# line.
	section "boot option test"
	# The command line's kmem events ran from the start of boot: each
	# must have its stack as an id (the KUnit suites that run at boot
	# leave full stacks of their own). ftracetest clears the buffer
	# before each test, so look now, in one read of the trace: each
	# read formats the whole buffer, as large as vm/vmtest.sh's
	# trace_buf_size= makes it, which is slow under TCG.
	t=/sys/kernel/tracing
	echo 0 > $t/tracing_on
	set -- $(awk '
		/<stack_id 0x/ {
			ids++
			for (i = 1; first == "" && i <= NF; i++)
				if ($i ~ /^[0-9]+\.[0-9]+:$/)
					first = substr($i, 1, length($i) - 1)
		}
		/<stack trace>/ && !/kunit_try_catch/ { full++ }
		END { print ids + 0, full + 0, (first == "" ? "-" : first) }
	' $t/trace)
	ids=$1 full=$2 first=$3
	echo 1 > $t/tracing_on
	echo "# boot events: $ids stack ids, the first at ${first}s; $full full stacks"
	if [ "$ids" -gt 0 ] && [ "$full" -eq 0 ]; then
		echo "ok 1 guest - every boot event got a stack id"
	else
		echo "not ok 1 guest - every boot event got a stack id"
	fi
	# make run's memory peak, still traced as from the command line:
	# the host finds the peak in the trace.dat it sends (PEAK-BEGIN)
	# and checks what held its pages against the ground truth. That
	# needs the peak's events whole: the boot's allocations and frees
	# (counted above) can wrap the buffer and take definitions with
	# them, so the peak starts on an empty buffer. make run's peak is
	# the one that reads a wrapped flight recorder.
	section "peak in the flight recorder"
	echo > $t/trace
	/vm/peak-run.sh 2000 0 0
	section "stackmap-boot.tc"
	./ftracetest -K -v test.d/ftrace/stackmap-boot.tc
	# Every tracer with stackmap and stacktrace still on.
	section "existing tests, stackmap on from boot"
	./ftracetest -K -v test.d/00basic/basic2.tc
	section end
	exit 0
fi
# For development: vm/run-qemu.sh test DIR vm.tests=A,B boots the guest to
# run only those selftests (paths under /ftrace), after the kernel log
# with the boot-time KUnit suites, with no other section: a section for
# each test, so that the log shows what each one took.
for arg in $(cat /proc/cmdline); do
	case $arg in
	vm.tests=*) only=$(echo "${arg#*=}" | tr , ' ') ;;
	esac
done
if [ -n "$only" ]; then
	section "boot-time KUnit"
	dmesg
	for t in $only; do
		section "$t"
		# Each under the shell the whole run gives it (see below).
		case $t in
		*/trigger/*) dash ./ftracetest -K -v "$t" ;;
		*) ./ftracetest -K -v "$t" ;;
		esac
	done
	section end
	exit 0
fi

ours=$(ls test.d/ftrace/stackmap-*.tc | grep -v stackmap-boot.tc)
# Those that exercise stacks and the trace output. 00basic/basic2.tc
# runs in the second boot, with stackmap on from boot.
existing="test.d/00basic/basic1.tc test.d/00basic/basic3.tc
	test.d/00basic/basic4.tc test.d/00basic/ringbuffer_size.tc
	test.d/00basic/trace_marker.tc
	test.d/ftrace/func-filter-stacktrace.tc
	test.d/trigger/trigger-stacktrace.tc test.d/event/event-enable.tc
	test.d/event/subsystem-enable.tc"

# The tests pace themselves and time out with sleep: it must wait. (A
# 32-bit busybox on a kernel without COMPAT_32BIT_TIME returned at once.)
t0=$(cut -d' ' -f1 /proc/uptime)
sleep 1
rc=$?
t1=$(cut -d' ' -f1 /proc/uptime)
if [ $rc -eq 0 ] && awk "BEGIN { exit !($t1 - $t0 >= 0.9) }"; then
	echo "ok 1 guest - sleep 1 waits a second"
else
	echo "not ok 1 guest - sleep 1 waits a second (exit $rc, $t0 -> $t1)"
fi

# KUnit cases built into this kernel ran at boot: their KTAP is in the
# kernel log, which goes to the host whole; its KTAP parser reads the
# suites among the other messages (see vm/vmtest.sh).
section "boot-time KUnit"
dmesg

section "stackmap tests"
./ftracetest -K -v $ours
section "existing tests, stackmap on"
# ftracetest leaves trace options alone between tests, so the stack
# triggers and stacktrace options of these tests go through stackmap; with
# stackmap-expand the trace text is what they expect of full stacks.
for opt in stackmap stackmap-expand; do
	echo 1 > /sys/kernel/tracing/options/$opt ||
		echo "not ok 1 guest - $opt option"
done
./ftracetest -K -v $existing
for opt in stackmap stackmap-expand; do
	echo 0 > /sys/kernel/tracing/options/$opt
done

# Histogram triggers, whose stack keys are stack ids: 6.12's own tests,
# the stack keys' (test.d/trigger/trigger-hist-stack-*.tc) and that of
# a synthetic event's stack field (trigger-hist-synth-stack.tc). Under
# Debian's dash, as on a Debian machine: busybox's sh would run its ping
# applet for the inter-event tests' ping, which execs /proc/self/exe
# where they look for the exec of ping.
section "histogram triggers"
# 6.12's own histogram tests check that the stack keys broke nothing in
# code that is the same on every 64-bit architecture: they run on x86_64
# and i386 (32-bit), and arm64 runs the stack keys' own, whose stacks its
# unwinder takes (README, "the architectures").
if [ "$(uname -m)" = aarch64 ]; then
	dash ./ftracetest -K -v test.d/trigger/trigger-hist-stack-*.tc \
		test.d/trigger/trigger-hist-synth-stack.tc
else
	dash ./ftracetest -K -v test.d/trigger/trigger-hist*.tc \
		test.d/trigger/inter-event
fi

# A map exported by the kernel, for the host to decode with the stackmap
# CLI and compare with the kernel's own text and expansion.
section "snapshot"
I=/sys/kernel/tracing/instances/vmtest_snapshot
S=/tmp/snapshot
mkdir -p $S $I
echo 1 > $I/options/stacktrace
echo 1 > $I/options/stackmap
echo 1 > $I/events/sched/sched_process_fork/enable
echo 1 > $I/events/kmem/kmem_cache_alloc/enable
/vm/workload.sh 10
echo 0 > $I/tracing_on
cat $I/trace > $S/trace
cat $I/stack_map_bin > $S/stack_map_bin
cat $I/stack_map > $S/stack_map
echo 1 > $I/options/stackmap-expand
cat $I/trace > $S/trace.expanded
cat /proc/kallsyms > $S/kallsyms
echo 0 > $I/options/stackmap
rmdir $I
echo "SNAPSHOT-BEGIN"
tar -C $S -czf - . | base64
echo "SNAPSHOT-END"

# trace.dat files recorded by Debian's trace-cmd, for the host to report
# with its own trace-cmd and the stackmap plugin, with no map file.
section "trace-cmd"
/vm/tracecmd.sh
section end
