# SPDX-License-Identifier: GPL-2.0
"""Tests of boot-mapped traces: the kernel_stack_boot markers of a
persistent (6.12 boot-mapped) instance, whose buffer holds the last
boot's events and this boot's, each CPU's in buffer order, with stack
ids that restart at each boot and clocks that restart too. "stackmap
report", "stackmap profile", the plugin under the real "trace-cmd
report", and expand and fold on trace text, on files that
mktracedat.py writes; every case asserts the exact output.

run_tests.py calls run(); the cases need its Runner (r.check(),
r.write(), r.bin, r.build, r.tmp).
"""
import os
import subprocess

import defs_tests as d
import mktracedat as m
import smapgen as g

A0, A1, A2, A3, TR = d.A0, d.A1, d.A2, d.A3, d.TR
X1, X2, X3 = d.X1, d.X2, d.X3
# The tokens of the last boot's depot and of this boot's.
TA, TB = 0x1111aaaa, 0x2222bbbb
FIRST = m.BOOT_FIRST
# What report prints after an id that no definition of its boot resolves.
NO_DEF = " [no definition in this boot's part of the trace]"
EARLIER = ' [of an earlier boot: its boot marker is not in the trace]'
NO_MARK = ' [of an unknown boot: its CPU has no boot marker]'
BAD_MARK = ' [of an unknown boot: its boot marker is malformed]'
MARK_NOT_YET = (' [no boot marker read yet on its CPU: stackmap report FILE '
                'reads them all first]')
# The text delta of the tests, and frames of the last boot that it moves
# onto the symbols of run_tests.py's kallsyms.
DELTA = 0x100


def old(frames):
    return [f if f == TR else f - DELTA for f in frames]


def eq(a, b, what=''):
    assert a == b, '%s: expected %r, got %r' % (what, b, a)


def no_delta(path):
    return ('stackmap: %s: boot-marked trace and no text delta given '
            '(--text-delta, --last-boot-info): frames are symbolized as if '
            'the kernel text had not moved\n' % path)


def map_refused(path):
    return ('stackmap: %s: not used for the stack ids of boot-marked '
            'buffers: a map does not say which boot it is from\n' % path)


def counts(resolved, mapped, unres, defs, malformed):
    return ('stackmap: %d stack ids resolved (%d by the map), %d '
            'unresolved; %d definitions read, %d malformed\n' %
            (resolved, mapped, unres, defs, malformed))


class Trace:
    """A trace.dat and what trace-cmd report prints of it, event by
    event, CPU by CPU in buffer order. Times are in microseconds after
    mktracedat.TS0 and may go back on a CPU (the next boot's clock);
    trace-cmd report merges the CPUs by the time of each one's next
    event, ties to the lower CPU."""

    def __init__(self, kallsyms, cpus=1, **kw):
        self.t = m.TraceDat(kallsyms, cpus=cpus, **kw)
        self.cpus = [[] for _ in range(cpus)]

    def add(self, us, cpu, name, info, plugin):
        self.cpus[cpu].append((us, name, info, info if plugin is None
                               else plugin))

    def boot(self, us, token, flags=FIRST, cpu=0, cut=0):
        self.t.stack_boot(m.TS0 + us * 1000, token, flags, cpu, cut=cut)
        # A short record: what it lacks reads as 0.
        self.add(us, cpu, 'kernel_stack_boot', '<stack_boot 0x%08x flags '
                 '0x%x>%s' % (token, 0 if cut else flags,
                              ' [malformed]' if cut else ''), None)

    def stack_def(self, us, rid, frames, cpu=0):
        self.t.stack_def(m.TS0 + us * 1000, rid, frames, cpu)
        self.add(us, cpu, 'kernel_stack_def', d.def_line(rid, len(frames)),
                 None)

    def stack_id(self, us, rid, expect, cpu=0, plugin=None):
        def text(e):
            if isinstance(e, list):
                return d.stack(e)
            return d.unresolved(rid, e)
        self.t.stack_id(m.TS0 + us * 1000, rid, cpu)
        self.add(us, cpu, 'kernel_stack_id', text(expect),
                 None if plugin is None else text(plugin))

    def kfree(self, us, ptr, cpu=0):
        self.t.kfree(m.TS0 + us * 1000, ptr, cpu, call_site=A3)
        self.add(us, cpu, 'kfree', '(baz+0x5) call_site=baz+0x5 '
                 'ptr=0x%x' % ptr, None)

    def write(self, path):
        self.t.write(path)
        return path

    def expected(self, plugin=False):
        out = ['cpus=%d' % len(self.cpus)]
        heads = [0] * len(self.cpus)
        while True:
            live = [(q[heads[c]][0], c) for c, q in enumerate(self.cpus)
                    if heads[c] < len(q)]
            if not live:
                break
            _, cpu = min(live)
            us, name, info, pinfo = self.cpus[cpu][heads[cpu]]
            heads[cpu] += 1
            out.append('%16s-%-5d [%03d] %d.%06d: %s: %s%s' % (
                'bash', 1234, cpu, m.TS0 // 10**9 + us // 10**6,
                us % 10**6, name, ' ' * (20 - len(name)),
                pinfo if plugin else info))
        return '\n'.join(out) + '\n'


def two_boots(kallsyms):
    """The last boot's events (TA, times 10-17) then this boot's (TB,
    times 1-20) on each CPU: X1 and X2 are other stacks in each boot, and
    the clocks overlap, so that no order of time tells the boots apart.
    Each id after its definition in the order trace-cmd report reads
    them, so that the plugin resolves them all."""
    t = Trace(kallsyms, cpus=2)
    t.boot(10, TA)
    t.stack_def(11, X1, [A0])
    t.stack_id(12, X1, [A0])
    t.boot(1, TB)
    t.stack_def(2, X1, [A1, A2])
    t.stack_id(3, X1, [A1, A2])
    t.stack_id(20, X1, [A1, A2])
    t.boot(10, TA, cpu=1)
    t.stack_id(15, X1, [A0], cpu=1)
    t.stack_def(16, X2, [A2], cpu=1)
    t.stack_id(17, X2, [A2], cpu=1)
    t.boot(5, TB, cpu=1)
    t.stack_def(6, X2, [A3, TR], cpu=1)
    t.stack_id(7, X2, [A3, TR], cpu=1)
    t.stack_id(18, X1, [A1, A2], cpu=1)
    return t


def tests_report(r, env, kallsyms):

    def run(args, code=0, cmd='report'):
        p = subprocess.run([r.bin, cmd] + args, capture_output=True,
                           env=env)
        eq(p.returncode, code, 'exit: %r' % p.stderr)
        return p.stdout.decode(), p.stderr.decode()

    def trace_cmd(dat, extra=(), extra_env=None):
        p = subprocess.run(['trace-cmd', 'report', '-i', dat] + list(extra),
                           capture_output=True, env=dict(env, **(extra_env or
                                                                 {})))
        eq(p.returncode, 0, 'exit: %r' % p.stderr)
        return p.stdout.decode(), p.stderr.decode()

    def path(name):
        return os.path.join(r.tmp, name)

    def report_two_boots():
        t = two_boots(kallsyms)
        dat = t.write(path('boots.dat'))
        out, err = run(['--text-delta', '0', dat])
        eq(out, t.expected(), 'stdout')
        eq(err, counts(7, 0, 0, 4, 0), 'stderr')
    r.check('boot_report_two_boots_own_stacks', report_two_boots)

    def plugin_two_boots():
        t = two_boots(kallsyms)
        dat = t.write(path('pboots.dat'))
        out, err = trace_cmd(dat, ['-O', 'stackmap:text_delta=0'])
        eq((out, err), (t.expected(plugin=True), ''), 'trace-cmd report')
    r.check('boot_plugin_two_boots_own_stacks', plugin_two_boots)

    def first_after_older():
        # Events of an earlier boot whose marker was overwritten come
        # before CPU 0's FIRST marker: their ids never resolve, not even
        # with the definition next to them. CPU 1's part of this boot
        # resolves through CPU 0's definition of its boot.
        t = Trace(kallsyms, cpus=2)
        t.stack_def(1, X1, [A0])
        t.stack_id(2, X1, EARLIER)
        t.boot(3, TB)
        t.stack_def(4, X1, [A1])
        t.stack_id(5, X1, [A1])
        t.boot(6, TB, cpu=1)
        t.stack_id(7, X1, [A1], cpu=1)
        out, err = run(['--text-delta', '0',
                        t.write(path('earlier.dat'))])
        eq(out, t.expected(), 'stdout')
        eq(err, counts(2, 0, 1, 2, 0), 'stderr')
    r.check('boot_report_events_before_first_marker', first_after_older)

    def nonfirst_first():
        # CPU 0's FIRST marker was overwritten: what comes before its
        # first marker (flags 0) is of that marker's boot, and X1 takes
        # this boot's definition after it, never the last boot's of CPU
        # 1, which is nearer in time.
        t = Trace(kallsyms, cpus=2)
        t.stack_id(1, X1, [A1])
        t.boot(2, TB, flags=0)
        t.stack_def(3, X1, [A1])
        t.stack_id(4, X1, [A1])
        t.boot(0, TA, cpu=1)
        t.stack_def(1, X1, [A0], cpu=1)
        t.stack_id(2, X1, [A0], cpu=1)
        out, err = run(['--text-delta', '0',
                        t.write(path('nonfirst.dat'))])
        eq(out, t.expected(), 'stdout')
        eq(err, counts(3, 0, 0, 2, 0), 'stderr')
    r.check('boot_report_nonfirst_marker_first', nonfirst_first)

    def cpu_without_marker():
        # One boot in the buffer: a CPU without marker is of it.
        t = Trace(kallsyms, cpus=2)
        t.boot(1, TB)
        t.stack_def(2, X1, [A1])
        t.stack_id(3, X1, [A1])
        t.stack_id(4, X1, [A1], cpu=1, plugin=MARK_NOT_YET)
        t.stack_def(5, X2, [A2], cpu=1)
        t.stack_id(6, X2, [A2], cpu=1, plugin=MARK_NOT_YET)
        dat = t.write(path('nomark1.dat'))
        out, err = run(['--text-delta', '0', dat])
        eq(out, t.expected(), 'stdout, one boot')
        eq(err, counts(3, 0, 0, 2, 0), 'stderr, one boot')
        # The plugin cannot look ahead: a CPU whose first marker it has
        # not read, while another's it has, could be of any boot.
        out, err = trace_cmd(dat, ['-O', 'stackmap:text_delta=0'])
        eq((out, err), (t.expected(plugin=True), d.summary(2)),
           'plugin, one boot')
        # Two boots: it could be of either, and resolves with neither.
        t = Trace(kallsyms, cpus=3)
        t.boot(1, TA)
        t.stack_def(2, X1, [A0])
        t.boot(1, TB, cpu=1)
        t.stack_def(3, X1, [A1], cpu=1)
        t.stack_id(4, X1, NO_MARK, cpu=2)
        t.stack_def(5, X2, [A2], cpu=2)
        t.stack_id(6, X2, NO_MARK, cpu=2)
        out, err = run(['--text-delta', '0', t.write(path('nomark2.dat'))])
        eq(out, t.expected(), 'stdout, two boots')
        eq(err, counts(0, 0, 2, 3, 0), 'stderr, two boots')
    r.check('boot_report_cpu_without_marker', cpu_without_marker)

    def map_refused_report():
        # The map knows X1 and X2, but not which boot it is from.
        mp = r.write('boot.map', g.stream([(X1, [A0], 1), (X2, [A1], 1)],
                                          d.GEN, index_bits=14))
        t = Trace(kallsyms)
        t.boot(1, TB)
        t.stack_id(2, X1, NO_DEF, plugin=d.NOT_YET)
        t.stack_def(3, X3, [A2])
        t.stack_id(4, X3, [A2])
        t.stack_id(5, X2, NO_DEF, plugin=d.NOT_YET)
        dat = t.write(path('bootmap.dat'))
        out, err = run(['--map', mp, '--text-delta', '0', dat])
        eq(out, t.expected(), 'stdout')
        eq(err, map_refused(mp) + counts(1, 0, 2, 1, 0), 'stderr')
        out, err = trace_cmd(dat, ['-O', 'stackmap:map=' + mp, '-O',
                                   'stackmap:text_delta=0'])
        eq(out, t.expected(plugin=True), 'plugin stdout')
        eq(err, 'plugin_stackmap: %s: not used for the stack ids of '
           'boot-marked buffers: a map does not say which boot it is '
           'from\n' % mp + d.summary(2), 'plugin stderr')
    r.check('boot_map_refused_for_marked', map_refused_report)

    def map_refused_text():
        mp = r.write('boot.map', g.stream([(X1, [A0], 1)], d.GEN,
                                          index_bits=14))
        text = ('            bash-1234    [000] ...1.     1.000001: '
                '<stack_boot 0x%08x flags 0x1>\n'
                '            bash-1234    [000] ...1.     1.000002: '
                '<stack_id 0x%08x>\n' % (TB, X1))
        p = r.run(['expand', '--map', mp], stdin=text.encode())
        eq((p.returncode, p.stdout.decode(), p.stderr.decode()),
           (0, text.replace('>\n', '> [of a boot-marked trace]\n', 2)
            .replace('flags 0x1> [of a boot-marked trace]', 'flags 0x1>'),
            map_refused(mp) + 'stackmap: 1 stack ids of a boot-marked '
            'trace left unexpanded\n'), 'expand')
        p = r.run(['fold', '--map', mp, '-'], stdin=text.encode())
        eq((p.returncode, p.stdout.decode(), p.stderr.decode()),
           (0, 'bash;[boot-marked stack_id] 1\n', map_refused(mp)), 'fold')
        # Without a marker the map serves, as before.
        p = r.run(['expand', '--map', mp], stdin=text.split('\n', 1)[1]
                  .encode())
        eq((p.returncode, p.stderr), (0, b''), 'expand, no marker')
        assert '<stack trace>\n => 0xffffffff81000010\n' in \
            p.stdout.decode(), p.stdout
    r.check('boot_map_refused_in_trace_text', map_refused_text)

    def delta_trace():
        # The last boot's frames, DELTA below this boot's kallsyms.
        t = Trace(kallsyms, cpus=2)
        t.boot(1, TA)
        t.stack_def(2, X1, old([A0, TR, A2]))
        t.stack_id(3, X1, [A0, TR, A2])
        t.boot(4, TA, flags=0, cpu=1)
        t.stack_id(5, X1, [A0, TR, A2], cpu=1)
        return t

    def text_delta():
        t = delta_trace()
        dat = t.write(path('delta.dat'))
        info = r.write('last_boot_info', b'# Last boot\ntext delta:\t%d\n'
                       b'ffffffffc0000000 mymod\n' % DELTA)
        for args in (['--text-delta', '0x100'], ['--text-delta', '256'],
                     ['--last-boot-info', info]):
            out, err = run(args + [dat])
            eq((out, err), (t.expected(), counts(2, 0, 0, 1, 0)),
               ' '.join(args))
        # Signed: the frames move down.
        t = Trace(kallsyms)
        t.boot(1, TA)
        t.stack_def(2, X1, [A0 + DELTA, A2 + DELTA])
        t.stack_id(3, X1, [A0, A2])
        dat2 = t.write(path('delta2.dat'))
        out, _ = run(['--text-delta', '-0x100', dat2])
        eq(out, t.expected(), 'negative delta')
        # No delta: symbolized as they are, and said so once.
        t = Trace(kallsyms)
        t.boot(1, TA)
        t.stack_def(2, X1, old([A0]))
        t.stack_id(3, X1, old([A0]))
        t.stack_id(4, X1, old([A0]))
        dat3 = t.write(path('delta3.dat'))
        out, err = run([dat3])
        eq((out, err), (t.expected(), no_delta(dat3) + counts(2, 0, 0, 1, 0)),
           'no delta')
        # The plugin: an option, else the environment.
        t = delta_trace()
        out, err = trace_cmd(dat, ['-O', 'stackmap:text_delta=0x100'])
        eq((out, err), (t.expected(plugin=True), ''), 'plugin option')
        out, err = trace_cmd(dat, extra_env={'STACKMAP_TEXT_DELTA': '256'})
        eq((out, err), (t.expected(plugin=True), ''), 'plugin env')
        out, err = trace_cmd(dat)
        eq(err, 'plugin_stackmap: boot-marked trace and no text delta '
           'given (-O stackmap:text_delta=N, STACKMAP_TEXT_DELTA): frames '
           'are symbolized as if the kernel text had not moved\n',
           'plugin, no delta')
    r.check('boot_text_delta', text_delta)

    def profile_delta():
        t = m.TraceDat(kallsyms)
        t.stack_boot(m.TS0 + 1000, TA)
        t.kmem_alloc(m.TS0 + 2000, 'kmalloc', 64)
        t.stack_def(m.TS0 + 2000, X1, old([A1, A0]))
        t.stack_id(m.TS0 + 2000, X1)
        t.kmem_alloc(m.TS0 + 3000, 'kmalloc', 32)
        t.kernel_stack(m.TS0 + 3000, old([A3, A0]))
        dat = path('pdelta.dat')
        t.write(dat)
        out, err = run(['--text-delta', '256', '--folded', '--all-frames',
                        '--weight', 'bytes', dat], cmd='profile')
        eq((out, err), ('_stext;baz 32\n_stext;foo_bar 64\n', ''),
           'profile --text-delta')
        out, err = run(['--folded', '--all-frames', '--weight', 'bytes',
                        dat], cmd='profile')
        eq(err, no_delta(dat), 'profile, no delta')
    r.check('boot_profile_text_delta', profile_delta)

    def no_frees(args, us):
        """What --inuse says of these traces, which free nothing; the
        replay starts at the boot's first marker, @us after TS0."""
        if '--inuse' not in args:
            return ''
        return ('stackmap: profile: warning: the trace has no frees of the '
                'slab layer (kfree, kmem_cache_free): what it shows held '
                'is all that was allocated since %d.%09d s, freed or not\n'
                % divmod(m.TS0 + us * 1000, 10**9))

    def profile_boots():
        # The last boot's allocation, then this boot's two: this boot's
        # first event before its first marker, as the kernel writes them
        # (the marker goes before the event's stack), at the same address
        # and with the same id as the last boot's, and at earlier times.
        t = m.TraceDat(kallsyms)
        t.stack_boot(m.TS0 + 10000, TA)
        t.kmem_alloc(m.TS0 + 11000, 'kmalloc', 64)
        t.stack_def(m.TS0 + 11000, X1, [A1, A0])
        t.stack_id(m.TS0 + 11000, X1)
        t.kmem_alloc(m.TS0 + 1000, 'kmalloc', 32)
        t.stack_boot(m.TS0 + 1000, TB)
        t.stack_def(m.TS0 + 1000, X1, [A3, A0])
        t.stack_id(m.TS0 + 1000, X1)
        t.kmem_alloc(m.TS0 + 2000, 'kmalloc', 16, ptr=0xffff888004000100)
        t.stack_id(m.TS0 + 2000, X1)
        dat = path('pboots.dat')
        t.write(dat)
        base = ['--text-delta', '0', '--folded', '--all-frames']
        two = ('stackmap: profile: %s: holds the events of 2 boots '
               '(kernel_stack_boot markers 0x1111aaaa, 0x2222bbbb): their '
               'times and addresses do not compare; choose one with '
               '--boot TOKEN\n' % dat)
        for args in (['--weight', 'bytes'], ['--inuse', 'peak']):
            out, err = run(base + args + [dat], 2, 'profile')
            eq((out, err), ('', two), 'no --boot, %s' % args)
            out, err = run(base + args + ['--boot', '0x1111aaaa', dat],
                           cmd='profile')
            eq((out, err), ('_stext;foo_bar 64\n', no_frees(args, 10)),
               'the last boot, %s' % args)
            out, err = run(base + args + ['--boot', '0x2222BBBB', dat],
                           cmd='profile')
            eq((out, err), ('_stext;baz 48\n', no_frees(args, 1)),
               'this boot, %s' % args)
        out, err = run(base + ['--inuse', 'peak', '--boot', '0x1234', dat],
                       2, 'profile')
        eq((out, err), ('', 'stackmap: profile: --boot 0x00001234: no such '
                        'boot in %s (kernel_stack_boot markers 0x1111aaaa, '
                        '0x2222bbbb)\n' % dat), 'unknown boot')
        for bad_token in ('0', 'x', '0x100000000', ''):
            out, err = run(base + ['--boot', bad_token, dat], 2, 'profile')
            eq((out, err), ('', "stackmap: profile: --boot '%s': not a "
                            "boot marker's token (0x1 to 0xffffffff)\n"
                            % bad_token), 'bad --boot %r' % bad_token)
    r.check('boot_profile_one_boot_at_a_time', profile_boots)

    def profile_marker():
        base = ['--text-delta', '0', '--folded', '--all-frames']
        # One boot: as before, with or without --boot. A marker between
        # an event and its stack (the one the kernel writes on a
        # sub-buffer after a wrap) is no event of its own.
        one = path('pone.dat')
        t = m.TraceDat(kallsyms)
        t.stack_boot(m.TS0 + 1000, TA)
        t.kmem_alloc(m.TS0 + 2000, 'kmalloc', 64)
        t.stack_def(m.TS0 + 2000, X1, [A1, A0])
        t.stack_id(m.TS0 + 2000, X1)
        t.kmem_alloc(m.TS0 + 3000, 'kmalloc', 8, ptr=0xffff888004000100)
        t.stack_boot(m.TS0 + 3000, TA, 0)
        t.stack_id(m.TS0 + 3000, X1)
        t.write(one)
        for args in (['--weight', 'bytes'], ['--inuse', 'peak']):
            for more in ([], ['--boot', '0x1111aaaa']):
                out, err = run(base + args + more + [one], cmd='profile')
                eq((out, err), ('_stext;foo_bar 72\n', no_frees(args, 1)),
                   'one boot, %s' % (args + more))
    r.check('boot_profile_marker_is_no_event', profile_marker)

    def bad_delta():
        t = delta_trace()
        dat = t.write(path('baddelta.dat'))
        missing = path('no_such_info')
        current = r.write('current_info', b'# Current\n')
        for cmd in ('report', 'profile'):
            for args, msg in (
                    (['--text-delta', 'x'], "--text-delta 'x': not a "
                     "signed decimal or 0x hex number"),
                    (['--text-delta', ''], "--text-delta '': not a "
                     "signed decimal or 0x hex number"),
                    (['--text-delta', '0x'], "--text-delta '0x': not a "
                     "signed decimal or 0x hex number"),
                    (['--text-delta', '12z'], "--text-delta '12z': not a "
                     "signed decimal or 0x hex number"),
                    (['--text-delta', '0x8000000000000000'],
                     "--text-delta '0x8000000000000000': out of range"),
                    (['--last-boot-info', missing],
                     '--last-boot-info %s: No such file or directory'
                     % missing),
                    (['--last-boot-info', current],
                     '--last-boot-info %s: no "text delta:" line (the '
                     'buffer is not of the last boot)' % current),
                    (['--text-delta', '1', '--last-boot-info', current],
                     '--text-delta and --last-boot-info exclude each '
                     'other')):
                out, err = run(args + [dat], 2, cmd)
                eq((out, err), ('', 'stackmap%s %s: %s\n' % (
                    ':' if cmd == 'profile' else '', cmd, msg)),
                   '%s %s' % (cmd, args))
        # The plugin warns and symbolizes without the delta.
        _, err = trace_cmd(dat, ['-O', 'stackmap:text_delta=x'])
        assert err.startswith("plugin_stackmap: text delta 'x': not a "
                              "signed decimal or 0x hex number\n"), err
    r.check('boot_bad_text_delta', bad_delta)

    def unmarked():
        # Without markers: as before, and a text delta moves nothing.
        t = Trace(kallsyms, cpus=2)
        t.stack_def(1, X1, [A0])
        t.stack_id(2, X1, [A0], cpu=1)
        t.stack_id(3, X2, d.UNDEFINED, plugin=d.NOT_YET)
        dat = t.write(path('unmarked.dat'))
        out, err = run(['--text-delta', '0x100', dat])
        eq((out, err), (t.expected(), counts(1, 0, 1, 1, 0)), 'report')
        out, err = run([dat])
        eq((out, err), (t.expected(), counts(1, 0, 1, 1, 0)),
           'report without delta')
        out, err = trace_cmd(dat, ['-O', 'stackmap:text_delta=0x100'])
        eq((out, err), (t.expected(plugin=True), d.summary(1)), 'plugin')
    r.check('boot_unmarked_unchanged', unmarked)

    def malformed():
        # A short marker teaches nothing: what follows it on its CPU is
        # of no boot it could name, never of the boot before it.
        t = Trace(kallsyms, cpus=2)
        t.boot(1, TA)
        t.stack_def(2, X1, [A0])
        t.stack_id(3, X1, [A0])
        t.boot(4, TB, cut=4)
        t.stack_id(5, X1, BAD_MARK)
        t.boot(1, TA, cpu=1)
        t.stack_id(6, X1, [A0], cpu=1)
        dat = t.write(path('badmark.dat'))
        out, err = run(['--text-delta', '0', dat])
        eq(out, t.expected(), 'stdout')
        eq(err, 'stackmap: %s: malformed kernel_stack_boot (CPU 0, time '
           '12345.000004000): offset 12: record ends before the flags '
           '(offset 12)\n' % dat + counts(2, 0, 1, 1, 0), 'stderr')
        _, err = trace_cmd(dat, ['-O', 'stackmap:text_delta=0'])
        eq(err, d.summary(1), 'plugin stderr')
    r.check('boot_report_malformed_marker', malformed)


def run(r, kallsyms):
    """kallsyms: the text of run_tests.py's (64-bit) kallsyms."""
    env = dict(os.environ, HOME=r.tmp, TRACEEVENT_PLUGIN_DIR=r.build)
    env.pop('STACKMAP_MAP', None)
    env.pop('STACKMAP_TEXT_DELTA', None)
    tests_report(r, env, kallsyms.encode())
