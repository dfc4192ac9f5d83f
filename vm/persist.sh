#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The last boot's trace, resolved: a guest traces kmem events with stack
# ids from boot into a persistent instance ("pb", in memory reserved on
# the kernel command line) until every CPU's buffer wrapped, and goes
# down with reboot -f; a second QEMU boots the same kernel on the same
# memory (a memory-backend-file, shared: QEMU's own reset is not needed),
# traces into the same buffer from its own boot, behind the last boot's
# events, and reads it out with Debian's trace-cmd extract and as trace
# text (vm/guest/persist.sh). On the host, each id must resolve with its
# own boot's definitions, never the other's, against each boot's
# stack_map:
#
#   persist:files-received      both boots sent their files
#   persist:report-BOOT-ids-resolve, persist:report-BOOT-equals-stack_map
#                               "stackmap report" (two passes): the
#                               last boot's ids at least 99%, this
#                               boot's all
#   persist:plugin-BOOT-...     the same of trace-cmd report with the
#                               plugin, which resolves in one pass: none
#                               wrong
#   persist:report-boots-apart  both boots' ids are in the buffer, and
#                               some id value has another stack in each
#   persist:kernel-text         the instance's trace file names the
#                               markers, and with stackmap-expand prints
#                               ids unexpanded, saying why
#   persist:kernel-defs-equal-stack_map
#                               the last boot's definitions as the trace
#                               file prints them: the last boot's stacks
#   persist:profile-one-boot    "stackmap profile --inuse peak" refuses
#                               the two boots' buffer without --boot,
#                               and replays the last boot's with it
#
# persist-emit (VM_PERSIST_EMIT=1): "emit" on every CPU before the
# reboot, the next boot kept out of the buffer with ^traceoff (its emit
# must write nothing), and KASLR where the kernel has it (x86_64): the
# last boot's ids all resolve, their frames moved by the text delta
# (persist-emit:text-delta: last_boot_info gave one, and the tools used
# it), in the tools and in the trace file.
#
# The region: memmap= on x86 (fixed: SeaBIOS writes into part of the
# top of a 512 MiB guest, where reserve_mem would put it), reserve_mem
# on arm64 (see ../shared notes on the persistent buffer under QEMU).
# Every other boot has KASLR off (vm/run-qemu.sh): the text delta is 0.
#
# vm/persist.sh retained (make run): only the first boot, with stackmap
# and without, and how many of its events each keeps in the same
# reserved memory for the next boot to read.
#
# Usage: vm/persist.sh [retained]   (VM_ARCH, BUILD, OUT from the
#        environment; VM_PERSIST_EMIT=1 for the emit variant)

set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/vm/arch.sh"
emit=${VM_PERSIST_EMIT:-0}
step=vmtest$vm_tag
name=persist
[ "$emit" = 1 ] && name=persist-emit
out=${OUT:-$root/out}/vm$vm_tag/$name
plugins=$root/linux/tools/tracing/stackmap/build
tool=$plugins/stackmap
record() {
	"$root/scripts/results.sh" record "$@"
}
rm -rf "$out"
mkdir -p "$out"

# The two boots trace other events: their depots give the same id values
# to other stacks, which a reader must not mix up.
events1=kmem:kmalloc,kmem:kmem_cache_alloc,kmem:mm_page_alloc
events2=kmem:kfree,kmem:kmem_cache_free,kmem:kmalloc
size=4M
case "$vm_arch" in
arm64)
	region=(reserve_mem=$size:4096:pbmem trace_instance=pb^stacktrace^stackmap@pbmem)
	;;
*)
	region=("memmap=$size\$0x10000000" "trace_instance=pb^stacktrace^stackmap@0x10000000:$size")
	;;
esac
# The emit variant keeps the next boot out of the buffer (^traceoff, as
# the guide advises): 6.12's ring buffer goes on writing at the start of
# the last boot's last sub-buffer, and "emit" puts the last boot's
# definitions there. Its boots have KASLR where the kernel has it
# (x86_64): the frames of the last boot move by a text delta.
region2=("${region[@]}")
kaslr=0
if [ "$emit" = 1 ]; then
	region2[1]=${region[1]/@/^traceoff@}
	[ "$vm_arch" = x86_64 ] && kaslr=1
fi
mem=$out/memory
rm -f "$mem"
if [ "${1:-}" = retained ]; then
	for opts in stacktrace^stackmap stacktrace; do
		d=$out/retained-${opts//^/-}
		VM_MEM=512 VM_MEM_FILE=$mem "$root/vm/run-qemu.sh" persist1 "$d" \
			kunit.enable=0 "${region[0]}" \
			"${region[1]/stacktrace^stackmap/$opts},$events1" ||
			{ echo "persist: the guest failed; see $d/console.log" >&2; exit 1; }
		rm -f "$mem"
		mkdir -p "$d/files"
		tr -d '\r' < "$d/results.txt" |
			sed -n '/^PERSIST-BEGIN$/,/^PERSIST-END$/p' | sed '1d;$d' |
			base64 -d 2>/dev/null | tar -xzf - -C "$d/files" 2>/dev/null
	done
	on=$(cat "$out/retained-stacktrace-stackmap/files/events" 2>/dev/null || echo 0)
	off=$(cat "$out/retained-stacktrace/files/events" 2>/dev/null || echo 0)
	[ "$on" -gt 0 ] && [ "$off" -gt 0 ] ||
		{ echo "persist: no event count from the guests (on: $on, off: $off)" >&2; exit 1; }
	echo "Persistent buffer (4 MiB reserved, $events1 with stacks from boot"
	echo "until each CPU's buffer overwrote twice what it holds, then reboot -f): the"
	echo "events the next boot finds of the last boot: $on with stackmap, $off with" \
		"full stacks: $(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.2fx", a / b }')."
	exit 0
fi
for boot in 1 2; do
	events=$events1
	args=("${region[@]}")
	if [ $boot = 2 ]; then
		events=$events2
		args=("${region2[@]}")
	fi
	VM_KASLR=$kaslr VM_MEM=512 VM_MEM_FILE=$mem \
		"$root/vm/run-qemu.sh" "persist$boot" "$out/boot$boot" \
		kunit.enable=0 "${args[0]}" "${args[1]},$events" \
		"vm.persist_emit=$emit" || true
	mkdir -p "$out/$boot"
	tr -d '\r' < "$out/boot$boot/results.txt" |
		sed -n '/^PERSIST-BEGIN$/,/^PERSIST-END$/p' | sed '1d;$d' |
		base64 -d 2>/dev/null | tar -xzf - -C "$out/$boot" 2>/dev/null
done
rm -f "$mem"

check() { # FILE CHECK...: record each CHECK's result in FILE
	local file=$1
	shift
	"$root/scripts/results.sh" checks "$file" "$step:$name:" "$@"
	# Show the lines of these checks only: the checker also writes those
	# of the checks a variant does not make (the emit variant's next
	# boot writes nothing), whose FAIL would only mislead in the log.
	awk -v names=" $* " -v pre="  $name: " '
		/^# [^ :]+:/ { n = $2; sub(/:$/, "", n) }
		/^(PASS|FAIL|SKIP) / { n = $2 }
		index(names, " " n " ") { print pre $0 }' "$file"
}

d=$out/2
last=last=$out/1/stack_map,$out/1/stack_map_stat
this=this=$out/2/stack_map,$out/2/stack_map_stat
share=99
[ "$emit" = 1 ] && share=100
# The text delta the second boot's last_boot_info gives, for the tools.
delta=$(sed -n 's/^text delta:[[:space:]]*//p' "$d/last_boot_info" 2>/dev/null)
if [ -s "$out/1/stack_map" ] && [ -s "$d/pb.dat" ]; then
	record PASS "$step:$name:files-received"
	trace-cmd report -N -i "$d/pb.dat" > "$d/raw.txt" 2>&1
	"$tool" report --last-boot-info "$d/last_boot_info" "$d/pb.dat" \
		> "$d/report.txt" 2> "$d/report.err"
	env -u STACKMAP_MAP TRACEEVENT_PLUGIN_DIR="$plugins" \
		trace-cmd report -O "stackmap:text_delta=${delta:-0}" \
		-i "$d/pb.dat" > "$d/plugin.txt" 2> "$d/plugin.err"
	# Two names of one address (an interrupt taken in __pi_memcpy, which
	# is __memcpy) are one frame.
	trace-cmd dump --kallsyms -i "$d/pb.dat" > "$d/kallsyms" 2>/dev/null
	checker=("$root/vm/check-tracecmd.py" --kallsyms "$d/kallsyms" boots)
	{
		"${checker[@]}" --prefix report --buffer pb \
			--min-share $share --raw "$d/raw.txt" --counts "$d/report.err" \
			--last "$last" --this "$this" "$d/report.txt"
		# One pass resolves an id once its definition was read: what
		# it prints must be right; how many is the two-pass's figure.
		"${checker[@]}" --prefix plugin --buffer pb \
			--min-share 0 --raw "$d/raw.txt" --counts - \
			--last "$last" --this "$this" "$d/plugin.txt"
	} > "$out/check.txt" 2>&1
	# The kernel's own text: the markers, and no id looked up in this
	# boot's depot while the buffer may hold the last boot's.
	markers=$(cat "$d/trace.markers" 2>/dev/null || echo 0)
	unexpanded=$(cat "$d/expand.unexpanded" 2>/dev/null || echo 0)
	expanded=-
	if [ -s "$d/expand.expanded" ] && [ -s "$d/trace.full" ]; then
		expanded=$(($(cat "$d/expand.expanded") - $(cat "$d/trace.full")))
	fi
	echo "# kernel-text: the trace file: $markers markers; with" \
		"stackmap-expand, $unexpanded ids said unexpanded, $expanded" \
		"stacks expanded (besides $(cat "$d/trace.full" 2>/dev/null)" \
		"full stacks)" >> "$out/check.txt"
	if [ "$markers" -gt 0 ] && [ "$unexpanded" -gt 0 ] && [ "$expanded" = 0 ]; then
		echo "PASS kernel-text" >> "$out/check.txt"
	else
		echo "FAIL kernel-text" >> "$out/check.txt"
	fi
	# profile takes one boot at a time: without --boot, it refuses a
	# buffer that holds both boots' events, naming them.
	token1=$(sed -n 's/^boot_marker: //p' "$out/1/stack_map_stat")
	prof=("$tool" profile --inuse peak --layer page --instance pb --folded
	      --last-boot-info "$d/last_boot_info")
	"${prof[@]}" "$d/pb.dat" > "$d/profile.txt" 2> "$d/profile.err"
	rc_any=$?
	"${prof[@]}" --boot "$token1" "$d/pb.dat" > "$d/profile.last.txt" \
		2> "$d/profile.last.err"
	rc_last=$?
	if [ "$emit" = 1 ]; then
		want="exit 0, the same as with --boot"
		cmp -s "$d/profile.txt" "$d/profile.last.txt" && [ $rc_any = 0 ]
	else
		want="exit 2, naming both boots"
		[ $rc_any = 2 ] && grep -q 'holds the events of 2 boots' "$d/profile.err"
	fi
	ok=$?
	echo "# profile-one-boot: without --boot exit $rc_any ($want):" \
		"$(head -c 200 "$d/profile.err" | head -1); with --boot" \
		"$token1 exit $rc_last, $(wc -l < "$d/profile.last.txt") stacks" \
		>> "$out/check.txt"
	if [ $ok = 0 ] && [ $rc_last = 0 ] && [ -s "$d/profile.last.txt" ]; then
		echo "PASS profile-one-boot" >> "$out/check.txt"
	else
		echo "FAIL profile-one-boot" >> "$out/check.txt"
	fi
	# The definitions the kernel prints of the last boot, moved by the
	# text delta as the rest of its output.
	"$root/vm/check-tracecmd.py" --kallsyms "$d/kallsyms" kernel-defs \
		--token "$(sed -n 's/^boot_marker: //p' "$out/1/stack_map_stat")" \
		"$d/trace.defs" "$out/1/stack_map" >> "$out/check.txt" 2>&1
	if [ -n "$delta" ]; then
		echo "# text-delta: last_boot_info gives $delta (the second" \
			"boot's kernel text minus the first's$([ "$kaslr" = 1 ] &&
			echo ", KASLR on both")); the tools were given it" \
			>> "$out/check.txt"
		echo "PASS text-delta" >> "$out/check.txt"
	else
		echo "# text-delta: no \"text delta:\" in last_boot_info" >> "$out/check.txt"
		echo "FAIL text-delta" >> "$out/check.txt"
	fi
else
	record FAIL "$step:$name:files-received"
	: > "$out/check.txt"
fi
if [ "$emit" = 1 ]; then
	# The next boot wrote nothing into the buffer (^traceoff).
	check "$out/check.txt" report-last-ids-resolve \
		report-last-equals-stack_map plugin-last-equals-stack_map \
		kernel-text kernel-defs-equal-stack_map text-delta \
		profile-one-boot
else
	check "$out/check.txt" report-boots-apart \
		report-last-ids-resolve report-last-equals-stack_map \
		report-this-ids-resolve report-this-equals-stack_map \
		plugin-last-equals-stack_map plugin-this-equals-stack_map \
		kernel-text kernel-defs-equal-stack_map profile-one-boot
fi
for boot in 1 2; do
	if "$root/vm/console-check.sh" "$out/boot$boot/console.log"; then
		record PASS "$step:$name:boot$boot-console-clean"
	else
		record FAIL "$step:$name:boot$boot-console-clean"
	fi
done
exit 0
