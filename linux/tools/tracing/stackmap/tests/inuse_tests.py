# SPDX-License-Identifier: GPL-2.0
"""Tests of "stackmap profile --inuse": the memory each allocation stack
held at an instant, on trace.dat files that mktracedat.py writes, with
allocations and frees of both allocator layers at known times and
addresses. Every figure below is worked out by hand in the docstrings,
not by running the tool; lossy twins drop a CPU's oldest events, or
events in the middle, as a wrapped or stalled ring buffer does.

run_tests.py calls run(); the cases need its Runner.
"""
import os
import re
import shutil
import subprocess

import xml.etree.ElementTree as ET

import mktracedat as m
import profile_tests as pt
import smapgen as g
import svg_tests

# A kallsyms with the tracepoint's own frames, which profile drops from
# the top of each stack unless --all-frames.
KALLSYMS = b"""ffffffff81000000 T _stext
ffffffff81000100 t foo_bar
ffffffff81000200 T baz
ffffffff81000300 T trace_event_raw_event_kmalloc
ffffffff81000340 T trace_kmalloc
ffffffff81000380 T __kmalloc_noprof
ffffffff81000400 T pipe_write
ffffffff81000500 D last_text
ffffffffc0000f00 t modfn\t[mymod]
ffffffffc0002000 t modend\t[mymod]
"""
A0, A1, A3 = 0xffffffff81000010, 0xffffffff81000123, 0xffffffff81000205
A2 = 0xffffffffc0001000
TP, TK = 0xffffffff81000310, 0xffffffff81000350
KM, PW = 0xffffffff81000390, 0xffffffff81000420
NAME = {A0: '_stext', A1: 'foo_bar', A2: 'modfn', A3: 'baz', TP:
        'trace_event_raw_event_kmalloc', TK: 'trace_kmalloc',
        KM: '__kmalloc_noprof', PW: 'pipe_write'}
# Stacks, innermost first; S1 starts with the tracepoint's frames: its
# raw event, and trace_kmalloc() where the compiler kept it a function.
S1, S2, S3, S4 = [TP, TK, KM, A0, A1], [A3, A0], [A2, A3], [A1]
X1, X2, X3 = (g.make_id(0x2a5a5, i, 14) for i in (1, 2, 3))
P = 0xffff888004000000
PAGE = m.PAGE
eq = pt.eq


def us(t):
    return pt.us(t)


def at(t):
    return m.TS0 + t * 1000


def mixed_trace(path, lose_cpu1=False, drop_cpu0=False):
    """Both layers on two CPUs (times in us after TS0):

      us  CPU  event                          stack  held after
      10  0    kmalloc P+0x40 64               X1=S1  slab S1 64
      15  1    kmem_cache_alloc P+0x1000 256   X3=S4  slab S4 256
      20  0    mm_page_alloc pfn 0x100 o=2     full S2  4 pages S2
      30  0    kmalloc P+0x80 128              X1     slab S1 64+128
      40  0    kfree P+0x40                           slab S1 128
      45  1    kmem_cache_free P+0x1000               slab S4 0
      50  0    mm_page_free 0x101 o=0                 3 pages S2
      55  0    mm_page_free_batched 0x101             (the same page)
      60  0    kmem_cache_alloc P+0x2000 192   X2=S3  slab S3 192
      65  1    kmalloc P+0x3000 512            X3     slab S4 512
      70  0    kfree NULL                             (no object)
      75  1    kmalloc P+0x3000 1024           X3     S4 1024, reused 512
      80  0    kfree P+0x9000                         unknown free
      90  0    mm_page_alloc pfn 0x200 o=0     X2     S3 1 page
     100  0    mm_page_free 0x100 o=0, 0x102 o=1      S2 0 pages

    The page layer peaks first at 20 us (4 pages); at 95 us it holds
    S2 3 pages, S3 1 page; the slab layer S4 1024, S3 192, S1 128.
    lose_cpu1: CPU 1 lost what came before its first event (15 us);
    drop_cpu0: CPU 0 dropped events before its event at 60 us.
    """
    t = m.TraceDat(KALLSYMS, cpus=2)
    if lose_cpu1:
        t.lose_events(cpu=1)
    t.kmem_alloc(at(10), 'kmalloc', 64, ptr=P + 0x40)
    t.stack_def(at(10), X1, S1)
    t.stack_id(at(10), X1)
    t.kmem_alloc(at(15), 'kmem_cache_alloc', 256, cpu=1, ptr=P + 0x1000)
    t.stack_def(at(15), X3, S4, cpu=1)
    t.stack_id(at(15), X3, cpu=1)
    t.page_alloc(at(20), 2, pfn=0x100)
    t.kernel_stack(at(20), S2)
    t.kmem_alloc(at(30), 'kmalloc', 128, ptr=P + 0x80)
    t.stack_id(at(30), X1)
    t.kfree(at(40), P + 0x40)
    t.cache_free(at(45), P + 0x1000, cpu=1)
    t.page_free(at(50), 0x101, 0)
    t.page_free_batched(at(55), 0x101)
    if drop_cpu0:
        t.lose_events(cpu=0)
    t.kmem_alloc(at(60), 'kmem_cache_alloc', 192, ptr=P + 0x2000)
    t.stack_def(at(60), X2, S3)
    t.stack_id(at(60), X2)
    t.kmem_alloc(at(65), 'kmalloc', 512, cpu=1, ptr=P + 0x3000)
    t.stack_id(at(65), X3, cpu=1)
    t.kfree(at(70), 0)
    t.kmem_alloc(at(75), 'kmalloc', 1024, cpu=1, ptr=P + 0x3000)
    t.stack_id(at(75), X3, cpu=1)
    t.kfree(at(80), P + 0x9000)
    t.page_alloc(at(90), 0, pfn=0x200)
    t.stack_id(at(90), X2)
    t.page_free(at(100), 0x100, 0)
    t.page_free(at(100), 0x102, 1)
    t.write(path)
    return path


def sym(f):
    return {A0: '_stext+0x10/0x100', A1: 'foo_bar+0x23/0x100',
            A2: 'modfn+0x100/0x1100', A3: 'baz+0x5/0x100',
            TP: 'trace_event_raw_event_kmalloc+0x10/0x40',
            TK: 'trace_kmalloc+0x10/0x40',
            KM: '__kmalloc_noprof+0x10/0x80',
            PW: 'pipe_write+0x20/0x100'}[f]


def rows(out):
    """The rows of each layer's table: {layer: [(objects, bytes,
    [leaf-first frames])]}, and the layer lines."""
    res, heads, layer = {}, {}, None
    for line in out.splitlines():
        mo = re.match(r'(slab|page) layer: (.*)', line)
        if mo:
            layer = mo.group(1)
            heads[layer] = mo.group(2)
            res[layer] = []
            continue
        mo = re.match(r' *\d+ +(\d+) +(\d+) +[\d.]+% +(\S+)$', line)
        if mo and layer:
            res[layer].append((int(mo.group(1)), int(mo.group(2)),
                               [mo.group(3)]))
        elif res.get(layer) and re.match(r' {20,}\S+$', line):
            res[layer][-1][2].append(line.strip())
    return res, heads


def run(r, kallsyms):
    dat = mixed_trace(os.path.join(r.tmp, 'inuse.dat'))

    def prof(args, code=0):
        p = subprocess.run([r.bin, 'profile'] + args, capture_output=True)
        eq(p.returncode, code, 'exit of %r: %r' % (args, p.stderr))
        return p.stdout.decode(), p.stderr.decode()

    batched = ('stackmap: profile: mm_page_free_batched events not '
               'counted, each a second event of a page mm_page_free '
               'freed: 1\n')

    def at_95():
        out, err = prof(['--inuse', us(95), dat])
        got, heads = rows(out)
        eq(got['page'], [(3, 3 * PAGE, [sym(f) for f in S2]),
                         (1, PAGE, [sym(f) for f in S3])], 'page rows')
        # The tracepoint's own frame is not the leaf: the allocator is.
        eq(got['slab'], [(1, 1024, [sym(f) for f in S4]),
                         (1, 192, [sym(f) for f in S3]),
                         (1, 128, [sym(f) for f in S1[2:]])], 'slab rows')
        eq(heads['page'], '4 pages (%d bytes) held at %s s; 5 pages (%d '
           'bytes) allocated from %s s' % (4 * PAGE, us(95), 5 * PAGE,
                                           us(10)), 'page total')
        eq(heads['slab'], '3 objects (1344 bytes) held at %s s; 6 objects '
           '(2176 bytes) allocated from %s s' % (us(95), us(10)),
           'slab total')
        # Pages and objects are never in one figure; what the replay
        # could not match is named apart, under its layer.
        assert '5440' not in out and '17728' not in out, out
        eq([x for x in out.splitlines() if x.startswith('# slab')],
           ['# slab layer, not in the table: frees of objects that no '
            'allocation since %s s holds (allocated before it, or by a '
            'path the kernel does not trace): 1' % us(10),
            '# slab layer, not in the table: objects allocated again at '
            'their address before a free of it (their free is not in the '
            'trace): 1 (512 bytes)'], 'apart')
        # The table of each layer printed has its warning: the free of
        # P+0x9000 is of an object the replay never saw allocated.
        eq(err, 'stackmap: profile: warning: the replay, from %s s, saw 1 '
           'frees of objects allocated before it (or by a path the kernel '
           'does not trace): more was held than its figures show\n'
           % us(10) + batched, 'stderr')
        # --all-frames keeps the tracepoint's frame.
        out, _ = prof(['--inuse', us(95), '--all-frames', '-l', 'slab',
                       dat])
        eq(rows(out)[0]['slab'][2][2], [sym(f) for f in S1], 'all frames')
        # --top 1: the rest in one row, so that the rows add up.
        out, _ = prof(['--inuse', us(95), '-l', 'slab', '--top', '1', dat])
        eq([x for x in out.splitlines() if x.startswith('   -')],
           ['   -        2    320   23.8%  (2 other stacks)'], 'the rest')
        # After the last free, the pages of S2 are all back.
        out, _ = prof(['--inuse', us(100), '-l', 'page', dat])
        eq(rows(out)[0]['page'], [(1, PAGE, [sym(f) for f in S3])],
           'after the frees')
    r.check('inuse_at_instant', at_95)

    def peak():
        out, _ = prof(['--inuse', 'peak', dat])
        first = out.splitlines()[0]
        eq(first, '# %s: in use at %s s, the peak of the page layer: %d '
           'bytes in 4 pages; replayed from %s s' % (dat, us(20), 4 * PAGE,
                                                     us(10)), 'peak line')
        got, _ = rows(out)
        eq(got['page'], [(4, 4 * PAGE, [sym(f) for f in S2])], 'page')
        # The slab layer at the same instant: S4 256 and S1 64.
        eq([x[:2] for x in got['slab']], [(1, 256), (1, 64)], 'slab')
        # The slab layer's own peak: at 75 us, 1024 + 192 + 128.
        out, _ = prof(['--inuse', 'peak', '-l', 'slab', dat])
        assert out.startswith('# %s: in use at %s s, the peak of the slab '
                              'layer: 1344 bytes in 3 objects;'
                              % (dat, us(75))), out
    r.check('inuse_peak', peak)

    def layers_apart():
        for opt in (['--folded'], ['--pprof', os.path.join(r.tmp, 'x.pb')],
                    ['--svg', os.path.join(r.tmp, 'x.svg')]):
            out, err = prof(['--inuse', 'peak'] + opt + [dat], 2)
            eq((out, err), ('', 'stackmap: profile: %s: the trace holds '
                            'slab objects and the pages they are carved '
                            'from, never added up: choose --layer slab or '
                            '--layer page\n' % opt[0]), opt[0])
            assert not os.path.exists(opt[-1]), opt
        out, _ = prof(['--inuse', us(95), '--folded', '-l', 'slab', dat])
        eq(out, ''.join('%s %d\n' % (';'.join(NAME[f] for f in
                                              reversed(s)), b)
                        for s, b in ((S4, 1024), (S3, 192), (S1[2:], 128))),
           'folded')
    r.check('inuse_layers_apart', layers_apart)

    def pprof():
        pb = os.path.join(r.tmp, 'inuse.pb.gz')
        prof(['--inuse', us(95), '-l', 'page', '--pprof', pb, dat])
        head, types, samples = pt.parse_raw(pt.go_pprof(r, ['-raw', pb]))
        eq(types, ['alloc_objects/count', 'alloc_space/bytes',
                   'inuse_objects/count', 'inuse_space/bytes[dflt]'],
           'sample types')
        eq(samples, sorted([
            ([4, 4 * PAGE, 3, 3 * PAGE], [NAME[f] for f in S2]),
            ([1, PAGE, 1, PAGE], [NAME[f] for f in S3])]), 'samples')
        assert not [x for x in head if x.startswith('Time:')], head
        assert 'Comment: %s: in use at %s s; replayed from %s s' % (
            dat, us(95), us(10)) in head, head
        out = pt.go_pprof(r, ['-sample_index=inuse_space', '-top',
                              '-nodefraction=0', '-unit=B', pb])
        assert 'Type: inuse_space' in out, out
        assert 'Total samples = %dB ' % (4 * PAGE) in out, out
        top = {x.split()[-1]: x.split()[0] for x in out.splitlines()
               if re.match(r' +\d+B? ', x)}
        eq(top, {'baz': '%dB' % (3 * PAGE), 'modfn': '%dB' % PAGE,
                 '_stext': '0'}, 'flat')
    r.check('inuse_pprof_heap_profile', pprof)

    def lossy_start():
        # CPU 1 lost what came before 15 us: the replay starts there, and
        # the kmalloc of 10 us on CPU 0 is before it; its kfree at 40 is
        # a free of an allocation the replay does not hold.
        lossy = mixed_trace(os.path.join(r.tmp, 'lose1.dat'), lose_cpu1=True)
        out, err = prof(['--inuse', us(95), '-l', 'slab', lossy])
        lines = out.splitlines()
        eq(lines[0], '# %s: in use at %s s; replayed from %s s'
           % (lossy, us(95), us(15)), 'header')
        eq(lines[2], '# cpu1: 8 events from %s to %s s, lost what came '
           'before' % (us(15), us(75)), 'cpu1 span')
        assert ('frees of objects that no allocation since %s s holds '
                '(allocated before it, or by a path the kernel does not '
                'trace): 2' % us(15)) in out, out
        # No window warning (the replay is held by all), but a word that
        # memory allocated before it is not seen: frees of it are.
        eq(err, 'stackmap: profile: warning: the replay, from %s s, saw 2 '
           'frees of objects allocated before it (or by a path the kernel '
           'does not trace): more was held than its figures show\n'
           % us(15) + batched, 'stderr')
        _, err = prof(['--inuse', 'peak', '-l', 'slab', lossy])
        assert 'more was held than its figures show, and the peak may lie ' \
            'before it' in err, err
        # A replay from before it says what is missing, on which CPU.
        out, err = prof(['--inuse', us(95), '--from', us(10), '-l', 'slab',
                         lossy])
        eq(err.splitlines()[0], 'stackmap: profile: warning: cpu1 lost its '
           'events before %s: its part of the window from %s to %s '
           '(0.000005000 s) is missing' % (us(15), us(10), us(15)),
           'warning')
        # The window of allocations says it too, and counts what is there.
        out, err = prof(['-l', 'slab', '-w', 'bytes', '--folded', lossy])
        assert 'warning: cpu1 lost its events before %s' % us(15) in err, err
        eq(sum(int(x.split()[-1]) for x in out.splitlines()),
           64 + 256 + 128 + 192 + 512 + 1024, 'window sum')
    r.check('inuse_lossy_start', lossy_start)

    def lost_part_in_window():
        # CPU 1 lost what came before 15 us; a window that ends before
        # then lost all of CPU 1's part, which ends where it does.
        lossy = mixed_trace(os.path.join(r.tmp, 'lose1w.dat'),
                            lose_cpu1=True)
        part = ('stackmap: profile: warning: cpu1 lost its events before '
                '%s: its part of the window from %s to %s (0.000002000 s) '
                'is missing' % (us(15), us(10), us(12)))
        _, err = prof(['--inuse', us(12), '--from', us(10), '-l', 'slab',
                       lossy])
        eq(err.splitlines()[0], part, 'instant')
        _, err = prof(['--from', us(10), '--to', us(12), '-l', 'slab',
                       '--folded', lossy])
        eq(err.splitlines()[0], part, 'window')
    r.check('inuse_lost_part_ends_with_window', lost_part_in_window)

    def lossy_middle():
        # CPU 0 dropped events between 55 and 60 us: what was held
        # before then may have been freed in the gap, and is apart.
        lossy = mixed_trace(os.path.join(r.tmp, 'drop0.dat'), drop_cpu0=True)
        out, err = prof(['--inuse', us(95), lossy])
        got, heads = rows(out)
        eq(heads['page'], '1 pages (%d bytes) held at %s s; 5 pages (%d '
           'bytes) allocated from %s s; 3 pages (%d bytes) more may be '
           'held (below)' % (PAGE, us(95), 5 * PAGE, us(10), 3 * PAGE),
           'page line')
        eq(got['page'], [(1, PAGE, [sym(f) for f in S3])], 'page rows')
        eq(got['slab'], [(1, 1024, [sym(f) for f in S4]),
                         (1, 192, [sym(f) for f in S3])], 'slab rows')
        assert ('# page layer, not in the table: pages held but '
                'allocated before cpu0 dropped events from %s to %s s '
                '(their free may be in what it lost): 3 (12288 bytes)'
                % (us(55), us(60))) in out, out
        eq(out.splitlines()[1], '# cpu0: 19 events from %s to %s s, '
           'dropped events 1 time' % (us(10), us(100)), 'cpu0 span')
        assert 'warning: cpu0 dropped events between %s and %s' % (
            us(55), us(60)) in err, err
    r.check('inuse_lossy_middle', lossy_middle)

    def report_times():
        # A time as trace-cmd report prints it (rounded to the
        # microsecond) selects the event it printed so.
        t = m.TraceDat(KALLSYMS, cpus=1)
        ts = m.TS0 + 29999560
        t.page_alloc(ts, 0, pfn=0x300)
        t.stack_def(ts, X1, [PW, A0])
        t.stack_id(ts, X1)
        t.page_free(ts + 40000, 0x300, 0)
        path = os.path.join(r.tmp, 'rounded.dat')
        t.write(path)
        tc = shutil.which('trace-cmd')
        assert tc, 'trace-cmd not found: "make deps" installs it'
        rep = subprocess.run([tc, 'report', '-i', path], capture_output=True,
                             text=True).stdout
        printed = re.search(r' (\d+\.\d+): mm_page_alloc', rep).group(1)
        eq(printed, '12345.030000', 'printed')
        out, _ = prof(['--inuse', printed, '-l', 'page', path])
        eq(rows(out)[0]['page'], [(1, PAGE, [sym(PW), sym(A0)])],
           'at the printed time')
        out, _ = prof(['-l', 'page', '--from', printed, '--to', printed,
                       '--folded', path])
        eq(out, '_stext;pipe_write 1\n', 'window of the printed time')
    r.check('inuse_times_as_report_prints', report_times)

    def label_time():
        # The picture's peak label prints the time as trace-cmd report
        # prints the peak's event, rounded to the microsecond: copied
        # into --inuse, it selects the peak, not the instant before it.
        t = m.TraceDat(KALLSYMS, cpus=1)
        ts = m.TS0 + 29999560
        t.page_alloc(ts, 0, pfn=0x300)
        t.stack_def(ts, X1, [PW, A0])
        t.stack_id(ts, X1)
        t.page_free(ts + 40000, 0x300, 0)
        path = os.path.join(r.tmp, 'label.dat')
        t.write(path)
        svg = os.path.join(r.tmp, 'label.svg')
        prof(['--inuse', 'peak', '-l', 'page', '--svg', svg, path])
        text = ''.join(ET.parse(svg).getroot().itertext())
        mo = re.search(r'peak (\d+\.\d+) s: ', text)
        assert mo, text
        eq(mo.group(1), '12345.030000', 'label')
        out, _ = prof(['--inuse', mo.group(1), '-l', 'page', path])
        eq(rows(out)[0]['page'], [(1, PAGE, [sym(PW), sym(A0)])],
           'at the label\'s time')
    r.check('inuse_svg_label_time_as_report_prints', label_time)

    def no_frees():
        # A trace of the slab layer's allocations without its frees (a
        # recording of kmem_cache_alloc alone): nothing it allocated is
        # ever seen freed, so "held" is only "allocated"; a warning says
        # so, for that layer only, and the figures stay as they are.
        t = m.TraceDat(KALLSYMS, cpus=1)
        t.page_alloc(at(10), 0, pfn=0x300)
        t.stack_def(at(10), X1, [PW, A0])
        t.stack_id(at(10), X1)
        t.kmem_alloc(at(15), 'kmem_cache_alloc', 256, ptr=P + 0x1000)
        t.stack_def(at(15), X3, S4)
        t.stack_id(at(15), X3)
        t.page_free(at(20), 0x300, 0)
        path = os.path.join(r.tmp, 'nofree.dat')
        t.write(path)
        warning = ('stackmap: profile: warning: the trace has no frees of '
                   'the slab layer (kfree, kmem_cache_free): what it shows '
                   'held is all that was allocated since %s s, freed or '
                   'not\n' % us(10))
        out, err = prof(['--inuse', us(20), path])
        eq(err, warning, 'both layers')
        eq(rows(out)[0]['slab'], [(1, 256, [sym(A1)])], 'slab rows')
        eq(prof(['--inuse', 'peak', '-l', 'slab', path])[1], warning,
           'slab')
        eq(prof(['--inuse', us(20), '-l', 'page', path])[1], '', 'page')
    r.check('inuse_layer_without_frees', no_frees)

    def picture():
        # The page layer over the replay, 10 to 100 us, the peak (20 us)
        # marked where it is: in the SVG, and as chromium draws it.
        svg = os.path.join(r.tmp, 'inuse.svg')
        png = os.path.join(r.tmp, 'inuse.png')
        prof(['--inuse', 'peak', '-l', 'page', '--svg', svg, dat])
        root = ET.parse(svg).getroot()
        ns = '{http://www.w3.org/2000/svg}'
        axes = [g for g in root.iter(ns + 'g') if g.get('id') == 'axes'][0]
        xs = [float(x.get('x1')) for x in axes.iter(ns + 'line')]
        x0, x1 = min(xs), max(float(x.get('x2')) for x in
                              axes.iter(ns + 'line'))
        want = x0 + (x1 - x0) * (20 - 10) / (100 - 10)
        red = [float(x.get('x1')) for x in root.iter(ns + 'line')
               if x.get('stroke') == '#ff0000']
        eq(len(red), 1, 'one peak line')
        assert abs(red[0] - want) <= 1, (red, want)
        text = ''.join(root.itertext())
        assert 'peak %s s: 16.0 KiB' % us(20)[:-3] in text, text
        assert 'baz <- _stext' in text, text
        why = svg_tests.screenshot(r, svg, png)
        assert why is None, 'chromium: ' + why
        with open(png, 'rb') as f:
            w, h, rows = svg_tests.png_decode(f.read())
        cols = {}
        for row in rows:
            for x, c in enumerate(row):
                if svg_tests.is_red(c):
                    cols[x] = cols.get(x, 0) + 1
        line = [x for x, n in cols.items() if n >= 20]
        assert line and all(abs(x + 0.5 - want) <= 2 for x in line), (
            line, want)
        colours = set(c for row in rows for c in row)
        assert len(colours) >= 8, '%d colours: blank?' % len(colours)
    r.check('inuse_svg_peak_in_chromium', picture)

    def instant_picture():
        # --inuse T draws its line at T, which is no peak: the label and
        # the legend say "instant", and the word peak is nowhere.
        svg = os.path.join(r.tmp, 'instant.svg')
        prof(['--inuse', us(95), '-l', 'page', '--svg', svg, dat])
        texts = [''.join(x.itertext()) for x in
                 ET.parse(svg).getroot().iter('{http://www.w3.org/2000/svg}'
                                              'text')]
        assert 'instant %s s: 16.0 KiB' % us(95)[:-3] in texts, texts
        assert 'at the instant, heaviest first:' in texts, texts
        assert not [x for x in texts if 'peak' in x], texts
    r.check('inuse_svg_instant_is_no_peak', instant_picture)

    def nested():
        # An interrupt's events and their stacks come between an event
        # and its own stack: each stack goes to the latest event still
        # waiting for one, in the window of events and in the replay.
        t = m.TraceDat(KALLSYMS, cpus=1)
        t.page_alloc(at(10), 0, pfn=0x400)
        t.kmem_alloc(at(11), 'kmalloc', 96, ptr=P + 0x500)
        t.stack_def(at(11), X1, S4)
        t.stack_id(at(11), X1)
        t.kfree(at(12), P + 0x600)
        t.stack_def(at(12), X2, S3)
        t.stack_id(at(12), X2)
        t.stack_def(at(13), X3, [PW, A0])
        t.stack_id(at(13), X3)
        path = os.path.join(r.tmp, 'nested.dat')
        t.write(path)
        out, _ = prof(['--inuse', us(13), path])
        got, _ = rows(out)
        eq(got['page'], [(1, PAGE, [sym(PW), sym(A0)])], 'the page')
        eq(got['slab'], [(1, 96, [sym(A1)])], 'the interrupt\'s object')
        out, _ = prof(['-l', 'page', '-w', 'bytes', '--folded', path])
        eq(out, '_stext;pipe_write %d\n' % PAGE, 'window')
        # An interrupt's event that gets no stack is skipped: a stack
        # goes to the latest waiting event of its own context (the
        # common flags and preempt count its entry shares with it).
        t = m.TraceDat(KALLSYMS, cpus=1)
        t.page_alloc(at(10), 0, pfn=0x400)
        t.flags, t.preempt = 0x08, 0x11
        t.kfree(at(11), P + 0x600)
        t.kmem_alloc(at(12), 'kmalloc', 96, ptr=P + 0x500)
        t.stack_def(at(12), X1, S4)
        t.stack_id(at(12), X1)
        t.flags, t.preempt = 0, 1
        t.stack_def(at(13), X3, [PW, A0])
        t.stack_id(at(13), X3)
        path = os.path.join(r.tmp, 'nested2.dat')
        t.write(path)
        got, _ = rows(prof(['--inuse', us(13), path])[0])
        eq(got['page'], [(1, PAGE, [sym(PW), sym(A0)])], 'the page')
        eq(got['slab'], [(1, 96, [sym(A1)])], 'the interrupt\'s object')
        # A CPU's lost events take the waiting events' stacks with them:
        # the first stack after the loss is not the page's (which is
        # unsure anyway: its free may be in the loss).
        t = m.TraceDat(KALLSYMS, cpus=1)
        t.page_alloc(at(10), 0, pfn=0x400)
        t.lose_events()
        t.stack_def(at(20), X3, [PW, A0])
        t.stack_id(at(20), X3)
        path = os.path.join(r.tmp, 'nested3.dat')
        t.write(path)
        out, _ = prof(['--inuse', us(20), '--from', us(10), '--all-frames',
                       '--folded', '-l', 'page', path])
        eq(out, '', 'after a loss')
        out, _ = prof(['--inuse', us(20), '--from', us(10), path])
        assert 'pages held but allocated before cpu0 dropped events' in out, \
            out
    r.check('inuse_nested_stacks', nested)

    def instants():
        # Ops of one time happen at once: no peak between them. At 20 us
        # CPU 0 allocates a page while CPU 1 frees one; at 30 us the
        # layer holds two pages, its first peak.
        t = m.TraceDat(KALLSYMS, cpus=2)
        t.page_alloc(at(10), 0, pfn=0x100)
        t.stack_def(at(10), X1, [PW, A0])
        t.stack_id(at(10), X1)
        t.page_alloc(at(20), 0, pfn=0x200)
        t.stack_id(at(20), X1)
        t.page_free(at(20), 0x100, 0, cpu=1)
        t.page_alloc(at(30), 0, pfn=0x300)
        t.stack_id(at(30), X1)
        path = os.path.join(r.tmp, 'ties.dat')
        t.write(path)
        out, _ = prof(['--inuse', 'peak', path])
        assert out.startswith('# %s: in use at %s s, the peak of the page '
                              'layer: %d bytes in 2 pages;' % (
                                  path, us(30), 2 * PAGE)), out
        # The time of the last event, as trace-cmd report prints it.
        out, _ = prof(['--inuse', us(30)[:-3], path])
        eq(rows(out)[0]['page'][0][:2], (2, 2 * PAGE), 'at the last event')
        # A loss that begins before the instant makes what was held
        # before it unsure, though no allocation or free follows it.
        t = m.TraceDat(KALLSYMS, cpus=2)
        t.page_alloc(at(10), 0, pfn=0x100)
        t.stack_def(at(10), X1, [PW, A0])
        t.stack_id(at(10), X1)
        t.kfree(at(20), 0, cpu=1)
        t.lose_events(cpu=1)
        t.kfree(at(60), 0, cpu=1)
        path = os.path.join(r.tmp, 'gap.dat')
        t.write(path)
        out, _ = prof(['--inuse', us(30), '-l', 'page', path])
        assert 'pages held but allocated before cpu1 dropped events from ' \
            '%s to %s s' % (us(20), us(60)) in out, out
        # One CPU's free and another's allocation of the same address at
        # one nanosecond: the free, then the address given out again,
        # whatever order the CPUs' buffers hand them over in.
        t = m.TraceDat(KALLSYMS, cpus=2)
        t.kmem_alloc(at(10), 'kmalloc', 64, ptr=P, cpu=1)
        t.stack_def(at(10), X1, [PW, A0], cpu=1)
        t.stack_id(at(10), X1, cpu=1)
        t.kmem_alloc(at(20), 'kmalloc', 64, ptr=P, cpu=0)
        t.stack_def(at(20), X2, S4, cpu=0)
        t.stack_id(at(20), X2, cpu=0)
        t.kfree(at(20), P, cpu=1)
        t.stack_id(at(20), X1, cpu=1)
        path = os.path.join(r.tmp, 'samens.dat')
        t.write(path)
        out, _ = prof(['--inuse', us(20), path])
        eq(rows(out)[0]['slab'], [(1, 64, [sym(A1)])], 'given out again')
        assert 'allocated again' not in out, out
        # Without mm_page_free, mm_page_free_batched frees the whole
        # allocation at its pfn (free_unref_folios() frees folios of
        # any order it keeps per CPU).
        t = m.TraceDat(KALLSYMS, cpus=1)
        t.page_alloc(at(10), 2, pfn=0x100)
        t.stack_def(at(10), X1, [PW, A0])
        t.stack_id(at(10), X1)
        t.page_alloc(at(20), 0, pfn=0x200)
        t.stack_id(at(20), X1)
        t.page_free_batched(at(30), 0x100)
        path = os.path.join(r.tmp, 'batched.dat')
        t.write(path)
        out, _ = prof(['--inuse', us(30), path])
        eq(rows(out)[0]['page'], [(1, PAGE, [sym(PW), sym(A0)])],
           'batched free of an order-2 folio')
        # A trace of slab allocations and page frees: the peak is the
        # slab layer's, the only one that allocated.
        t = m.TraceDat(KALLSYMS, cpus=1)
        t.page_free(at(5), 0x100, 0)
        t.kmem_alloc(at(10), 'kmalloc', 64, ptr=P)
        t.stack_def(at(10), X1, S4)
        t.stack_id(at(10), X1)
        path = os.path.join(r.tmp, 'slabonly.dat')
        t.write(path)
        out, _ = prof(['--inuse', 'peak', '--folded', path])
        eq(out, 'foo_bar 64\n', 'the slab layer\'s peak')
    r.check('inuse_instants', instants)

    def krealloc():
        # A krealloc() that moves the object traces kmalloc of the new
        # object, then kfree of the old (6.12's krealloc_noprof()); one
        # that keeps it in place traces nothing. The new object is held
        # by the krealloc's stack, the old one by nobody.
        t = m.TraceDat(KALLSYMS, cpus=1)
        t.kmem_alloc(at(10), 'kmalloc', 64, ptr=P)
        t.stack_def(at(10), X1, [PW, A0])
        t.stack_id(at(10), X1)
        t.kmem_alloc(at(20), 'kmalloc', 128, ptr=P + 0x100)
        t.stack_def(at(20), X2, S4)
        t.stack_id(at(20), X2)
        t.kfree(at(20), P)
        path = os.path.join(r.tmp, 'krealloc.dat')
        t.write(path)
        out, _ = prof(['--inuse', us(15), '-l', 'slab', path])
        eq(rows(out)[0]['slab'], [(1, 64, [sym(PW), sym(A0)])], 'before')
        out, _ = prof(['--inuse', us(20), '-l', 'slab', path])
        eq(rows(out)[0]['slab'], [(1, 128, [sym(A1)])], 'moved')
        assert 'not in the table' not in out, out
        out, _ = prof(['--inuse', 'peak', '-l', 'slab', path])
        assert out.startswith('# %s: in use at %s s, the peak of the slab '
                              'layer: 128 bytes in 1 objects;'
                              % (path, us(20))), out
    r.check('inuse_krealloc', krealloc)

    def instance():
        # --instance replays that buffer from its own first event.
        t = m.TraceDat(KALLSYMS, cpus=1, buffers=('foo',))
        t.kfree(at(5), 0)
        t.page_alloc(at(10), 0, pfn=0x100, buf='foo')
        t.stack_def(at(10), X1, [PW, A0], buf='foo')
        t.stack_id(at(10), X1, buf='foo')
        path = os.path.join(r.tmp, 'instance.dat')
        t.write(path)
        out, _ = prof(['--inuse', 'peak', '--instance', 'foo', path])
        assert out.startswith('# %s: in use at %s s, the peak of the page '
                              'layer: %d bytes in 1 pages; replayed from %s '
                              's, instance foo' % (path, us(10), PAGE,
                                                   us(10))), out
        eq(rows(out)[0]['page'], [(1, PAGE, [sym(PW), sym(A0)])], 'rows')
        # The top buffer has no allocation.
        out, err = prof(['--inuse', 'peak', path], 2)
        assert 'no allocation or free events of kmem' in err, err
    r.check('inuse_instance', instance)

    def bad():
        cases = [
            (['--inuse', 'never', dat],
             "--inuse 'never': not a time in seconds (S or S.FFFFFFFFF)"),
            (['--inuse', us(95), '-w', 'bytes', dat],
             '--inuse takes no --event or --weight: it counts objects and '
             'bytes'),
            (['--inuse', us(5), '--from', us(10), dat],
             '--inuse %s s is before the replay\'s start, %s s'
             % (us(5), us(10))),
            (['--inuse', us(101), dat],
             "--inuse %s s is after the replay's end, %s s"
             % (us(101), us(100))),
            (['--inuse', 'peak', '--inuse', us(95), dat],
             '--inuse given twice'),
            (['-l', 'slab', '-l', 'page', dat], '--layer given twice'),
            (['--layer', 'heap', dat],
             "--layer 'heap': not a layer: slab (objects) or page (pages)"),
            (['--svg', 'x.svg', dat], '--svg needs --inuse'),
            (['--inuse', 'peak', '--instance', 'nosuch', dat],
             '%s: no instance nosuch in the trace' % dat),
        ]
        for args, msg in cases:
            out, err = prof(args, 2)
            eq((out, err), ('', 'stackmap: profile: %s\n' % msg), args[:2])
    r.check('inuse_bad_usage', bad)
