#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Turn a KUnit console log into one result line per test case.

Usage: ktap.py RUN LOG

Prints "PASS RUN:suite:case", "FAIL ..." or "SKIP ..." for every test case
(a parameterized case counts once, with its overall result). A suite whose
plan announces more cases than it reported (the kernel crashed or hung),
a suite that failed without cases (init failed), or a log with no suite at
all is one FAIL line. Exits 0; the caller reads the lines.
"""

import re
import sys

PREFIX = re.compile(r'^(\[\s*\d+\.\d+\]\s?)?')
RESULT = re.compile(r'^(\s*)(ok|not ok) (\d+)\s*(?:- )?([^#]*?)\s*(#\s*(\S+).*)?$')
SUBTEST = re.compile(r'^(\s*)# Subtest: (.+?)\s*$')
PLAN = re.compile(r'^(\s*)1\.\.(\d+)\s*$')


def main():
    run, log = sys.argv[1], sys.argv[2]
    try:
        with open(log, errors='replace') as f:
            lines = f.read().splitlines()
    except OSError:
        lines = []

    names = {}      # indentation -> name of the test whose children sit there
    plans = {}      # suite -> announced number of cases
    seen = {}       # suite -> cases reported
    out = []

    for raw in lines:
        line = PREFIX.sub('', raw.rstrip())
        m = SUBTEST.match(line)
        if m:
            names[len(m.group(1))] = m.group(2)
            continue
        m = PLAN.match(line)
        if m and len(m.group(1)) == 4 and 4 in names:
            plans[names[4]] = int(m.group(2))
            continue
        m = RESULT.match(line)
        if not m:
            continue
        indent, ok, name = len(m.group(1)), m.group(2) == 'ok', m.group(4)
        directive = (m.group(6) or '').upper()
        if indent == 4 and 4 in names:
            suite = names[4]
            seen[suite] = seen.get(suite, 0) + 1
            status = 'SKIP' if directive == 'SKIP' else \
                ('PASS' if ok else 'FAIL')
            out.append(f'{status} {run}:{suite}:{name}')
        elif indent == 0:
            suite = name
            if not ok and seen.get(suite, 0) == 0:
                out.append(f'FAIL {run}:{suite}:suite-init')
            if seen.get(suite, 0) < plans.get(suite, 0):
                out.append(f'FAIL {run}:{suite}:incomplete')
            names.pop(4, None)

    # Suites that started but never finished: crash or timeout.
    for suite, plan in plans.items():
        if seen.get(suite, 0) < plan and \
                f'FAIL {run}:{suite}:incomplete' not in out:
            out.append(f'FAIL {run}:{suite}:incomplete')
    if not plans and not seen:
        out.append(f'FAIL {run}:no-kunit-results')
    print('\n'.join(out))


if __name__ == '__main__':
    main()
