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
#   i386    32-bit QEMU TCG, -smp $QEMU_SMP, lockdep
#           (configs/kunit-i386.config)
#   arm64   QEMU TCG (virt, -cpu max), -smp $QEMU_SMP, KCSAN + lockdep,
#           built with the aarch64-linux-gnu- cross compiler
#           (configs/kunit-arm64.config)
#
# The kunitconfig is lib/tests/.kunitconfig plus the fragment. Logs go to
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

args=(run
	--kunitconfig=lib/tests/.kunitconfig
	--kunitconfig="$root/configs/kunit-$run.config"
	--build_dir="$build_dir"
	--jobs="$jobs"
	--timeout="${KUNIT_TIMEOUT:-900}")
case "$run" in
uml)
	;;
x86_64)
	# KVM does not boot here; multi-threaded TCG gives real parallelism.
	args+=(--arch=x86_64
	       --qemu_args="-smp ${QEMU_SMP:-2} -accel tcg,thread=multi")
	;;
i386)
	args+=(--arch=i386
	       --qemu_args="-smp ${QEMU_SMP:-2} -accel tcg,thread=multi")
	;;
arm64)
	args+=(--arch=arm64 --cross_compile=aarch64-linux-gnu-
	       --qemu_args="-smp ${QEMU_SMP:-2} -accel tcg,thread=multi")
	;;
*)
	echo "$0: unknown run $run" >&2
	exit 2
	;;
esac
# Through ccache unless CCACHE is empty.
if [ -n "${CCACHE:-}" ]; then
	cross=
	[ "$run" = arm64 ] && cross=aarch64-linux-gnu-
	args+=(--make_options="CC=$CCACHE ${cross}gcc"
	       --make_options="HOSTCC=$CCACHE gcc")
fi
[ -z "${KUNIT_FILTER:-}" ] || args+=("$KUNIT_FILTER")

rm -f "$build_dir/test.log"
echo "  KUNIT   $run: kunit.py ${args[*]}"
start=$(date +%s)
rc=0
(cd "$ksrc" && python3 tools/testing/kunit/kunit.py "${args[@]}") \
	> "$out/$name.out" 2>&1 || rc=$?
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
