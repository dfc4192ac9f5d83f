# SPDX-License-Identifier: GPL-2.0
"""Tests of "stackmap profile" on trace.dat files that mktracedat.py
writes: kmem allocation events with known fields, each followed by a
known stack (an id and its definition, an id without one, or a full
kernel_stack), at known times. Every expectation is computed by hand
below, not by running the tool.

run_tests.py calls run(); the cases need its Runner (r.check(), r.write(),
r.bin, r.tmp).
"""
import os
import re
import shutil
import subprocess

import defs_tests
import mktracedat as m
import smapgen as g

# Frames, with run_tests.py's kallsyms: name+0xoff/0xsize.
A0, A1, A2, A3 = (0xffffffff81000010, 0xffffffff81000123,
                  0xffffffffc0001000, 0xffffffff81000205)
NAME = {A0: '_stext', A1: 'foo_bar', A2: 'modfn', A3: 'baz'}
SYM = {A0: '_stext+0x10/0x100', A1: 'foo_bar+0x23/0x100',
       A2: 'modfn+0x100/0x1100', A3: 'baz+0x5/0x100'}
X1, X2, X3 = (g.make_id(0x2a5a5, i, 14) for i in (1, 2, 3))
UNRES = '[unresolved stack_id 0x%08x]' % X3
# The stacks, innermost first: S1 and S3 by ids, S2 and S4 in full.
S1, S2, S3, S4 = [A0, A1], [A3, A0], [A2, A3], [A1]
PAGE = m.PAGE


def eq(a, b, what=''):
    assert a == b, '%s: expected %r, got %r' % (what, b, a)


def us(t):
    """The trace time of @t microseconds after TS0, as --from takes it."""
    ns = m.TS0 + t * 1000
    return '%d.%09d' % (ns // 10**9, ns % 10**9)


def kmem_trace(kallsyms, path, long_size=8, bo='<', to=None, clock=None):
    """Seven allocations with stacks, on two CPUs, and a kfree without:

      us  CPU event              bytes          stack
      10  0   kmalloc            64             X1 (defined) = S1
      20  1   kmem_cache_alloc   192            X1 = S1
      30  0   mm_page_alloc o=2  4 pages 16384  full S2
      40  1   kmalloc            128 (req 100)  X2 (defined) = S3
      50  0   kmalloc            32             X3, never defined
      60  1   mm_page_alloc o=0  4096           X2 = S3
      70  0   kfree              -              none
      80  0   kmem_cache_alloc   64             full S4
    """
    t = m.TraceDat(kallsyms, cpus=2, long_size=long_size, bo=bo,
                   clock=clock)
    frames = {}
    for f in S1 + S2 + S3 + S4:
        frames[f] = to[f] if to else f
    s1, s2, s3, s4 = ([frames[f] for f in s] for s in (S1, S2, S3, S4))

    def at(x):
        return m.TS0 + x * 1000
    t.kmem_alloc(at(10), 'kmalloc', 64)
    t.stack_def(at(10), X1, s1)
    t.stack_id(at(10), X1)
    t.kmem_alloc(at(20), 'kmem_cache_alloc', 192, cpu=1)
    t.stack_id(at(20), X1, cpu=1)
    t.page_alloc(at(30), 2)
    t.kernel_stack(at(30), s2)
    t.kmem_alloc(at(40), 'kmalloc', 128, cpu=1, bytes_req=100)
    t.stack_def(at(40), X2, s3, cpu=1)
    t.stack_id(at(40), X2, cpu=1)
    t.kmem_alloc(at(50), 'kmalloc', 32)
    t.stack_id(at(50), X3)
    t.page_alloc(at(60), 0, cpu=1)
    t.stack_id(at(60), X2, cpu=1)
    t.kfree(at(70), 0x1000)
    t.kmem_alloc(at(80), 'kmem_cache_alloc', 64)
    t.kernel_stack(at(80), s4)
    t.write(path)
    return path


def cpu_lines():
    """The table's lines of each CPU's span in kmem_trace(): CPU 0 from
    10 to 80 us, CPU 1 from 20 to 60."""
    return ['# cpu0: 10 events from %s to %s s' % (us(10), us(80)),
            '# cpu1: 7 events from %s to %s s' % (us(20), us(60))]


def table_row(rank, events, weights, share, stack, indent):
    """The lines of a row of the --top table, as widths of 4, 6 and
    the weights' own give them."""
    line = '%4d  %6d' % (rank, events)
    for value, width in weights:
        line += '  %*d' % (width, value)
    line += '  %5.1f%%  ' % share
    if isinstance(stack, str):
        return [line + stack]
    return [line + SYM[stack[0]]] + [' ' * indent + SYM[f]
                                     for f in stack[1:]]


def folded(stack):
    return ';'.join(NAME[f] for f in reversed(stack))


def tests_profile(r, kallsyms):
    dat = kmem_trace(kallsyms, os.path.join(r.tmp, 'kmem.dat'))
    unres_msg = ('stackmap: profile: events with a stack id without '
                 'definition: 1 (the first 0x%08x), each counted as the '
                 'stack [unresolved stack_id ID]\n' % X3)

    def run(args, code=0):
        p = subprocess.run([r.bin, 'profile'] + args, capture_output=True)
        eq(p.returncode, code, 'exit of %r: %r' % (args, p.stderr))
        return p.stdout.decode(), p.stderr.decode()

    def top_bytes():
        # Weighed by bytes, one allocator layer at a time: kmalloc and
        # kmem_cache_alloc (bytes_alloc) of the slab layer, total 256 +
        # 128 + 64 + 32; kfree, which has no stack, is not counted.
        out, err = run(['--weight', 'bytes', '--layer', 'slab', dat])
        total = 480.0
        rows = [(1, 2, 256, S1), (3, 1, 128, S3), (4, 1, 64, S4),
                (5, 1, 32, UNRES)]
        ind = 4 + 2 + 6 + 2 + 5 + 2 + 8
        lines = ['# %s: %s to %s (0.000070000 s): 5 events, 4 stacks'
                 % (dat, us(10), us(80))] + cpu_lines() + [
                 'rank  events  bytes   share  stack']
        for rank, (_, events, b, stack) in enumerate(rows, 1):
            lines += table_row(rank, events, [(b, 5)], 100 * b / total,
                               stack, ind)
        eq(out, '\n'.join(lines) + '\n', 'stdout')
        eq(err, unres_msg, 'stderr')
        # The page layer: mm_page_alloc, page size << order.
        out, err = run(['--weight', 'bytes', '--layer', 'page', dat])
        lines = ['# %s: %s to %s (0.000070000 s): 2 events, 2 stacks'
                 % (dat, us(10), us(80))] + cpu_lines() + [
                 'rank  events  bytes   share  stack']
        for rank, (events, b, stack) in enumerate(
                [(1, 16384, S2), (1, 4096, S3)], 1):
            lines += table_row(rank, events, [(b, 5)], 100 * b / 20480.0,
                               stack, ind)
        eq(out, '\n'.join(lines) + '\n', 'stdout, page layer')
        eq(err, '', 'stderr, page layer')
        # Both layers in one column would count the slab objects and
        # the pages they are carved from twice: refused.
        out, err = run(['--weight', 'bytes', dat], 2)
        eq((out, err), ('', 'stackmap: profile: --weight bytes would add '
                        'slab objects to the pages they are carved from: '
                        'choose --layer slab or --layer page\n'), 'mixed')
    r.check('profile_top_bytes', top_bytes)

    def top_events():
        # By count: S1 and S3 twice, the others once; ties by the
        # innermost frame's address, unresolved ids last.
        out, _ = run([dat])
        ranked = [line.split()[:3] for line in out.splitlines()[4:]
                  if not line.startswith(' ' * 10)]
        eq(ranked, [['1', '2', '28.6%'], ['2', '2', '28.6%'],
                    ['3', '1', '14.3%'], ['4', '1', '14.3%'],
                    ['5', '1', '14.3%']], 'ranks')
        assert out.splitlines()[4].endswith(SYM[A0]), out
        assert out.splitlines()[-1].endswith(UNRES), out
        # --top 2: the two heaviest only.
        out, _ = run(['--top', '2', dat])
        eq(len([x for x in out.splitlines() if re.match(r' *\d+  ', x)]), 2,
           'rows of --top 2')
    r.check('profile_top_events', top_events)

    def two_weights():
        # Two fields of two events at once: bytes_alloc and bytes_req of
        # kmalloc and kmem_cache_alloc (their stacks only).
        out, err = run(['-e', 'kmem:kmalloc', '-e', 'kmem:kmem_cache_alloc',
                        '-w', 'bytes_alloc', '-w', 'bytes_req', dat])
        lines = out.splitlines()
        eq(lines[1:3], cpu_lines(), 'spans')
        eq(lines[3], 'rank  events  bytes_alloc  bytes_req   share  stack',
           'header')
        rows = [line.split() for line in lines[2:] if re.match(r' *\d', line)]
        eq([x[:5] for x in rows],
           [['1', '2', '256', '256', '53.3%'],
            ['2', '1', '128', '100', '26.7%'],
            ['3', '1', '64', '64', '13.3%'],
            ['4', '1', '32', '32', '6.7%']], 'rows')
        eq([' '.join(x[5:]) for x in rows], [SYM[A0], SYM[A2], SYM[A1], UNRES],
           'leaves')
        eq(err, unres_msg, 'stderr')
    r.check('profile_two_weights_two_events', two_weights)

    def left_out():
        # What is not counted is said, with how many: a selected event
        # without a stack (kfree); by default, events with a stack that
        # lack a weight (mm_page_alloc has no bytes_req).
        out, err = run(['-e', 'kmem:kfree', '-e', 'kmem:kmalloc', '--folded',
                        dat])
        eq(out, '%s 1\n%s 1\n%s 1\n' % (UNRES, folded(S3), folded(S1)),
           'stdout')
        eq(err, unres_msg + 'stackmap: profile: selected events without a '
           'stack, left out: 1\n', 'stderr')
        out, err = run(['-w', 'bytes_req', '--folded', dat])
        eq(out, '%s 32\n%s 100\n%s 64\n%s 256\n' % (
            UNRES, folded(S3), folded(S4), folded(S1)), 'stdout')
        eq(err, unres_msg + 'stackmap: profile: events with a stack left '
           'out for lack of a weight: 2 (the first kmem:mm_page_alloc, '
           'without bytes_req)\n', 'stderr')
    r.check('profile_left_out_on_stderr', left_out)

    def page_order():
        # mm_page_alloc alone: page size << order, 4 << 2 pages and 1.
        out, _ = run(['-e', 'kmem:mm_page_alloc', '-w', 'bytes', '--folded',
                      dat])
        eq(out, '%s %d\n%s %d\n' % (folded(S2), PAGE << 2, folded(S3), PAGE),
           'folded')
        out, _ = run(['-e', 'kmem:mm_page_alloc', '-w', 'order', '--folded',
                      dat])
        eq(out, '%s 2\n%s 0\n' % (folded(S2), folded(S3)), 'order')
    r.check('profile_mm_page_alloc_order', page_order)

    def fold():
        out, err = run(['--folded', '-w', 'bytes', '--layer', 'slab', dat])
        eq(out, ''.join('%s %d\n' % kv for kv in sorted([
            (UNRES, 32), (folded(S3), 128), (folded(S4), 64),
            (folded(S1), 256)])), 'stdout')
        eq(err, unres_msg, 'stderr')
        out, err = run(['--folded', '-w', 'bytes', '--layer', 'page', dat])
        eq(out, ''.join('%s %d\n' % kv for kv in sorted([
            (folded(S2), 16384), (folded(S3), 4096)])), 'page layer')
        # Without a weight, the counts.
        out, _ = run(['--folded', dat])
        eq(out, ''.join('%s %d\n' % kv for kv in sorted([
            (UNRES, 1), (folded(S2), 1), (folded(S3), 2), (folded(S4), 1),
            (folded(S1), 2)])), 'counts')
    r.check('profile_folded', fold)

    def two_buffers():
        # trace-cmd records every buffer: the top one and an instance
        # that traced the same allocation each hold it, and the window,
        # which sums them all, counts it twice; it says so on stderr.
        t = m.TraceDat(kallsyms, cpus=1, buffers=('foo',))
        for buf in ('', 'foo'):
            t.kmem_alloc(m.TS0 + 10000, 'kmalloc', 64, buf=buf)
            t.stack_def(m.TS0 + 10000, X1, S1, buf=buf)
            t.stack_id(m.TS0 + 10000, X1, buf=buf)
        path = os.path.join(r.tmp, 'twobufs.dat')
        t.write(path)
        out, err = run(['--folded', '-w', 'bytes', '-l', 'slab', path])
        eq(out, '%s 128\n' % folded(S1), 'stdout')
        eq(err, 'stackmap: profile: warning: the window counts the events '
           'of 2 buffers (the top one, instance foo): an event that two of '
           'them recorded counts twice\n', 'stderr')
        # One buffer's events: no word.
        t = m.TraceDat(kallsyms, cpus=1, buffers=('foo',))
        t.kmem_alloc(m.TS0 + 10000, 'kmalloc', 64, buf='foo')
        t.stack_def(m.TS0 + 10000, X1, S1, buf='foo')
        t.stack_id(m.TS0 + 10000, X1, buf='foo')
        t.kfree(m.TS0 + 20000, 0x1000)
        path = os.path.join(r.tmp, 'onebuf.dat')
        t.write(path)
        eq(run(['--folded', '-w', 'bytes', '-l', 'slab', path]),
           ('%s 64\n' % folded(S1), ''), 'one buffer')
    r.check('profile_window_of_two_buffers', two_buffers)

    def window(args):
        out, _ = run(['--folded'] + args + [dat])
        return sum(int(x.rsplit(' ', 1)[1]) for x in out.splitlines())

    def edges():
        # Both edges included, to the nanosecond; one just outside not.
        eq(window(['--from', us(30), '--to', us(60)]), 4, 'at both edges')
        eq(window(['--from', '12345.000030001', '--to', us(60)]), 3,
           '1 ns after --from')
        eq(window(['--from', us(30), '--to', '12345.000059999']), 3,
           '1 ns before --to')
        eq(window(['--from', '12345.00003', '--to', '12345.00006']), 4,
           'fewer digits')
        eq(window(['--to', us(10)]), 1, 'only --to, at the first')
        eq(window(['--from', us(80)]), 1, 'only --from, at the last')
    r.check('profile_window_edges', edges)

    def last():
        # --last before the end of the trace (the stack at 80 us):
        # 50, 60 and 80; 1 ns shorter drops the event at 50.
        eq(window(['--last', '0.00003']), 3, '--last 30 us')
        eq(window(['--last', '0.000029999']), 2, '--last 1 ns less')
        # --at ends it elsewhere: 30 and 40.
        eq(window(['--last', '0.00001', '--at', us(40)]), 2, '--at 40 us')
        eq(window(['--last', '0', '--at', us(40)]), 1, '--last 0')
        # Longer than the trace: all of it.
        eq(window(['--last', '100000']), 7, '--last longer')
    r.check('profile_window_last', last)

    def counter_clock():
        # A clock that counts no nanoseconds: times are timestamps, as
        # trace-cmd report prints them, and so is the window.
        path = kmem_trace(kallsyms, os.path.join(r.tmp, 'counter.dat'),
                          clock='counter')
        out, _ = run(['--folded', '--from', str(m.TS0 + 30000), '--to',
                      str(m.TS0 + 60000), path])
        eq(sum(int(x.rsplit(' ', 1)[1]) for x in out.splitlines()), 4,
           'at both edges')
        out, _ = run(['--folded', '--last', '30000', path])
        eq(sum(int(x.rsplit(' ', 1)[1]) for x in out.splitlines()), 3,
           '--last')
        out, _ = run(['--top', '1', path])
        eq(out.splitlines()[0], '# %s: %d to %d (70000): 7 events, 5 stacks'
           % (path, m.TS0 + 10000, m.TS0 + 80000), 'header')
        out, err = run(['--from', us(30), path], 2)
        eq((out, err), ('', "stackmap: profile: --from '%s': not a timestamp "
                        '(digits): the trace clock does not count '
                        'nanoseconds\n' % us(30)), 'seconds')
    r.check('profile_window_counter_clock', counter_clock)

    def other_kernels():
        # The same allocations from a 32-bit kernel and a big-endian one:
        # the same sums and names.
        for name, ls, bo, ks, to in (
                ('long_size_4', 4, '<', defs_tests.KALLSYMS32.encode(),
                 defs_tests.TO32),
                ('big_endian', 8, '>', kallsyms, None),
                ('big_endian_long_size_4', 4, '>',
                 defs_tests.KALLSYMS32.encode(), defs_tests.TO32)):
            path = kmem_trace(ks, os.path.join(r.tmp, 'kmem_%s.dat' % name),
                              ls, bo, to)
            out, _ = run(['--folded', '-w', 'bytes', '-l', 'slab', path])
            eq(out, ''.join('%s %d\n' % kv for kv in sorted([
                (UNRES, 32), (folded(S3), 128), (folded(S4), 64),
                (folded(S1), 256)])), name)
            out, _ = run(['--folded', '-w', 'bytes', '-l', 'page', path])
            eq(out, ''.join('%s %d\n' % kv for kv in sorted([
                (folded(S2), 16384), (folded(S3), 4096)])), name + ' page')
    r.check('profile_folded_other_kernels', other_kernels)

    tests_pprof(r, run, dat)
    tests_bad(r, run, dat, kallsyms)


def go_pprof(r, args):
    """go tool pprof ARGS; a failure, not a skip, without Go."""
    go = shutil.which('go')
    assert go, ('go not found: install golang-go ("make deps") for '
                'go tool pprof')
    p = subprocess.run([go, 'tool', 'pprof'] + args, capture_output=True,
                       env=dict(os.environ, PPROF_TMPDIR=r.tmp))
    eq(p.returncode, 0, 'go tool pprof %r: %r' % (args, p.stderr[-300:]))
    return p.stdout.decode()


def parse_raw(text):
    """go tool pprof -raw: the samples as (values, [function names, leaf
    first]), and the header lines."""
    head, rest = text.split('Samples:\n', 1)
    samples_text, rest = rest.split('Locations\n', 1)
    locs_text = rest.split('Mappings\n', 1)[0]
    names = {}
    for line in locs_text.splitlines():
        mo = re.match(r'\s*(\d+): 0x[0-9a-f]+ M=\d+ (.*) :\d+ s=\d+$', line)
        assert mo, line
        names[mo.group(1)] = mo.group(2)
    samples = []
    lines = samples_text.splitlines()
    for line in lines[1:]:
        values, locs = line.split(':')
        samples.append(([int(v) for v in values.split()],
                        [names[x] for x in locs.split()]))
    return head.splitlines(), lines[0].split(), sorted(samples)


def tests_pprof(r, run, dat):
    path = os.path.join(r.tmp, 'kmem.pb.gz')

    def raw():
        out, err = run(['-w', 'bytes', '-w', 'bytes_req', '-e',
                        'kmem:kmalloc', '-e', 'kmem:kmem_cache_alloc',
                        '--from', us(20), '--to', us(50), '--pprof', path,
                        dat])
        eq(out, '', 'stdout')
        with open(path, 'rb') as f:
            eq(f.read(2), b'\x1f\x8b', 'gzip magic')
        head, types, samples = parse_raw(go_pprof(r, ['-raw', path]))
        # The window 20..50 us: kmem_cache_alloc at 20 (S1), kmalloc at
        # 40 (S3) and 50 (X3).
        # No time (the trace clock counts from boot, not from 1970):
        # the window and each CPU's span are in the comments.
        eq(head, ['Comment: %s: window from %s to %s s (trace clock)'
                  % (dat, us(20), us(50))] +
           ['Comment: ' + x[2:] for x in cpu_lines()] +
           ['PeriodType: events count', 'Period: 1', 'Duration: 30µs'],
           'header')
        eq(types, ['events/count', 'bytes/bytes', 'bytes_req/bytes'],
           'sample types')
        eq(samples, sorted([([1, 192, 192], [NAME[f] for f in S1]),
                            ([1, 128, 100], [NAME[f] for f in S3]),
                            ([1, 32, 32], [UNRES])]), 'samples')
        eq(sum(s[0][1] for s in samples), 352, 'bytes total')
    r.check('profile_pprof_raw', raw)

    def top():
        path_dat = dat
        run(['-w', 'bytes', '--layer', 'page', '--pprof', path, dat])
        out = go_pprof(r, ['-top', '-sample_index=bytes', '-nodefraction=0',
                        '-unit=B', path])
        # The comments first: the window, and each CPU's span.
        lines = out.splitlines()
        eq(lines[:3], ['%s: window from %s to %s s (trace clock)'
                       % (path_dat, us(10), us(80))] +
           [x[2:] for x in cpu_lines()], 'comments')
        lines = lines[3:]
        eq(lines[:4], ['Type: bytes',
                       'Duration: 70us, Total samples = 20480B ',
                       'Showing nodes accounting for 20480B, 100% of '
                       '20480B total',
                       '      flat  flat%   sum%        cum   cum%'],
           'header')
        # The leaves own it all (flat); the callers only through them.
        rows = {' '.join(f[5:]): (f[0], f[3])
                for f in (line.split() for line in lines[4:])}
        eq(rows, {'baz': ('16384B', '20480B'),
                  'modfn': ('4096B', '4096B'),
                  '_stext': ('0', '16384B')}, 'flat and cum')
        out = go_pprof(r, ['-top', '-sample_index=events', path])
        assert 'Total samples = 2 ' in out, out
    r.check('profile_pprof_top', top)


def tests_bad(r, run, dat, kallsyms):
    nostack = m.TraceDat(kallsyms)
    nostack.kfree(m.TS0 + 1000, 0x1000)
    nostack_dat = os.path.join(r.tmp, 'nostack.dat')
    nostack.write(nostack_dat)
    cases = [
        ('unknown_option', ['--bogus', dat], "unknown option '--bogus'"),
        ('missing_argument', [dat, '--from'],
         "option '--from' needs an argument"),
        ('two_outputs', ['--folded', '--top', '3', dat],
         '--top, --folded, --pprof and --svg exclude each other'),
        ('no_trace', [], 'expected one TRACE.DAT'),
        ('weight_nobody_has', ['-w', 'nosuch', dat],
         'no event with a stack has the field nosuch'),
        ('weight_no_selected_event_has',
         ['-e', 'kmem:kmalloc', '-w', 'order', dat],
         'no selected event has the field order'),
        ('event_lacks_weight', ['-e', 'kmem:kmalloc', '-e',
                                'kmem:mm_page_alloc', '-w', 'bytes_alloc',
                                dat],
         'event kmem:mm_page_alloc has no field bytes_alloc'),
        ('event_lacks_bytes', ['-e', 'kmem:kfree', '-e', 'kmem:kmalloc',
                               '-w', 'bytes', dat],
         'event kmem:kfree has no field bytes'),
        ('unknown_event', ['-e', 'kmem:nosuch', dat],
         '%s: no event kmem:nosuch in the trace' % dat),
        ('bad_event_spec', ['-e', 'kmalloc', dat],
         "--event 'kmalloc': not SYS:NAME"),
        ('bad_weight_spec', ['-w', 'a-b', dat],
         "--weight 'a-b': not a field name (letters, digits and _)"),
        ('empty_window_between', ['--from', us(71), '--to', us(79), '-e',
                                  'kmem:kmalloc', dat],
         'empty window: no selected event with a stack from %s to %s'
         % (us(71), us(79))),
        ('empty_window_after', ['--from', us(81), dat],
         'empty window: from %s to %s' % (us(81), us(80))),
        ('from_after_to', ['--from', us(60), '--to', us(30), dat],
         '--from %s is after --to %s' % (us(60), us(30))),
        # Times as the user gave them, not widened to the events
        # trace-cmd report printed at them.
        ('from_after_to_as_given', ['--from', us(60)[:-4], '--to',
                                    us(30)[:-4], dat],
         '--from %s is after --to %s' % (us(60)[:-4], us(30)[:-4])),
        ('empty_window_after_as_given', ['--from', us(81)[:-3], dat],
         'empty window: from %s to %s' % (us(81)[:-3], us(80))),
        ('last_with_from', ['--last', '1', '--from', us(30), dat],
         '--last cannot be combined with --from or --to'),
        ('at_without_last', ['--at', us(30), dat], '--at needs --last'),
        ('no_stacks', [nostack_dat],
         '%s: no stacks in the trace (kernel_stack_id or kernel_stack '
         'events)' % nostack_dat),
        ('malformed_from', ['--from', '12x', dat],
         "--from '12x': not a time in seconds (S or S.FFFFFFFFF)"),
        ('malformed_to_digits', ['--to', '1.0000000001', dat],
         "--to '1.0000000001': more than 9 digits after the point"),
        ('malformed_last', ['--last', '-1', dat],
         "--last '-1': not a time in seconds (S or S.FFFFFFFFF)"),
        ('malformed_at', ['--last', '1', '--at', '99999999999', dat],
         "--at '99999999999': too large"),
        ('malformed_top', ['--top', '0', dat],
         "--top '0': not a count from 1 to 1000000"),
    ]
    for name, args, msg in cases:
        def bad(args=args, msg=msg):
            out = os.path.join(r.tmp, 'bad.pb.gz')
            if os.path.exists(out):
                os.unlink(out)
            # Nothing on stdout; with --pprof (unless the case has an
            # output of its own), no file, and none left beside it.
            extra = [] if '--folded' in args else ['--pprof', out]
            stdout, err = run(extra + args, 2)
            eq((stdout, err), ('', 'stackmap: profile: %s\n' % msg), 'output')
            assert not os.path.exists(out), 'wrote ' + out
            assert not [f for f in os.listdir(r.tmp)
                        if f.startswith('.bad.pb.gz')], 'temporary file left'
            stdout, err = run(args, 2)
            eq((stdout, err), ('', 'stackmap: profile: %s\n' % msg), 'top')
        r.check('profile_bad_' + name, bad)

    def keeps_old():
        # An existing FILE is left as it was.
        out = r.write('old.pb.gz', b'old')
        run(['--pprof', out, '--from', us(81), dat], 2)
        with open(out, 'rb') as f:
            eq(f.read(), b'old', 'old file')
        run(['--pprof', out, dat])
        with open(out, 'rb') as f:
            eq(f.read(2), b'\x1f\x8b', 'replaced')
    r.check('profile_pprof_replaces_whole_or_nothing', keeps_old)

    def usage():
        out, _ = run(['--help'])
        assert out.startswith('Usage: stackmap profile'), out
        p = subprocess.run([os.path.join(r.build, 'bare', 'stackmap'),
                            'profile', '/dev/null'], capture_output=True)
        eq((p.returncode, p.stdout, p.stderr),
           (1, b'', b'stackmap profile: built without libtracecmd\n'),
           'bare build')
    r.check('profile_help_and_bare_build', usage)


def run(r, kallsyms):
    """kallsyms: the text of run_tests.py's (64-bit) kallsyms."""
    tests_profile(r, kallsyms.encode())
