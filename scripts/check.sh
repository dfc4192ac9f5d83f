#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Static gates on the project's own files, one counted result each:
#
#   checkpatch:<file>   scripts/checkpatch.pl --strict -f on each .c, .h,
#                       Kconfig, Makefile and .rst of the overlay
#   checkpatch:<patch>  scripts/checkpatch.pl --strict on patches/*.patch
#   kernel-doc:<file>   scripts/kernel-doc -none -Wall on each .c and .h
#   w1:<obj>            a W=1 build of each object of the overlay
#   sparse:<obj>        sparse (C=2) on each object of the overlay
#   w1-arm64:<obj>, sparse-arm64:<obj>, w1-i386:<obj>, sparse-i386:<obj>
#                       the same for arm64 and 32-bit x86
#   w1-i386-nokunit:<obj>, sparse-i386-nokunit:<obj>
#                       the same for the library and the adapter in a
#                       32-bit kernel without KUnit
#   help:<VAR>          `make help` lists each knob with the default its
#                       script or the Makefile gives it, and README.md
#                       states no other (scripts/help-check.py)
#   uapi:<header>       each header under include/uapi/ as userspace gets
#                       it: installed by `make headers` (whose script
#                       rejects kernel-only content), then compiled alone
#                       with -std=c90 -Wall -Wextra -Werror
#
# Any warning fails its gate. The objects are built in trees of each
# architecture's defconfig + a fragment: $BUILD/check-x86_64 and
# check-arm64 with configs/check.config, check-i386 with
# configs/check-i386.config, check-i386-nokunit with
# configs/check-i386-nokunit.config. The trees are kept between runs;
# only the project's objects are rebuilt.

set -uo pipefail

. "$(dirname "$0")/common.sh"
logs=$out/check
rm -rf "$logs"
mkdir -p "$logs"

start=$(date +%s)
cd "$root" || exit 1

# The project's kernel-side files; the userspace tools have their own gates.
# Their paths are the kernel tree's, where every gate runs.
mapfile -t files < <(cd "$overlay" && find lib include kernel Documentation \
	\( -name '*.[ch]' -o -name Kconfig -o -name Makefile -o -name '*.rst' \) \
	-type f 2>/dev/null | LC_ALL=C sort)
mapfile -t sources < <(printf '%s\n' "${files[@]}" | grep '\.[ch]$')
mapfile -t uapi < <(printf '%s\n' "${files[@]}" | grep '^include/uapi/.*\.h$')
mapfile -t objects < <(printf '%s\n' "${files[@]}" | grep '\.c$' | sed 's/\.c$/.o/')
mapfile -t patches < <(find patches -maxdepth 1 -name '*.patch' 2>/dev/null | LC_ALL=C sort)
# Of the kernel files the patches change, the one that takes a feature of
# its own: the histogram triggers, the library's second user.
objects+=(kernel/trace/trace_events_hist.o)

# The knobs first: seconds, where the gates below take minutes.
log=$logs/help.log
if "$root/scripts/help-check.py" "$root" > "$log.results" 2> "$log"; then
	:
elif ! grep -q '^FAIL ' "$log.results"; then
	echo 'FAIL help:crashed' >> "$log.results"
fi
while read -r status name; do
	"$record" record "$status" "$name"
done < "$log.results"
[ ! -s "$log" ] || sed 's/^/  CHECK   /' "$log" >&2

logname() { echo "$logs/$1-$(echo "$2" | tr '/' '_').log"; }

# gate NAME KIND FILE LOG: record PASS when the command succeeded and its
# log has no warning, FAIL otherwise (and show the log's first lines).
gate() {
	local kind=$1 file=$2 log=$3 rc=$4
	if [ "$rc" -eq 0 ] && ! grep -Eqi 'warning:|error:' "$log"; then
		"$record" record PASS "$kind:$file"
	else
		"$record" record FAIL "$kind:$file"
		echo "  CHECK   $kind:$file failed:" >&2
		head -20 "$log" | sed 's/^/    /' >&2
	fi
}

# checkpatch prints "total: 0 errors, 0 warnings, 0 checks" on success.
checkpatch_gate() {
	local kind=$1 file=$2 log=$3 rc=$4
	if [ "$rc" -eq 0 ] &&
	   grep -q '^total: 0 errors, 0 warnings, 0 checks' "$log"; then
		"$record" record PASS "$kind:$file"
	else
		"$record" record FAIL "$kind:$file"
		echo "  CHECK   $kind:$file failed:" >&2
		grep -E '^(ERROR|WARNING|CHECK)|^#' "$log" | head -20 | sed 's/^/    /' >&2
	fi
}

for f in "${files[@]}"; do
	log=$(logname checkpatch "$f")
	(cd "$ksrc" && PATH=$kpath ./scripts/checkpatch.pl --strict -f "$f") > "$log" 2>&1
	checkpatch_gate checkpatch "$f" "$log" $?
done

# The patches carry no Signed-off-by: they are build inputs, not mail.
for p in "${patches[@]}"; do
	log=$(logname checkpatch "$p")
	(cd "$ksrc" && PATH=$kpath ./scripts/checkpatch.pl --strict --no-signoff "$root/$p") > "$log" 2>&1
	checkpatch_gate checkpatch "$p" "$log" $?
done

for f in "${sources[@]}"; do
	log=$(logname kernel-doc "$f")
	(cd "$ksrc" && ./scripts/kernel-doc -none -Wall "$f") > "$log" 2>&1
	gate kernel-doc "$f" "$log" $?
done

# split_log LOG OBJECT: OBJECT's part of LOG, the output of one make -O
# of several objects: the blocks that kbuild's "CC OBJECT" or "CHECK
# source" line starts, and every block of no object (make's own lines, the
# tree's other steps), so that a warning nobody can be blamed for fails
# every object rather than none.
split_log() {
	awk -v obj="$2" -v src="${2%.o}.c" '
		BEGIN { keep = 1 }
		function ends(s, t) {
			return length(s) >= length(t) &&
			       substr(s, length(s) - length(t) + 1) == t
		}
		/^  [A-Z][A-Z0-9]*( \[M\])? +[^ ]+$/ {
			keep = 1
			if ($1 == "CC" || $1 == "CHECK")
				keep = $NF == obj || ends($NF, "/" src) ||
				       !(ends($NF, ".o") || ends($NF, ".c"))
		}
		keep' "$1"
}

# build_gates NAME ARCH FRAGMENT OBJECT...: W=1 and sparse gates of the
# OBJECTs in a tree $build/check-NAME of ARCH's defconfig plus FRAGMENT,
# kept between runs; the gates are named w1[-NAME]:<obj>, sparse[-NAME]:<obj>.
# arm64 is built with the aarch64-linux-gnu- cross compiler.
build_gates() {
	local name=$1 arch=$2 fragment=$3 tag rc missing o log
	shift 3
	local obj=$build/check-$name
	tag=${name#x86_64}
	tag=${tag:+-$tag}
	local cross=
	[ "$arch" = arm64 ] && cross=aarch64-linux-gnu-
	kmake() {
		make -C "$ksrc" O="$obj" ARCH="$arch" -j"$jobs" \
			${cross:+CROSS_COMPILE=$cross} \
			${CCACHE:+CC="$CCACHE ${cross}gcc" HOSTCC="$CCACHE gcc"} "$@"
	}
	mkdir -p "$obj"
	log=$logs/config-$name.log
	{
		[ -f "$obj/.config" ] || kmake defconfig
		"$ksrc/scripts/kconfig/merge_config.sh" -m -O "$obj" \
			"$obj/.config" "$fragment" &&
		kmake olddefconfig &&
		kmake prepare
	} > "$log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		"$record" record FAIL "check:$name-prepare"
		tail -20 "$log" >&2
		return
	fi
	missing=$(grep -E '^(CONFIG_|# CONFIG_)' "$fragment" | while read -r opt; do
			grep -qx "$opt" "$obj/.config" || echo "$opt"
		done)
	if [ -n "$missing" ]; then
		"$record" record FAIL "check:$name-config"
		echo "  CHECK   $name: not as asked in $fragment: $missing" >&2
	fi

	# One make for all the objects of a pass (kbuild's start costs
	# seconds per call); -O keeps each object's output in one block.
	# Rebuild from scratch so that an unchanged object shows its
	# warnings.
	for o in "$@"; do
		rm -f "$obj/$o"
	done
	log=$logs/w1$tag.log
	kmake -k -O W=1 "$@" > "$log" 2>&1
	for o in "$@"; do
		split_log "$log" "$o" > "$(logname "w1$tag" "$o")"
		rc=0
		[ -f "$obj/$o" ] || rc=1
		gate "w1$tag" "$o" "$(logname "w1$tag" "$o")" $rc
	done

	# After the W=1 pass the objects are current, so C=2 only runs sparse.
	log=$logs/sparse$tag.log
	kmake -k -O W=1 C=2 "$@" > "$log.full" 2>&1
	# C=2 also checks arm64's vDSO each time, which `prepare` builds; its
	# sparse warnings are the kernel's, not ours.
	grep -Ev '(^|/)arch/arm64/kernel/vdso(32)?/[^:/]+:[0-9]+:[0-9]+: warning:' \
		"$log.full" > "$log"
	for o in "$@"; do
		split_log "$log" "$o" > "$(logname "sparse$tag" "$o")"
		rc=0
		[ -f "$obj/$o" ] || rc=1
		gate "sparse$tag" "$o" "$(logname "sparse$tag" "$o")" $rc
	done
}

# Every project object, 64-bit, KUnit on; then the same on arm64, and on
# 32-bit x86, where unsigned long and a frame are 4 bytes (all but the
# benchmark suite, which is 64-bit only).
build_gates x86_64 x86_64 "$root/configs/check.config" "${objects[@]}"
build_gates arm64 arm64 "$root/configs/check.config" "${objects[@]}"
mapfile -t objects32 < <(printf '%s\n' "${objects[@]}" | grep -v '_bench_kunit\.o$')
build_gates i386 i386 "$root/configs/check-i386.config" "${objects32[@]}"

# uapi headers: `make headers` installs every uapi header of the tree into
# usr/include of the x86_64 tree (incrementally), and each of ours must be
# there and compile on its own as C90, the standard the kernel's own uapi
# header test (CONFIG_UAPI_HEADER_TEST) holds them to.
if [ ${#uapi[@]} -gt 0 ]; then
	obj=$build/check-x86_64
	log=$logs/headers.log
	make -C "$ksrc" O="$obj" ARCH=x86_64 -j"$jobs" \
		${CCACHE:+CC="$CCACHE gcc" HOSTCC="$CCACHE gcc"} headers > "$log" 2>&1
	rc=$?
	for h in "${uapi[@]}"; do
		installed=$obj/usr/include/${h#include/uapi/}
		hlog=$(logname uapi "$h")
		cp "$log" "$hlog"
		if [ $rc -eq 0 ] && [ -f "$installed" ]; then
			printf '#include <%s>\n' "${h#include/uapi/}" |
				gcc -std=c90 -Wall -Wextra -Werror \
					-fsyntax-only -I "$obj/usr/include" \
					-x c - >> "$hlog" 2>&1
			gate uapi "$h" "$hlog" $?
		else
			echo "$installed: not installed by make headers" >> "$hlog"
			gate uapi "$h" "$hlog" 1
		fi
	done
fi

# The code that ships, 32-bit and without KUnit: no test-only helper may
# be left unused, no 64-bit assumption may hide in its arithmetic.
build_gates i386-nokunit i386 "$root/configs/check-i386-nokunit.config" \
	lib/stackdepot_lf/stackdepot_lf.o kernel/trace/trace_stackmap.o \
	kernel/trace/trace_stackmap_export.o kernel/trace/trace_events_hist.o

secs=$(( $(date +%s) - start ))
"$record" time check "$secs"
echo "  CHECK   done in ${secs}s (logs in $logs)"
exit 0
