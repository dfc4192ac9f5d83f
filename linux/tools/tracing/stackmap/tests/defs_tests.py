# SPDX-License-Identifier: GPL-2.0
"""Tests of the in-band stack definitions (ftrace:kernel_stack_def): the
plugin, loaded by tests/test_plugin.c and by the real "trace-cmd
report", and "stackmap report", on trace.dat files that mktracedat.py
writes. Every case asserts the exact output.

run_tests.py calls run(); the cases need its Runner (r.run(), r.check(),
r.write(), r.build, r.tmp).
"""
import os
import shutil
import subprocess

import mktracedat as m
import smapgen as g

TR = g.TRAMPOLINE
# The frames of a 64-bit kernel and of a 32-bit one, and what the plugin
# prints for them with the kallsyms below ("name+0xoff/0xsize", the size
# up to the next symbol).
A0, A1, A2, A3 = (0xffffffff81000010, 0xffffffff81000123,
                  0xffffffffc0001000, 0xffffffff81000205)
B0, B1, B2, B3 = 0xc1000010, 0xc1000123, 0xf8001000, 0xc1000205
SYMS = {A0: '_stext+0x10/0x100', A1: 'foo_bar+0x23/0x100',
        A2: 'modfn+0x100/0x1100', A3: 'baz+0x5/0x100',
        B0: '_stext+0x10/0x100', B1: 'foo_bar+0x23/0x100',
        B2: 'modfn+0x100/0x1100', B3: 'baz+0x5/0x100',
        TR: '[FTRACE TRAMPOLINE]'}
KALLSYMS32 = """c1000000 T _stext
c1000100 t foo_bar
c1000200 T baz
c1000300 T __kretprobe_trampoline
c1000400 D last_text
f8000f00 t modfn\t[mymod]
f8002000 t modend\t[mymod]
"""
# 32-bit frames, and kfree call sites, for the 64-bit ones.
TO32 = {A0: B0, A1: B1, A2: B2, A3: B3, TR: TR}
CALL_SITE = {8: A3, 4: B3}

# The trace clocks of nanoseconds besides mono*, by libtracecmd 3.1.6.
NS_CLOCKS = ('local', 'global', 'uptime', 'perf', 'tai', 'x86-tsc-nsec')

# Ids of two generations of a depot of 2^14 slots (the kernel's default).
GEN = 0x2a5a5


def sid(index, gen=GEN):
    return g.make_id(gen, index, 14)


X1, X2, X3 = sid(1), sid(2), sid(3)
Y1, Y2 = sid(1, GEN + 1), sid(2, GEN + 1)


def eq(a, b, what=''):
    assert a == b, '%s: expected %r, got %r' % (what, b, a)


def stack(frames):
    return '<stack trace>' + ''.join('\n => ' + SYMS.get(f, '0x%x' % f)
                                     for f in frames)


def unresolved(rid, mark=''):
    return '<stack_id 0x%08x>%s' % (rid, mark)


# After an id without definition: the plugin has read the trace up to
# it, stackmap report all of it (all of its buffer, with instances).
NOT_YET = (' [no definition read yet: stackmap report FILE resolves '
           'definitions that come later]')
UNDEFINED = ' [no definition in the trace]'
UNDEFINED_BUF = ' [no definition in its buffer]'


def pending(rid):
    """The plugin's text of an id it has no definition of."""
    return unresolved(rid, NOT_YET)


def summary(n):
    """What the plugin says on stderr when it is unloaded."""
    if not n:
        return ''
    return ('plugin_stackmap: %d stack ids had no definition when printed; '
            '"stackmap report FILE" reads the file twice and resolves ids '
            'whose definition comes later\n' % n)


class Trace:
    """A trace.dat and the output expected of it, event by event.

    Times are in microseconds after mktracedat.TS0. An id's expectation
    is its frames (a stack) or a string (the text printed); plugin= is
    the plugin's where it differs from stackmap report's.
    """

    def __init__(self, kallsyms, cpus=1, long_size=8, bo='<', buffers=(),
                 **kw):
        self.t = m.TraceDat(kallsyms, cpus=cpus, long_size=long_size,
                            bo=bo, buffers=buffers, **kw)
        self.long_size = long_size
        # trace-cmd report prints times as seconds only for the clocks
        # that libtracecmd knows to count nanoseconds, else as they are.
        clock = kw.get('clock') or 'local'
        self.seconds = clock in NS_CLOCKS or clock.startswith('mono')
        self.order = {name: i for i, name in enumerate(('',) + buffers)}
        self.width = max([len(b) for b in buffers] or [0])
        self.events = []
        self.lost = set()

    def frames(self, frames):
        return [TO32[f] for f in frames] if self.long_size == 4 else frames

    def add(self, us, cpu, buf, name, info, plugin=None):
        self.events.append((us, self.order[buf] * self.t.cpus + cpu,
                            len(self.events), buf, cpu, name, info,
                            info if plugin is None else plugin))

    def kfree(self, us, ptr, cpu=0, buf=''):
        site = CALL_SITE[self.long_size]
        self.t.kfree(m.TS0 + us * 1000, ptr, cpu, buf, call_site=site)
        self.add(us, cpu, buf, 'kfree', '(baz+0x5) call_site=baz+0x5 '
                 'ptr=0x%x' % ptr)

    def stack_id(self, us, rid, expect, cpu=0, buf='', plugin=None):
        def text(e):
            return stack(self.frames(e)) if isinstance(e, list) else e
        self.t.stack_id(m.TS0 + us * 1000, rid, cpu, buf)
        self.add(us, cpu, buf, 'kernel_stack_id', text(expect),
                 None if plugin is None else text(plugin))

    def stack_def(self, us, rid, frames, cpu=0, buf='', depth=None, cut=0):
        self.t.stack_def(m.TS0 + us * 1000, rid, self.frames(frames), cpu,
                         buf, depth=depth, cut=cut)
        ok = depth is None and not cut
        self.add(us, cpu, buf, 'kernel_stack_def', '<stack_def 0x%08x depth '
                 '%d>%s' % (rid, len(frames) if depth is None else depth,
                            '' if ok else ' [malformed]'))

    def lose_events(self, cpu=0, buf=''):
        self.t.lose_events(cpu, buf)
        self.lost.add((buf, cpu, sum(1 for e in self.events
                                     if e[3] == buf and e[4] == cpu)))

    def write(self, path):
        self.t.write(path)
        return path

    def expected(self, plugin=False, hide_defs=False):
        """trace-cmd report's output: by time, ties to the lower CPU of
        the top buffer, then the instances in file order."""
        out = ['cpus=%d' % self.t.cpus]
        seen = {}
        for us, _, _, buf, cpu, name, info, pinfo in sorted(self.events):
            nth = seen.get((buf, cpu), 0)
            seen[(buf, cpu)] = nth + 1
            if hide_defs and name == 'kernel_stack_def':
                continue
            line = ''
            if len(self.order) > 1:
                line = ('%*s: ' % (self.width, buf) if buf else
                        ' ' * (self.width + 2))
            if (buf, cpu, nth) in self.lost:
                line += 'CPU:%d [EVENTS DROPPED]\n' % cpu
            if self.seconds:
                time = ' %d.%06d' % (m.TS0 // 10**9 + us // 10**6,
                                     us % 10**6)
            else:
                time = '%12d' % (m.TS0 + us * 1000)
            line += '%16s-%-5d [%03d]%s: %s: %s%s' % (
                'bash', 1234, cpu, time, name, ' ' * (20 - len(name)),
                pinfo if plugin else info)
            out.append(line)
        return '\n'.join(out) + '\n'


# test_plugin -----------------------------------------------------------------

def item(rid, frames=None, **kw):
    """An argument of test_plugin: an id, or a definition."""
    if frames is None:
        return '0x%08x' % rid
    return 'def:0x%08x:%s%s' % (rid, ','.join('0x%x' % f for f in frames),
                                ''.join(':%s=%d' % kv for kv in kw.items()))


def def_line(rid, depth, malformed=False):
    return '<stack_def 0x%08x depth %d>%s' % (
        rid, depth, ' [malformed]' if malformed else '')


def tests_test_plugin(r, tp, plugdir, env):
    def run(items, extra=(), undefined=0):
        p = subprocess.run([tp, plugdir] + list(extra) + items,
                           capture_output=True, env=env)
        eq(p.returncode, 0, 'exit: %r' % p.stderr)
        eq(p.stderr.decode(), summary(undefined), 'stderr')
        return p.stdout.decode()

    def learns():
        # No map: an id before its definition is left, after it resolves.
        out = run([item(X1), item(X1, [A0, TR, A1]), item(X1), item(X2)],
                  undefined=2)
        eq(out, '\n'.join([pending(X1), def_line(X1, 3),
                           stack([A0, TR, A1]), pending(X2)]) + '\n',
           'stdout')
    r.check('plugin_defs_learn_without_map', learns)

    def redefined():
        # A later definition of the same id replaces the earlier one.
        out = run([item(X1, [A0]), item(X1), item(X1, [A2, A3]), item(X1)])
        eq(out, '\n'.join([def_line(X1, 1), stack([A0]), def_line(X1, 2),
                           stack([A2, A3])]) + '\n', 'stdout')
    r.check('plugin_defs_redefined', redefined)

    def generations():
        # Slot 2 is defined in the second generation only: the first
        # generation's id of slot 2 never resolves through it.
        out = run([item(X1, [A0]), item(Y1, [A1]), item(Y2, [A3]),
                   item(X1), item(Y1), item(X2), item(Y2)], undefined=1)
        eq(out, '\n'.join([def_line(X1, 1), def_line(Y1, 1),
                           def_line(Y2, 1), stack([A0]), stack([A1]),
                           pending(X2), stack([A3])]) + '\n', 'stdout')
    r.check('plugin_defs_generations_apart', generations)

    def malformed():
        # None teaches anything, nor replaces what was learned.
        bad = [(item(X2, [A0, A1], depth=3), def_line(X2, 3, True)),
               (item(X2, [A0], depth=0), def_line(X2, 0, True)),
               (item(X2, [A0], depth=129), def_line(X2, 129, True)),
               (item(X2, [A0, A1], cut=4), def_line(X2, 2, True)),
               # Too short for the depth, and for the id.
               (item(X2, [], cut=4), def_line(X2, 0, True)),
               (item(X2, [], cut=8), def_line(0, 0, True)),
               (item(X1, [A2, A2], depth=1000), def_line(X1, 1000, True))]
        out = run([item(X1, [A0])] + [b[0] for b in bad] +
                  [item(X2), item(X1)], undefined=1)
        eq(out, '\n'.join([def_line(X1, 1)] + [b[1] for b in bad] +
                          [pending(X2), stack([A0])]) + '\n', 'stdout')
    r.check('plugin_defs_malformed_teach_nothing', malformed)

    def deepest():
        frames = [A0, A1, A3, TR] * 32
        out = run([item(X3, frames), item(X3)])
        eq(out, def_line(X3, 128) + '\n' + stack(frames) + '\n', 'stdout')
    r.check('plugin_defs_depth_128', deepest)

    def with_map():
        # The map (generation GEN): X1, X2 in it, X3 not; a definition
        # wins over the map, which still serves the ids with none.
        path = r.write('defs.map', g.stream(
            [(X1, [A0], 1), (X2, [A1], 1)], GEN, index_bits=14))
        # The map's marks, but counted as undefined all the same.
        out = run([item(X1, [A3]), item(X1), item(X2), item(X3), item(Y1)],
                  ['-O', 'stackmap:map=' + path], undefined=2)
        eq(out, '\n'.join([def_line(X1, 1), stack([A3]), stack([A1]),
                           unresolved(X3, ' [unknown]'),
                           unresolved(Y1, ' [stale]')]) + '\n', 'stdout')
    r.check('plugin_defs_and_map', with_map)

    for name, extra, frames in (
            ('long_size_4', ['-l', '4'], [B0, TR, B3, B2]),
            ('big_endian', ['-B'], [A0, TR, A3, A2]),
            ('big_endian_long_size_4', ['-B', '-l', '4'], [B0, TR, B3, B2])):
        def order(extra=extra, frames=frames):
            out = run([item(X1, frames), item(X1), item(X2)], extra, 1)
            eq(out, '\n'.join([def_line(X1, 4), stack(frames),
                               pending(X2)]) + '\n', 'stdout')
        r.check('plugin_defs_' + name, order)


# trace.dat -------------------------------------------------------------------

def rich_trace(r, long_size=8, bo='<', kallsyms=None):
    """Two CPUs, two generations, a redefinition, the deepest stack,
    lost events; each id after its definition in time, so that the
    plugin, which reads the trace once, resolves them all."""
    t = Trace(kallsyms, cpus=2, long_size=long_size, bo=bo)
    t.kfree(1, 0x1000)
    t.stack_def(2, X1, [A0, TR, A1])
    t.stack_id(3, X1, [A0, TR, A1])
    t.stack_id(4, X1, [A0, TR, A1], cpu=1)
    t.kfree(5, 0x1001, cpu=1)
    t.stack_def(10, X2, [A2])
    t.stack_id(11, X2, [A2], cpu=1)
    # The second generation (after a reset): slot 1 gets a new id; the
    # first generation's slot 3 stays undefined though the second
    # defines it.
    t.stack_def(20, Y1, [A3, A1, A0], cpu=1)
    t.stack_def(21, sid(3, GEN + 1), [A1], cpu=1)
    t.stack_id(22, Y1, [A3, A1, A0], cpu=1)
    t.stack_id(22, X1, [A0, TR, A1])
    t.stack_id(23, X3, unresolved(X3, UNDEFINED), plugin=pending(X3))
    # The id space wrapped: X1 is defined again, with other frames.
    t.stack_def(30, X1, [A3])
    t.stack_id(31, X1, [A3], cpu=1)
    deep = [A0, A1, A3, TR] * 32
    t.stack_def(40, X2 + 7, deep)
    t.stack_id(41, X2 + 7, deep)
    t.lose_events(cpu=1)
    t.kfree(50, 0x1002, cpu=1)
    t.kfree(1000000, 0x1003)
    return t


def tests_trace_cmd(r, env, kallsyms):
    """The plugin under the real trace-cmd report."""

    def report(dat, extra=()):
        p = subprocess.run(['trace-cmd', 'report', '-i', dat] + list(extra),
                           capture_output=True, env=env)
        eq(p.returncode, 0, 'exit: %r' % p.stderr)
        return p.stdout.decode()

    for name, ls, bo in (('', 8, '<'), ('_long_size_4', 4, '<'),
                         ('_big_endian', 8, '>')):
        def rich(ls=ls, bo=bo, name=name):
            t = rich_trace(r, ls, bo, KALLSYMS32.encode() if ls == 4
                           else kallsyms)
            dat = t.write(os.path.join(r.tmp, 'rich%s.dat' % name))
            eq(report(dat), t.expected(plugin=True), 'stdout')
        r.check('trace_cmd_report_defs' + name, rich)

    def compat_long():
        # A 32-bit trace-cmd on a 64-bit kernel writes long size 4 in the
        # file header; the frames are the kernel's 8 bytes all the same.
        t = Trace(kallsyms, header_long_size=4)
        t.stack_def(1, X1, [A0, TR, A2])
        t.stack_id(2, X1, [A0, TR, A2])
        eq(report(t.write(os.path.join(r.tmp, 'compat.dat'))),
           t.expected(plugin=True), 'stdout')
    r.check('trace_cmd_report_defs_32bit_recorder', compat_long)

    def offsets():
        # Fields where the format says, not where the kernel has them.
        t = Trace(kallsyms, def_fields=(('depth', 8), ('caller', 16),
                                        ('id', 12)))
        t.stack_def(1, X1, [A0, A1])
        t.stack_id(2, X1, [A0, A1])
        t.stack_id(3, X2, unresolved(X2, UNDEFINED), plugin=pending(X2))
        eq(report(t.write(os.path.join(r.tmp, 'offsets.dat'))),
           t.expected(plugin=True), 'stdout')
    r.check('trace_cmd_report_defs_format_offsets', offsets)

    def id_offset_overflow():
        # The id where offset + 4 is past INT_MAX, by the format: the
        # plugin reads nothing there (the print format it replaces would).
        for off in range(0x7ffffffc, 0x80000000):
            t = Trace(kallsyms, id_offset=off)
            t.stack_def(1, X1, [A0])
            t.stack_id(2, X1, '<stack_id> [malformed]')
            eq(report(t.write(os.path.join(r.tmp, 'idoff.dat'))),
               t.expected(plugin=True), 'stdout, id at %#x' % off)
    r.check('trace_cmd_report_defs_id_offset_past_int_max',
            id_offset_overflow)

    def id_first():
        # CPU 1 stamps its entry of X1 before CPU 0 writes X1's
        # definition: the plugin reads by time and cannot resolve it,
        # says so on the line, and counts it when trace-cmd unloads it.
        t = Trace(kallsyms, cpus=2)
        t.stack_id(1, X1, [A0, TR], cpu=1, plugin=pending(X1))
        t.stack_def(2, X1, [A0, TR])
        t.stack_id(3, X1, [A0, TR])
        dat = t.write(os.path.join(r.tmp, 'idfirst.dat'))
        p = subprocess.run(['trace-cmd', 'report', '-i', dat],
                           capture_output=True, env=env)
        eq((p.returncode, p.stdout.decode(), p.stderr.decode()),
           (0, t.expected(plugin=True), summary(1)), 'trace-cmd report')
    r.check('trace_cmd_report_defs_id_before_def', id_first)


# stackmap report -------------------------------------------------------------

def tests_report(r, env, kallsyms):

    def report(args, code=0):
        p = subprocess.run([r.bin, 'report'] + args, capture_output=True,
                           env=env)
        eq(p.returncode, code, 'exit: %r' % p.stderr)
        return p.stdout.decode(), p.stderr.decode()

    def counts(resolved, mapped, unres, defs, malformed):
        """resolved: by definitions and by the map."""
        return ('stackmap: %d stack ids resolved (%d by the map), %d '
                'unresolved; %d definitions read, %d malformed\n' %
                (resolved, mapped, unres, defs, malformed))

    for name, ls, bo in (('', 8, '<'), ('_long_size_4', 4, '<'),
                         ('_big_endian', 8, '>'),
                         ('_big_endian_long_size_4', 4, '>')):
        def rich(ls=ls, bo=bo, name=name):
            t = rich_trace(r, ls, bo, KALLSYMS32.encode() if ls == 4
                           else kallsyms)
            dat = t.write(os.path.join(r.tmp, 'rrich%s.dat' % name))
            out, err = report([dat])
            eq(out, t.expected(), 'stdout')
            eq(err, counts(7, 0, 1, 6, 0), 'stderr')
            # The same as the plugin's, where definitions come first,
            # but for what each says of the id that has none.
            p = subprocess.run(['trace-cmd', 'report', '-i', dat],
                               capture_output=True, env=env)
            eq(out.replace(UNDEFINED, NOT_YET), p.stdout.decode(),
               'stackmap report vs trace-cmd report')
        r.check('report_defs' + name, rich)

    def id_first():
        # Resolved with the first definition after it; the plugin's
        # output, which cannot, differs in that line only.
        t = Trace(kallsyms, cpus=2)
        t.stack_id(1, X1, [A0, TR], cpu=1, plugin=pending(X1))
        t.stack_def(2, X1, [A0, TR])
        t.stack_id(3, X1, [A0, TR])
        dat = t.write(os.path.join(r.tmp, 'ridfirst.dat'))
        out, err = report([dat])
        eq(out, t.expected(), 'stdout')
        eq(err, counts(2, 0, 0, 1, 0), 'stderr')
    r.check('report_defs_id_before_def', id_first)

    def time_rule():
        # X1 defined at 10 and, with other frames, at 20 (the id space
        # wrapped); an entry takes the latest definition at or before
        # it, else the first after it. The same frames again at 30
        # change nothing.
        t = Trace(kallsyms, cpus=2)
        t.stack_id(5, X1, [A0], cpu=1)
        t.stack_def(10, X1, [A0])
        t.stack_id(10, X1, [A0], cpu=1)
        t.stack_id(15, X1, [A0], cpu=1)
        t.stack_def(20, X1, [A1, A2])
        t.stack_id(20, X1, [A1, A2], cpu=1)
        t.stack_id(25, X1, [A1, A2], cpu=1)
        t.stack_def(30, X1, [A1, A2])
        t.stack_id(35, X1, [A1, A2], cpu=1)
        out, err = report([t.write(os.path.join(r.tmp, 'time.dat'))])
        eq(out, t.expected(), 'stdout')
        eq(err, counts(6, 0, 0, 3, 0), 'stderr')
    r.check('report_defs_redefined_time_rule', time_rule)

    def generations():
        # Two generations: each id resolves with its own definition; an
        # id of generation 1 without one never through generation 2's
        # definition of its slot, before or after it.
        t = Trace(kallsyms, cpus=2)
        t.stack_def(1, X1, [A0])
        t.stack_id(2, X1, [A0])
        t.stack_id(3, X2, unresolved(X2, UNDEFINED), cpu=1)
        t.stack_def(10, Y1, [A1])
        t.stack_def(10, Y2, [A2])
        t.stack_id(11, Y1, [A1], cpu=1)
        t.stack_id(12, Y2, [A2])
        t.stack_id(13, X1, [A0], cpu=1)
        t.stack_id(14, X2, unresolved(X2, UNDEFINED))
        out, err = report([t.write(os.path.join(r.tmp, 'gens.dat'))])
        eq(out, t.expected(), 'stdout')
        eq(err, counts(4, 0, 2, 3, 0), 'stderr')
    r.check('report_defs_generations_apart', generations)

    def malformed():
        t = Trace(kallsyms)
        t.stack_def(1, X1, [A0])
        t.stack_def(2, X1, [A1, A2], cut=4)
        t.stack_def(3, X2, [A1], depth=0)
        t.stack_def(4, X2, [A1], depth=129)
        t.stack_def(5, X2, [A1, A2], depth=3)
        t.stack_id(6, X1, [A0])
        t.stack_id(7, X2, unresolved(X2, UNDEFINED))
        out, err = report([t.write(os.path.join(r.tmp, 'bad.dat'))])
        eq(out, t.expected(), 'stdout')
        # The first malformed one named, with its time and offset.
        eq(err, 'stackmap: %s: malformed kernel_stack_def (CPU 0, time '
           '12345.000002000): offset 28: record ends before frame 1 of 2\n'
           % os.path.join(r.tmp, 'bad.dat') + counts(1, 0, 1, 1, 4),
           'stderr')
    r.check('report_defs_malformed', malformed)

    def malformed_instance():
        # Each buffer has its CPU 0: the instance is named too.
        t = Trace(kallsyms, buffers=('foo',))
        t.stack_def(1, X1, [A0])
        t.stack_def(2, X1, [A1], buf='foo', depth=0)
        dat = t.write(os.path.join(r.tmp, 'badinst.dat'))
        out, err = report([dat])
        eq(out, t.expected(), 'stdout')
        eq(err, 'stackmap: %s: malformed kernel_stack_def (instance foo, '
           'CPU 0, time 12345.000002000): offset 12: depth 0: not 1..128\n'
           % dat + counts(0, 0, 0, 1, 1), 'stderr')
    r.check('report_defs_malformed_in_instance', malformed_instance)

    def clocks():
        # Times as trace-cmd report prints them: seconds for a clock of
        # nanoseconds, else the timestamp as it is; in the message of a
        # malformed definition too.
        for clock, when in (('global', '12345.000003000'),
                            ('mono_raw', '12345.000003000'),
                            ('counter', '12345000003000'),
                            ('boot', '12345000003000'),
                            ('x86-tsc', '12345000003000')):
            t = Trace(kallsyms, cpus=2, clock=clock)
            t.stack_def(1, X1, [A0, A1])
            t.stack_id(2, X1, [A0, A1], cpu=1)
            t.stack_def(3, X2, [A1], depth=0)
            dat = t.write(os.path.join(r.tmp, 'clock.dat'))
            out, err = report([dat])
            eq(out, t.expected(), 'stdout, ' + clock)
            eq(err, 'stackmap: %s: malformed kernel_stack_def (CPU 0, time '
               '%s): offset 12: depth 0: not 1..128\n' % (dat, when) +
               counts(1, 0, 0, 1, 1), 'stderr, ' + clock)
            p = subprocess.run(['trace-cmd', 'report', '-i', dat],
                               capture_output=True, env=env)
            eq(out, p.stdout.decode(), 'vs trace-cmd report, ' + clock)
    r.check('report_trace_clocks', clocks)

    def id_offset_overflow():
        # A format that puts the id of kernel_stack_id where offset + 4
        # is past INT_MAX: no id is read, and nothing out of the record.
        for off in range(0x7ffffffc, 0x80000000):
            t = Trace(kallsyms, id_offset=off)
            t.stack_def(1, X1, [A0])
            t.stack_id(2, X1, '<stack_id> [malformed]')
            out, err = report([t.write(os.path.join(r.tmp, 'idoff.dat'))])
            eq(out, t.expected(), 'stdout, id at %#x' % off)
            eq(err, counts(0, 0, 1, 1, 0), 'stderr, id at %#x' % off)
    r.check('report_id_offset_past_int_max', id_offset_overflow)

    def with_map():
        path = r.write('rdefs.map', g.stream(
            [(X1, [A0], 1), (X2, [A1], 1)], GEN, index_bits=14))
        t = Trace(kallsyms)
        t.stack_def(1, X1, [A3])
        t.stack_id(2, X1, [A3])
        t.stack_id(3, X2, [A1])
        t.stack_id(4, X3, unresolved(X3, ' [unknown]'))
        # Stale in the map, but defined later in the trace.
        t.stack_id(5, Y1, [A2], plugin=unresolved(Y1, ' [stale]'))
        t.stack_def(6, Y1, [A2])
        dat = t.write(os.path.join(r.tmp, 'map.dat'))
        out, err = report(['--map', path, dat])
        eq(out, t.expected(), 'stdout')
        eq(err, counts(3, 1, 1, 2, 0), 'stderr')
        p = subprocess.run(['trace-cmd', 'report', '-i', dat, '-O',
                            'stackmap:map=' + path], capture_output=True,
                           env=env)
        eq(p.stdout.decode(), t.expected(plugin=True), 'plugin')
    r.check('report_defs_and_map', with_map)

    def hide():
        t = rich_trace(r, kallsyms=kallsyms)
        dat = t.write(os.path.join(r.tmp, 'hide.dat'))
        out, _ = report(['--hide-defs', dat])
        eq(out, t.expected(hide_defs=True), 'stdout')
    r.check('report_hide_defs', hide)

    def instances():
        # An instance has its ids and definitions; the same id value is
        # another stack in each buffer, and a definition of the other
        # buffer never resolves an id. Lines are named as trace-cmd
        # report names them.
        t = Trace(kallsyms, cpus=2, buffers=('foo',))
        t.stack_def(1, X1, [A0])
        t.stack_def(1, X1, [A1], buf='foo')
        t.stack_id(2, X1, [A0], cpu=1)
        t.stack_id(2, X1, [A1], buf='foo', cpu=1)
        t.stack_def(3, X2, [A2], buf='foo')
        # foo defines X2: the top buffer's X2 has no definition in its
        # buffer, not none in the trace.
        t.stack_id(4, X2, unresolved(X2, UNDEFINED_BUF))
        t.stack_id(4, X2, [A2], buf='foo')
        t.stack_def(5, X3, [A3])
        t.stack_id(6, X3, [A3])
        t.kfree(7, 0x2000, buf='foo', cpu=1)
        out, err = report([t.write(os.path.join(r.tmp, 'inst.dat'))])
        eq(out, t.expected(), 'stdout')
        eq(err, counts(4, 0, 1, 4, 0), 'stderr')
    r.check('report_instance_buffers', instances)

    def instances_vs_trace_cmd():
        # The format of buffer names, against trace-cmd report itself.
        t = Trace(kallsyms, cpus=2, buffers=('foo', 'longer_name'))
        t.stack_def(1, X1, [A0])
        t.stack_id(2, X1, [A0], cpu=1)
        t.stack_def(3, Y1, [A1], buf='longer_name')
        t.stack_id(4, Y1, [A1], buf='longer_name')
        t.kfree(5, 0x2000, buf='foo', cpu=1)
        t.lose_events(buf='foo', cpu=1)
        t.kfree(6, 0x2001, buf='foo', cpu=1)
        dat = t.write(os.path.join(r.tmp, 'inst2.dat'))
        out, _ = report([dat])
        eq(out, t.expected(), 'stdout')
        p = subprocess.run(['trace-cmd', 'report', '-i', dat],
                           capture_output=True, env=env)
        eq(out, p.stdout.decode(), 'vs trace-cmd report')
    r.check('report_instance_names_as_trace_cmd', instances_vs_trace_cmd)

    def bad_files():
        for path, words in (
                (os.path.join(r.tmp, 'nonexistent.dat'),
                 'No such file or directory'),
                (r.write('garbage.dat', b'\x17\x08\x44tracing' + b'x' * 100),
                 'not a trace-cmd data file that libtracecmd can read'),
                (r.write('empty.dat', b''),
                 'not a trace-cmd data file that libtracecmd can read'),
                (r.tmp, 'not a trace-cmd data file that libtracecmd can '
                 'read')):
            out, err = report([path], 1)
            eq((out, err), ('', 'stackmap: %s: %s\n' % (path, words)), path)
        # Truncated in the CPU data of the top buffer.
        t = rich_trace(r, kallsyms=kallsyms)
        dat = t.write(os.path.join(r.tmp, 'trunc.dat'))
        with open(dat, 'rb') as f:
            data = f.read()
        path = r.write('truncated.dat', data[:len(data) - 100])
        _, err = report([path], 1)
        eq(err, 'stackmap: %s: cannot read the trace data\n' % path, 'stderr')
        # Cut in its headers (a trace-cmd 3 file, whose sections come
        # last, is cut there wherever it is cut): still named a trace-cmd
        # file, with its version and where it ends; profile writes
        # nothing.
        path = r.write('cut.dat', data[:200])
        pb = os.path.join(r.tmp, 'cut.pb.gz')
        for args in (['report'], ['profile', '--pprof', pb, '-l', 'slab']):
            p = r.run(args + [path])
            eq((p.returncode, p.stdout.decode(), p.stderr.decode()),
               (1, '', 'stackmap: %s: libtracecmd cannot read this '
                'trace-cmd data file (version 6, 200 bytes): truncated or '
                'corrupt\n' % path), args[0])
        assert not os.path.exists(pb), pb
        # A bad map is an error, as for expand.
        bad = r.write('bad.map', b'FSMB')
        out, err = report(['--map', bad, dat], 1)
        assert err.startswith('stackmap: %s: offset 0: ' % bad), err
        eq(out, '', 'stdout')
    r.check('report_bad_files', bad_files)

    def usage():
        for args in ([], ['a.dat', 'b.dat'], ['--bogus', 'a.dat'],
                     ['--map']):
            out, err = report(args, 2)
            assert "Try 'stackmap report --help'." in err, err
        out, _ = report(['--help'])
        assert out.startswith('Usage: stackmap report'), out
    r.check('report_usage', usage)

    def bare():
        p = subprocess.run([os.path.join(r.build, 'bare', 'stackmap'),
                            'report', '/dev/null'], capture_output=True)
        eq((p.returncode, p.stdout, p.stderr),
           (1, b'', b'stackmap report: built without libtracecmd\n'),
           'bare build')
    r.check('report_built_without_libtracecmd', bare)


def run(r, kallsyms):
    """kallsyms: the text of run_tests.py's (64-bit) kallsyms."""
    tp = os.path.join(r.build, 'test_plugin')
    # Only the plugin under test: no system or user plugins.
    plugdir = os.path.join(r.tmp, 'plugins')
    os.makedirs(plugdir, exist_ok=True)
    shutil.copy(os.path.join(r.build, 'plugin_stackmap.so'), plugdir)
    env = dict(os.environ, HOME=r.tmp)
    env.pop('STACKMAP_MAP', None)
    tests_test_plugin(r, tp, plugdir, env)
    if not shutil.which('trace-cmd'):
        r.record('trace_cmd_report_defs', False, 'trace-cmd not installed')
        return
    env['TRACEEVENT_PLUGIN_DIR'] = r.build
    tests_trace_cmd(r, env, kallsyms.encode())
    tests_report(r, env, kallsyms.encode())
