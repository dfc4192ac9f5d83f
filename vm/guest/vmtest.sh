#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of `make vmtest`: run the ftrace selftests in KTAP form.
# Our stackmap tests first, then the existing tests that exercise stacks,
# run once more with stackmap on to show that the option breaks nothing.

cd /ftrace || exit 1
if [ "$1" = boottest ]; then
	# Second boot, with trace_options=stackmap,stacktrace on the command line.
	echo "vmtest: boot option test"
	./ftracetest -K -v test.d/ftrace/stackmap-boot.tc
	echo "vmtest: end"
	exit 0
fi
ours=$(ls test.d/ftrace/stackmap-*.tc | grep -v stackmap-boot.tc)
# Those that exercise stacks and the trace output; not 00basic/basic2.tc,
# whose cycling through every tracer (function_graph text patching on two
# vCPUs) once hit an unhandled int3 under TCG.
existing="test.d/00basic/basic1.tc test.d/00basic/basic3.tc
	test.d/00basic/basic4.tc test.d/00basic/ringbuffer_size.tc
	test.d/00basic/trace_marker.tc
	test.d/ftrace/func-filter-stacktrace.tc
	test.d/trigger/trigger-stacktrace.tc test.d/event/event-enable.tc
	test.d/event/subsystem-enable.tc"

echo "vmtest: stackmap tests"
./ftracetest -K -v $ours
echo "vmtest: existing tests, stackmap on"
# ftracetest leaves trace options alone between tests, so the stack
# triggers and stacktrace options of these tests go through stackmap; with
# stackmap-expand the trace text is what they expect of full stacks.
for opt in stackmap stackmap-expand; do
	echo 1 > /sys/kernel/tracing/options/$opt || echo "not ok - $opt option"
done
./ftracetest -K -v $existing
echo "vmtest: end"
