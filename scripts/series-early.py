#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Make the version of an overlay file that patch NN of the series adds.

A final file marks the lines that later patches of its series add, each
run between two comment lines of its own:

    # series: 35            /* series: 35 */
    ...                     ...
    # series: end           /* series: end */

(# in Makefiles, scripts and Python; /* */ in C, though the project's
C files and documentation carry none: their early versions are wholly
in series/NN-name.diff).
Sections nest; "end" closes the innermost. The version of patch NN keeps
the sections of patches up to NN and drops those of the patches after
it; every version, the final one too, loses the marker lines, so that no
patch of the series carries them. The markers are comments: the overlay
builds and runs with them, as make tree lays it out.

Usage: series-early.py NN SRC DST          the version of patch NN
       series-early.py --final NN SRC DST  the final version, which
                                           patch NN adds: markers only
                                           go, and a section of a patch
                                           after NN is an error
       series-early.py --marked FILE...    name the files that have
                                           markers
       series-early.py --strip FILE        FILE without its markers, on
                                           stdout (as the overlay's tree
                                           is compared with the series')
"""

import re
import sys

MARKER = re.compile(r'^[ \t]*(?:#|/\*)[ \t]*series:[ \t]*(\d+|end)'
                    r'[ \t]*(?:\*/)?[ \t]*$')


def fail(msg):
    sys.stderr.write(f'series-early: {msg}\n')
    sys.exit(1)


def version(path, nr, final):
    """The lines of @path that patch @nr has, markers removed."""
    with open(path, encoding='utf-8') as f:
        lines = f.read().splitlines(keepends=True)
    out = []
    open_at = []   # (patch, line number) of the sections we are in
    for i, line in enumerate(lines, 1):
        m = MARKER.match(line)
        if not m:
            if all(p <= nr for p, _ in open_at):
                out.append(line)
            continue
        if m.group(1) == 'end':
            if not open_at:
                fail(f'{path}:{i}: "series: end" closes no section')
            open_at.pop()
            continue
        p = int(m.group(1))
        if final and p > nr:
            fail(f'{path}:{i}: a section of patch {p}, in a file '
                 f'that patch {nr} finishes')
        if open_at and p < open_at[-1][0]:
            fail(f'{path}:{i}: patch {p} inside a section of the later '
                 f'patch {open_at[-1][0]}')
        open_at.append((p, i))
    if open_at:
        fail(f'{path}:{open_at[-1][1]}: a section without "series: end"')
    return out


def main(argv):
    if argv[:1] == ['--marked']:
        for path in argv[1:]:
            with open(path, encoding='utf-8', errors='replace') as f:
                if any(MARKER.match(line) for line in f):
                    print(path)
        return
    if argv[:1] == ['--strip'] and len(argv) == 2:
        sys.stdout.write(''.join(version(argv[1], sys.maxsize, False)))
        return
    final = argv[:1] == ['--final']
    if final:
        argv = argv[1:]
    if len(argv) != 3 or not argv[0].isdigit():
        fail('usage: series-early.py [--final] NN SRC DST')
    out = version(argv[1], int(argv[0]), final)
    with open(argv[2], 'w', encoding='utf-8') as f:
        f.write(''.join(out))


if __name__ == '__main__':
    main(sys.argv[1:])
