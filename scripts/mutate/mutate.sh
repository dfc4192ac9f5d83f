#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mutation testing of the harness. Each patch in mutants/ plants one bug
# in linux/lib/stackdepot_lf/stackdepot_lf.c; its header names the category
# and the bug. For each, apply it to a copy of the tree and run the
# harness's `make check` there: the mutant is killed if any test FAILs.
# One that survives is a behaviour no test checks.
#
# The unmutated copy runs first, as the baseline: if it fails, a kill
# proves nothing, and no further mutant is started. A patch that does not
# apply, or a mutant that does not build, is an error of the set
# (INVALID), not a kill. A check still running after MUTATE_TIMEOUT
# seconds is stopped and counts as a kill: a mutant that hangs the
# harness was noticed, and the baseline runs in a fraction of that.
#
# The tree is copied once, when the run starts: the working tree without
# .git/, build/, out/ and the harness's build/, or the tree of git
# revision MUTATE_REV. A shared checkout changes under a long run; this
# way every mutant meets the same harness. Each mutant runs in its own
# copy of that snapshot under $BUILD/mutate/, with shorter stress and fuzz
# times, and is stopped at its first FAIL: the harness's check is run
# unchanged, whatever its parts are, and watched from outside.
#
# Usage: mutate.sh [NAME...]
#   NAME is a mutant's file name without .patch, or a glob of them;
#   the default is $MUTANTS, or every mutant.
# Environment: JOBS=2 (mutants at once), STRESS_MSEC=2000, FUZZ_SECONDS=10,
#   SEED (passed to check), MUTATE_TIMEOUT=300, MUTATE_REV, MUTATE_KEEP
#   (non-empty: keep each mutant's tree; its logs are always kept).
# Prints the table and writes it to $OUT/mutate.txt. Exit status: 0 if
# every mutant was killed, 1 if any survived or is invalid, 2 if the
# baseline fails or the run could not start.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common.sh"
harness=linux/tools/testing/stackdepot_lf
work=$build/mutate
stress_msec=${STRESS_MSEC:-2000}
fuzz_seconds=${FUZZ_SECONDS:-10}
timeout=${MUTATE_TIMEOUT:-300}

shopt -s nullglob
patterns=("$@")
if [ ${#patterns[@]} -eq 0 ]; then
	read -ra patterns <<< "${MUTANTS:-*}"
fi
patches=()
for pat in "${patterns[@]}"; do
	# shellcheck disable=SC2206 # the name is a glob on purpose
	matched=("$here"/mutants/$pat.patch)
	if [ ${#matched[@]} -eq 0 ]; then
		echo "mutate: no mutant matches $pat" >&2
		exit 2
	fi
	patches+=("${matched[@]}")
done
mapfile -t patches < <(printf '%s\n' "${patches[@]}" | LC_ALL=C sort -u)

mkdir -p "$build" "$out"
# Two runs would clear each other's copies.
exec 9> "$build/mutate.lock"
if ! flock -n 9; then
	echo "mutate: another run holds $build/mutate.lock" >&2
	exit 2
fi

# header FIELD PATCH: a field of the patch's header (the text before the
# diff), continuation lines joined.
header() {
	sed -n '/^diff \|^--- /q;p' "$2" |
		awk -v f="$1:" '$1 == f { on = 1; sub(/^[^:]*: */, ""); print; next }
			on && /^[ \t]/ { sub(/^[ \t]+/, ""); print; next }
			{ on = 0 }' | paste -sd' '
}

# stop PID: end the check started as PID, and everything in its session.
stop() {
	local i
	kill -TERM -- "-$1" 2> /dev/null || true
	for i in 1 2 3 4 5; do
		kill -0 "$1" 2> /dev/null || break
		sleep 1
	done
	# Whatever ignored SIGTERM.
	kill -KILL -- "-$1" 2> /dev/null || true
}

# On an interrupt, the checks still running are in sessions of their
# own, which the terminal's signal does not reach.
cleanup() {
	local f
	# The runners first, so that none records a stopped check as its own.
	# shellcheck disable=SC2046 # one job id a word
	kill $(jobs -p) 2> /dev/null || true
	for f in "$work"/*/pid; do
		[ -e "$(dirname "$f")/result" ] || stop "$(cat "$f")"
	done
}
trap 'cleanup; exit 130' INT TERM

# finish NAME STATUS DETAIL START: record the outcome of a mutant, as
# "STATUS SECONDS DETAIL", tab-separated; the detail may be empty.
finish() {
	local secs=$(($(date +%s) - $4))
	printf '%s\t%s\t%s\n' "$2" "$secs" "$3" > "$work/$1/result"
	printf '  MUTANT  %-30s %s%s (%d s)\n' "$1" "$2" "${3:+: $3}" "$secs"
}

# why DIR: the first sanitizer report in the logs of DIR, with the part
# that made it, shortened to "kunit-tsan: ThreadSanitizer: data race in
# sdlf_get_id"; a FAIL line such as "...:incomplete" only says that a part
# died. First in the order the parts ran, which their logs' times keep.
# The part is named: the FAIL may be another's, since a part that fails
# within the second before check is stopped records a FAIL of its own.
why() {
	local log line

	while read -r _ log; do
		line=$(grep -m 1 '^SUMMARY: [A-Za-z]*Sanitizer: ' "$log") || continue
		printf '%s: ' "$(basename "$log" .log)"
		echo "$line" | awk '{
			s = $2
			for (i = 3; i <= NF && $i ~ /^[a-z-]+$/; i++)
				s = s " " $i
			if ($(NF - 1) == "in") {
				s = s " in " $NF
			} else if (i <= NF) {
				n = split($i, part, "/")
				sub(/:[0-9]+$/, "", part[n])
				s = s " at " part[n]
			}
			print s
		}'
		return 0
	done < <(find "$1/logs" -name '*.log' -printf '%T@ %p\n' 2> /dev/null | sort -n)
}

# run_one NAME [PATCH]: copy the snapshot, apply PATCH, run check there.
run_one() {
	local name=$1 patch=${2:-} dir=$work/$1 start pid rc=0 timed_out=
	local fail err report why_not

	start=$(date +%s)
	mkdir -p "$dir/logs"
	cp -a "$snap" "$dir/tree"
	if [ -n "$patch" ] &&
	   ! patch -d "$dir/tree/linux" -p1 -F0 -N --batch --no-backup-if-mismatch \
		< "$patch" > "$dir/patch.log" 2>&1; then
		why_not=$(grep -m 1 -E 'FAILED|malformed|can.t find|garbage|Reversed' \
			"$dir/patch.log" || head -n 1 "$dir/patch.log")
		finish "$name" INVALID "does not apply: $why_not" "$start"
		return 0
	fi
	: > "$dir/results.txt"
	# A session of its own, so that make and the test binaries stop as
	# one; and none of the caller's make flags, only the knobs.
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL setsid \
		make -C "$dir/tree/$harness" check RESULTS="$dir/results.txt" \
		KTAP="$dir/tree/scripts/ktap.py" \
		STRESS_MSEC="$stress_msec" FUZZ_SECONDS="$fuzz_seconds" \
		${SEED:+SEED="$SEED"} > "$dir/check.log" 2>&1 < /dev/null &
	pid=$!
	echo "$pid" > "$dir/pid"
	while kill -0 "$pid" 2> /dev/null; do
		# The first FAIL decides; the rest of check would only cost time.
		if grep -q '^FAIL ' "$dir/results.txt"; then
			stop "$pid"
			break
		fi
		if [ $(($(date +%s) - start)) -ge "$timeout" ]; then
			timed_out=1
			stop "$pid"
			break
		fi
		sleep 1
	done
	wait "$pid" || rc=$?
	# With their times, which tell the order the parts ran in (why()).
	cp -p "$dir/tree/$harness"/build/*.log "$dir/logs/" 2> /dev/null || true
	[ -n "${MUTATE_KEEP:-}" ] || rm -rf "$dir/tree"

	fail=$(grep -m 1 '^FAIL ' "$dir/results.txt" || true)
	report=$(why "$dir")
	if [ -n "$fail" ]; then
		finish "$name" KILLED "$fail${report:+ [$report]}" "$start"
	elif [ -n "$timed_out" ]; then
		finish "$name" KILLED "TIMEOUT after ${timeout} s" "$start"
	elif ! grep -q '^PASS ' "$dir/results.txt"; then
		# check builds every binary before it runs any test.
		err=$(grep -m 1 -E 'error:|Error [0-9]' "$dir/check.log" || true)
		finish "$name" INVALID "does not build: ${err:-check exited $rc}" "$start"
	elif [ "$rc" -ne 0 ]; then
		finish "$name" INVALID "check exited $rc and recorded no FAIL" "$start"
	else
		finish "$name" SURVIVED "" "$start"
	fi
}

run_start=$(date +%s)
rm -rf "$work"
mkdir -p "$work"
snap=$work/snapshot
if [ -n "${MUTATE_REV:-}" ]; then
	mkdir "$snap"
	git -C "$root" archive "$MUTATE_REV" | tar -x -C "$snap"
else
	# build/ holds the kernel tree, over a gigabyte; $work may be in it.
	excludes=(--exclude=/.git/ --exclude=/build/ --exclude=/out/
		  --exclude="/$harness/build/")
	case $work in
	"$root"/*) excludes+=(--exclude="/${work#"$root"/}/") ;;
	esac
	rsync -a "${excludes[@]}" "$root/" "$snap/"
fi

knobs="STRESS_MSEC=$stress_msec FUZZ_SECONDS=$fuzz_seconds"
echo "  MUTATE  ${#patches[@]} mutants, $jobs at a time, $knobs, in $work"
names=(baseline)
files=("")
for p in "${patches[@]}"; do
	names+=("$(basename "$p" .patch)")
	files+=("$p")
done

# The baseline is started first; once it has failed, nothing more is.
baseline_failed() {
	[ -e "$work/baseline/result" ] &&
		[ "$(cut -f 1 "$work/baseline/result")" != SURVIVED ]
}
running=0
for i in "${!names[@]}"; do
	while [ "$running" -ge "$jobs" ]; do
		wait -n || true
		running=$((running - 1))
	done
	baseline_failed && break
	run_one "${names[$i]}" "${files[$i]}" &
	running=$((running + 1))
done
# Kills against a failing harness mean nothing: stop those still running.
baseline_failed && cleanup
wait
run_secs=$(($(date +%s) - run_start))

[ -e "$work/baseline/result" ] ||
	printf 'ERROR\t0\tthe runner left no result\n' > "$work/baseline/result"
if baseline_failed; then
	echo "mutate: the harness fails without any mutant: $(cut -f 3 "$work/baseline/result")" >&2
	echo "mutate: logs in $work/baseline" >&2
	exit 2
fi

killed=0
total=0
survivors=()
invalid=()
{
	passed=$(grep -c '^PASS ' "$work/baseline/results.txt")
	echo "baseline: check passes ($passed results," \
		"$(cut -f 2 "$work/baseline/result") s)"
	echo
	printf '%-30s %-12s %5s  %s\n' mutant category secs 'killed by'
	for p in "${patches[@]}"; do
		name=$(basename "$p" .patch)
		status=ERROR detail='no result' secs=0
		if [ -e "$work/$name/result" ]; then
			IFS=$'\t' read -r status secs detail < "$work/$name/result"
		fi
		case $status in
		KILLED)
			killed=$((killed + 1))
			total=$((total + 1))
			;;
		SURVIVED)
			total=$((total + 1))
			survivors+=("$p")
			detail=SURVIVED
			;;
		*)
			invalid+=("$name: $detail")
			detail="$status: $detail"
			;;
		esac
		printf '%-30s %-12s %5s  %s\n' "$name" "$(header Category "$p")" \
			"$secs" "$detail"
	done
	echo
	echo "killed $killed of $total ($((total ? killed * 100 / total : 0))%)"
	if [ ${#survivors[@]} -gt 0 ]; then
		echo "survivors (behaviour no test checks):"
		for p in "${survivors[@]}"; do
			echo "  $(basename "$p" .patch): $(header Bug "$p")" |
				fold -s -w 72 | sed 's/ *$//; 2,$s/^/      /'
		done
	fi
	if [ ${#invalid[@]} -gt 0 ]; then
		echo "invalid mutants (errors of the set, not kills):"
		printf '  %s\n' "${invalid[@]}"
	fi
	printf 'time: %dm%02ds, JOBS=%s %s%s%s\n' $((run_secs / 60)) \
		$((run_secs % 60)) "$jobs" "$knobs" "${SEED:+ SEED=$SEED}" \
		"${MUTATE_REV:+ MUTATE_REV=$MUTATE_REV}"
} > "$out/mutate.txt"
# Not through a pipe: the counts above must stay in this shell.
cat "$out/mutate.txt"

[ ${#survivors[@]} -eq 0 ] && [ ${#invalid[@]} -eq 0 ]
