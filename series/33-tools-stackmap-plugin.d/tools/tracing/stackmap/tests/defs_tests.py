# SPDX-License-Identifier: GPL-2.0
"""Tests of the in-band stack definitions (ftrace:kernel_stack_def): the
plugin, loaded by tests/test_plugin.c and by the real "trace-cmd
report", on trace.dat files that mktracedat.py writes. Every case
asserts the exact output.

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


class Trace:
    """A trace.dat and the output expected of it, event by event.

    Times are in microseconds after mktracedat.TS0. An id's expectation
    is its frames (a stack) or a string (the text printed).
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

    def add(self, us, cpu, buf, name, info):
        self.events.append((us, self.order[buf] * self.t.cpus + cpu,
                            len(self.events), buf, cpu, name, info))

    def kfree(self, us, ptr, cpu=0, buf=''):
        site = CALL_SITE[self.long_size]
        self.t.kfree(m.TS0 + us * 1000, ptr, cpu, buf, call_site=site)
        self.add(us, cpu, buf, 'kfree', '(baz+0x5) call_site=baz+0x5 '
                 'ptr=0x%x' % ptr)

    def stack_id(self, us, rid, expect, cpu=0, buf=''):
        def text(e):
            return stack(self.frames(e)) if isinstance(e, list) else e
        self.t.stack_id(m.TS0 + us * 1000, rid, cpu, buf)
        self.add(us, cpu, buf, 'kernel_stack_id', text(expect))

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

    def expected(self):
        """trace-cmd report's output: by time, ties to the lower CPU of
        the top buffer, then the instances in file order."""
        out = ['cpus=%d' % self.t.cpus]
        seen = {}
        for us, _, _, buf, cpu, name, info in sorted(self.events):
            nth = seen.get((buf, cpu), 0)
            seen[(buf, cpu)] = nth + 1
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
                'bash', 1234, cpu, time, name, ' ' * (20 - len(name)), info)
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
    def run(items, extra=()):
        p = subprocess.run([tp, plugdir] + list(extra) + items,
                           capture_output=True, env=env)
        eq(p.returncode, 0, 'exit: %r' % p.stderr)
        eq(p.stderr, b'', 'stderr')
        return p.stdout.decode()

    def learns():
        # No map: an id before its definition is left, after it resolves.
        out = run([item(X1), item(X1, [A0, TR, A1]), item(X1), item(X2)])
        eq(out, '\n'.join([unresolved(X1), def_line(X1, 3),
                           stack([A0, TR, A1]), unresolved(X2)]) + '\n',
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
                   item(X1), item(Y1), item(X2), item(Y2)])
        eq(out, '\n'.join([def_line(X1, 1), def_line(Y1, 1),
                           def_line(Y2, 1), stack([A0]), stack([A1]),
                           unresolved(X2), stack([A3])]) + '\n', 'stdout')
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
                  [item(X2), item(X1)])
        eq(out, '\n'.join([def_line(X1, 1)] + [b[1] for b in bad] +
                          [unresolved(X2), stack([A0])]) + '\n', 'stdout')
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
        out = run([item(X1, [A3]), item(X1), item(X2), item(X3), item(Y1)],
                  ['-O', 'stackmap:map=' + path])
        eq(out, '\n'.join([def_line(X1, 1), stack([A3]), stack([A1]),
                           unresolved(X3, ' [unknown]'),
                           unresolved(Y1, ' [stale]')]) + '\n', 'stdout')
    r.check('plugin_defs_and_map', with_map)

    for name, extra, frames in (
            ('long_size_4', ['-l', '4'], [B0, TR, B3, B2]),
            ('big_endian', ['-B'], [A0, TR, A3, A2]),
            ('big_endian_long_size_4', ['-B', '-l', '4'], [B0, TR, B3, B2])):
        def order(extra=extra, frames=frames):
            out = run([item(X1, frames), item(X1), item(X2)], extra)
            eq(out, '\n'.join([def_line(X1, 4), stack(frames),
                               unresolved(X2)]) + '\n', 'stdout')
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
    t.stack_id(23, X3, unresolved(X3))
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
            eq(report(dat), t.expected(), 'stdout')
        r.check('trace_cmd_report_defs' + name, rich)

    def compat_long():
        # A 32-bit trace-cmd on a 64-bit kernel writes long size 4 in the
        # file header; the frames are the kernel's 8 bytes all the same.
        t = Trace(kallsyms, header_long_size=4)
        t.stack_def(1, X1, [A0, TR, A2])
        t.stack_id(2, X1, [A0, TR, A2])
        eq(report(t.write(os.path.join(r.tmp, 'compat.dat'))),
           t.expected(), 'stdout')
    r.check('trace_cmd_report_defs_32bit_recorder', compat_long)

    def offsets():
        # Fields where the format says, not where the kernel has them.
        t = Trace(kallsyms, def_fields=(('depth', 8), ('caller', 16),
                                        ('id', 12)))
        t.stack_def(1, X1, [A0, A1])
        t.stack_id(2, X1, [A0, A1])
        t.stack_id(3, X2, unresolved(X2))
        eq(report(t.write(os.path.join(r.tmp, 'offsets.dat'))),
           t.expected(), 'stdout')
    r.check('trace_cmd_report_defs_format_offsets', offsets)

    def id_offset_overflow():
        # The id where offset + 4 is past INT_MAX, by the format: the
        # plugin reads nothing there (the print format it replaces would).
        for off in range(0x7ffffffc, 0x80000000):
            t = Trace(kallsyms, id_offset=off)
            t.stack_def(1, X1, [A0])
            t.stack_id(2, X1, '<stack_id> [malformed]')
            eq(report(t.write(os.path.join(r.tmp, 'idoff.dat'))),
               t.expected(), 'stdout, id at %#x' % off)
    r.check('trace_cmd_report_defs_id_offset_past_int_max',
            id_offset_overflow)

    def id_first():
        # CPU 1 stamps its entry of X1 before CPU 0 writes X1's
        # definition: the plugin reads by time and cannot resolve it.
        t = Trace(kallsyms, cpus=2)
        t.stack_id(1, X1, unresolved(X1), cpu=1)
        t.stack_def(2, X1, [A0, TR])
        t.stack_id(3, X1, [A0, TR])
        eq(report(t.write(os.path.join(r.tmp, 'idfirst.dat'))),
           t.expected(), 'stdout')
    r.check('trace_cmd_report_defs_id_before_def', id_first)


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
