#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of the trace-cmd tests of `make vmtest`: Debian's trace-cmd
# records traces whose stack ids must resolve with no map file, through
# the ftrace:kernel_stack_def definitions the kernel writes into the same
# buffer. The guest checks that each recording ran (KTAP lines, a
# document of their own); the host reports the files with its own
# trace-cmd and checks the stacks (vm/vmtest.sh, vm/check-tracecmd.py).
#
#   record  the top instance with stackmap, a twin instance (-B twin)
#           with full stacks of the same events as ground truth
#   flight  an overwrite-mode instance whose early definitions the
#           workload overwrote, "emit", then trace-cmd extract; its
#           stack_map text right after the emit as ground truth
#   reset   as record, with "reset" written to stack_map halfway, between
#           two trace_marker lines
#   wrapped an overwrite-mode instance that the make run workload wraps
#           WRAPS times or more, read out with trace-cmd extract and no
#           "emit": the definitions it holds are those the kernel wrote
#           again as the buffer lost its older ones (stack_map_redefine
#           at WRAP_REDEFINE); its stack_map text as ground truth
#   consumed the top instance after trace-cmd start, read by a consuming
#           reader (trace-cmd show -p) halfway, and the second half read
#           out with trace-cmd extract: the definitions the reader took
#           must have been written again; its stack_map text as ground
#           truth
#   stalled trace-cmd record of the top instance and of an instance
#           (-B stalled), both with stackmap, whose recorders are stopped
#           (SIGSTOP) for STALL_S seconds while two workloads keep storing
#           stacks: the buffers overwrite what the recorders did not read
#
# The traced events are those of one process (a fork loop), held until
# the buffers are on: nothing else of the guest goes in, the files stay
# small, and both buffers see the same events. The files go to the host
# as a gzipped tar in base64 between TRACECMD-BEGIN and TRACECMD-END,
# their common kallsyms section once.
#
# Usage: tracecmd.sh   (run by vm/guest/vmtest.sh, output to the results
#        port)

T=/sys/kernel/tracing
D=/tmp/tracecmd
EVENTS="kmem:kmem_cache_alloc sched:sched_process_fork"
# Forks of a recording: about a thousand events.
FORKS=20
# Forks of the flight recorder, whose buffer they must overwrite.
FLIGHT_FORKS=200
FLIGHT_KB=64
# The wrapped flight recorder: its buffer, and how often every CPU's
# buffer must have overwritten what it holds.
WRAP_KB=32
WRAPS=10
WRAP_REDEFINE=50
# The stalled recorder: its buffers, and how long its recorders stop.
STALL_KB=64
STALL_S=3

start=$(cut -d' ' -f1 /proc/uptime)
rm -rf $D
mkdir -p $D
cd $D || exit 1

n=0
result() { # ok|"not ok" description
	n=$((n + 1))
	echo "$1 $n tracecmd - $2"
}

check() { # description command...
	desc=$1
	shift
	if "$@"; then
		result ok "$desc"
	else
		result "not ok" "$desc"
	fi
}

# A fork loop held on a fifo until go() opens it: $wl is its pid, for
# the event filters. $1 forks, then with $2=reset a stack map reset
# between two trace_marker lines, and $1 forks again; with $2=pause, it
# creates $D/paused and waits until $D/go2 is opened before the second
# $1 forks.
workload() { # forks [reset|pause]
	rm -f $D/go $D/go2 $D/paused
	mkfifo $D/go $D/go2
	sh -c '
		: < '$D/go'
		fork_loop() {
			i=0
			while [ $i -lt $1 ]; do
				/bin/true
				i=$((i + 1))
			done
		}
		fork_loop $1
		if [ "$2" = pause ]; then
			: > '$D'/paused
			: < '$D/go2'
			fork_loop $1
			exit 0
		fi
		[ "$2" = reset ] || exit 0
		echo stackmap-reset-begin > '$T'/trace_marker
		echo reset > '$T'/stack_map
		echo $? > '$D'/reset.rc
		echo stackmap-reset-end > '$T'/trace_marker
		fork_loop $1' sh "$@" &
	wl=$!
}

go() {
	: > $D/go
	wait $wl
}

# -e/-f arguments of trace-cmd record for $EVENTS of the workload.
filters() {
	for e in $EVENTS; do
		case $e in
		sched:sched_process_fork) f="parent_pid == $wl" ;;
		*) f="common_pid == $wl" ;;
		esac
		printf '%s\n' -e "$e" -f "$f"
	done
}

# Both buffers trace the workload's events (trace-cmd turns tracing_on
# off, enables the events, then turns it on in every buffer).
armed() { # instance directories...
	for d; do
		[ "$(cat $d/tracing_on 2>/dev/null)" = 1 ] || return 1
		for e in $EVENTS; do
			[ "$(cat $d/events/${e%%:*}/${e#*:}/enable 2>/dev/null)" = 1 ] ||
				return 1
		done
	done
}

# trace-cmd record of the workload: the top instance with stack ids, the
# twin with full stacks. Sets $rc to trace-cmd's exit status.
record() { # name forks [reset]
	name=$1
	shift
	workload "$@"
	echo 0 > $T/tracing_on
	[ -e $T/options/stackmap-defs ] && echo 1 > $T/options/stackmap-defs
	# One argument a line: the filters have blanks.
	args=$(filters)
	IFS='
'
	set -- $args
	unset IFS
	trace-cmd record -o $D/$name.dat -O stacktrace -O stackmap "$@" \
		-B twin -O stacktrace "$@" > $D/$name.log 2>&1 &
	tc=$!
	i=0
	while ! armed $T $T/instances/twin; do
		i=$((i + 1))
		if [ $i -gt 600 ] || ! kill -0 $tc 2>/dev/null; then
			echo "tracecmd: $name: trace-cmd did not start tracing" >> $D/$name.log
			break
		fi
		sleep 0.1 2>/dev/null || sleep 1
	done
	go
	kill -INT $tc
	wait $tc
	rc=$?
	cat $D/$name.log
	# The map of the top instance, to diagnose an id that did not
	# resolve (the host's checks use no map).
	cat $T/stack_map_bin > $D/$name.stack_map_bin
	echo 1 > $T/tracing_on
}

# trace-cmd prints "CPU N: M events lost" for an overrun of a buffer.
no_loss() { # name
	! grep -q 'events lost' $D/$1.log
}

nonempty_run() { # name
	echo "# $1: exit status $rc, $(wc -c < $D/$1.dat 2>/dev/null) bytes"
	[ $rc -eq 0 ] && [ -s $D/$1.dat ]
}

# Has every CPU's buffer of instance $1 that holds events overwritten
# $2 times what it holds?
wrapped() { # dir times
	cat "$1"/per_cpu/cpu*/stats | awk -v times="$2" '
		$1 == "entries:" { e = $2 }
		$1 == "overrun:" { if (e > 0) { n++; if ($2 < times * e) short++ } }
		END { exit !(n > 0 && !short) }'
}

# The pids of the children of $1.
children() { # pid
	for s in /proc/[0-9]*/stat; do
		# shellcheck disable=SC2034 # comm and state are skipped
		read -r pid comm state ppid rest < "$s" 2>/dev/null || continue
		[ "$ppid" = "$1" ] && echo "$pid"
	done
}

# A new instance $1 in overwrite mode, $2 KiB per CPU, tracing off,
# stacks recorded as ids.
overwrite_instance() { # dir kb
	mkdir $1
	echo 0 > $1/tracing_on
	echo $2 > $1/buffer_size_kb
	echo 1 > $1/options/overwrite
	echo 1 > $1/options/stacktrace
	echo 1 > $1/options/stackmap
}

echo "KTAP version 1"
echo "1..18"

v=$(trace-cmd --version 2>&1 | grep 'trace-cmd version')
echo "# $v"
check "trace-cmd runs in the guest" [ -n "$v" ]

echo "tracecmd: record"
record record $FORKS
check "record: trace-cmd record exited 0, record.dat not empty" \
	nonempty_run record
check "record: no event lost" no_loss record
# Without the project's plugin: a smoke test of the guest's trace-cmd.
trace-cmd report -i $D/record.dat > $D/report.txt 2>&1
check "record: trace-cmd report reads it in the guest" \
	grep -q '<stack_id 0x' $D/report.txt

echo "tracecmd: flight recorder"
F=$T/instances/flight
overwrite_instance $F $FLIGHT_KB
workload $FLIGHT_FORKS
for e in $EVENTS; do
	d=$F/events/${e%%:*}/${e#*:}
	case $e in
	sched:sched_process_fork) echo "parent_pid == $wl" > $d/filter ;;
	*) echo "common_pid == $wl" > $d/filter ;;
	esac
	echo 1 > $d/enable
done
echo 1 > $F/tracing_on
go
echo emit > $F/stack_map
# shellcheck disable=SC2320 # echo's status is that of its write
emit=$?
echo 0 > $F/tracing_on
cat $F/stack_map > $D/flight.stack_map
cat $F/stack_map_bin > $D/flight.stack_map_bin
cat $F/stack_map_stat > $D/flight.stack_map_stat
overrun=$(cat $F/per_cpu/cpu*/stats | awk '$1 == "overrun:" { n += $2 } END { print n + 0 }')
echo "# flight: $overrun events overwritten"
check "flight: stack_map accepted emit" [ $emit -eq 0 ]
check "flight: the workload overwrote the buffer" [ "$overrun" -gt 0 ]
trace-cmd extract -B flight -o $D/flight.dat > $D/flight.log 2>&1
rc=$?
cat $D/flight.log
check "flight: trace-cmd extract exited 0, flight.dat not empty" \
	nonempty_run flight
check "flight: stack_map saved after the emit is not empty" \
	[ -s $D/flight.stack_map ]
# trace-cmd 3.1.6 extract removes the instance it extracted.
if [ -d $F ]; then
	echo 0 > $F/options/stackmap
	rmdir $F
fi

echo "tracecmd: reset"
record reset $FORKS reset
check "reset: trace-cmd record exited 0, reset.dat not empty" \
	nonempty_run reset
check "reset: stack_map accepted reset while recording" \
	[ "$(cat $D/reset.rc 2>/dev/null)" = 0 ]
check "reset: no event lost" no_loss reset

echo "tracecmd: wrapped"
W=$T/instances/wrapped
overwrite_instance $W $WRAP_KB
for e in $EVENTS; do
	echo 1 > $W/events/${e%%:*}/${e#*:}/enable
done
# Half, not the default: what the plugin then resolves is bounded too.
echo $WRAP_REDEFINE > $W/stack_map_redefine
cat $W/stack_map_redefine > $D/wrapped.redefine
echo "# wrapped: stack_map_redefine $(cat $D/wrapped.redefine)"
# Each round is judged with tracing off, as the check below judges the
# last: events coming in between can change a CPU's entries (definitions
# are bigger than events), and a buffer judged wrapped with tracing on
# could hold more entries than it overwrote ten times by the check.
rounds=0
while [ $rounds -lt 400 ]; do
	echo 1 > $W/tracing_on
	/vm/workload.sh 5 > /dev/null 2>&1
	rounds=$((rounds + 5))
	echo 0 > $W/tracing_on
	! wrapped $W $WRAPS || break
done
cat $W/stack_map > $D/wrapped.stack_map
cat $W/stack_map_stat > $D/wrapped.stack_map_stat
grep -E '^(definitions|redefinitions|records):' $D/wrapped.stack_map_stat | sed 's/^/# wrapped: /'
cat $W/per_cpu/cpu*/stats | awk '$1 == "entries:" || $1 == "overrun:" { print "# wrapped:", $0 }'
check "wrapped: every CPU's buffer overwrote what it holds $WRAPS times ($rounds rounds)" \
	wrapped $W $WRAPS
trace-cmd extract -B wrapped -o $D/wrapped.dat > $D/wrapped.log 2>&1
rc=$?
cat $D/wrapped.log
check "wrapped: trace-cmd extract exited 0, wrapped.dat not empty" \
	nonempty_run wrapped
if [ -d $W ]; then
	echo 0 > $W/options/stackmap
	rmdir $W
fi

# A consuming reader takes the definitions it reads out of the buffer:
# "trace-cmd show -p" reads trace_pipe between two halves of the
# workload, traced since "trace-cmd start"; "trace-cmd extract" then
# reads the second half, whose stacks must have been defined again.
echo "tracecmd: consumed"
workload $FORKS pause
args=$(filters)
IFS='
'
set -- $args
unset IFS
trace-cmd start -O stacktrace -O stackmap "$@" > $D/consumed.log 2>&1
rc=$?
check "consumed: trace-cmd start exited 0" [ $rc -eq 0 ]
: > $D/go
i=0
while [ ! -e $D/paused ] && [ $i -lt 600 ]; do
	sleep 0.1 2>/dev/null || sleep 1
	i=$((i + 1))
done
trace-cmd stop >> $D/consumed.log 2>&1
# With tracing off, trace_pipe ends once it has read the buffer empty.
trace-cmd show -p > $D/consumed.pipe 2>> $D/consumed.log &
reader=$!
i=0
while kill -0 $reader 2>/dev/null && [ $i -lt 1200 ]; do
	sleep 0.1 2>/dev/null || sleep 1
	i=$((i + 1))
done
kill $reader 2>/dev/null
wait $reader
left=$(cat $T/per_cpu/cpu*/stats | awk '$1 == "entries:" { n += $2 } END { print n + 0 }')
echo "# consumed: trace-cmd show -p read $(grep -c '<stack_def 0x' $D/consumed.pipe) definitions, $(grep -c '<stack_id 0x' $D/consumed.pipe) ids; $left events left"
check "consumed: trace-cmd show -p read the first half's definitions and left nothing" \
	[ "$(grep -c '<stack_def 0x' $D/consumed.pipe)" -gt 0 -a "$left" -eq 0 ]
trace-cmd restart >> $D/consumed.log 2>&1
: > $D/go2
wait $wl
trace-cmd stop >> $D/consumed.log 2>&1
cat $T/stack_map > $D/consumed.stack_map
trace-cmd extract -o $D/consumed.dat >> $D/consumed.log 2>&1
rc=$?
cat $D/consumed.log
check "consumed: trace-cmd extract exited 0, consumed.dat not empty" \
	nonempty_run consumed
trace-cmd reset >> $D/consumed.log 2>&1
echo 1 > $T/tracing_on

echo "tracecmd: stalled"
echo 0 > $T/tracing_on
/vm/workload.sh 100000 > /dev/null 2>&1 &
w1=$!
/vm/workload.sh 100000 > /dev/null 2>&1 &
w2=$!
set --
for e in $EVENTS; do
	set -- "$@" -e "$e"
done
trace-cmd record -o $D/stalled.dat -b $STALL_KB -O stacktrace -O stackmap \
	"$@" -B stalled -b $STALL_KB -O stacktrace -O stackmap "$@" \
	> $D/stalled.log 2>&1 &
tc=$!
i=0
while ! armed $T $T/instances/stalled; do
	i=$((i + 1))
	if [ $i -gt 600 ] || ! kill -0 $tc 2>/dev/null; then
		echo "tracecmd: stalled: trace-cmd did not start tracing" >> $D/stalled.log
		break
	fi
	sleep 0.1 2>/dev/null || sleep 1
done
sleep 1
recorders="$(children $tc)"
echo "# stalled: stopping trace-cmd $tc and its recorders" $recorders
kill -STOP $recorders $tc
sleep $STALL_S
kill -CONT $tc $recorders
sleep 1
kill $w1 $w2
wait $w1 $w2 2>/dev/null
# The maps now, while the instance trace-cmd made still exists (it
# removes it when it ends), with both buffers off: no id comes after.
echo 0 > $T/instances/stalled/tracing_on
echo 0 > $T/tracing_on
cat $T/stack_map > $D/stalled.stack_map
cat $T/instances/stalled/stack_map > $D/stalled-instance.stack_map
for d in $T $T/instances/stalled; do
	grep -h '^redefinitions:' $d/stack_map_stat | sed 's/^/# stalled: /'
done
kill -INT $tc
wait $tc
rc=$?
cat $D/stalled.log
echo 1 > $T/tracing_on
check "stalled: trace-cmd record exited 0, stalled.dat not empty" \
	nonempty_run stalled
check "stalled: the stopped recorders lost events" grep -q 'events lost' $D/stalled.log
if [ -d $T/instances/stalled ]; then
	echo 0 > $T/instances/stalled/options/stackmap
	rmdir $T/instances/stalled
fi

rm -f $D/go $D/go2 $D/paused $D/reset.rc $D/report.txt

# Where the "kallsyms" section of a trace.dat begins and ends, from
# trace-cmd's list of the file's sections, in file order.
kallsyms_section() { # file
	trace-cmd dump --sections -i $1 2>/dev/null | awk '
		$1 == "[Section" && $4 ~ /^[0-9]+$/ {
			if (start != "" && end == "")
				end = $4
			if ($5 == "\"kallsyms\",")
				start = $4
		}
		END { if (start != "" && end != "") print start, end }'
}

# Each trace.dat carries the kernel's symbols: a kallsyms section of
# about 300 KB, zstd-compressed, the same bytes in every file of a boot,
# and most of the file. Send that section once: a file whose section
# is the shared one goes as its bytes before and after it, which the
# host joins again (vm/vmtest.sh), checking the whole file's sha256
# listed in split.txt. Any other goes whole.
S=/tmp/tracecmd.send
rm -rf $S
mkdir -p $S
for f in $D/*; do
	name=${f##*/}
	range=
	[ "${name%.dat}" = "$name" ] || range=$(kallsyms_section $f)
	if [ -z "$range" ]; then
		cp $f $S/
		continue
	fi
	set -- $range
	tail -c +$(($1 + 1)) $f | head -c $(($2 - $1)) > $S/section
	if [ ! -e $S/kallsyms.section ]; then
		mv $S/section $S/kallsyms.section
	elif ! cmp -s $S/section $S/kallsyms.section; then
		cp $f $S/
		continue
	fi
	head -c $1 $f > $S/$name.head
	tail -c +$(($2 + 1)) $f > $S/$name.tail
	echo "$name $(sha256sum < $f | cut -d' ' -f1)" >> $S/split.txt
done
rm -f $S/section
ls -l $S
tar -C $S -czf /tmp/tracecmd.tar.gz .
t0=$(cut -d' ' -f1 /proc/uptime)
echo "TRACECMD-BEGIN"
base64 /tmp/tracecmd.tar.gz
echo "TRACECMD-END"
t1=$(cut -d' ' -f1 /proc/uptime)
echo "tracecmd: sent $(wc -c < /tmp/tracecmd.tar.gz) bytes in" \
	"$(awk "BEGIN { print $t1 - $t0 }") s, $(awk "BEGIN { print $t1 - $start }") s in all"
