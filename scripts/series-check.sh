#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Prove the patch series (make series-check; a step of make test):
#
#   series:generate          scripts/series.sh wrote $OUT/series/ (the
#                            kernel's series), $OUT/series-harness/ and
#                            $OUT/series-tools/, each applied after the
#                            one before; the checks below go through all
#                            three, in that order
#   series:checkpatch:<p>    checkpatch.pl --strict on each patch, clean
#                            but for the types its series/ file allows,
#                            each of which the patch names with a reason
#   series:am:<p>            git am of each patch, one by one, onto the
#                            pristine base in $BUILD/series-am/linux
#   series:build:<p>         the tree of each patch that touches built
#                            files, from the last patch back to the
#                            first: an incremental build of the x86_64
#                            test kernel (tinyconfig + configs/vm.config
#                            + configs/vm-x86_64.config, the kernel of
#                            make test's x86_64 guest) in
#                            $BUILD/series-am/vm; after a harness or
#                            tools patch, that tool's build; after a
#                            documentation patch, kernel-doc on what its
#                            documents pull in
#   series-kunit-<p>:<suite>:<case>, series-kunit-<p>:console-clean
#                            the suites the patch's series/ file names,
#                            booted in QEMU once the patch is in; any
#                            kernel report on the console fails
#   series:identical         the tree after the last patch is the tree
#                            of scripts/tree.sh ($KSRC), file by file,
#                            but for the overlay's series markers
#   series:config            every option of the fragments is set in the
#                            build of the whole series
#   series:build-stackmap-off
#                            the whole series built with FTRACE_STACKMAP
#                            off
#
# Build times per patch go to $OUT/series-check/times.txt.

set -uo pipefail

. "$(dirname "$0")/common.sh"
repo=$build/series/linux
# The am tree and its objects sit as the guest's kernel tree and objects
# do ($BUILD/linux, $BUILD/vm), so that their compilers see the same
# relative paths under ccache's base directory.
work=$build/series-am/linux
obj=$build/series-am/vm
logs=$out/series-check
# The x86_64 guest's fragments.
frags=("$root/configs/vm.config" "$root/configs/vm-x86_64.config")
defs_dir=${SERIES_DIR:-$root/series}

rm -rf "$logs"
mkdir -p "$logs"
: > "$logs/times.txt"
cd "$root"

pass() { "$record" record PASS "$1"; }
fail() {
	"$record" record FAIL "$1"
	echo "  SERIES  $1 failed${2:+ (log $2)}" >&2
	[ -z "${2:-}" ] || tail -20 "$2" | sed 's/^/    /' >&2
}
# result NAME LOG COMMAND...: run it into LOG, record PASS or FAIL.
result() {
	local name=$1 log=$2
	shift 2
	if "$@" > "$log" 2>&1; then pass "$name"; else fail "$name" "$log"; fi
}

log=$logs/generate.log
if ! "$scripts/series.sh" > "$log" 2>&1; then
	fail series:generate "$log"
	exit 0
fi
pass series:generate
cat "$log"

mapfile -t defs < <("$scripts/series-defs.sh" "$defs_dir" "${series_order[@]}")
mapfile -t mails < <(for name in "${series_order[@]}"; do
	d=$(series_out "$name")
	[ -d "$d" ] || continue
	find "$d" -name '[0-9]*.patch' ! -name '0000-*' | LC_ALL=C sort
done)
if [ ${#defs[@]} -ne ${#mails[@]} ]; then
	fail series:generate
	echo "  SERIES  ${#defs[@]} definitions but ${#mails[@]} patches" >&2
	exit 0
fi

# mail_name PATCH: its name in results and logs; the series' name
# before those of the series after the kernel's, whose numbers start
# again at 0001.
mail_name() {
	local d
	d=$(dirname "$1")
	case $d in
	"$out/series") basename "$1" .patch ;;
	*) echo "${d##*/series-}-$(basename "$1" .patch)" ;;
	esac
}

# checkpatch, as a maintainer runs it on what he receives.
signoff=--no-signoff
[ -z "${SIGNOFF:-}" ] || signoff=
for i in "${!mails[@]}"; do
	p=${mails[$i]}
	name=$(mail_name "$p")
	ignore=$(sed -n '/^$/q; s/^Checkpatch: *//p' "${defs[$i]}" | tr ' ' ',')
	log=$logs/checkpatch-$name.log
	(cd "$ksrc" && PATH=$kpath ./scripts/checkpatch.pl --strict $signoff \
		${ignore:+--ignore "$ignore"} "$p") > "$log" 2>&1
	# Every report type let through is named, with its reason, in the
	# patch's message or notes.
	unjustified=
	for t in ${ignore//,/ }; do
		grep -qw -- "$t" "$p" || unjustified+=" $t"
	done
	if [ -n "$unjustified" ]; then
		echo "no reason given in the patch for:$unjustified" >> "$log"
		fail "series:checkpatch:$name" "$log"
	elif grep -q '^total: 0 errors, 0 warnings, 0 checks' "$log"; then
		pass "series:checkpatch:$name"
	else
		fail "series:checkpatch:$name" "$log"
	fi
done

# kmake ARGS...: make in the series tree, objects in $obj.
kmake() {
	make -s -C "$work" O="$obj" ARCH=x86_64 -j"$jobs" \
		${CCACHE:+CC="$CCACHE gcc" HOSTCC="$CCACHE gcc"} "$@"
}

# Merge the fragments again after every patch: an option that a patch
# just added only takes the value they ask for once Kconfig knows it.
configure() {
	if [ ! -f "$obj/.config" ]; then
		kmake tinyconfig || return
	fi
	KCONFIG_CONFIG="$obj/.config" "$work/scripts/kconfig/merge_config.sh" \
		-m -O "$obj" "$obj/.config" "${frags[@]}" > /dev/null &&
	kmake olddefconfig
}

# kunit_boot TAG SUITE...: boot the last build, run the suites, record
# one result per case and a console check.
kunit_boot() {
	local tag=$1 glob console
	shift
	glob=$(IFS=,; echo "$*")
	console=$logs/$tag-console.log
	echo "  SERIES  booting for KUnit $glob"
	# One host thread for both vCPUs, as vm/arch.sh says why.
	timeout --kill-after=10 "${VM_TIMEOUT:-1200}" \
		qemu-system-x86_64 -accel tcg,thread=single -smp "${QEMU_SMP:-2}" \
		-m 1024 -display none -monitor none -no-reboot \
		-serial "file:$console" -kernel "$obj/arch/x86/boot/bzImage" \
		-append "console=ttyS0 loglevel=7 panic=-1 kunit_shutdown=reboot kunit.filter_glob=$glob" \
		< /dev/null > "$logs/$tag-qemu.log" 2>&1
	while read -r status test; do
		[ -n "$status" ] && "$record" record "$status" "$test"
	done < <("$scripts/ktap.py" "$tag" "$console")
	# shellcheck source=kernel-reports.sh
	. "$scripts/kernel-reports.sh"
	if grep -q 'kunit_shutdown\|reboot: Restarting' "$console" &&
	   ! grep -Eq "$KERNEL_REPORTS" "$console"; then
		pass "$tag:console-clean"
	else
		fail "$tag:console-clean" "$console"
	fi
}

# doc_sources RST...: kernel-doc -none -Wall, silent, on every file the
# documents pull in with a kernel-doc directive.
doc_sources() {
	local d src msgs
	for d; do
		while read -r src; do
			echo "$d: $src"
			[ -f "$work/$src" ] || { echo "$src: missing"; return 1; }
			msgs=$(cd "$work" && ./scripts/kernel-doc -none -Wall "$src" 2>&1)
			[ -z "$msgs" ] || { echo "$msgs"; return 1; }
		done < <(sed -n 's/^\.\. kernel-doc:: *//p' "$work/$d")
	done
}

# The am tree: a worktree of the series repository, back at the base.
# Only the files that differ from the last run's are rewritten, so the
# kernel build stays incremental between runs.
if [ ! -d "$work" ]; then
	git -C "$repo" worktree prune
	mkdir -p "$(dirname "$work")"
	git -C "$repo" worktree add -q --detach "$work" base
fi
git -C "$work" am --abort > /dev/null 2>&1
git -C "$work" checkout -q -f --detach base
git -C "$work" clean -q -f -d -x

# 1. git am of every patch, in order; what each touches decides what is
# built after it.
ok=1
applied=0
declare -a commit kernel harness tools docs names
for i in "${!mails[@]}"; do
	p=${mails[$i]}
	name=$(mail_name "$p")
	names[$i]=$name
	log=$logs/am-$name.log
	if ! git -C "$work" am -q "$p" > "$log" 2>&1; then
		fail "series:am:$name" "$log"
		ok=0
		break
	fi
	pass "series:am:$name"
	applied=$((i + 1))
	commit[$i]=$(git -C "$work" rev-parse HEAD)
	mapfile -t changed < <(git -C "$work" diff --name-only HEAD~1 HEAD)

	kernel[$i]=0 harness[$i]=0 tools[$i]=0 docs[$i]=
	for f in "${changed[@]}"; do
		case "$f" in
		Documentation/*.rst) docs[$i]+=" $f" ;;
		Documentation/*|MAINTAINERS) ;;
		tools/testing/stackdepot_lf/*) harness[$i]=1 ;;
		tools/tracing/stackmap/*|tools/include/*) tools[$i]=1 ;;
		tools/testing/selftests/*) ;;
		*) kernel[$i]=1 ;;
		esac
	done
done

# same_tree: the tree git am made of the series is the one make test
# builds against, but for the series markers (scripts/series-early.py)
# that the overlay's files keep and no patch carries.
same_tree() {
	local line status=0
	while IFS= read -r line; do
		if [[ $line =~ ^Files\ (.*)\ and\ (.*)\ differ$ ]] &&
		   "$scripts/series-early.py" --strip "${BASH_REMATCH[2]}" |
		   cmp -s - "${BASH_REMATCH[1]}"; then
			continue
		fi
		echo "$line"
		status=1
	done < <(diff -rq --no-dereference -x .git -x '.stackdepot_lf-*' \
		-x '.checkpatch-camelcase.*' "$work" "$ksrc" 2>&1)
	return $status
}

if [ $ok -eq 1 ]; then
	log=$logs/identical.log
	if same_tree > "$log" 2>&1; then
		pass series:identical
	else
		fail series:identical "$log"
	fi
fi

# last_checks: on the first kernel build, that of the whole series: every
# option of the fragments is set, and the tree builds with the option off.
last_checks() {
	local log missing start

	log=$logs/config.log
	# As vm/build-kernel.sh checks: what the last fragment says wins.
	missing=$(cat "${frags[@]}" | awk '
		/^CONFIG_[A-Za-z0-9_]+=/ { o = $0; sub(/=.*/, "", o); last[o] = $0 }
		/^# CONFIG_[A-Za-z0-9_]+ is not set/ { last[$2] = "# " $2 " is not set" }
		END { for (o in last) print last[o] }' | while IFS= read -r line; do
			grep -qx -- "$line" "$obj/.config" || echo "$line"
		done)
	if [ -z "$missing" ]; then
		pass series:config
	else
		echo "$missing" > "$log"
		fail series:config "$log"
	fi

	log=$logs/build-stackmap-off.log
	start=$(date +%s)
	if { "$work/scripts/config" --file "$obj/.config" -d FTRACE_STACKMAP &&
	     kmake olddefconfig &&
	     ! grep -q '^CONFIG_FTRACE_STACKMAP=y' "$obj/.config" &&
	     kmake; } > "$log" 2>&1; then
		pass series:build-stackmap-off
	else
		fail series:build-stackmap-off "$log"
	fi
	printf '%-52s %4d s kernel\n' "FTRACE_STACKMAP=n" \
		$(( $(date +%s) - start )) >> "$logs/times.txt"
}

# 2. The builds, from the last patch back to the first: the whole
# series' kernel is the one make test's x86_64 guest runs (the same
# fragments, and the same paths relative to the build folder, so ccache
# has every object), and each earlier patch then rebuilds only what it
# does not have. Each patch's tree is checked out before its builds.
first_kernel=1
for ((i = applied - 1; i >= 0; i--)); do
	name=${names[$i]}
	nr=${name%%-*}
	def=${defs[$i]}
	git -C "$work" checkout -q -f --detach "${commit[$i]}"

	start=$(date +%s)
	what=
	built=0
	if [ "${kernel[$i]}" -eq 1 ]; then
		log=$logs/build-$name.log
		what+=" kernel"
		if { configure && kmake; } > "$log" 2>&1; then
			pass "series:build:$name"
			built=1
		else
			fail "series:build:$name" "$log"
		fi
	fi
	if [ "${harness[$i]}" -eq 1 ]; then
		what+=" harness"
		result "series:build-harness:$name" "$logs/harness-$name.log" \
			make -C "$work/tools/testing/stackdepot_lf" \
			O="$obj/harness" clean all
	fi
	if [ "${tools[$i]}" -eq 1 ]; then
		what+=" tools"
		result "series:build-tools:$name" "$logs/tools-$name.log" \
			make -C "$work/tools/tracing/stackmap" \
			OUTPUT="$obj/stackmap" clean all
	fi
	if [ -n "${docs[$i]}" ]; then
		what+=" docs"
		# shellcheck disable=SC2086 # a list of paths without blanks
		result "series:kernel-doc:$name" "$logs/docs-$name.log" \
			doc_sources ${docs[$i]}
	fi
	secs=$(( $(date +%s) - start ))
	printf '%-52s %4d s %s\n' "$name" "$secs" "${what:- none}" \
		>> "$logs/times.txt"

	suites=$(sed -n '/^$/q; s/^KUnit: *//p' "$def")
	if [ -n "$suites" ] && [ $built -eq 1 ]; then
		# shellcheck disable=SC2086
		kunit_boot "series-kunit-$nr" $suites
	fi
	if [ "${kernel[$i]}" -eq 1 ] && [ $first_kernel -eq 1 ]; then
		first_kernel=0
		[ $built -eq 0 ] || [ $ok -eq 0 ] || last_checks
	fi
done
sort -o "$logs/times.txt" "$logs/times.txt"

echo "  SERIES  per-patch times ($logs/times.txt):"
sed 's/^/    /' "$logs/times.txt"
exit 0
