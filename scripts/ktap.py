#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Turn KTAP output into one result line per test: the one KTAP parser
of the project's steps (the KUnit runs, the harness's KUnit binaries,
series-check, vmtest).

Usage: ktap.py RUN LOG
       ktap.py --stream RUN LOG

The first form reads a KUnit log (kunit.py's test.log, a console, the
userspace KUnit shim's output) and prints "PASS RUN:suite:case",
"FAIL ..." or "SKIP ..." for every test case (a parameterized case
counts once, with its overall result). A suite that reported fewer cases
than its plan announced or never ended (the kernel crashed or hung) is
one line FAIL RUN:suite:incomplete, a suite that failed without cases
(init failed) FAIL RUN:suite:suite-init, a log with fewer suites than
its plan FAIL RUN:incomplete, and a log with no suite at all FAIL
RUN:no-kunit-results.

--stream reads a log of several KTAP documents one after another, with
other lines between them, as a vmtest guest sends: the flat results of
selftest runners (ftracetest -K) and of the guest's own checks, and the
KUnit suites of its boot (its dmesg). It prints "STATUS RUN:N:NAME" for
each test at the top level and each case of a suite, N counting them
from 1 over the whole log. NAME is the test's description with runs of
blanks made "_", or "kunit:suite:case" for a case of a suite (and
"kunit:suite:incomplete" and "kunit:suite:suite-init" as above). A
document that reported fewer tests than its plan adds RUN:N:incomplete;
a log without any result is FAIL RUN:no-results.

"not ok" is FAIL, "ok ... # SKIP" SKIP, any other "ok" PASS. Lines that
are not KTAP (kernel messages, a test's log) are passed over, and so is a
printk timestamp before a KTAP line. Exits 0; the caller reads the lines.
"""

import re
import sys

PREFIX = re.compile(r'^(\[\s*\d+\.\d+\]\s?)?')
VERSION = re.compile(r'^( *)K?TAP version \d+\s*$')
SUBTEST = re.compile(r'^( *)# Subtest: (.+?)\s*$')
PLAN = re.compile(r'^( *)1\.\.(\d+)\s*$')
RESULT = re.compile(r'^( *)(ok|not ok) (\d+)\s*(?:- )?([^#]*?)\s*'
                    r'(#\s*(\S+).*)?$')


class Test:
    """A test: its result line and the subtests reported before it
    (nested). A document, all that follows one top-level version line,
    is a nested Test that has no result line of its own."""

    def __init__(self, nested):
        self.nested = nested
        self.name = None        # its "# Subtest:" line, else desc
        self.desc = None        # the description of its result line
        self.plan = None        # the "1..N" of its subtests
        self.subtests = []
        self.status = None      # PASS, FAIL, SKIP; None: it never ended

    def finished(self):
        return [t for t in self.subtests if t.status]

    def unended(self):
        """One of its subtests never ended."""
        return len(self.finished()) < len(self.subtests)

    def short(self):
        """Fewer subtests began than its plan announced."""
        return len(self.subtests) < (self.plan or 0)


def level(indent):
    """Nesting level of a line indented by @indent, or None if it is not
    a multiple of KTAP's four spaces."""
    return None if len(indent) % 4 else len(indent) // 4


def parse(lines):
    """The documents of a log, in order, each a Test of top-level tests;
    the tests before the first version line make a document too."""
    docs = [Test(True)]
    # open_[d]: the test whose subtests are the lines at level d and
    # whose own result line has not come yet; open_[0] is the document.
    open_ = [docs[0]]

    def leave_unended(d):
        """Put the open tests above level @d in their parents, unended."""
        while len(open_) > d + 1:
            t = open_.pop()
            open_[-1].subtests.append(t)

    def opened(d):
        """The open test whose subtests are at level @d."""
        while len(open_) <= d:
            open_.append(Test(True))
        return open_[d]

    for raw in lines:
        line = PREFIX.sub('', raw.rstrip())
        m = VERSION.match(line) or SUBTEST.match(line) or \
            PLAN.match(line) or RESULT.match(line)
        d = level(m.group(1)) if m else None
        if d is None:
            continue
        if m.re is VERSION:
            # The first line of a test: any other at its level is over.
            leave_unended(max(d - 1, 0))
            if d == 0:
                open_[0] = Test(True)
                docs.append(open_[0])
            else:
                opened(d)
        elif m.re is SUBTEST and d > 0:
            leave_unended(d)
            t = opened(d)
            if t.name is not None or t.plan is not None or t.subtests:
                # Another test that began without a version line.
                leave_unended(d - 1)
                t = opened(d)
            t.name = m.group(2)
        elif m.re is PLAN:
            leave_unended(d)
            opened(d).plan = int(m.group(2))
        elif m.re is RESULT:
            leave_unended(d + 1)
            t = open_.pop() if len(open_) > d + 1 else Test(False)
            opened(d).subtests.append(t)
            t.desc = m.group(4)
            if t.name is None:
                t.name = t.desc
            if m.group(2) == 'not ok':
                t.status = 'FAIL'
            elif (m.group(6) or '').upper() == 'SKIP':
                t.status = 'SKIP'
            else:
                t.status = 'PASS'
    leave_unended(0)
    return [doc for doc in docs if doc.subtests or doc.plan is not None]


def suite_results(suite):
    """(status, name) of every case of a KUnit suite, then what failed of
    the suite itself: its init (it failed without cases), or it ended
    early."""
    cases = suite.finished()
    # One that ended before its name: the log's, not a suite's failure.
    name = suite.name + ':' if suite.name else ''
    out = [(t.status, name + t.desc) for t in cases]
    if suite.status == 'FAIL' and not cases:
        out.append(('FAIL', name + 'suite-init'))
    if suite.status is None or suite.unended() or suite.short():
        out.append(('FAIL', name + 'incomplete'))
    return out


def ended_short(doc):
    """All of its tests ended, and fewer than its plan announced (one
    that did not end fails on its own)."""
    return not doc.unended() and doc.short()


def kunit(run, docs):
    """Result lines of a KUnit log."""
    out = []
    suites = short = 0
    for doc in docs:
        for suite in doc.subtests:
            suites += suite.nested
            if suite.nested or suite.status == 'FAIL':
                out += suite_results(suite)
        short += ended_short(doc)
    if not suites:
        out.append(('FAIL', 'no-kunit-results'))
    elif short:
        out.append(('FAIL', 'incomplete'))
    return [f'{status} {run}:{name}' for status, name in out]


def stream(run, docs):
    """Result lines of a stream of KTAP documents, numbered."""
    out = []
    for doc in docs:
        for t in doc.subtests:
            if t.nested:
                out += [(s, 'kunit:' + name) for s, name in suite_results(t)]
            else:
                out.append((t.status, re.sub(r'\s+', '_', t.desc)))
        if ended_short(doc):
            out.append(('FAIL', 'incomplete'))
    lines = [f'{s} {run}:{n}:{name}' for n, (s, name) in enumerate(out, 1)]
    return lines or [f'FAIL {run}:no-results']


def main():
    args = sys.argv[1:]
    report = kunit
    if args[:1] == ['--stream']:
        report = stream
        args = args[1:]
    if len(args) != 2:
        sys.exit('usage: ktap.py [--stream] RUN LOG')
    run, log = args
    try:
        with open(log, errors='replace') as f:
            lines = f.read().splitlines()
    except OSError:
        lines = []
    print('\n'.join(report(run, parse(lines))))


if __name__ == '__main__':
    main()
