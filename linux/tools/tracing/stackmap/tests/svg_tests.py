# SPDX-License-Identifier: GPL-2.0
"""Tests of svgchart.c, the SVG charts of "stackmap profile", on the chart
that build/test_svgchart (tests/test_svgchart.c) writes from fixed data:
the document as XML, then the picture as Debian's chromium renders it,
decoded here (zlib and struct, no PIL) and looked at pixel by pixel.

run_tests.py calls run(); the cases need its Runner (r.check(), r.record(),
r.build, r.tmp).
"""
import os
import re
import shutil
import signal
import struct
import subprocess
import tempfile
import xml.etree.ElementTree as ET
import zlib

SVG = '{http://www.w3.org/2000/svg}'
WIDTH, HEIGHT = 960, 540
MIB = 1 << 20
# What test_svgchart.c charts: its names, peak and spans.
TITLE = 'peak.dat: slab & page layer <in use>'
NOTE = 'cpu1 holds only from 12.100 s; 1 span lost'
LONG = ('kmem_cache_alloc <- "<dentry>" <- d_alloc_parallel <- '
        '__lookup_slow <- walk_component <- link_path_walk <- '
        'path_lookupat <- filename_lookup <- vfs_statx')
NAME_MAX = 110
NAMES = ['kmalloc_reserve <- __alloc_skb <- tcp_stream_alloc_skb <- '
         'tcp_sendmsg_locked',
         'alloc_pages_mpol <- pipe_write & co <- vfs_write <- ksys_write',
         LONG[:NAME_MAX] + '...',
         'other stacks']
AT_PEAK = ['8.0 MiB', '4.0 MiB', '2.5 MiB', '1.1 MiB']
PEAK_V = 8 * MIB + 4 * MIB + 5 * MIB // 2 + 1153434
PEAK_LABEL = 'peak 12.800000 s: 15.6 MiB'
LOST_LABEL = 'cpu1 lost events'
CHROMIUM_TIMEOUT = 120


def eq(a, b, what=''):
    assert a == b, '%s: expected %r, got %r' % (what, b, a)


# PNG ----------------------------------------------------------------------

def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def png_decode(data):
    """(width, height, rows): rows of (r, g, b) tuples, of an 8-bit RGB or
    RGBA, non-interlaced PNG (alpha dropped)."""
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat, hdr = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc, = struct.unpack('>I', data[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, 'bad CRC of %r' % kind
        if kind == b'IHDR':
            hdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat.append(body)
        elif kind == b'IEND':
            break
        pos += 12 + length
    assert hdr, 'no IHDR'
    w, h, depth, ctype, _, _, interlace = hdr
    assert depth == 8 and ctype in (2, 6) and interlace == 0, \
        'unsupported PNG: depth %d, colour type %d, interlace %d' % (
            depth, ctype, interlace)
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b''.join(idat))
    stride = w * bpp
    eq(len(raw), h * (stride + 1), 'PNG data length')
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ftype == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xff
        elif ftype == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xff
        elif ftype == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xff
        elif ftype == 4:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                upleft = prev[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + paeth(left, prev[i], upleft)) & 0xff
        else:
            assert ftype == 0, 'bad filter type %d in row %d' % (ftype, y)
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def predict(a, b, c):
    """The Paeth predictor as the PNG spec words it, apart from paeth():
    the nearest of a, b, c to a + b - c, ties in that order."""
    return min((abs(a + b - c - v), i, v) for i, v in enumerate((a, b, c)))[2]


def png_encode(rows, alpha, filters):
    """A PNG of @rows, row y filtered with filters[y % len(filters)]."""
    h, w, bpp = len(rows), len(rows[0]), 4 if alpha else 3
    out, prev = bytearray(), bytearray(w * bpp)
    for y, row in enumerate(rows):
        line = bytearray()
        for px in row:
            line += bytes(px) + (b'\x80' if alpha else b'')
        ftype = filters[y % len(filters)]
        enc = bytearray()
        for i in range(len(line)):
            left = line[i - bpp] if i >= bpp else 0
            upleft = prev[i - bpp] if i >= bpp else 0
            pred = (0, left, prev[i], (left + prev[i]) >> 1,
                    predict(left, prev[i], upleft))[ftype]
            enc.append((line[i] - pred) & 0xff)
        out += bytes([ftype]) + enc
        prev = line

    def chunk(kind, body):
        return (struct.pack('>I', len(body)) + kind + body +
                struct.pack('>I', zlib.crc32(kind + body)))
    return (b'\x89PNG\r\n\x1a\n' +
            chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8,
                                       6 if alpha else 2, 0, 0, 0)) +
            chunk(b'IDAT', zlib.compress(bytes(out))) + chunk(b'IEND', b''))


def is_red(px):
    return px[0] > 200 and px[1] < 60 and px[2] < 60


# chromium -----------------------------------------------------------------

def chromium_bin():
    for name in ('chromium', 'chromium-browser'):
        path = shutil.which(name)
        if path:
            return path
    return None


def screenshot(r, svg, png):
    """Render @svg at 1:1 into @png: None, or why it failed. Twice at most,
    each under CHROMIUM_TIMEOUT: slow on a loaded machine, not flaky."""
    exe = chromium_bin()
    assert exe, ('chromium not installed: "make deps" installs it '
                 '(Debian package chromium)')
    why = None
    for attempt in (1, 2):
        if os.path.exists(png):
            os.unlink(png)
        profile = tempfile.mkdtemp(prefix='chromium.', dir=r.tmp)
        log = os.path.join(r.tmp, 'chromium.%d.log' % attempt)
        with open(log, 'wb') as err:
            p = subprocess.Popen(
                [exe, '--headless', '--no-sandbox', '--disable-gpu',
                 '--disable-quic', '--no-first-run',
                 '--disable-background-networking',
                 '--disable-component-update', '--disable-sync',
                 '--user-data-dir=' + profile, '--hide-scrollbars',
                 '--window-size=%d,%d' % (WIDTH, HEIGHT),
                 '--force-device-scale-factor=1',
                 '--screenshot=' + png, 'file://' + svg],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=err, env=dict(os.environ, HOME=r.tmp),
                start_new_session=True)
            try:
                rc = p.wait(timeout=CHROMIUM_TIMEOUT)
                why = 'exit %d' % rc
            except subprocess.TimeoutExpired:
                rc = None
                why = 'no screenshot in %d s' % CHROMIUM_TIMEOUT
            # Its helpers too: the session chromium was started in.
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
        shutil.rmtree(profile, ignore_errors=True)
        if rc == 0 and os.path.exists(png) and os.path.getsize(png) > 0:
            return None
        with open(log, 'rb') as f:
            tail = f.read().decode(errors='replace').strip()
        why += ' (attempt %d): %s' % (attempt, tail.splitlines()[-1:])
        print('  # chromium: ' + why)
    return why


# the chart ----------------------------------------------------------------

def run_driver(r, out):
    p = subprocess.run([os.path.join(r.build, 'test_svgchart'), out],
                       capture_output=True, text=True)
    eq(p.returncode, 0, 'test_svgchart exit: %r' % p.stderr)
    info = {}
    for line in p.stdout.splitlines():
        key, _, val = line.partition(' ')
        info[key] = val
    return info


def top_edge(d, right):
    """The steps (x0, x1, y) of the top edge of path @d up to x @right."""
    toks = re.findall(r'([MHVZ])([-0-9. ]*)', d)
    eq(toks[0][0], 'M', 'path start')
    x, y = (float(v) for v in toks[0][1].split())
    edge = []
    for cmd, arg in toks[1:]:
        if cmd == 'H':
            edge.append((x, float(arg), y))
            x = float(arg)
            if x >= right:
                break
        elif cmd == 'V':
            y = float(arg)
    return edge


def y_at(edge, col_x):
    for x0, x1, y in edge:
        if x0 <= col_x < x1:
            return y
    raise AssertionError('no step of the top edge at x %r' % col_x)


def tests_svg(r):
    svg = os.path.join(r.tmp, 'chart.svg')
    info = run_driver(r, svg)
    peak_x = float(info['peak_x'])
    px, py, pw, ph = (int(v) for v in info['plot'].split())
    with open(svg, 'rb') as f:
        data = f.read()
    parsed = {}

    def wellformed():
        root = ET.fromstring(data)
        eq(root.tag, SVG + 'svg', 'root element')
        eq((root.get('width'), root.get('height'), root.get('viewBox')),
           (str(WIDTH), str(HEIGHT), '0 0 %d %d' % (WIDTH, HEIGHT)),
           'size')
        parsed['root'] = root
    r.check('svg_wellformed_xml', wellformed)

    def texts():
        root = parsed['root']
        eq(root.find(SVG + 'title').text, TITLE, '<title>')
        text = [t.text for t in root.iter(SVG + 'text')]
        for want in (TITLE, NOTE, PEAK_LABEL, LOST_LABEL, 'time (s)'):
            assert want in text, '%r not in %r' % (want, text)
        legend = root.find(".//%sg[@id='legend']" % SVG)
        rows = [t.text for t in legend.iter(SVG + 'text')]
        eq(rows[1:], [v for pair in zip(AT_PEAK, NAMES) for v in pair],
           'legend: value at the peak, name')
        # Escaped as markup, not dropped or doubled.
        for raw in (b'&lt;in use&gt;', b'pipe_write &amp; co',
                    b'&quot;&lt;dentry&gt;&quot;'):
            assert raw in data, raw
        assert b'&amp;amp;' not in data
        # Below the plot and its axis labels: the legend; above the plot:
        # the peak label.
        bottom = py + ph
        for t in legend.iter(SVG + 'text'):
            assert float(t.get('y')) > bottom + 20, t.attrib
        for t in root.iter(SVG + 'text'):
            if t.text == PEAK_LABEL:
                assert float(t.get('y')) < py, t.attrib
                eq(t.get('text-anchor'), 'start', 'label right of the line')
    r.check('svg_text_escaped_and_placed', texts)

    def peak_kept():
        # 101240 points, a file that grows with the columns of pixels.
        assert len(data) < 150000, '%d bytes' % len(data)
        bands = parsed['root'].find(".//%sg[@id='bands']" % SVG)
        paths = bands.findall(SVG + 'path')
        eq(len(paths), len(NAMES), 'bands')
        # The top band's edge is the total: at the column of the 20 us
        # peak, PEAK_V on the axis (its top is the highest y label)...
        tops = [t.text for t in parsed['root'].iter(SVG + 'text')
                if t.text and t.text.endswith(' MiB') and
                t.get('text-anchor') == 'end' and
                float(t.get('x')) < px]
        top = max(float(t.split()[0]) for t in tops) * MIB
        edge = top_edge(paths[-1].get('d'), px + pw)
        col = px + int(peak_x - px)
        want = py + ph - PEAK_V / top * ph
        got = y_at(edge, col)
        assert abs(got - want) <= 0.6, 'top at the peak: y %r, not %r' % (
            got, want)
        # ... and lower all around it (below 11 MiB).
        for dx in (-6, -4, -2, 2, 4, 6):
            y = y_at(edge, col + dx)
            assert y > py + ph - 11 * MIB / top * ph, (dx, y)
    r.check('svg_peak_kept_in_merged_columns', peak_kept)

    def deterministic():
        again = os.path.join(r.tmp, 'chart2.svg')
        run_driver(r, again)
        with open(again, 'rb') as f:
            assert f.read() == data, 'a second run wrote other bytes'
    r.check('svg_deterministic', deterministic)

    def errors():
        eq(info['write_full'], '-1 No space left on device', '/dev/full')
        eq(info['too_many'], '-1 Invalid argument', 'too many series')
    r.check('svg_write_errors', errors)

    def decoder():
        # Every filter type, RGB and RGBA, against the pixels encoded.
        rows = [[((x * 37 + y * 11) & 0xff, (x * y) & 0xff,
                  (255 - x * 5 - y) & 0xff) for x in range(13)]
                for y in range(10)]
        for alpha in (False, True):
            png = png_encode(rows, alpha, [0, 1, 2, 3, 4])
            w, h, got = png_decode(png)
            eq((w, h), (13, 10), 'size')
            eq(got, rows, 'pixels (alpha %s)' % alpha)
    r.check('svg_png_decoder_filters', decoder)

    png = os.path.join(r.tmp, 'chart.png')
    shot = {}

    def render():
        why = screenshot(r, svg, png)
        assert why is None, 'chromium: ' + why
        with open(png, 'rb') as f:
            w, h, rows = png_decode(f.read())
        eq((w, h), (WIDTH, HEIGHT), 'screenshot size')
        shot['rows'] = rows
        colours = set()
        for row in rows:
            colours.update(row)
        assert len(colours) >= 16, '%d colours' % len(colours)
        plot = [row[x] for row in rows[py:py + ph] for x in range(px, px + pw)]
        inked = sum(1 for c in plot if c != (255, 255, 255))
        assert inked > 0.2 * len(plot), '%d of %d plot pixels not white' % (
            inked, len(plot))
        # Text in the legend rows, left of the plot's middle.
        legend = [c for row in rows[py + ph + 48:HEIGHT - 8]
                  for c in row[px:px + pw // 2]]
        dark = sum(1 for c in legend if sum(c) < 300)
        assert dark > 500, '%d dark pixels in the legend' % dark
    r.check('svg_chromium_renders', render)

    def peak_line():
        rows = shot.get('rows')
        assert rows, 'no screenshot (svg_chromium_renders failed)'
        reds = {}
        for y, row in enumerate(rows):
            for x, c in enumerate(row):
                if is_red(c):
                    reds[x] = reds.get(x, 0) + 1
        assert reds, 'no red pixels'
        # The line: columns of 20 red pixels or more, where the driver
        # said; no red anywhere else.
        line = sorted(x for x, n in reds.items() if n >= 20)
        assert line, 'no column of red: %r' % reds
        for x in line:
            assert abs(x + 0.5 - peak_x) <= 2, \
                'red column %d, peak line at x %.2f' % (x, peak_x)
        stray = {x: n for x, n in reds.items()
                 if abs(x + 0.5 - peak_x) > 2}
        assert not stray, 'red elsewhere: %r' % stray
    r.check('svg_chromium_peak_line', peak_line)


def run(r, kallsyms=None):
    tests_svg(r)
