#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The decoder is built against tools/include/uapi/linux/trace_stackmap.h,
# a copy of the kernel's stack_map_bin ABI, so that it builds without the
# kernel's include/ (as perf does with its copies, see
# tools/perf/check-headers.sh). A copy that drifted from the kernel's
# header means the decoder reads another format than the kernel writes:
# fail, and say how to bring the copy up to date.
#
# Usage: check-headers.sh SRCTREE [RESULTS]
# Appends "PASS tools:uapi_header_copy" or "FAIL tools:uapi_header_copy"
# to RESULTS; without the kernel's header (tools/ outside a kernel tree)
# there is nothing to compare with and the check is skipped.

srctree=$1
results=$2
hdr=include/uapi/linux/trace_stackmap.h
name=tools:uapi_header_copy

record() { # PASS|FAIL|SKIP
	echo "$1 $name"
	[ -z "$results" ] && return
	mkdir -p "$(dirname "$results")"
	echo "$1 $name" >> "$results"
}

if [ ! -f "$srctree/$hdr" ]; then
	echo "check-headers.sh: no $srctree/$hdr to compare tools/$hdr with" >&2
	record SKIP
	exit 0
fi
if [ ! -f "$srctree/tools/$hdr" ]; then
	echo "check-headers.sh: tools/$hdr is missing" >&2
	record FAIL
	exit 1
fi
if ! cmp -s "$srctree/tools/$hdr" "$srctree/$hdr"; then
	echo "check-headers.sh: tools/$hdr differs from $hdr, the ABI the kernel writes:" >&2
	(cd "$srctree" && diff -u "tools/$hdr" "$hdr") | head -40 >&2
	echo "check-headers.sh: adapt the decoder to the change, then copy:" >&2
	echo "  cp $hdr tools/$hdr" >&2
	record FAIL
	exit 1
fi
record PASS
