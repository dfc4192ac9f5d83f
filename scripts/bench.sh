#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `make bench`: every benchmark of the project in one run, side by side.
#
#   1. kernel: the KUnit suite stackdepot_lf_bench in UML without
#      sanitizers: stackdepot_lf against stack_depot_save()/fetch() and the
#      full-stack copy on the same stacks; bytes per stored stack
#   2. harness: the userspace benchmark for 1..N threads, with callgrind
#      instruction counts (scripts/bench on the harness's shim)
#   3. vm: per-event cost of stack tracing with stackmap off and on in the
#      QEMU guest, on a kernel without lockdep (configs/vm-bench.config): once
#      with multi-threaded TCG (wall time), once with -icount shift=0, where
#      the guest clock counts instructions and the figures repeat exactly;
#      the same boots measure histogram triggers keyed on stacks, and a
#      second kernel without HIST_TRIGGERS_STACK_IDS
#      (configs/vm-bench-hist16.config) measures 6.12's 16-frame keys
#      under -icount, for the id against the frames side by side
#   4. profile: where the instructions of one stack event go in that guest,
#      per function, stackmap off and on: gdb single-steps sampled calls
#      of __ftrace_trace_stack() from the end of the unwind to the return
#      (scripts/bench-profile.py)
#   hist: only the histogram part of 3, both kernels under -icount (the
#      bench kernel's boot with vm.bench_only=hist, into vm-hist-icount);
#      not a default part, and nothing to do when vm runs
#
# Raw outputs and JSON go to $OUT/bench/; scripts/bench-report.py prints the
# tables and writes $OUT/bench/bench.json. Nothing here asserts a time;
# the exit status is non-zero only if a part failed to run or a
# benchmark's own correctness checks failed.
#
# Knobs (environment): BENCH_ROUNDS (kernel rounds, default 15),
# BENCH_REPS (harness and VM repetitions, default 5), BENCH_THREADS
# (harness threads, default: CPUs), BENCH_PARTS (default "kernel harness
# vm profile"; "hist" too).

set -uo pipefail

. "$(dirname "$0")/common.sh"
out=$out/bench
rounds=${BENCH_ROUNDS:-15}
reps=${BENCH_REPS:-5}
parts=${BENCH_PARTS:-kernel harness vm profile}
profile_n=${BENCH_PROFILE_N:-8}
failed=()

die() {
	echo "make bench: $*" >&2
	exit 2
}

[[ "$rounds" =~ ^[0-9]+$ ]] && [ "$rounds" -ge 1 ] && [ "$rounds" -le 51 ] ||
	die "BENCH_ROUNDS='$rounds': want an integer from 1 to 51"
[[ "$reps" =~ ^[0-9]+$ ]] && [ "$reps" -ge 1 ] && [ "$reps" -le 99 ] ||
	die "BENCH_REPS='$reps': want an integer from 1 to 99"
[[ "$profile_n" =~ ^[0-9]+$ ]] && [ "$profile_n" -ge 1 ] && [ "$profile_n" -le 99 ] ||
	die "BENCH_PROFILE_N='$profile_n': want an integer from 1 to 99"
for p in $parts; do
	case "$p" in
	kernel|harness|vm|profile|hist) ;;
	*) die "BENCH_PARTS: unknown part '$p' (kernel, harness, vm, profile, hist)" ;;
	esac
done

rm -rf "$out"
mkdir -p "$out"
start=$(date +%s)

stamp() {
	echo "  BENCH   $1 ($(( $(date +%s) - start )) s)"
}

bench_kernel() {
	local dir=$build/bench-uml
	stamp "kernel: KUnit stackdepot_lf_bench in UML, $rounds rounds"
	rm -f "$dir/test.log"
	(cd "$ksrc" && python3 tools/testing/kunit/kunit.py run \
		--kunitconfig="$root/configs/kunit-bench.config" \
		--build_dir="$dir" --jobs="$jobs" --timeout=900 \
		--kernel_args="stackdepot_lf_bench_kunit.rounds=$rounds") \
		> "$out/kernel.out" 2>&1
	local rc=$?
	[ -f "$dir/test.log" ] && cp "$dir/test.log" "$out/kernel.log"
	[ $rc -eq 0 ] || { tail -20 "$out/kernel.out" >&2; return 1; }
}

bench_harness() {
	stamp "harness: userspace benchmark, $reps repetitions"
	make --no-print-directory -C "$scripts/bench" bench O="$build/bench-user" \
		BENCH_REPS="$reps" BENCH_JSON="$out/harness.json" \
		${BENCH_THREADS:+BENCH_THREADS=$BENCH_THREADS} \
		> "$out/harness.txt" 2>&1 ||
		{ tail -20 "$out/harness.txt" >&2; return 1; }
}

# The guest is x86_64's: the -icount figures are compared across runs.
bench_vm() {
	local obj=$build/vm-bench initrd=$build/vm-initramfs.cpio.gz
	stamp "vm: bench kernel (tinyconfig + configs/vm.config + configs/vm-x86_64.config + configs/vm-bench.config)"
	VM_ARCH=x86_64 VM_OBJ=$obj VM_EXTRA_CONFIG=$root/configs/vm-bench.config \
		"$root/vm/build-kernel.sh" > "$out/vm-build.log" 2>&1 ||
		{ tail -20 "$out/vm-build.log" >&2; return 1; }
	VM_ARCH=x86_64 "$root/vm/mkinitramfs.sh" "$initrd" || return 1
	stamp "vm: tracing overhead, stackmap off vs on, $reps repetitions"
	bench_vm_boot vm "tcg,thread=multi" || return 1
	stamp "vm: the same with -icount shift=0 (guest instructions)"
	bench_vm_boot vm-icount "tcg,thread=single -icount shift=0,sleep=off" ||
		return 1
	bench_hist16
}

bench_hist16() {
	stamp "vm: hist16 kernel (the bench kernel + configs/vm-bench-hist16.config)"
	VM_ARCH=x86_64 VM_OBJ=$build/vm-bench-hist16 \
	VM_EXTRA_CONFIG="$root/configs/vm-bench.config $root/configs/vm-bench-hist16.config" \
		"$root/vm/build-kernel.sh" > "$out/vm-hist16-build.log" 2>&1 ||
		{ tail -20 "$out/vm-hist16-build.log" >&2; return 1; }
	stamp "vm: histogram stack keys of 16 frames, -icount shift=0"
	bench_vm_boot vm-hist16-icount "tcg,thread=single -icount shift=0,sleep=off" \
		vm-bench-hist16 vm.bench_only=hist
}

# The histogram part of bench_vm alone, for a change to the hist keys.
bench_hist() {
	local p
	for p in $parts; do
		[ "$p" != vm ] || return 0
	done
	stamp "hist: bench kernel (tinyconfig + configs/vm.config + configs/vm-x86_64.config + configs/vm-bench.config)"
	VM_ARCH=x86_64 VM_OBJ=$build/vm-bench VM_EXTRA_CONFIG=$root/configs/vm-bench.config \
		"$root/vm/build-kernel.sh" > "$out/vm-build.log" 2>&1 ||
		{ tail -20 "$out/vm-build.log" >&2; return 1; }
	VM_ARCH=x86_64 "$root/vm/mkinitramfs.sh" "$build/vm-initramfs.cpio.gz" ||
		return 1
	stamp "hist: histogram stack ids, -icount shift=0"
	bench_vm_boot vm-hist-icount "tcg,thread=single -icount shift=0,sleep=off" \
		vm-bench vm.bench_only=hist || return 1
	bench_hist16
}

# bench_vm_boot NAME ACCEL [OBJ ARGS...]: one boot in bench mode of the
# kernel built in $BUILD/OBJ (vm-bench), results in NAME.txt
bench_vm_boot() {
	local name=$1 accel=$2 obj=${3:-vm-bench}
	shift $(($# < 3 ? $# : 3))
	VM_ARCH=x86_64 VM_KERNEL=$build/$obj/arch/x86/boot/bzImage \
	VM_INITRD=$build/vm-initramfs.cpio.gz VM_TIMEOUT=1200 VM_ACCEL=$accel \
		"$root/vm/run-qemu.sh" bench "$out/$name" "vm.bench_reps=$reps" "$@" ||
		return 1
	"$root/vm/console-check.sh" "$out/$name/console.log" || return 1
	tr -d '\r' < "$out/$name/results.txt" > "$out/$name.txt"
	grep -q '^BENCH-END' "$out/$name.txt" ||
		{ echo "make bench: the guest did not finish; see $out/$name" >&2; return 1; }
}

# One boot of the bench kernel (the vm part's), held
# at its first instruction until gdb attaches on a port of its own;
# two repetitions give each workload and mode time for its samples
# (getppid's fewer: its runs are short, but its stack event is the same
# every time).
bench_profile() {
	local obj=$build/vm-bench initrd=$build/vm-initramfs.cpio.gz port qemu rc
	stamp "profile: instructions of one stack event, $profile_n samples of each workload and mode"
	# Nothing to do if the vm part built them.
	VM_ARCH=x86_64 VM_OBJ=$obj VM_EXTRA_CONFIG=$root/configs/vm-bench.config \
		"$root/vm/build-kernel.sh" > "$out/profile-build.log" 2>&1 ||
		{ tail -20 "$out/profile-build.log" >&2; return 1; }
	VM_ARCH=x86_64 "$root/vm/mkinitramfs.sh" "$initrd" || return 1
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	VM_ARCH=x86_64 VM_KERNEL=$obj/arch/x86/boot/bzImage VM_INITRD=$initrd \
	VM_TIMEOUT=3600 VM_STALL=1800 \
	VM_ACCEL="tcg,thread=single -gdb tcp:127.0.0.1:$port -S" \
		"$root/vm/run-qemu.sh" bench "$out/profile" vm.bench_reps=2 \
		> "$out/profile.log" 2>&1 &
	qemu=$!
	# QEMU listens once it has started; gdb retries until then.
	for _ in $(seq 30); do
		PROFILE_PORT=$port PROFILE_N=$profile_n \
		PROFILE_OUT="$out/profile.json" \
			gdb -batch -nx -x "$scripts/bench-profile.py" "$obj/vmlinux" \
			> "$out/profile-gdb.log" 2>&1 && break
		grep -q "Connection refused" "$out/profile-gdb.log" || break
		sleep 1
	done
	[ -f "$out/profile.json" ] || tail -20 "$out/profile-gdb.log" >&2
	wait "$qemu"
	rc=$?
	# gdb kills the guest once it has its samples.
	[ -f "$out/profile.json" ] && [ $rc -ne 124 ]
}

for p in $parts; do
	"bench_$p" || failed+=("$p")
done
stamp "done"
echo
python3 "$scripts/bench-report.py" "$out" | tee "$out/report.txt"
rc=${PIPESTATUS[0]}
if [ ${#failed[@]} -gt 0 ]; then
	echo "make bench: failed parts: ${failed[*]} (logs in $out)" >&2
	exit 1
fi
exit "$rc"
