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
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import stackmap_text  # noqa: E402


def main():
    tool, snap = sys.argv[1], sys.argv[2]
    path = lambda name: os.path.join(snap, name)  # noqa: E731
    p = subprocess.run([tool, 'dump', '--kallsyms', path('kallsyms'),
                        path('stack_map_bin')], capture_output=True,
                       text=True)
    if p.returncode:
        print('FAIL: dump: ' + p.stderr.strip())
        return 1
    try:
        dumped = stackmap_text.parse(p.stdout.splitlines(), 'dump')
        kernel = stackmap_text.read(path('stack_map'))
    except stackmap_text.StackMapError as e:
        print('FAIL: %s' % e)
        return 1
    bad = 0
    for rid, d in dumped.items():
        k = kernel.get(rid)
        if not k:
            # Only a reset between the two reads explains this.
            print('FAIL: %s not in stack_map' % rid)
            bad += 1
        elif k.depth != d.depth or k.frames != d.frames or k.refs < d.refs:
            print('FAIL: %s differs:\n  dump:   %s\n  kernel: %s' %
                  (rid, d, k))
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
