#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host side of `make vmtest`: boot the guest twice at once, in test mode
# and with stackmap set on the kernel command line (boottest), count the KTAP
# results they send back into the make test results (the parser is
# scripts/ktap.py, the one of the KUnit runs), check the stackmap
# CLI against the map the first boot exported, profile the memory peak
# the second boot made (vm/peak-report.py --check), resolve the last
# boot's ids of a persistent buffer (vm/persist.sh), and fail the run on
# any kernel report on the console (WARN, BUG, lockdep, KASAN, KCSAN,
# ...).
#
# The guest is VM_ARCH's (see vm/arch.sh); its results are named
# vmtest:<...> for x86_64, vmtest-ARCH:<...> otherwise, and its logs go
# to $OUT/vm or $OUT/vm-ARCH. The CLI that decodes the guest's export is
# the host's, as it is for a trace copied off a device.
#
# Usage: vm/vmtest.sh   (KSRC, BUILD, OUT, VM_ARCH from the environment)

set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/vm/arch.sh"
out=${OUT:-$root/out}/vm$vm_tag
step=vmtest$vm_tag
record() {
	"$root/scripts/results.sh" record "$@"
}
mkdir -p "$out"

# The two boots share nothing but the kernel and the initramfs, which
# they only read: they run side by side, each QEMU on a host core of its
# own where the guest's vCPUs share one host thread (x86; vm/arch.sh),
# and their consoles and results go to files of their own.
"$root/vm/run-qemu.sh" test "$out/test" &
pid=$!
# Allocation events from the start of boot, into buffers they do not
# fill: stackmap-boot.tc checks that every one of them got an id. On the
# mono clock, which the guest's make run peak (vm/guest/peak-run.sh)
# reads its times from.
"$root/vm/run-qemu.sh" boottest "$out/boottest" trace_clock=mono \
	trace_options=stackmap,stacktrace trace_stackmap_size=16384 \
	trace_event=kmem:kmem_cache_alloc,kmem:kmalloc,kmem:mm_page_alloc,kmem:kfree,kmem:kmem_cache_free,kmem:mm_page_free \
	trace_buf_size=8M &
pid2=$!
# The persistent buffer's two boots (vm/persist.sh), on the core the
# boottest boot leaves first; on x86_64 also with "emit" before the
# reboot (what emit writes does not depend on the architecture).
(
	while kill -0 $pid2 2> /dev/null; do
		sleep 5
	done
	"$root/vm/persist.sh" > "$out/persist.log" 2>&1
	if [ "$vm_arch" = x86_64 ]; then
		VM_PERSIST_EMIT=1 "$root/vm/persist.sh" >> "$out/persist.log" 2>&1
	fi
) &
pid3=$!
wait $pid
rc=$?
wait $pid2
rc2=$?
wait $pid3
cat "$out/persist.log"

# Both boots' KTAP in one stream (scripts/ktap.py --stream): one result
# per test, named $step:N:<description>, or $step:N:kunit:<suite>:<case>
# for a boot-time KUnit case, N counting over both boots.
cat "$out/test/results.txt" "$out/boottest/results.txt" | tr -d '\r' > "$out/ktap.txt"
results=$("$root/scripts/ktap.py" --stream "$step" "$out/ktap.txt") ||
	record FAIL "$step:ktap-parser"
while read -r status test; do
	[ -n "$status" ] || continue
	# The project's own tests must run on every guest: a skipped
	# stackmap test (a CPU that cannot go offline, a missing option)
	# would leave what this step claims to cover untested.
	case "$status:${test#"$step":*:}" in
	SKIP:stackmap_*|"SKIP:(instance)_stackmap_"*) status=FAIL ;;
	# Nor may a histogram trigger test: the guest has what 6.12's need.
	SKIP:event_trigger_-_*|"SKIP:(instance)_event_trigger_-_"*) status=FAIL ;;
	esac
	record "$status" "$test"
done <<< "$results"
# Why a test failed, on the console of make test (and of CI, whose logs
# may be gone by the time anyone reads them): ftracetest prints a failed
# test's log after its result; show the last lines of it that are not the
# shell's trace of commands.
awk -v step="$step" '
	function show() {
		if (name != "") {
			print "  " step ": " name
			for (i = 0; i < n; i++)
				print "    " last[i]
		}
		name = ""
		n = 0
	}
	/^(not )?ok / { show(); if ($1 == "not") name = $0; next }
	name != "" && /^# / && !/^# \+/ {
		if (n == 8) {
			for (i = 1; i < n; i++)
				last[i - 1] = last[i]
			n--
		}
		last[n++] = substr($0, 3)
	}
	END { show() }' "$out/ktap.txt" >&2

# The stackmap CLI on the kernel's own export: dump must print what
# stack_map prints, expand what the kernel's stackmap-expand prints.
snap=$out/snapshot
tool=$root/linux/tools/tracing/stackmap/build/stackmap
rm -rf "$snap"
mkdir -p "$snap"
if sed -n '/^SNAPSHOT-BEGIN$/,/^SNAPSHOT-END$/p' "$out/ktap.txt" | sed '1d;$d' |
	base64 -d | tar -xzf - -C "$snap" 2>/dev/null && [ -s "$snap/stack_map" ]; then
	if "$tool" dump --kallsyms "$snap/kallsyms" "$snap/stack_map_bin" > "$snap/dump.txt" &&
	   cmp -s "$snap/dump.txt" "$snap/stack_map"; then
		record PASS "$step:tools:dump-equals-stack_map"
	else
		record FAIL "$step:tools:dump-equals-stack_map"
	fi
	if "$tool" expand --map "$snap/stack_map_bin" --kallsyms "$snap/kallsyms" \
		"$snap/trace" > "$snap/expand.txt" &&
	   grep -q '<stack trace>' "$snap/expand.txt" &&
	   cmp -s "$snap/expand.txt" "$snap/trace.expanded"; then
		record PASS "$step:tools:expand-equals-kernel-expand"
	else
		record FAIL "$step:tools:expand-equals-kernel-expand"
	fi
else
	record FAIL "$step:tools:snapshot-received"
fi

# The trace.dat files the guest recorded with Debian's trace-cmd
# (vm/guest/tracecmd.sh), reported by the host's trace-cmd with the
# stackmap plugin and no map file, and by "stackmap report", and checked
# by vm/check-tracecmd.py: results $step:tracecmd:TEST-CHECK.
tc=$out/tracecmd
plugins=$root/linux/tools/tracing/stackmap/build
rm -rf "$tc"
mkdir -p "$tc/received"
# The guest sends each file's kallsyms section once for all: join them.
tracecmd_receive() {
	local name sum

	sed -n '/^TRACECMD-BEGIN$/,/^TRACECMD-END$/p' "$out/ktap.txt" | sed '1d;$d' |
		base64 -d | tar -xzf - -C "$tc/received" 2>/dev/null || return 1
	cp "$tc/received"/*.stack_map "$tc/received"/*.log \
		"$tc/received"/*.redefine "$tc/" 2>/dev/null
	[ ! -e "$tc/received/split.txt" ] || while read -r name sum; do
		cat "$tc/received/$name.head" "$tc/received/kallsyms.section" \
			"$tc/received/$name.tail" > "$tc/$name" || return 1
		if [ "$(sha256sum < "$tc/$name" | cut -d' ' -f1)" != "$sum" ]; then
			echo "tracecmd: $name: joined file differs from the guest's" >&2
			return 1
		fi
	done < "$tc/received/split.txt"
	for name in "$tc/received"/*.dat; do
		[ ! -e "$name" ] || cp "$name" "$tc/"
	done
	for name in record reset flight wrapped consumed stalled; do
		[ -s "$tc/$name.dat" ] || return 1
	done
}
# Record the results CHECKS of the checker's output FILE as
# $step:tracecmd:TEST-CHECK, FAIL for any it did not print, and show
# why they failed.
tracecmd_results() { # TEST FILE CHECKS...
	local test=$1 file=$2
	shift 2

	"$root/scripts/results.sh" checks "$file" "$step:tracecmd:$test-" "$@"
	sed "s/^/  $test: /" "$file"
}
# "trace-cmd report" of TEST.dat: TEST.raw.txt without any plugin (the
# ids), TEST.txt with the stackmap plugin and no map, TEST.stat.
tracecmd_report() { # TEST
	trace-cmd report -N -i "$tc/$1.dat" > "$tc/$1.raw.txt" 2>&1
	env -u STACKMAP_MAP TRACEEVENT_PLUGIN_DIR="$plugins" \
		trace-cmd report -i "$tc/$1.dat" > "$tc/$1.txt" 2> "$tc/$1.err"
	trace-cmd report --stat -i "$tc/$1.dat" > "$tc/$1.stat" 2>&1
}
# The checker knows the guest kernel's aliases (two names of one
# address) from the symbols trace-cmd saved.
checker() {
	"$root/vm/check-tracecmd.py" ${kallsyms:+--kallsyms "$kallsyms"} "$@"
}
kallsyms=
: > "$tc/record.check"
: > "$tc/reset.check"
: > "$tc/flight.check"
: > "$tc/wrapped.check"
: > "$tc/consumed.check"
: > "$tc/stalled.check"
if tracecmd_receive; then
	record PASS "$step:tracecmd:files-received"
	trace-cmd dump --kallsyms -i "$tc/record.dat" > "$tc/kallsyms" 2>/dev/null &&
		kallsyms=$tc/kallsyms
	for test in record reset; do
		opt=()
		[ "$test" = reset ] && opt=(--reset)
		tracecmd_report $test
		checker twin "${opt[@]}" --raw "$tc/$test.raw.txt" \
			--stat "$tc/$test.stat" "$tc/$test.txt" > "$tc/$test.check" 2>&1
	done
	# The flight recorder's ids come before the definitions "emit"
	# wrote: a two-pass reader resolves them.
	trace-cmd report -N -i "$tc/flight.dat" > "$tc/flight.raw.txt" 2>&1
	if ! "$tool" report --help > /dev/null 2>&1; then
		echo "# this tree's stackmap has no \"report\" command" \
			"(tools/tracing/stackmap)" > "$tc/flight.check"
	elif ! "$tool" report "$tc/flight.dat" > "$tc/flight.txt" 2> "$tc/flight.err"; then
		{ echo "# stackmap report failed:"; sed 's/^/#   /' "$tc/flight.err"; } \
			> "$tc/flight.check"
	else
		checker map --raw "$tc/flight.raw.txt" --counts "$tc/flight.err" \
			"$tc/flight.txt" "$tc/flight.stack_map" > "$tc/flight.check" 2>&1
	fi
	# The wrapped flight recorder, without "emit": with the definitions
	# the kernel wrote again as the buffer wrapped, a reader of the whole
	# trace misses only ids among the oldest stack_map_redefine percent
	# of their CPU's events, of stacks not used since (a burst of one
	# stack at the edge, as the workload's last "ls /proc/self" can be);
	# the plugin, which resolves as it reads, misses at most about that
	# share of each CPU's buffer.
	tracecmd_report wrapped
	redefine=$(cat "$tc/wrapped.redefine" 2>/dev/null || echo 0)
	"$tool" report "$tc/wrapped.dat" > "$tc/wrapped.2.txt" 2> "$tc/wrapped.2.err"
	{
		checker map --min-share $((100 - redefine)) --edge "$redefine" \
			--raw "$tc/wrapped.raw.txt" \
			--counts "$tc/wrapped.2.err" "$tc/wrapped.2.txt" \
			"$tc/wrapped.stack_map"
		checker map --prefix plugin --min-share $((100 - redefine)) \
			--raw "$tc/wrapped.raw.txt" --counts - "$tc/wrapped.txt" \
			"$tc/wrapped.stack_map"
	} > "$tc/wrapped.check" 2>&1
	# After a recorder that stopped: every id resolves, in one pass as
	# in two, from the definitions written again after it.
	tracecmd_report consumed
	"$tool" report "$tc/consumed.dat" > "$tc/consumed.2.txt" 2> "$tc/consumed.2.err"
	{
		checker map --raw "$tc/consumed.raw.txt" \
			--counts "$tc/consumed.2.err" "$tc/consumed.2.txt" \
			"$tc/consumed.stack_map"
		checker map --prefix plugin --raw "$tc/consumed.raw.txt" \
			--counts - "$tc/consumed.txt" "$tc/consumed.stack_map"
	} > "$tc/consumed.check" 2>&1
	# The stalled recorder: both buffers lost what their stopped
	# recorders did not read; the definitions follow the loss.
	tracecmd_report stalled
	"$tool" report "$tc/stalled.dat" > "$tc/stalled.2.txt" 2> "$tc/stalled.2.err"
	checker stalled --raw "$tc/stalled.raw.txt" \
		--two-pass "$tc/stalled.2.txt" --counts "$tc/stalled.2.err" \
		--map top="$tc/stalled.stack_map" \
		--map stalled="$tc/stalled-instance.stack_map" \
		"$tc/stalled.txt" > "$tc/stalled.check" 2>&1
else
	record FAIL "$step:tracecmd:files-received"
fi
tracecmd_results record "$tc/record.check" no-loss ids-resolve equals-twin
tracecmd_results reset "$tc/reset.check" no-loss ids-resolve equals-twin new-ids
tracecmd_results flight "$tc/flight.check" ids-resolve equals-stack_map
tracecmd_results wrapped "$tc/wrapped.check" ids-resolve equals-stack_map \
	plugin-ids-resolve plugin-equals-stack_map
tracecmd_results consumed "$tc/consumed.check" ids-resolve equals-stack_map \
	plugin-ids-resolve plugin-equals-stack_map
tracecmd_results stalled "$tc/stalled.check" lost-events two-pass-resolve \
	plugin-after-drop equals-stack_map own-buffer

# make run's memory peak, made in the boot traced from the command line
# (vm/guest/peak-run.sh) into buffers it does not fill, and found here in
# the trace alone: the peak lies while the pipes are open, where
# pipe_write()'s stacks hold one page per pipe, and none once the pipes
# are closed (vm/peak-report.py --check):
# results $step:peak:CHECK.
pk=$out/peak
rm -rf "$pk"
mkdir -p "$pk"
sed -n '/^PEAK-BEGIN$/,/^PEAK-END$/p' "$out/ktap.txt" | sed '1d;$d' |
	base64 -d 2>/dev/null | tar -xzf - -C "$pk" 2>/dev/null
STACKMAP_TOOLS=$plugins "$root/vm/peak-report.py" --check "$pk" > "$pk/check.txt" 2>&1
"$root/scripts/results.sh" checks "$pk/check.txt" "$step:peak:" received \
	peak-found-in-trace pipe_write-holds-one-page-per-pipe \
	pipe_write-holds-none-after layers-apart pprof-inuse_space-pipe_write \
	svg-written
sed 's/^/  peak: /' "$pk/check.txt"

for boot in test boottest; do
	status=PASS
	[ "$boot" = test ] && [ "$rc" -ne 0 ] && status=FAIL
	[ "$boot" = boottest ] && [ "$rc2" -ne 0 ] && status=FAIL
	record $status "$step:$boot:guest-exited-cleanly"
	# A guest whose tests stopped halfway still reaches "vm: done".
	# One grep on the file: "tr | grep -q" under pipefail fails when
	# grep quits on the match before tr wrote what follows it (SIGPIPE).
	if grep -qx -e 'vmtest: end' -e $'vmtest: end\r' "$out/$boot/results.txt"; then
		record PASS "$step:$boot:tests-finished"
	else
		record FAIL "$step:$boot:tests-finished"
		echo "  $step: $boot: no 'vmtest: end'; the results end with:"
		tail -n 5 "$out/$boot/results.txt" | tr -d '\r' | sed 's/^/    /'
	fi
	if "$root/vm/console-check.sh" "$out/$boot/console.log"; then
		record PASS "$step:$boot:console-clean"
	else
		record FAIL "$step:$boot:console-clean"
	fi
done
exit 0
