#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Write the project as a patch series against Linux 6.12 (make series):
#
#   1. Debian's linux-source-6.12 tarball is committed once as the base of
#      a throwaway git repository, $BUILD/series/linux (tag "base");
#   2. each series/NN-*.txt makes one commit on branch "series": the
#      patches/ hunks and the overlay files it names, its message, and its
#      "---" notes as a git note;
#   3. git format-patch --cover-letter writes $OUT/series/, and the cover
#      letter is filled in from series/cover-letter.txt and the last
#      outputs of make run, make bench and make test under $OUT/.
#
# Three series come out, each applied on top of the one before:
#
#   kernel   for the tracing and mm maintainers: the library, its KUnit
#            suites, the option and its files, the docs, the selftests
#            ($OUT/series/, series/cover-letter.txt);
#   harness  the library's userspace harness, tools/testing/stackdepot_lf
#            ($OUT/series-harness/, series/cover-letter-harness.txt);
#   tools    the userspace tools that read the traces, for trace-cmd's
#            audience ($OUT/series-tools/, series/cover-letter-tools.txt).
#
# What only this project needs (scripts/, vm/, configs/) is in none.
#
# Every tracked overlay file (under linux/, named by its path in the
# kernel tree) and every patches/*.patch must belong to exactly one
# patch: a file nobody claims, or claimed twice, fails the run. A patches/ hunk is applied with
# patch -p1, as scripts/tree.sh does, so that the series builds the same
# tree as the overlay; scripts/series-check.sh proves it.
#
# A series/NN-*.txt file is a header, a blank line and the message body:
#
#   Subject: subsystem: imperative summary
#   Files: PATTERN...     overlay paths as in the kernel tree (lib/...),
#                         directories or shell patterns, or patches/
#                         files; may repeat
#   KUnit: SUITE...       KUnit suites series-check runs once this patch
#                         is in (optional)
#   Series: NAME          the patch belongs to the series NAME, harness
#                         or tools, not the kernel's (optional)
#   Checkpatch: TYPE...   checkpatch types this patch is allowed to
#                         report; the body must say why (optional)
#   Early: PATH...        overlay files this patch adds an early
#                         version of, which a later patch of its
#                         series finishes (optional; may repeat)
#
# A line "---" in the body starts the notes, which git am drops.
#
# An early version is made from the final file, never kept as a copy
# (scripts/series-early.py): the final file marks, with comment lines
# "# series: NN" ... "# series: end" (or /* */ in C), the sections that
# patch NN of its series adds; the early version of patch NN keeps the
# sections of patches up to NN and drops the later ones. From the patch
# that names it by Early: until the one that claims it by Files:, the
# file is made again by every patch whose number one of its markers
# names. Markers sit only in Makefiles and tests/run_tests.py, around
# whole rules, definitions, functions or statements; C, headers,
# documentation and the other tests carry none, so that the files
# people read are not cut up by them. What an early version
# has that the markers do not give (a sentence worded for fewer
# commands, a Makefile line that a later patch rewrites, and everything
# that differs in a file without markers) is in series/NN-name.diff, a
# unified diff (diff -U1, applied with patch -F0) from what the markers
# give to what the patch adds, applied after them; a file that it
# names is made again by that patch too. scripts/series-rediff.py
# remakes such a diff when a change to the final file breaks it. No patch carries the
# markers: each overlay file is laid out without them. series-check
# proves that each patch builds and that the last tree is the overlay.
#
# Usage: scripts/series.sh  (SIGNOFF="Name <addr>" adds a Signed-off-by;
#        SERIES_AUTHOR="Name <addr>" sets the author, by default the
#        repository's git user)

set -euo pipefail

. "$(dirname "$0")/common.sh"
repo=$build/series/linux
# SERIES_DIR: another set of definitions, for trying a different cut.
defs_dir=${SERIES_DIR:-$root/series}

cd "$root"
git_r() { git -C "$repo" "$@"; }

die() {
	echo "series: $*" >&2
	exit 1
}

# 1. The base: the pristine tree, committed once per tarball.
want="$(stat -c '%s %Y' "$tarball") $(basename "$tarball")"
if [ "$(cat "$build/series/base.stamp" 2>/dev/null)" != "$want" ] ||
   ! git_r rev-parse -q --verify base >/dev/null 2>&1; then
	echo "  SERIES  committing $tarball as the base"
	rm -rf "$repo" "$build/series/linux-source-6.12"
	mkdir -p "$build/series"
	tar -xf "$tarball" -C "$build/series"
	mv "$build/series/linux-source-6.12" "$repo"
	git_r init -q
	git_r config user.name "stackdepot_lf series"
	git_r config user.email "series@localhost"
	git_r config gc.auto 0
	git_r config core.autocrlf false
	# The tarball's own ignore files would hide nothing we commit; all
	# of the tree goes in.
	git_r add -A -f .
	git_r commit -q -m "Linux 6.12 ($(basename "$tarball"))"
	git_r tag -f base >/dev/null
	echo "$want" > "$build/series/base.stamp"
fi

# 2. The commits, series after series; each series' last commit is
# tagged with its name.
mapfile -t defs < <("$scripts/series-defs.sh" "$defs_dir" "${series_order[@]}")
[ ${#defs[@]} -gt 0 ] || die "no $defs_dir/NN-*.txt"
# Overlay files by their path in the kernel tree, patches by theirs here.
mapfile -t tracked < <({ git -C "$overlay" ls-files -- "${overlay_dirs[@]}"
	find patches -maxdepth 1 -name '*.patch'; } | LC_ALL=C sort)

author=${SERIES_AUTHOR:-"$(git config user.name) <$(git config user.email)>"}
# The sender commits and writes the cover letter as the author.
GIT_COMMITTER_NAME=${author% <*}
GIT_COMMITTER_EMAIL=${author##*<}
GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL%>}
export GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
# The project's last commit dates every patch: the same tree gives the
# same series.
date=$(git log -1 --format=%aD)
claimed=$(mktemp)
staged=$(mktemp)
trap 'rm -f "$claimed" "$staged"' EXIT

declare -A early=()	# file -> the patch that names it by Early:
git_r checkout -q -f -B series base
git_r clean -q -f -d -x
# A series with no patch this time must leave no tag behind.
for name in "${series_order[@]}"; do
	git_r tag -d "$name" >/dev/null 2>&1 || true
done

# header FILE KEY: the values of every "KEY:" line of FILE's header.
header() {
	sed -n '/^$/q; s/^'"$2"': *//p' "$1"
}

# body FILE: the message body (after the header), notes excluded.
body() {
	sed '1,/^$/d' "$1" | sed '/^---$/,$d'
}

# notes FILE: what follows the first "---" line of the body.
notes() {
	sed '1,/^$/d' "$1" | sed -n '/^---$/,$p' | sed '1d'
}

# series_of FILE: the series a series/ file belongs to.
series_of() {
	local name
	name=$(header "$1" Series)
	echo "${name:-kernel}"
}

for i in "${!defs[@]}"; do
	def=${defs[$i]}
	subject=$(header "$def" Subject)
	[ -n "$subject" ] || die "$def: no Subject:"
	files=()
	# Patterns as written, not globbed against this folder.
	read -ra pats <<< "$(header "$def" Files | tr '\n' ' ')"
	for pat in "${pats[@]}"; do
		matched=0
		for f in "${tracked[@]}"; do
			# shellcheck disable=SC2053
			if [[ $f == $pat || $f == "${pat%/}"/* ]]; then
				files+=("$f")
				matched=1
			fi
		done
		[ $matched -eq 1 ] || die "$def: '$pat' matches no file"
	done
	[ ${#files[@]} -gt 0 ] || die "$def: no Files:"
	added=()
	for f in "${files[@]}"; do
		echo "$f $def" >> "$claimed"
		case "$f" in
		patches/*.patch)
			patch -p1 -s -N -d "$repo" < "$f" ||
				die "$def: $f does not apply"
			;;
		*)
			added+=("$f")
			;;
		esac
	done
	if [ ${#added[@]} -gt 0 ]; then
		printf '%s\n' "${added[@]}" |
			rsync -cp --files-from=- "$overlay/" "$repo/"
	fi
	nr=${def##*/}
	nr=${nr%%-*}
	# The final files lose their markers.
	if [ ${#added[@]} -gt 0 ]; then
		while IFS= read -r f; do
			f=${f#"$overlay"/}
			"$scripts/series-early.py" --final "$nr" "$overlay/$f" \
				"$repo/$f" || die "$def: $f: bad markers"
		done < <("$scripts/series-early.py" --marked "${added[@]/#/$overlay/}")
	fi
	# The early versions this patch adds of files a later one finishes.
	read -ra pats <<< "$(header "$def" Early | tr '\n' ' ')"
	for f in "${pats[@]}"; do
		[ -f "$overlay/$f" ] || die "$def: Early: $f is no overlay file"
		[ -z "${early[$f]:-}" ] || die "$def: Early: $f is already early"
		early[$f]=$def
	done
	residual=${def%.txt}.diff
	remade=()
	for f in "${!early[@]}"; do
		if printf '%s\n' "${files[@]}" | grep -qxF -- "$f"; then
			unset "early[$f]"
			continue
		fi
		[ "${early[$f]}" = "$def" ] ||
			grep -qE "^[[:space:]]*(#|/\*)[[:space:]]*series:[[:space:]]*$nr([[:space:]]|\*|\$)" "$overlay/$f" ||
			{ [ -f "$residual" ] && grep -qxF -- "+++ b/$f" "$residual"; } ||
			continue
		mkdir -p "$repo/$(dirname "$f")"
		"$scripts/series-early.py" "$nr" "$overlay/$f" "$repo/$f" ||
			die "$def: $f: bad markers"
		chmod --reference="$overlay/$f" "$repo/$f"
		remade+=("$f")
		added+=("$f")
		echo "$f $def" >> "$staged"
	done
	if [ -f "$residual" ]; then
		while read -r f; do
			printf '%s\n' "${remade[@]}" | grep -qxF -- "$f" ||
				die "$residual: $f is no early file of this patch"
		done < <(sed -n 's|^+++ b/||p' "$residual")
		patch -p1 -s -N -F0 --no-backup-if-mismatch -d "$repo" \
			< "$residual" || die "$residual does not apply"
	fi
	# -f: the tree's .gitignore hides some of tools/ from git.
	git_r add -u .
	[ ${#added[@]} -eq 0 ] || git_r add -f -- "${added[@]}"
	{
		echo "$subject"
		echo
		body "$def"
		if [ -n "${SIGNOFF:-}" ]; then
			echo
			echo "Signed-off-by: $SIGNOFF"
		fi
	} | GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
		git_r commit -q --allow-empty-message --author="$author" -F - ||
		die "$def: nothing to commit"
	n=$(notes "$def")
	[ -z "$n" ] || git_r notes add -f -m "$n" HEAD
	this=$(series_of "$def")
	if [ $((i + 1)) -eq ${#defs[@]} ] ||
	   [ "$(series_of "${defs[$((i + 1))]}")" != "$this" ]; then
		git_r tag -f "$this" >/dev/null
	fi
done

# Each file exactly once.
bad=$(awk '{ n[$1]++; d[$1] = d[$1] " " $2 }
	   END { for (f in n) if (n[f] > 1) print f ":" d[f] }' "$claimed")
[ -z "$bad" ] || die "claimed more than once: $bad"
unclaimed=$(LC_ALL=C comm -23 <(printf '%s\n' "${tracked[@]}") \
	<(cut -d' ' -f1 "$claimed" | LC_ALL=C sort -u))
[ -z "$unclaimed" ] || die "in no patch: $(echo $unclaimed)"
# An early version must be finished by a later patch.
while read -r f def; do
	later=$(awk -v f="$f" '$1 == f { print $2 }' "$claimed")
	[ -n "$later" ] && [[ $later > $def ]] ||
		die "$def: the early $f is finished by no later patch"
done < "$staged"

# 3. The mail.
# mail DIR RANGE COVER PREFIX: format RANGE into DIR, fill in its cover
# letter from COVER, and print the size of each patch as a reviewer
# meets it: lines of the mail, and lines added and removed.
mail() {
	local dir=$1 range=$2 cover=$3 prefix=$4 total=0 lines p

	rm -rf "$dir"
	git_r format-patch -q --cover-letter --notes --thread=shallow \
		--subject-prefix="$prefix" -o "$dir" "$range"
	python3 "$scripts/series-cover.py" "$cover" "$out" \
		"$dir"/0000-cover-letter.patch "$repo"
	for p in "$dir"/[0-9]*.patch; do
		case ${p##*/} in 0000-*) continue ;; esac
		lines=$(wc -l < "$p")
		total=$((total + lines))
		# shellcheck disable=SC2046 # two numbers, two arguments
		printf '  SERIES  %6d lines (+%d -%d)  %s\n' "$lines" \
			$(awk '/^(\+\+\+|---) / || /^(---|-- )$/ { next }
			       /^\+/ { a++ } /^-/ { d++ }
			       END { print a + 0, d + 0 }' "$p") "${p##*/}"
	done
	echo "  SERIES  $(ls "$dir" | grep -vc '^0000') patches, $total lines, and a cover letter in $dir"
}

prefix=${SERIES_PREFIX:-PATCH}
from=base
for name in "${series_order[@]}"; do
	rm -rf "$(series_out "$name")"
	git_r rev-parse -q --verify "refs/tags/$name" >/dev/null || continue
	if [ "$name" = kernel ]; then
		mail "$out/series" base..kernel "$defs_dir/cover-letter.txt" \
			"$prefix"
	else
		mail "$(series_out "$name")" "$from..$name" \
			"$defs_dir/cover-letter-$name.txt" "$prefix $name"
	fi
	from=$name
done
