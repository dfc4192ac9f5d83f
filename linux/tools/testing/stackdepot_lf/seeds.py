#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the fuzzer's seed corpus from seeds.txt.

Usage: seeds.py SEEDS.TXT DIR

Each "seed NAME" line starts a seed; the hex lines after it are its
bytes. Blank lines and lines starting with "#" are ignored.
"""

import os
import sys


def main():
    src, dest = sys.argv[1], sys.argv[2]
    seeds, name = {}, None
    with open(src) as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            if line.startswith('seed '):
                name = line.split(None, 1)[1]
                seeds[name] = bytearray()
            elif name is None:
                sys.exit('%s:%d: bytes before the first seed' % (src, lineno))
            else:
                try:
                    seeds[name] += bytes.fromhex(line)
                except ValueError:
                    sys.exit('%s:%d: not hex' % (src, lineno))
    os.makedirs(dest, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(dest, name), 'wb') as f:
            f.write(data)


if __name__ == '__main__':
    main()
