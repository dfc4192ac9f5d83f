#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Default workload of `make run`: bounded and repeatable, the everyday
# slab traffic of a small system. Each round forks and execs, creates,
# reads and removes a file, pushes data through a pipe and walks /proc.

rounds=${1:-150}
i=0
while [ $i -lt $rounds ]; do
	echo "round $i" > /tmp/wl.$i
	cat /tmp/wl.$i | wc -c > /dev/null
	ls -l /tmp > /dev/null
	rm /tmp/wl.$i
	ls /proc/self/ > /dev/null
	i=$((i + 1))
done
