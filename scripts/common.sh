# SPDX-License-Identifier: GPL-2.0-only
#
# The preamble of the build and test scripts: where things are. The
# top-level Makefile exports BUILD, KSRC, OUT and JOBS; a script run on
# its own gets the same defaults. Sourced, not run:
#
#   scripts       this folder
#   root          the repository
#   build         $BUILD, the git-ignored build folder (root/build)
#   ksrc          $KSRC, the unpacked, patched and overlaid kernel tree
#                 (build/linux, see scripts/tree.sh)
#   out           $OUT, logs and results (root/out)
#   jobs          $JOBS, parallel kernel build jobs (2)
#   record        scripts/results.sh, which appends PASS/FAIL lines
#   tarball       Debian's linux-source-6.12 ($TARBALL)
#   overlay       the files laid over the kernel tree (root/linux)
#   overlay_dirs  its top-level folders
#   series_order  the patch series of make series, in the order they
#                 apply (series_out NAME: where each is written)
#   kpath         PATH for the kernel's checkpatch.pl (see below)
#   apt_retry     runs an apt-get command, retried (see below)
#
# shellcheck shell=bash disable=SC2034
scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$scripts")
build=${BUILD:-$root/build}
ksrc=${KSRC:-$build/linux}
out=${OUT:-$root/out}
jobs=${JOBS:-2}
record=$scripts/results.sh
tarball=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}
overlay=$root/linux
overlay_dirs=(lib include kernel Documentation tools)
series_order=(kernel harness tools)
# checkpatch.pl checks each new file's SPDX tag with scripts/spdxcheck.py,
# which imports ply and git (python3-ply, python3-git). A python3 of pyenv
# or a venv ahead of Debian's in PATH may not see them; spdxcheck.py then
# dies on stderr and checkpatch takes every tag as good.
kpath=/usr/bin:$PATH

# apt_retry CMD...: run an apt-get command, again after 15, 30 and 45 s
# if it fails: a Debian mirror being synced serves index files whose size
# is not yet the one its Release file gives, for a few minutes. Its
# output, hundreds of lines, goes to $out/apt.log rather than into the
# log of make run or make test; the end of it is shown when it fails.
apt_retry() {
	local try log=$out/apt.log
	mkdir -p "$out"
	echo "  APT     ${*:2} (output in $log)"
	for try in 1 2 3 4; do
		echo "# $(date -u +%FT%TZ) $*" >> "$log"
		"$@" >> "$log" 2>&1 && return 0
		tail -n 5 "$log" | sed 's/^/          /' >&2
		[ "$try" -lt 4 ] || return 1
		echo "  APT     '$*' failed; again in $((15 * try)) s" >&2
		sleep $((15 * try))
	done
}

series_out() {
	if [ "$1" = kernel ]; then echo "$out/series"; else echo "$out/series-$1"; fi
}
