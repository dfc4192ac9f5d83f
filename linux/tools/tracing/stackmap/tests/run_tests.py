#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# series: 33
"""Unit tests of build/stackmap and plugin_stackmap.so, plus bounded
libFuzzer runs of the decoder and of the trace text parsers.

Appends one "PASS tools:<name>" or "FAIL tools:<name>" line per test to
--results and exits non-zero if any test failed. Every stream is crafted
here (tests/smapgen.py), in both byte orders.
"""
import argparse
import importlib
# series: end
import json
import os
import re
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import defs_tests  # noqa: E402
import smapgen as g  # noqa: E402

ORDERS = (('le', '<'), ('be', '>'))
A0 = 0xffffffff81000010          # _stext+0x10
A1 = 0xffffffff81000123          # foo_bar+0x23
A2 = 0xffffffffc0001000          # modfn+0x100, in module mymod
A3 = 0xffffffff81000205          # baz+0x5
KALLSYMS = """ffffffff81000000 T _stext
ffffffff81000000 T startup_64
ffffffff81000100 t foo_bar
ffffffff81000200 T baz
ffffffff81000300 T __kretprobe_trampoline
ffffffff81000400 D last_text
ffffffffc0000f00 t modfn\t[mymod]
ffffffffc0002000 t modend\t[mymod]
"""


class Layout:
    """How a stream splits its ids into generation tag and slot index.

    Every stream says where (index_bits). The tags of LAYOUTS are ones
    that a decoder with another, fixed split would misread: the largest
    tag of their split, or low bits set where a wider split expects index
    bits.
    """

    def __init__(self, name, index_bits, gen):
        self.name = name
        self.index_bits = index_bits
        self.gen = gen
        self.suffix = '_' + name
        self.kw = {'index_bits': index_bits}

    def id(self, index, gen=None):
        return g.make_id(self.gen if gen is None else gen, index,
                         self.index_bits)

# series: 32
    def other_gen(self):
        if self.gen + 1 < 1 << (32 - self.index_bits):
            return self.gen + 1
        return self.gen - 1

    def ids(self):
        """The ids of TRACE_T: three in the map, one stale, one unknown."""
        return {'r1': '0x%08x' % self.id(1), 'r2': '0x%08x' % self.id(2),
                'r5': '0x%08x' % self.id(5),
                'stale': '0x%08x' % self.id(2, self.other_gen()),
                'unknown': '0x%08x' % self.id(9)}
# series: end

    def recs(self):
        return [(self.id(1), [A0, g.TRAMPOLINE, A1], 42),
                (self.id(2), [A2], 3),
                (self.id(5), [A3, A1, A0], 0)]

    def stream(self, bo='<', recs=None, **kw):
        return g.stream(self.recs() if recs is None else recs, self.gen, bo,
                        **dict(self.kw, **kw))

    def header(self, gen, nr, bo='<', **kw):
        return g.header(gen, nr, bo, **dict(self.kw, **kw))


# The stream of the tests that are not about the split: smapgen's default
# split, generation 1.
BASE = Layout('base', 20, 1)
SPLIT14 = Layout('split14', 14, 0x2a5a5)
SPLIT20 = Layout('split20', 20, 4095)
LAYOUTS = (SPLIT14, SPLIT20, Layout('split5', 5, (1 << 27) - 1))
RECS = BASE.recs()
# series: 32
TRACE_T = """# tracer: nop
#
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
            bash-1234    [001] d..2.   12.345678: sched_switch: prev_comm=bash
            bash-1234    [001] d..2.   12.345679: <stack_id {r1}>
     kworker/0:1-55      [000] ....1   12.400000: kmalloc: call_site=x
     kworker/0:1-55      [000] ....1   12.400001: <stack_id {r2}>
     kworker/0:1-55      [000] ....1   12.400002: <stack_id {stale}>
     kworker/0:1-55      [000] ....1   12.400003: <stack_id {unknown}>
  my-prog 2-77       (     77) [001] ....1   12.5: kmalloc: call_site=y
  my-prog 2-77       (     77) [001] ....1   12.5: <stack_id {r2}>
            bash-1234    [001] d..2.   12.6: sched_switch: prev_comm=bash
            bash-1234    [001] d..2.   12.6: <stack trace>
 => baz
 => foo_bar
 => _stext
            bash-1234    [001] d..2.   12.7: sched_switch: prev_comm=bash
            bash-1234    [001] d..2.   12.7: <stack_id {r1}>"""
TRACE = TRACE_T.format(**BASE.ids())
# series: end
# series: 35


def test_modules():
    """The test modules of the commands, tests/*_tests.py, each with
    run(r, kallsyms): the patch that adds a command adds its module,
    and this runner runs every module it finds."""
    here = os.path.dirname(os.path.abspath(__file__))
    return [importlib.import_module(name[:-3])
            for name in sorted(os.listdir(here))
            if name.endswith('_tests.py') and name != 'run_tests.py']
# series: end


class Runner:
    def __init__(self, build, results):
        self.build = build
        self.bin = os.path.join(build, 'stackmap')
        self.results = results
        if results:
            # Absent when "make tools-check" runs alone in a fresh tree.
            os.makedirs(os.path.dirname(os.path.abspath(results)),
                        exist_ok=True)
        self.tmp = tempfile.mkdtemp(prefix='stackmap-test.')
        self.passed = self.failed = 0
        self.kallsyms = self.write('kallsyms', KALLSYMS.encode())

    def write(self, name, data):
        path = os.path.join(self.tmp, name)
        with open(path, 'wb') as f:
            f.write(data)
        return path

    def run(self, args, stdin=None, **kw):
        return subprocess.run([self.bin] + args, input=stdin,
                              capture_output=True, **kw)

    def record(self, name, ok, detail=''):
        line = '%s tools:%s' % ('PASS' if ok else 'FAIL', name)
        print(line + ('' if ok or not detail else '  # ' + detail))
        if self.results:
            with open(self.results, 'a') as f:
                f.write(line + '\n')
        if ok:
            self.passed += 1
        else:
            self.failed += 1

    def check(self, name, fn):
        try:
            fn()
        except AssertionError as e:
            self.record(name, False, str(e).replace('\n', '\\n')[:300])
        except Exception as e:  # a crash of the test is a failure too
            self.record(name, False, '%s: %s' % (type(e).__name__, e))
        else:
            self.record(name, True)


def eq(a, b, what=''):
    assert a == b, '%s: expected %r, got %r' % (what, b, a)


# dump ---------------------------------------------------------------------

DUMP_TEXT_T = """stack_id {r1} [ref 42, depth 3]
  [0] 0xffffffff81000010
  [1] [FTRACE TRAMPOLINE]
  [2] 0xffffffff81000123
stack_id {r2} [ref 3, depth 1]
  [0] 0xffffffffc0001000
stack_id {r5} [ref 0, depth 3]
  [0] 0xffffffff81000205
  [1] 0xffffffff81000123
  [2] 0xffffffff81000010
"""
DUMP_SYMS_T = """stack_id {r1} [ref 42, depth 3]
  [0] _stext+0x10/0x100
  [1] [FTRACE TRAMPOLINE]
  [2] foo_bar+0x23/0x100
stack_id {r2} [ref 3, depth 1]
  [0] modfn+0x100/0x1100 [mymod]
stack_id {r5} [ref 0, depth 3]
  [0] baz+0x5/0x100
  [1] foo_bar+0x23/0x100
  [2] _stext+0x10/0x100
"""


def tests_dump_one(r, lay, order, bo):
    ids = lay.ids()
    dump_text = DUMP_TEXT_T.format(**ids)
    path = r.write('good%s.%s' % (lay.suffix, order), lay.stream(bo))
    name = lay.suffix + '_' + order

    def text():
        p = r.run(['dump', path])
        eq(p.returncode, 0, 'exit')
        eq(p.stdout.decode(), dump_text, 'stdout')
        eq(p.stderr, b'', 'stderr')
    r.check('dump_text' + name, text)

    def syms():
        p = r.run(['dump', '--kallsyms', r.kallsyms, path])
        eq(p.returncode, 0, 'exit')
        eq(p.stdout.decode(), DUMP_SYMS_T.format(**ids), 'stdout')
    r.check('dump_kallsyms' + name, syms)

    def stdin():
        with open(path, 'rb') as f:
            p = r.run(['dump', '-'], stdin=f.read())
        eq(p.returncode, 0, 'exit')
        eq(p.stdout.decode(), dump_text, 'stdout')
    r.check('dump_stdin' + name, stdin)

    def js(pipe=False):
        if pipe:
            with open(path, 'rb') as f:
                p = r.run(['dump', '--json', '-k', r.kallsyms, '-'],
                          stdin=f.read())
        else:
            p = r.run(['dump', '--json', '-k', r.kallsyms, path])
        eq(p.returncode, 0, 'exit')
        d = json.loads(p.stdout)
        eq(d['byte_order'], {'le': 'little', 'be': 'big'}[order], 'bo')
        eq((d['version'], d['generation'], d['index_bits'],
            d['nr_records'], d['addresses'], d['max_depth']),
           (g.VERSION, lay.gen, lay.index_bits, 3, True, 128), 'hdr')
        eq([x['id'] for x in d['records']],
           [ids['r1'], ids['r2'], ids['r5']], 'ids')
        # The tag under the stream's split, not a fixed one.
        eq([x['generation'] for x in d['records']], [lay.gen] * 3,
           'record generations')
        eq(d['records'][0]['refs'], 42, 'refs')
        eq([f['symbol'] for f in d['records'][0]['frames']],
           ['_stext+0x10/0x100', '[FTRACE TRAMPOLINE]',
            'foo_bar+0x23/0x100'], 'symbols')
        eq(d['records'][1]['frames'][0]['addr'], '0xffffffffc0001000',
           'addr')
    r.check('dump_json' + name, js)
    r.check('dump_json_pipe' + name, lambda: js(pipe=True))

    def header():
        p = r.run(['dump', '--header', path])
        eq(p.returncode, 0, 'exit')
        eq(p.stdout.decode(), header_fields(
            {'le': 'little', 'be': 'big'}[order], g.VERSION, lay.gen,
            lay.index_bits, 3), 'stdout')
        eq(p.stderr, b'', 'stderr')
    r.check('dump_header' + name, header)


def header_fields(bo, version, gen, index_bits, nr, flags=1,
                  header_size=32, record_size=16):
    """What dump --header prints."""
    return ('byte_order: %s\nversion: %d\nheader_size: %d\n'
            'generation: %d\nindex_bits: %d\nnr_records: %d\nflags: %d\n'
            'addresses: %s\nmax_depth: 128\nrecord_size: %d\n' %
            (bo, version, header_size, gen, index_bits, nr, flags,
             'true' if flags & 1 else 'false', record_size))


def tests_dump(r):
    for lay in LAYOUTS:
        for order, bo in ORDERS:
            tests_dump_one(r, lay, order, bo)

    def empty_map(lay=SPLIT14):
        path = r.write('empty', lay.header(0, 0))
        p = r.run(['dump', path])
        eq((p.returncode, p.stdout), (0, b''), 'text')
        p = r.run(['dump', '--json', path])
        eq(p.returncode, 0, 'exit')
        eq(json.loads(p.stdout)['records'], [], 'records')
        p = r.run(['dump', '--header', path])
        eq((p.returncode, p.stdout.decode()),
           (0, header_fields('little', g.VERSION, 0, lay.index_bits, 0)),
           'header')
    r.check('dump_unallocated_depot' + SPLIT14.suffix, empty_map)

    def header_stdin():
        data = SPLIT14.stream('>')
        p = r.run(['dump', '-H', '-'], stdin=data)
        eq(p.returncode, 0, 'exit')
        eq(p.stdout.decode(), header_fields('big', 1, SPLIT14.gen, 14, 3),
           'stdout')
    r.check('dump_header_stdin', header_stdin)

    def hidden():
        path = r.write('hidden', g.stream([(0x00300001, [0, 0], 1)], gen=3,
                                          flags=0))
        p = r.run(['dump', path])
        eq(p.returncode, 0, 'exit')
        eq(p.stdout.decode(),
           'stack_id 0x00300001 [ref 1, depth 2]\n  [0] 0x0\n  [1] 0x0\n',
           'stdout')
        assert b'addresses are hidden' in p.stderr, p.stderr
        # The header says so itself.
        p = r.run(['dump', '--header', path])
        eq((p.returncode, p.stdout.decode(), p.stderr),
           (0, header_fields('little', 1, 3, 20, 1, flags=0), b''),
           'header')
    r.check('dump_hidden_addresses', hidden)

    def bigger_sizes():
        # A larger header or record header is skipped, not misread.
        data = (g.header(1, 1, header_size=40, record_size=24,
                         extra=b'\xaa' * 8) +
                g.record(0x00100001, [A0], 7, extra=b'\xbb' * 8))
        path = r.write('bigger', data)
        p = r.run(['dump', path])
        eq(p.returncode, 0, 'exit')
        eq(p.stdout.decode(),
           'stack_id 0x00100001 [ref 7, depth 1]\n  [0] 0xffffffff81000010\n',
           'stdout')
        p = r.run(['dump', '--header', path])
        eq(p.stdout.decode(), header_fields('little', 1, 1, 20, 1,
                                            header_size=40, record_size=24),
           'header')
    r.check('dump_larger_header_and_record_size', bigger_sizes)


# strict input ---------------------------------------------------------------

def bad_streams(bo):
    """(name, stream, offset named in the error, words expected)"""
    r1 = g.record(0x00100001, [A0, A1], 5, bo)       # 32 bytes, at 32
    r2 = g.record(0x00100002, [A2], 1, bo)           # 24 bytes, at 64
    h = g.header
    return [
        ('empty', b'', 0, 'truncated header'),
        ('short_magic', b'FSM', 0, 'truncated header'),
        ('bad_magic', b'XXXX' + h(1, 0, bo)[4:], 0, 'bad magic'),
        ('truncated_header', h(1, 0, bo)[:20], 0, 'truncated header'),
        ('truncated_long_header', h(1, 0, bo, header_size=40), 0,
         'truncated header'),
        ('version_0', h(1, 0, bo, version=0), 4, 'unsupported version 0'),
        # A newer version, however valid the rest of the stream.
        ('version_2', SPLIT14.stream(bo, version=2), 4,
         'unsupported newer version 2'),
        ('header_size_small', h(1, 0, bo, header_size=28), 6,
         'header_size'),
        ('records_in_generation_0', h(0, 1, bo) + r1, 12, 'generation 0'),
        ('unknown_flags', h(1, 0, bo, flags=3), 16, 'flags'),
        ('max_depth_0', h(1, 0, bo, max_depth=0), 20, 'max_depth'),
        ('max_depth_huge', h(1, 0, bo, max_depth=1 << 20), 20,
         'max_depth'),
        ('record_size_small', h(1, 0, bo, record_size=12), 24,
         'record_size'),
        ('truncated_record_header', h(1, 2, bo) + r1 + r2[:10], 64,
         'truncated record 1'),
        ('truncated_addresses', h(1, 2, bo) + r1 + r2[:20], 64,
         'truncated record 1'),
        ('depth_0', h(1, 1, bo) + g.record(0x00100001, [], 1, bo), 36,
         'depth 0'),
        ('depth_above_max', h(1, 1, bo, max_depth=2) +
         g.record(0x00100001, [A0, A1, A2], 1, bo), 36, 'depth 3'),
        ('count_mismatch', h(1, 3, bo) + r1 + r2, 88,
         'record count mismatch'),
        ('trailing_bytes', h(1, 2, bo) + r1 + r2 + b'\0', 88,
         'trailing data'),
        ('record_generation', h(1, 2, bo) + r1 +
         g.record(0x00200002, [A2], 1, bo), 64, 'generation 2'),
        ('duplicate_id', h(1, 2, bo) + r1 +
         g.record(0x00100001, [A2], 1, bo), 64, 'duplicate id'),
        ('record_reserved', h(1, 1, bo) +
         g.record(0x00100001, [A0], 1, bo, reserved=9), 44, 'reserved'),
    ] + bad_streams_split(bo)


def bad_streams_split(bo):
    """The split at index_bits is checked, never a fixed one."""
    lay = SPLIT14
    gen = lay.gen
    r1 = g.record(lay.id(1), [A0, A1], 5, bo)        # 32 bytes, at 32

    def h(gen, nr, index_bits=14, **kw):
        return g.header(gen, nr, bo, index_bits=index_bits, **kw)

    def rec(rid):                                     # at 64
        return g.record(rid, [A2], 1, bo)

    return [
        # index_bits 0 is also what a header with a zero field there
        # would say.
        ('index_bits_0', h(gen, 0, 0), 28, 'index_bits'),
        ('index_bits_4', h(1, 0, 4), 28, 'index_bits'),
        ('index_bits_21', h(1, 0, 21), 28, 'index_bits'),
        ('generation_too_big_14', h(1 << 18, 0), 8, 'generation'),
        ('generation_too_big_5', h(1 << 27, 0, 5), 8, 'generation'),
        ('generation_too_big_20', h(4096, 0, 20), 8, 'generation'),
        ('records_in_generation_0_14', h(0, 1) + r1, 12, 'generation 0'),
        ('record_generation_14', h(gen, 2) + r1 + rec(lay.id(2, gen + 1)),
         64, 'generation %d' % (gen + 1)),
        # A record whose id was made with a 20-bit split.
        ('record_split_20_in_14', h(gen, 2) + r1 +
         rec(g.make_id(gen & 0xfff, 2)), 64, 'generation'),
        # An index that does not fit in index_bits spills into the tag.
        ('index_too_big_14', h(gen, 2) + r1 + rec(lay.id(1 << 14 | 2)), 64,
         'generation %d' % (gen + 1)),
        ('index_too_big_5', h(3, 2, 5) +
         g.record(g.make_id(3, 1, 5), [A0, A1], 5, bo) +
         rec(g.make_id(3, 32, 5)), 64, 'generation 4'),
        ('duplicate_id_14', h(gen, 2) + r1 + rec(lay.id(1)), 64,
         'duplicate id'),
        ('duplicate_id_5', h(3, 2, 5) +
         g.record(g.make_id(3, 31, 5), [A0, A1], 5, bo) +
         rec(g.make_id(3, 31, 5)), 64, 'duplicate id'),
        ('header_size_small_14', h(gen, 0, header_size=28), 6,
         'header_size'),
    ]


def tests_errors(r):
    for order, bo in ORDERS:
        for name, data, off, words in bad_streams(bo):
            path = r.write('bad.%s.%s' % (name, order), data)

            def check(path=path, data=data, off=off, words=words):
                for args in (['dump', path], ['dump', '--json', path],
                             ['dump', '--json', '-'],
                             ['dump', '--header', path],
                             ['dump', '--header', '-'],
                             ['expand', '--map', path, '/dev/null'],
                             ['fold', '--map', path]):
                    p = r.run(args, stdin=data)
                    eq(p.returncode, 1, '%s: exit' % args[:2])
                    err = p.stderr.decode()
                    eq(err.count('\n'), 1, '%s: one line: %r' % (args, err))
                    m = re.search(r': offset (\d+): ', err)
                    assert m, 'no offset in %r' % err
                    eq(int(m.group(1)), off, 'offset in %r' % err)
                    assert words in err, '%r not in %r' % (words, err)
                    if args[1] in ('--json', '--header') or \
                       args[0] != 'dump':
                        eq(p.stdout, b'', '%s: stdout' % args)
            r.check('strict_%s_%s' % (name, order), check)
# series: 32


# expand and fold -------------------------------------------------------------

def expand_raw(ids):
    return TRACE_T.format(**ids).replace(
        '12.345679: <stack_id %s>' % ids['r1'],
        '12.345679: <stack trace>\n => 0xffffffff81000010\n'
        ' => [FTRACE TRAMPOLINE]\n => 0xffffffff81000123').replace(
        '12.400001: <stack_id %s>' % ids['r2'],
        '12.400001: <stack trace>\n => 0xffffffffc0001000').replace(
        '<stack_id %s>' % ids['stale'],
        '<stack_id %s> [stale]' % ids['stale']).replace(
        '<stack_id %s>' % ids['unknown'],
        '<stack_id %s> [unknown]' % ids['unknown']).replace(
        '12.5: <stack_id %s>' % ids['r2'],
        '12.5: <stack trace>\n => 0xffffffffc0001000').replace(
        '12.7: <stack_id %s>' % ids['r1'],
        '12.7: <stack trace>\n => 0xffffffff81000010\n'
        ' => [FTRACE TRAMPOLINE]\n => 0xffffffff81000123') + '\n'


EXPAND_RAW = expand_raw(BASE.ids())


def tests_expand_one(r, lay, order, bo):
    ids = lay.ids()
    path = r.write('map%s.%s' % (lay.suffix, order), lay.stream(bo))
    trace = r.write('trace' + lay.suffix, TRACE_T.format(**ids).encode())
    name = lay.suffix + '_' + order

    def raw():
        p = r.run(['expand', '--map', path, trace])
        eq(p.returncode, 0, 'exit')
        eq(p.stdout.decode(), expand_raw(ids), 'stdout')
        assert ('1 stale and 1 unknown stack ids left unexpanded '
                '(map generation %d)' % lay.gen).encode() in p.stderr, \
            p.stderr
    r.check('expand_raw' + name, raw)

    def syms():
        p = r.run(['expand', '-m', path, '-k', r.kallsyms, '-'],
                  stdin=TRACE_T.format(**ids).encode())
        eq(p.returncode, 0, 'exit')
        out = p.stdout.decode()
        assert ('12.345679: <stack trace>\n => _stext\n'
                ' => [FTRACE TRAMPOLINE]\n => foo_bar\n') in out, out
        assert '12.400001: <stack trace>\n => modfn\n' in out, out
        assert '<stack_id %s> [stale]\n' % ids['stale'] in out, out
    r.check('expand_kallsyms' + name, syms)


def tests_expand(r):
    for lay in LAYOUTS:
        for order, bo in ORDERS:
            tests_expand_one(r, lay, order, bo)

    def sym_offset():
        path = r.write('map.le', g.stream(RECS))
        p = r.run(['expand', '-m', path, '-k', r.kallsyms, '--sym-offset',
                   '--sym-addr'], stdin=TRACE.encode())
        out = p.stdout.decode()
        assert (' => _stext+0x10/0x100 <ffffffff81000010>\n'
                ' => [FTRACE TRAMPOLINE]\n'
                ' => foo_bar+0x23/0x100 <ffffffff81000123>\n') in out, out
        assert ' => modfn+0x100/0x1100 [mymod] <ffffffffc0001000>\n' in out
    r.check('expand_sym_offset_addr', sym_offset)

    def kernel_edges():
        # 0 prints "0", an address without symbol "0x%08lx", the kretprobe
        # trampoline "[unknown/kretprobe'd]", as seq_print_ip_sym() does.
        path = r.write('edges', g.stream(
            [(0x00100001, [0, 0x1234, 0xffffffff81000300, 0x10], 1)]))
        p = r.run(['expand', '-m', path, '-k', r.kallsyms],
                  stdin=b'<stack_id 0x00100001>')
        eq(p.stdout.decode(), "<stack trace>\n => 0\n => 0x00001234\n"
           " => [unknown/kretprobe'd]\n => 0x00000010\n", 'stdout')
    r.check('expand_kernel_formats', kernel_edges)

    def trace_cmd_report():
        path = r.write('map.le', g.stream(RECS))
        line = ('            bash-1234  [001] 12.345679: kernel_stack_id:'
                '      <stack_id 0x00100002>\n')
        p = r.run(['expand', '-m', path], stdin=line.encode())
        eq(p.stdout.decode(), line.replace('<stack_id 0x00100002>',
           '<stack trace>') + ' => 0xffffffffc0001000\n', 'stdout')
    r.check('expand_trace_cmd_report_lines', trace_cmd_report)

    def stale_never_resolves():
        # Same index as a record, other generation: must not resolve.
        path = r.write('gen2', g.stream([(0x00200001, [A0], 1)], gen=2))
        p = r.run(['expand', '-m', path],
                  stdin=b'x: <stack_id 0x00100001>\nx: <stack_id 0x00300001>\n'
                  b'x: <stack_id 0x00200002>\nx: <stack_id 0x00200001>\n')
        eq(p.stdout.decode(), 'x: <stack_id 0x00100001> [stale]\n'
           'x: <stack_id 0x00300001> [stale]\n'
           'x: <stack_id 0x00200002> [unknown]\n'
           'x: <stack trace>\n => 0xffffffff81000010\n', 'stdout')
    r.check('expand_stale_and_unknown', stale_never_resolves)

    def stale_never_resolves_split14():
        # Under a 14-bit split, bits 14..19 are the tag: an id that differs
        # from a record's only there is stale, and index bits 14..19 of a
        # 20-bit split do not exist.
        lay, gen = SPLIT14, SPLIT14.gen
        path = r.write('gen.split14',
                       lay.stream(recs=[(lay.id(1), [A0], 1)]))
        ids = [lay.id(1, gen ^ 1), lay.id(1, gen ^ 0x3f),
               lay.id(1, gen ^ 0x40), lay.id(1 << 13 | 1), lay.id(2),
               lay.id(1)]
        p = r.run(['expand', '-m', path],
                  stdin=''.join('x: <stack_id 0x%08x>\n' % i
                                for i in ids).encode())
        eq(p.stdout.decode(), ''.join('x: <stack_id 0x%08x> [stale]\n' % i
                                      for i in ids[:3]) +
           ''.join('x: <stack_id 0x%08x> [unknown]\n' % i
                   for i in ids[3:5]) +
           'x: <stack trace>\n => 0xffffffff81000010\n', 'stdout')
        assert (b'3 stale and 2 unknown stack ids left unexpanded '
                b'(map generation %d)' % gen) in p.stderr, p.stderr
    r.check('expand_stale_and_unknown_split14',
            stale_never_resolves_split14)


FOLD_TRACE = """bash;0xffffffff81000123;[FTRACE TRAMPOLINE];0xffffffff81000010 2
bash;_stext;foo_bar;baz 1
kworker/0:1;0xffffffffc0001000 1
kworker/0:1;[stale stack_id] 1
kworker/0:1;[unknown stack_id] 1
my-prog 2;0xffffffffc0001000 1
"""


def tests_fold(r):
    for lay in LAYOUTS:
        for order, bo in ORDERS:
            path = r.write('map%s.%s' % (lay.suffix, order), lay.stream(bo))
            trace = TRACE_T.format(**lay.ids()).encode()
            name = lay.suffix + '_' + order

            def fold(path=path, trace=trace):
                p = r.run(['fold', '--map', path, '-'], stdin=trace)
                eq(p.returncode, 0, 'exit')
                eq(p.stdout.decode(), FOLD_TRACE, 'stdout')
            r.check('fold_trace' + name, fold)

            def refs(path=path):
                p = r.run(['fold', '--map', path, '-k', r.kallsyms])
                eq(p.returncode, 0, 'exit')
                eq(p.stdout.decode(),
                   'foo_bar;[FTRACE TRAMPOLINE];_stext 42\nmodfn 3\n',
                   'stdout')
            r.check('fold_map_refs' + name, refs)

    def merged():
        # A full stack and an id of the same stack fold into one line.
        path = r.write('map.le', g.stream(RECS))
        tr = ('  a-1 [000] ....: ev\n  a-1 [000] ....: <stack_id 0x00100005>\n'
              '  a-1 [000] ....: ev\n  a-1 [000] ....: <stack trace>\n'
              ' => baz+0x5/0x100\n => foo_bar+0x23/0x100\n'
              ' => _stext+0x10/0x100\n')
        p = r.run(['fold', '-m', path, '-k', r.kallsyms, '-'],
                  stdin=tr.encode())
        eq(p.stdout.decode(), 'a;_stext;foo_bar;baz 2\n', 'stdout')
    r.check('fold_merges_ids_and_full_stacks', merged)

    def comm_of_stack_line():
        # The trace merges CPUs by time: another CPU's event can come
        # between an event and its stack, whose own line names the task.
        path = r.write('map.le', g.stream(RECS))
        tr = ('  a-1 [000] ....: ev\n  b-2 [001] ....: ev\n'
              '  a-1 [000] ....: <stack_id 0x00100005>\n'
              '  b-2 [001] ....: <stack_id 0x00100001>\n'
              '  c-3 [000] ....: ev\n  b-2 [001] ....: ev\n'
              '  c-3 [000] ....: <stack trace>\n => baz\n'
              '  b-2 [001] ....: ev\n<stack_id 0x00100005>\n')
        p = r.run(['fold', '-m', path, '-k', r.kallsyms, '-'],
                  stdin=tr.encode())
        eq(p.stdout.decode(), 'a;_stext;foo_bar;baz 1\n'
           'b;_stext;foo_bar;baz 1\nb;foo_bar;[FTRACE TRAMPOLINE];_stext 1\n'
           'c;baz 1\n', 'stdout')
    r.check('fold_comm_of_the_stack_line', comm_of_stack_line)
# series: end


# command line ----------------------------------------------------------------

def tests_cli(r):
    for cmd in ('dump', 'expand', 'fold', 'snapshot', 'report'):
        def helps(cmd=cmd):
            p = r.run([cmd, '--help'])
            eq(p.returncode, 0, 'exit')
            assert p.stdout.startswith(b'Usage: stackmap ' + cmd.encode())
            p = r.run([cmd, '--bogus'])
            eq(p.returncode, 2, 'unknown option exit')
            p = r.run([cmd])
            eq(p.returncode, 2, 'missing argument exit')
        r.check('cli_%s_help_and_usage' % cmd, helps)

    def top():
        eq(r.run(['--help']).returncode, 0, '--help')
        eq(r.run([]).returncode, 2, 'no command')
        eq(r.run(['frobnicate']).returncode, 2, 'unknown command')
        p = r.run(['dump', '/nonexistent'])
        eq(p.returncode, 1, 'missing file')
        p = r.run(['expand', '-m', r.kallsyms, '-k', '/nonexistent'])
        eq(p.returncode, 1, 'missing kallsyms')
    r.check('cli_commands_and_missing_files', top)

    def json_and_header():
        path = r.write('map.le', g.stream(RECS))
        for args in (['-j', '-H'], ['--header', '--json']):
            p = r.run(['dump'] + args + [path])
            eq((p.returncode, p.stdout), (2, b''), '%s' % args)
            assert b'exclude each other' in p.stderr, p.stderr
    r.check('cli_dump_json_and_header_exclusive', json_and_header)

    def bad_kallsyms():
        path = r.write('map.le', g.stream(RECS))
        zero = r.write('ks0', b'0000000000000000 T _stext\n')
        p = r.run(['dump', '-k', zero, path])
        eq(p.returncode, 1, 'exit')
        assert b'no symbol addresses' in p.stderr, p.stderr
        eq(p.stdout, b'', 'stdout')
    r.check('cli_kallsyms_without_addresses', bad_kallsyms)
# series: 32


# snapshot ---------------------------------------------------------------------

def tests_snapshot(r):
    def snap():
        fake = os.path.join(r.tmp, 'tracefs')
        inst = os.path.join(fake, 'instances', 'foo')
        os.makedirs(inst)
        # As a kernel with its default table of 2^14 slots writes it.
        lay = SPLIT14
        data = lay.stream()
        for d in (fake, inst):
            for name, content in (('trace',
                                   TRACE_T.format(**lay.ids()).encode()),
                                  ('stack_map_bin', data),
                                  ('stack_map',
                                   DUMP_SYMS_T.format(**lay.ids()).encode()),
                                  ('stack_map_stat', b'allocated: 1\n')):
                with open(os.path.join(d, name), 'wb') as f:
                    f.write(content)
        out = os.path.join(r.tmp, 'snap')
        p = r.run(['snapshot', '--tracefs', fake, '--instance', 'foo', out])
        eq(p.returncode, 0, 'exit: %r' % p.stderr)
        assert b'generation %d, 3 records' % lay.gen in p.stdout, p.stdout
        for name in ('trace', 'stack_map_bin', 'stack_map', 'stack_map_stat',
                     'kallsyms'):
            assert os.path.exists(os.path.join(out, name)), name
        with open(os.path.join(out, 'stack_map_bin'), 'rb') as f:
            eq(f.read(), data, 'stack_map_bin copy')

        # The end-to-end checker of the VM tests, on this snapshot: the
        # saved kallsyms is the host's, so use the test's instead.
        shutil.copy(r.kallsyms, os.path.join(out, 'kallsyms'))
        here = os.path.dirname(os.path.abspath(__file__))
        p = subprocess.run([sys.executable,
                            os.path.join(here, 'check_snapshot.py'), r.bin,
                            out], capture_output=True, text=True)
        # The trace names an id of the map's generation that is not in
        # the map: one failure.
        assert '3 records compared' in p.stdout, p.stdout
        assert 'FAIL: expand: exit 0, 1 unknown' in p.stdout, p.stdout
        eq(p.returncode, 1, 'check_snapshot exit')
        p = r.run(['snapshot', '--tracefs', fake, '-i', 'nope', out])
        eq(p.returncode, 1, 'missing instance')
        with open(os.path.join(inst, 'stack_map_bin'), 'wb') as f:
            f.write(data[:-3])
        p = r.run(['snapshot', '--tracefs', fake, '-i', 'foo', out])
        eq(p.returncode, 1, 'truncated map')
        assert b'truncated record 2' in p.stderr, p.stderr
        eq(r.run(['snapshot', '-i', 'a/b', out]).returncode, 2, 'bad name')
    r.check('snapshot_fake_tracefs', snap)
# series: end


# bounded memory ---------------------------------------------------------------

def max_rss_kb(cmd, stdin=None):
    """Peak RSS of @cmd in KiB, measured by /usr/bin/time (GNU time)."""
    with tempfile.NamedTemporaryFile('r') as out:
        p = subprocess.run(['/usr/bin/time', '-o', out.name, '-f', '%M'] +
                           cmd, stdin=stdin, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
        assert p.returncode == 0, '%s: exit %d: %r' % (cmd, p.returncode,
                                                       p.stderr)
        return int(out.read().split()[-1])


def tests_large(r):
    path = os.path.join(r.tmp, 'large.bin')
    t = time.time()
    nr = g.large(path, 100, bo='>')
    size = os.path.getsize(path)

    def bounded():
        assert size >= 100 << 20, size
        # The text dump streams; JSON from a pipe is spooled and read
        # twice; expand indexes the ids. None may hold the map in memory.
        limits = {'dump': 16 << 10, 'json_pipe': 16 << 10,
                  'expand': 24 << 10}
        rss = {'dump': max_rss_kb([r.bin, 'dump', path]),
               'expand': max_rss_kb([r.bin, 'expand', '-m', path,
                                     '/dev/null'])}
        cat = subprocess.Popen(['cat', path], stdout=subprocess.PIPE)
        rss['json_pipe'] = max_rss_kb([r.bin, 'dump', '--json', '-'],
                                      stdin=cat.stdout)
        cat.stdout.close()
        eq(cat.wait(), 0, 'cat')
        print('  # %d records, %d MiB: max RSS in KiB %s (%.1f s)' %
              (nr, size >> 20, rss, time.time() - t))
        for k, v in rss.items():
            assert v < limits[k], '%s: max RSS %d KiB' % (k, v)
    r.check('large_map_bounded_memory', bounded)
    os.unlink(path)
# series: 32


# series: end
# plugin -------------------------------------------------------------------------

def tests_plugin(r):
    tp = os.path.join(r.build, 'test_plugin')
    # Only build/ is searched: the system plugins are not needed.
    plugdir = os.path.join(r.tmp, 'plugins')
    os.makedirs(plugdir, exist_ok=True)
    shutil.copy(os.path.join(r.build, 'plugin_stackmap.so'), plugdir)
    env = dict(os.environ, HOME=r.tmp)
    env.pop('STACKMAP_MAP', None)

    def resolved(ids):
        return ('<stack trace>\n => _stext+0x10/0x100\n'
                ' => [FTRACE TRAMPOLINE]\n => foo_bar+0x23/0x100\n'
                '<stack trace>\n => modfn+0x100/0x1100\n'
                '<stack_id %(stale)s> [stale]\n'
                '<stack_id %(unknown)s> [unknown]\n' % ids)

    def run(extra, env, lay=SPLIT14):
        ids = lay.ids()
        p = subprocess.run([tp, plugdir] + extra +
                           [ids[k] for k in ('r1', 'r2', 'stale', 'unknown')],
                           capture_output=True, env=env)
        eq(p.returncode, 0, 'exit: %r' % p.stderr)
        # Stale and unknown ids had no definition either.
        eq(p.stderr.decode(), defs_tests.summary(2), 'stderr')
        return p.stdout.decode()

    # A map of 2^14 slots: a plugin that split ids at bit 20 would find
    # none of them; and one of 2^20 slots, for one that split at bit 14.
    for order, bo in ORDERS:
        path = r.write('map.split14.' + order, SPLIT14.stream(bo))
        r.check('plugin_option_map_' + order, lambda path=path: eq(
            run(['-O', 'stackmap:map=' + path], env), resolved(SPLIT14.ids()),
            'stdout'))
    path = r.write('map.split20.le', SPLIT20.stream())
    r.check('plugin_option_map' + SPLIT20.suffix, lambda: eq(
        run(['-O', 'stackmap:map=' + path], env, SPLIT20),
        resolved(SPLIT20.ids()), 'stdout'))
    path = r.write('map.split14.le', SPLIT14.stream())
    r.check('plugin_env_map', lambda: eq(
        run([], dict(env, STACKMAP_MAP=path)), resolved(SPLIT14.ids()),
        'stdout'))
    ids = [SPLIT14.ids()[k] for k in ('r1', 'r2', 'stale', 'unknown')]
    # Without a map, an id the plugin has no definition of says so:
    # unlike an id printed without the plugin.
    not_yet = ''.join('<stack_id %s>%s\n' % (i, defs_tests.NOT_YET)
                      for i in ids)

    def no_map():
        p = subprocess.run([tp, plugdir] + ids, capture_output=True, env=env)
        eq((p.returncode, p.stdout.decode(), p.stderr.decode()),
           (0, not_yet, defs_tests.summary(4)), 'exit, stdout, stderr')
    r.check('plugin_no_map', no_map)
    bad = r.write('bad.map', b'FSMB')

    def bad_map():
        p = subprocess.run([tp, plugdir, '-O', 'stackmap:map=' + bad] + ids,
                           capture_output=True, env=env)
        eq(p.returncode, 0, 'exit')
        eq(p.stdout.decode(), not_yet, 'stdout')
        err = p.stderr.decode().splitlines(True)
        eq(len(err), 2, 'stderr lines: %r' % err)
        assert 'printing stack ids unresolved' in err[0], err
        eq(err[1], defs_tests.summary(4), 'summary')
    r.check('plugin_bad_map_falls_back', bad_map)


def tests_trace_cmd(r):
    """The plugin under a real "trace-cmd report" of a crafted trace.dat."""
    if not shutil.which('trace-cmd'):
        r.record('trace_cmd_report_plugin', False, 'trace-cmd not installed')
        return
    here = os.path.dirname(os.path.abspath(__file__))
    dat = os.path.join(r.tmp, 'trace.dat')
    # The map of a table of 2^14 slots, the kernel's default.
    lay = SPLIT14
    ids = [lay.ids()[k] for k in ('r1', 'r5', 'stale', 'unknown')]
    subprocess.run([sys.executable, os.path.join(here, 'mktracedat.py'), dat,
                    r.kallsyms] + ids, check=True)
    env = dict(os.environ, HOME=r.tmp, TRACEEVENT_PLUGIN_DIR=r.build)
    env.pop('STACKMAP_MAP', None)
    path = r.write('map.split14.le', lay.stream())

    def report(extra, env=env):
        p = subprocess.run(['trace-cmd', 'report', '-i', dat] + extra,
                           capture_output=True, env=env)
        eq(p.returncode, 0, 'exit: %r' % p.stderr)
        return p.stdout.decode()

    def option():
        out = report(['-O', 'stackmap:map=' + path])
        assert ('kernel_stack_id:      <stack trace>\n'
                ' => _stext+0x10/0x100\n => [FTRACE TRAMPOLINE]\n'
                ' => foo_bar+0x23/0x100\n') in out, out
        assert ('kernel_stack_id:      <stack trace>\n'
                ' => baz+0x5/0x100\n => foo_bar+0x23/0x100\n'
                ' => _stext+0x10/0x100\n') in out, out
        assert '<stack_id %s> [stale]\n' % ids[2] in out, out
        assert '<stack_id %s> [unknown]\n' % ids[3] in out, out
    r.check('trace_cmd_report_option_map', option)

    def env_map():
        eq(report([], dict(env, STACKMAP_MAP=path)),
           report(['-O', 'stackmap:map=' + path]), 'env vs option')
    r.check('trace_cmd_report_env_map', env_map)

    def no_map():
        # The mark on each line, the count on stderr once trace-cmd
        # unloads the plugin.
        p = subprocess.run(['trace-cmd', 'report', '-i', dat],
                           capture_output=True, env=env)
        out = p.stdout.decode()
        for i in ids:
            assert ('kernel_stack_id:      <stack_id %s>%s\n'
                    % (i, defs_tests.NOT_YET)) in out, out
        eq((p.returncode, p.stderr.decode()), (0, defs_tests.summary(4)),
           'exit, stderr')
    r.check('trace_cmd_report_no_map', no_map)

    def marks_expand():
        # expand resolves the plugin's output too: a resolved id loses
        # the plugin's mark, which no longer holds; the others keep it.
        p = r.run(['expand', '-m', path, '-k', r.kallsyms, '--sym-offset'],
                  stdin=report([]).encode())
        out = p.stdout.decode()
        eq(out.replace(defs_tests.NOT_YET, ''),
           report(['-O', 'stackmap:map=' + path]), 'without the marks')
        eq(out.count(defs_tests.NOT_YET), 2, 'marks kept')
        assert ('<stack_id %s> [stale]%s\n' % (ids[2], defs_tests.NOT_YET)
                in out), out
    r.check('trace_cmd_report_marks_through_expand', marks_expand)

    def same_as_expand():
        # Plain report piped through expand gives the plugin's output.
        plain = report([], dict(env, TRACEEVENT_PLUGIN_DIR=r.tmp))
        p = r.run(['expand', '-m', path, '-k', r.kallsyms, '--sym-offset'],
                  stdin=plain.encode())
        eq(p.stdout.decode(), report(['-O', 'stackmap:map=' + path]),
           'expand output')
    r.check('trace_cmd_report_matches_expand', same_as_expand)


# fuzz -------------------------------------------------------------------------

def seed_corpus(r, corpus):
    os.makedirs(corpus, exist_ok=True)
    n = 0
    for order, bo in ORDERS:
        seeds = [lay.stream(bo) for lay in LAYOUTS]
        seeds += [lay.header(0, 0, bo) for lay in LAYOUTS]
        seeds += [data for _, data, _, _ in bad_streams(bo)]
        for data in seeds:
            with open(os.path.join(corpus, 'seed%03d' % n), 'wb') as f:
                f.write(data)
            n += 1
# series: 32


# series: end
# series: 33
def def_record(rid, frames, bo='<', lfmt='Q', depth=None, cut=0):
    """A kernel_stack_def record with the kernel's layout (8, 12, 16)."""
    rec = (struct.pack(bo + 'HBBiII', 40, 0, 1, 1234, rid,
                       len(frames) if depth is None else depth) +
           b''.join(struct.pack(bo + lfmt, f) for f in frames))
    return rec[:len(rec) - cut]


def seed_def_corpus(r, corpus):
    """Layout byte, offsets, then (length, time step, record) each."""
    os.makedirs(corpus, exist_ok=True)
    n = 0
    for flags, bo, lfmt in ((0, '<', 'Q'), (1, '<', 'I'), (2, '>', 'Q'),
                            (3, '>', 'I')):
        mask = (1 << (8 * struct.calcsize(lfmt))) - 1
        frames = [a & mask for a in (A0, g.TRAMPOLINE, A1, A2)]
        recs = [def_record(0x00100001, frames, bo, lfmt),
                def_record(0x00100002, frames[:1], bo, lfmt),
                def_record(0x00100001, frames[2:], bo, lfmt),
                def_record(0x00100001, frames, bo, lfmt),
                def_record(0x00200001, frames * 32, bo, lfmt)[:255],
                def_record(0x00100003, frames, bo, lfmt, depth=0),
                def_record(0x00100003, frames, bo, lfmt, depth=129),
                def_record(0x00100003, frames, bo, lfmt, cut=4),
                def_record(0x00100003, [], bo, lfmt, cut=6)]
        for step, rec in enumerate(recs):
            data = bytes([flags, 8, 12, 16])
            for i, one in enumerate(recs[:step + 1]):
                data += bytes([len(one), (i * 5) % 8]) + one
            with open(os.path.join(corpus, 'seed%03d' % n), 'wb') as f:
                f.write(data)
            n += 1


# series: end
def seed_trace_corpus(r, corpus):
    os.makedirs(corpus, exist_ok=True)
    marks = ''.join('<stack_id 0x00004001>%s\n' % m for m in (
        defs_tests.NOT_YET, defs_tests.UNDEFINED, defs_tests.UNDEFINED_BUF))
    for n, data in enumerate([TRACE, EXPAND_RAW, FOLD_TRACE, marks]):
        with open(os.path.join(corpus, 'seed%d' % n), 'w') as f:
            f.write(data)


def seed_prof_corpus(r, corpus):
    """Seeds of fuzz_profargs: a flag byte, then NUL-separated values."""
    os.makedirs(corpus, exist_ok=True)
    seeds = [b'\x03' + b'\0'.join([b'12345.000030', b'12345.00006',
                                   b'0.5', b'12345', b'12345.000001',
                                   b'12345.000080']),
             b'\x0c' + b'\0'.join([b'0', b'0', b'0.00003', b'12345.00004',
                                   b'10', b'20']),
             b'\x01kmem:kmalloc\0bytes\0bytes_alloc\x0010\0001.0000000001',
             b'\x0f-1\x00999999999999\0.5\0001.\0a-b\0x:y:z']
    for i, data in enumerate(seeds):
        with open(os.path.join(corpus, 'seed%d' % i), 'wb') as f:
            f.write(data)


def tests_fuzz(r, seconds, target='fuzz_decode', seed=seed_corpus,
               name='fuzz_decoder'):
    corpus = os.path.join(r.tmp, 'corpus-' + target)
    seed(r, corpus)

    def fuzz():
        p = subprocess.run([os.path.join(r.build, target),
                            '-max_total_time=%d' % seconds, '-max_len=4096',
                            '-timeout=10', '-rss_limit_mb=512', corpus],
                           capture_output=True, cwd=r.tmp)
        tail = p.stderr.decode(errors='replace').strip().splitlines()[-3:]
        print('  # fuzz: ' + ' | '.join(tail))
        eq(p.returncode, 0, 'libFuzzer exit')
    r.check('%s_%ds' % (name, seconds), fuzz)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', required=True)
    ap.add_argument('--results')
    ap.add_argument('--fuzz-seconds', type=int, default=20)
    ap.add_argument('--fuzz-trace-seconds', type=int, default=5)
    ap.add_argument('--seed-corpus')
    ap.add_argument('--seed-trace-corpus')
# series: 33
    ap.add_argument('--fuzz-def-seconds', type=int, default=3)
    ap.add_argument('--seed-def-corpus')
# series: end
# series: 35
    ap.add_argument('--fuzz-prof-seconds', type=int, default=3)
    ap.add_argument('--seed-prof-corpus')
# series: end
    args = ap.parse_args()
    r = Runner(os.path.abspath(args.build), args.results)
    try:
        if args.seed_corpus or args.seed_trace_corpus or \
           args.seed_def_corpus or args.seed_prof_corpus:
            if args.seed_corpus:
                seed_corpus(r, args.seed_corpus)
            if args.seed_trace_corpus:
                seed_trace_corpus(r, args.seed_trace_corpus)
            if args.seed_def_corpus:
                seed_def_corpus(r, args.seed_def_corpus)
            if args.seed_prof_corpus:
                seed_prof_corpus(r, args.seed_prof_corpus)
            return 0
        start = time.time()
        tests_dump(r)
        tests_errors(r)
# series: 32
        tests_expand(r)
        tests_fold(r)
        tests_cli(r)
        tests_snapshot(r)
# series: end
# series: 33
        tests_plugin(r)
        tests_trace_cmd(r)
# series: end
# series: 35
        for module in test_modules():
            module.run(r, KALLSYMS)
# series: end
        tests_large(r)
        if args.fuzz_seconds > 0:
            tests_fuzz(r, args.fuzz_seconds)
# series: 32
        if args.fuzz_trace_seconds > 0:
            tests_fuzz(r, args.fuzz_trace_seconds, 'fuzz_trace',
                       seed_trace_corpus, 'fuzz_trace_parsers')
# series: end
# series: 33
        if args.fuzz_def_seconds > 0:
            tests_fuzz(r, args.fuzz_def_seconds, 'fuzz_def',
                       seed_def_corpus, 'fuzz_def_decoder')
# series: end
# series: 35
        if args.fuzz_prof_seconds > 0:
            tests_fuzz(r, args.fuzz_prof_seconds, 'fuzz_profargs',
                       seed_prof_corpus, 'fuzz_profile_args')
# series: end
        print('%d passed, %d failed (%.1f s)' %
              (r.passed, r.failed, time.time() - start))
        return 1 if r.failed else 0
    finally:
        shutil.rmtree(r.tmp, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
