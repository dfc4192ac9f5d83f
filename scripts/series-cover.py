#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Fill in the cover letter git format-patch wrote.

Usage: series-cover.py TEMPLATE OUT COVER REPO

TEMPLATE is series/cover-letter.txt: its first line is the subject, the
rest the blurb. Placeholders in it are replaced by the last outputs under
OUT (the output directory of make run, make bench and make test):

  @BASE@    the Debian package the base tree comes from
  @RUN@     the table of out/run/report.txt (make run)
  @BENCH@   out/bench/report.txt (make bench)
  @TEST@    the steps of the last whole make test, the results each
            counted, their times and the total (out/test-summary/,
            kept by scripts/summary.sh)

An output that is missing leaves a marked placeholder, "[not measured:
...]", saying which command produces it; the script lists on stderr what
it filled and what it could not.
"""

import os
import re
import subprocess
import sys


def read(path):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        return None


def indent(text):
    return '\n'.join(('  ' + line).rstrip() for line in text.rstrip().splitlines())


def missing(what, command):
    return '  [not measured: %s missing; run `%s`]' % (what, command)


def base():
    try:
        ver = subprocess.run(['dpkg-query', '-W', '-f=${Version}',
                              'linux-source-6.12'], capture_output=True,
                             text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        ver = 'unknown version'
    return "Debian's linux-source-6.12 %s" % ver


def run_table(out):
    report = read(os.path.join(out, 'run', 'report.txt'))
    if report is None:
        return None
    # Up to the top stacks: the table and the limit lines.
    head = report.split('\nTop ')[0]
    return indent(head)


def bench(out):
    report = read(os.path.join(out, 'bench', 'report.txt'))
    if report is None:
        return None
    # Where the JSON went on the machine that ran it is nobody's business.
    return indent('\n'.join(l for l in report.splitlines()
                             if not l.startswith('JSON:')))


def test(out):
    results = read(os.path.join(out, 'test-summary', 'results.txt'))
    times = read(os.path.join(out, 'test-summary', 'times.txt'))
    if not results:
        return None
    lines = results.splitlines()
    passed = sum(1 for l in lines if l.startswith('PASS '))
    failed = sum(1 for l in lines if l.startswith('FAIL '))
    counts = matrix(out) or ''
    text = ''
    if counts:
        text += counts + '\n'
    if times:
        text += 'step times (s):\n' + indent(times) + '\n'
    text += '  total: %d passed, %d failed' % (passed, failed)
    return text


def matrix(out):
    results = read(os.path.join(out, 'test-summary', 'results.txt'))
    if not results:
        return None
    steps = {}
    for line in results.splitlines():
        m = re.match(r'^(PASS|FAIL|SKIP) ([^:]+):', line)
        if m:
            steps.setdefault(m.group(2), [0, 0])
            steps[m.group(2)][0 if m.group(1) == 'PASS' else 1] += 1
    return '\n'.join('  %-22s %4d passed, %d failed' % (s, p, f)
                     for s, (p, f) in steps.items())


def main():
    template, out, cover, _repo = sys.argv[1:5]
    text = read(template)
    if text is None:
        sys.exit('series-cover: no %s' % template)
    subject, _, blurb = text.partition('\n')
    filled, unfilled = [], []
    fills = {
        '@BASE@': (lambda: base(), None),
        '@RUN@': (lambda: run_table(out), ('out/run/report.txt', 'make run')),
        '@BENCH@': (lambda: bench(out), ('out/bench/report.txt', 'make bench')),
        '@TEST@': (lambda: test(out), ('out/test-summary/results.txt', 'make test')),
    }
    for key, (fn, miss) in fills.items():
        if key not in blurb:
            continue
        value = fn()
        if value is None:
            value = missing(*miss)
            unfilled.append(key)
        else:
            filled.append(key)
        blurb = blurb.replace(key, value)
    left = re.findall(r'@[A-Z]+@', blurb)
    if left:
        sys.exit('series-cover: unknown placeholders %s' % ' '.join(left))

    mail = read(cover)
    if mail is None or '*** SUBJECT HERE ***' not in mail:
        sys.exit('series-cover: %s is not a fresh cover letter' % cover)
    mail = mail.replace('*** SUBJECT HERE ***', subject.strip(), 1)
    mail = mail.replace('*** BLURB HERE ***', blurb.strip('\n'), 1)
    with open(cover, 'w') as f:
        f.write(mail)
    print('  SERIES  cover letter: filled %s%s' % (
        ' '.join(filled) or 'nothing',
        '; placeholders left for ' + ' '.join(unfilled) if unfilled else ''),
        file=sys.stderr)


if __name__ == '__main__':
    main()
