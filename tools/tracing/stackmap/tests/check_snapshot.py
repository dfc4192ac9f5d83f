#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""End-to-end check of a snapshot taken on a live kernel.

Usage: check_snapshot.py STACKMAP_BIN SNAPSHOT_DIR

SNAPSHOT_DIR is what "stackmap snapshot" saved. Checks that its
stack_map_bin decodes, and that "stackmap dump --kallsyms" prints every
record exactly as the kernel's own stack_map text does: same id, depth and
frames. stack_map was read after stack_map_bin, so it may hold more
records and higher ref counts, never fewer. Then checks that "stackmap
expand" resolves every id of the saved trace that belongs to the map's
generation. Exit status 0 if all holds.
"""
import os
import re
import subprocess
import sys

HEAD = re.compile(r'^stack_id (0x[0-9a-f]{8}) \[ref (\d+), depth (\d+)\]$')


def parse(text):
    recs, cur = {}, None
    for line in text.splitlines():
        m = HEAD.match(line)
        if m:
            cur = recs[m.group(1)] = [int(m.group(2)), int(m.group(3)), []]
        elif cur is not None and line.startswith('  ['):
            cur[2].append(line.split('] ', 1)[1])
    return recs


def main():
    tool, snap = sys.argv[1], sys.argv[2]
    path = lambda name: os.path.join(snap, name)  # noqa: E731
    p = subprocess.run([tool, 'dump', '--kallsyms', path('kallsyms'),
                        path('stack_map_bin')], capture_output=True,
                       text=True)
    if p.returncode:
        print('FAIL: dump: ' + p.stderr.strip())
        return 1
    dumped = parse(p.stdout)
    with open(path('stack_map')) as f:
        kernel = parse(f.read())
    bad = 0
    for rid, (refs, depth, frames) in dumped.items():
        k = kernel.get(rid)
        if not k:
            # Only a reset between the two reads explains this.
            print('FAIL: %s not in stack_map' % rid)
            bad += 1
        elif k[1] != depth or k[2] != frames or k[0] < refs:
            print('FAIL: %s differs:\n  dump:   %s\n  kernel: %s' %
                  (rid, (refs, depth, frames), k))
            bad += 1
    p = subprocess.run([tool, 'expand', '--map', path('stack_map_bin'),
                        '--kallsyms', path('kallsyms'), path('trace')],
                       capture_output=True, text=True)
    unknown = p.stdout.count('] [unknown]') + p.stdout.count('> [unknown]')
    if p.returncode or unknown:
        print('FAIL: expand: exit %d, %d unknown ids: %s' %
              (p.returncode, unknown, p.stderr.strip()))
        bad += 1
    print('%d records compared, %d stack traces expanded, %d failures' %
          (len(dumped), p.stdout.count('<stack trace>'), bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
