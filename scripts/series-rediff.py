#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Carry the early versions of an overlay file over a change of it.

series/NN-name.diff holds, for each file patch NN adds an early version
of, a diff from what the markers make of the final file (series-early.py
NN) to that early version. A change to the final file inside a region
such a diff removes or rewrites makes the diff fail to apply ("does not
apply" from make series). This script remakes each such section so that
the early versions stay what they were at REV, a commit where the final
file and the diffs agreed:

    early = patch(series-early.py NN FILE@REV, section@REV)
    section = diff -U1 (series-early.py NN FILE) early

Usage: series-rediff.py REV FILE...

FILE is an overlay path (linux/tools/...). Run from the top of the tree.
It rewrites series/*.diff in place and names the sections it remade.
"""

import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EARLY = os.path.join(ROOT, 'scripts', 'series-early.py')


def sections(text):
    """The text before the first section, and the sections."""
    parts = re.split(r'(?m)^(?=--- a/)', text)
    return parts[0], parts[1:]


def git_show(rev, path):
    return subprocess.run(['git', '-C', ROOT, 'show', '%s:%s' % (rev, path)],
                          capture_output=True, check=True).stdout


def early_of(nr, src, dst):
    subprocess.run([EARLY, nr, src, dst], check=True)


def rediff(rev, path, tmp):
    name = path[len('linux/'):] if path.startswith('linux/') else path
    head = '--- a/%s\n' % name
    done = []
    for diff in sorted(glob.glob(os.path.join(ROOT, 'series', '*.diff'))):
        rel = os.path.relpath(diff, ROOT)
        lead, secs = sections(open(diff).read())
        idx = [i for i, s in enumerate(secs) if s.startswith(head)]
        if not idx:
            continue
        nr = os.path.basename(diff).split('-', 1)[0]
        _, old_secs = sections(git_show(rev, rel).decode())
        old = [s for s in old_secs if s.startswith(head)]
        if not old:
            sys.exit('%s: no section for %s at %s' % (rel, name, rev))
        final_then = os.path.join(tmp, 'then')
        with open(final_then, 'wb') as f:
            f.write(git_show(rev, path))
        early = os.path.join(tmp, 'early')
        early_of(nr, final_then, early)
        res = subprocess.run(['patch', '-s', '-F0', '--no-backup-if-mismatch',
                              early], input=old[0], text=True,
                             capture_output=True)
        if res.returncode:
            sys.exit('%s: its section for %s at %s does not apply: %s'
                     % (rel, name, rev, res.stdout + res.stderr))
        marked_now = os.path.join(tmp, 'now')
        early_of(nr, os.path.join(ROOT, path), marked_now)
        new = subprocess.run(['diff', '-U1', '--label', 'a/' + name,
                              '--label', 'b/' + name, marked_now, early],
                             capture_output=True, text=True).stdout
        if not new:
            sys.exit('%s: the early %s is now the final one: drop it from '
                     'the patch by hand' % (rel, name))
        secs[idx[0]] = new
        with open(diff, 'w') as f:
            f.write(lead + ''.join(secs))
        done.append(rel)
    return done


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip().split('\n\n')[2])
    rev = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        for path in sys.argv[2:]:
            for rel in rediff(rev, path, tmp):
                print('%s: %s remade' % (rel, path))


if __name__ == '__main__':
    main()
