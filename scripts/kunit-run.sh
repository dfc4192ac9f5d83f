#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run the project's KUnit suites once with tools/testing/kunit/kunit.py
# and record one result per test case, plus one console gate.
#
# Usage: kunit-run.sh uml|x86_64|i386|arm64
#
#   uml     ARCH=um with generic KASAN (configs/kunit-uml.config)
#   x86_64  QEMU TCG, -smp $QEMU_SMP, KCSAN + lockdep
#           (configs/kunit-x86_64.config)
#   i386    32-bit QEMU TCG, -smp $QEMU_SMP, lockdep, preemptible: the
#           vmtest guest's i386 kernel (vm/build-kernel.sh;
#           configs/vm-i386.config builds the suite in), booted by
#           kunit.py exec without an initramfs, so that one i386 kernel
#           serves both steps
#   arm64   QEMU TCG (virt, -cpu max), -smp $QEMU_SMP, KCSAN + lockdep,
#           built with the aarch64-linux-gnu- cross compiler
#           (configs/kunit-arm64.config)
#
# UML is kunit.py's own build: lib/tests/.kunitconfig plus the fragment.
# The x86_64 and arm64 kernels are tinyconfig + configs/kunit-tiny.config
# + the fragment, built by vm/build-kernel.sh in $BUILD/kunit-<run> and
# booted by kunit.py exec: kunit.py's build keeps every default of the
# tree (the block layer, io_uring, input, USB, ...), each object compiled
# with KCSAN's instrumentation.
#
# Logs go to
# $OUT/kunit-<run>.{out,log}; results to $OUT/results.txt as
# "PASS kunit-<run>:<suite>:<case>". The console gate
# "kunit-<run>:console-clean" fails on any KASAN, KCSAN, lockdep, BUG or
# WARNING report in the kernel log, whatever the test results.

set -euo pipefail

. "$(dirname "$0")/common.sh"
run=${1:?usage: $0 uml|x86_64|i386|arm64}
name=kunit-$run
build_dir=$build/$name
mkdir -p "$out"

# kunit.py exec of a kernel built by vm/build-kernel.sh: ARCH OBJ
exec_args() {
	args=(exec
	      --build_dir="$2"
	      --timeout="${KUNIT_TIMEOUT:-900}"
	      --arch="$1")
}
# KVM does not boot here; multi-threaded TCG gives real parallelism.
qemu_args="-smp ${QEMU_SMP:-2} -accel tcg,thread=multi"
build_env=()
case "$run" in
uml)
	args=(run
	      --kunitconfig=lib/tests/.kunitconfig
	      --kunitconfig="$root/configs/kunit-$run.config"
	      --build_dir="$build_dir"
	      --jobs="$jobs"
	      --timeout="${KUNIT_TIMEOUT:-900}")
	# Through ccache unless CCACHE is empty.
	[ -z "${CCACHE:-}" ] ||
		args+=(--make_options="CC=$CCACHE gcc"
		       --make_options="HOSTCC=$CCACHE gcc")
	;;
x86_64|arm64)
	exec_args "$run" "$build_dir"
	args+=(--qemu_args="$qemu_args")
	tiny=$root/configs/kunit-tiny.config
	build_env=(VM_ARCH="$run" VM_OBJ="$build_dir"
		   VM_FRAGS="$tiny $root/configs/kunit-$run.config")
	# kunit.py's arm64 QEMU boots the compressed image.
	[ "$run" = arm64 ] && build_env+=(VM_TARGET=Image.gz)
	;;
i386)
	build_dir=$build/vm-i386
	exec_args i386 "$build_dir"
	args+=(--qemu_args="$qemu_args")
	build_env=(VM_ARCH=i386)
	;;
*)
	echo "$0: unknown run $run" >&2
	exit 2
	;;
esac
if [ -n "${KUNIT_FILTER:-}" ]; then
	args+=("$KUNIT_FILTER")
elif [ "$run" = i386 ]; then
	# The guest's kernel also has the adapter's suite, which vmtest runs.
	args+=("stackdepot_lf")
fi

rm -f "$build_dir/test.log"
start=$(date +%s)
rc=0
: > "$out/$name.out"
if [ ${#build_env[@]} -gt 0 ]; then
	echo "  KUNIT   $run: vm/build-kernel.sh (${build_env[*]//"$root/"/})"
	env "${build_env[@]}" "$root/vm/build-kernel.sh" > "$out/$name.out" 2>&1 ||
		rc=$?
fi
if [ $rc -eq 0 ]; then
	echo "  KUNIT   $run: kunit.py ${args[*]}"
	(cd "$ksrc" && python3 tools/testing/kunit/kunit.py "${args[@]}") \
		>> "$out/$name.out" 2>&1 || rc=$?
fi
secs=$(( $(date +%s) - start ))
"$record" time "$name" "$secs"

log=$out/$name.log
if [ -f "$build_dir/test.log" ]; then
	cp "$build_dir/test.log" "$log"
else
	: > "$log"
fi

results=$("$scripts/ktap.py" "$name" "$log")
while read -r status test; do
	[ -n "$status" ] && "$record" record "$status" "$test"
done <<< "$results"

# kunit.py failing without any failed case: build, boot or parse trouble.
if [ $rc -ne 0 ] && ! grep -q '^FAIL ' <<< "$results"; then
	"$record" record FAIL "$name:kunit.py-exit-$rc"
fi

# Reports that fail the run even when every case passed.
. "$scripts/kernel-reports.sh"
reports=$KERNEL_REPORTS
if [ -s "$log" ] && ! grep -Eq "$reports" "$log"; then
	"$record" record PASS "$name:console-clean"
else
	"$record" record FAIL "$name:console-clean"
	grep -En "$reports" "$log" | head -20 | sed "s/^/  $name: /" >&2 || true
fi

pass=$(grep -c '^PASS' <<< "$results" || true)
fail=$(grep -c '^FAIL' <<< "$results" || true)
echo "  KUNIT   $run: console $(grep "$name:console-clean" "$out/results.txt" | tail -1 | cut -d' ' -f1)"
echo "  KUNIT   $run: $pass passed, $fail failed in ${secs}s" \
	"(kunit.py exit $rc; log $log)"
