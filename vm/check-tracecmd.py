#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check the trace.dat files that the guest recorded with Debian's
trace-cmd (vm/guest/tracecmd.sh), as the host's tools print them: the
stack ids of a trace resolve through the kernel_stack_def definitions the
trace carries, with no map file, to the very stacks the kernel saw.

Usage: check-tracecmd.py twin [--reset] --raw RAW --stat STAT REPORT
       check-tracecmd.py boots [--min-share PCT] [--prefix P] --buffer BUF
                               --raw RAW --counts ERR --last LAST
                               --this THIS REPORT
       check-tracecmd.py map [--min-share PCT] [--edge PCT] [--prefix P]
                             --raw RAW
                             --counts ERR REPORT STACK_MAP
       check-tracecmd.py stalled --raw RAW --two-pass REPORT2 --counts ERR
                                 --map BUF=STACK_MAP... REPORT

Both read the ids from RAW, "trace-cmd report" of the file without the
stackmap plugin ("<stack_id 0x...>"), since a resolved id prints its
stack instead: the n-th kernel_stack_id of a buffer's CPU in RAW is the
n-th of that CPU in REPORT.

twin: REPORT is "trace-cmd report" with the plugin of a recording of the
top instance with stackmap and a twin instance (any other buffer) with
full stacks of the same events; STAT is "trace-cmd report --stat" of it.
Results:

  no-loss       no buffer lost an event (neither the report's
                "EVENTS DROPPED" lines nor the stat's overrun or
                dropped counts), so that both streams hold the same
                events
  ids-resolve   every kernel_stack_id of the top buffer printed a stack
  equals-twin   on each CPU, the top buffer's events, in order, equal
                the twin's: the same event, the same fields, and the
                same stack (symbol names), the top's resolved from its
                id (or a full stack where the kernel fell back to one)
  new-ids       (--reset) the ids before the "stackmap-reset-begin"
                trace_marker line and after "stackmap-reset-end" are
                two disjoint sets, and definitions follow the reset

map: REPORT is "stackmap report" of an extracted trace, ERR what it
printed on stderr, STACK_MAP the text of the traced instance's stack_map
saved when it was extracted. Results:

  ids-resolve      every kernel_stack_id printed a stack (with
                   --min-share, at least PCT percent of them did; with
                   --edge, every one that did not is among the oldest
                   PCT percent of its CPU's events: what
                   stack_map_redefine at PCT promises), and
                   the counts "N ... resolved, M unresolved" of ERR say
                   so too (ERR may be "-" for a report that prints none:
                   trace-cmd report with the plugin)
  equals-stack_map each printed stack is the stack of its id in
                   STACK_MAP, frame by frame (symbol and offset)

--prefix P names the results P-ids-resolve and P-equals-stack_map.

stalled: REPORT is "trace-cmd report" with the plugin of a recording of
several buffers whose recorders were stopped until the buffers
overwrote what they had not read; REPORT2 is "stackmap report" of it, ERR
its stderr, and each --map the stack_map text of buffer BUF ("top" for
the top instance) when the recording ended. Results:

  lost-events         the report has "EVENTS DROPPED" lines
  two-pass-resolve    every id of every buffer printed a stack in REPORT2
  plugin-after-drop   in REPORT, on each buffer's CPU, every id after the
                      first definition written after its first "EVENTS
                      DROPPED" line printed a stack: the definitions
                      followed the loss
  equals-stack_map    every stack printed in REPORT or REPORT2 is the
                      stack of its id in its buffer's stack_map
  own-buffer          every id of a buffer has a definition in that
                      buffer: none resolves through another's

boots: REPORT is a report of a persistent instance's buffer BUF
(--buffer) that holds the last boot's events and, behind them on each
CPU, this boot's; LAST and THIS are "NAME=STACK_MAP,STACK_MAP_STAT" of
each boot's instance. Each id is given the boot of the
kernel_stack_boot marker before it on its CPU in RAW (an id before a
CPU's first marker: that marker's boot, unless the marker is a boot's
first, when the id is of an older boot). Results, P the --prefix:

  P-boots-apart         both boots have ids, their markers' tokens are
                        their stack_map_stat's boot_marker, and some id
                        value has a different stack in each boot's map
  P-NAME-ids-resolve    at least --min-share percent of the ids of the
                        boot NAME printed a stack (and the tool's counts
                        of ERR, if not "-", add up over both boots)
  P-NAME-equals-stack_map
                        each printed stack of a NAME id is the stack of
                        its id in NAME's stack_map: none resolved through
                        the other boot's definitions

Prints "PASS name" or "FAIL name" for each result, and "# " lines that
say what was compared, and for a failure why: the counts and the first
event that differs. Exits 0; the caller reads the lines.
"""

import argparse
import collections
import os
import re
import sys

# The stack_map text parser of the stackmap tool's tests, without
# leaving a __pycache__ in the tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)),
                                '..', 'linux', 'tools', 'tracing', 'stackmap',
                                'tests'))
import stackmap_text  # noqa: E402

# The events the guest traces; any other (print, kernel_stack_def) is
# not compared.
TRACED = ('kmem_cache_alloc', 'sched_process_fork')
STACK_ID = 'kernel_stack_id'
STACK_DEF = 'kernel_stack_def'
STACK_BOOT = 'kernel_stack_boot'
FULL_STACK = 'kernel_stack'
# Fewer events than this and a comparison proves little.
MIN_EVENTS = 20

# An event line of "trace-cmd report" or "stackmap report": the buffer's
# name when the trace has instances, then "comm-pid [cpu] time: event:
# text".
EVENT = re.compile(r'\s*(?:(?P<buf>[^\s:]+): )?\s*(?P<comm>.+?)-(?P<pid>\d+)'
                   r'\s+\[(?P<cpu>\d+)\]\s+(?P<ts>\d+\.\d+):\s+'
                   r'(?P<name>\w+):\s*(?P<text>.*)')
# Before the first event after a loss, with the buffer's name, on a line
# of its own: that event's line then has no name.
DROPPED = re.compile(r'\s*(?:(?P<buf>[^\s:]+): )?\s*CPU:(?P<cpu>\d+) '
                     r'\[(?:\d+ )?EVENTS DROPPED\]')
STACK_ID_TEXT = re.compile(r'<stack_id (0x[0-9a-f]{8})>')
# A kernel_stack_boot event as its format prints it.
STACK_BOOT_TEXT = re.compile(r'<stack_boot (0x[0-9a-f]{8}) flags (0x[0-9a-f]+)>')
BOOT_FIRST = 0x1
# A frame line: " => sym+0xoff/0xsize" or " => 0xaddr" (the plugin,
# stackmap report), "=> sym (addr)" or "=> addr" (a full stack, as
# libtraceevent's plugin_function prints it).
FRAME = re.compile(r'\s*=> (.*?)\s*')
# The kernel's FTRACE_TRAMPOLINE_MARKER, INT_MAX, in a stack: the plugin
# prints it so, plugin_function as an address.
TRAMPOLINE = '[FTRACE TRAMPOLINE]'
TRAMPOLINE_MARKER = 0x7fffffff


class Event:
    """An event of a report, and the stack event after it on its CPU."""

    def __init__(self, line, buf, cpu, name, text):
        self.line = line        # its line in the report
        self.buf = buf          # '' for the top buffer
        self.cpu = cpu
        self.name = name
        self.text = text
        self.frames = []        # of a stack event: as printed
        self.stack = None       # of a traced event: its stack event
        self.id = None          # of a kernel_stack_id: from the raw report
        self.after_drop = False  # the first event after "EVENTS DROPPED"
        self.boot = None        # of a kernel_stack_id: its marker's token


def parse_report(path):
    """The events of a report, in its order, and its number of "EVENTS
    DROPPED" lines."""
    events = []
    dropped = 0
    after_drop = None
    with open(path, errors='replace') as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            m = DROPPED.fullmatch(line)
            if m:
                dropped += 1
                after_drop = m.group('buf') or ''
                continue
            m = EVENT.fullmatch(line)
            if m:
                buf = m.group('buf') or ''
                dropped_before = after_drop is not None
                if dropped_before:
                    buf, after_drop = after_drop, None
                events.append(Event(n, buf, int(m.group('cpu')),
                                    m.group('name'),
                                    m.group('text').rstrip()))
                events[-1].after_drop = dropped_before
                continue
            m = FRAME.fullmatch(line)
            if m and events:
                events[-1].frames.append(m.group(1))
    return events, dropped


def per_cpu(events, name):
    """The events called @name of each (buffer, CPU), in order."""
    out = collections.defaultdict(list)
    for e in events:
        if e.name == name:
            out[(e.buf, e.cpu)].append(e)
    return out


def read_ids(events, raw_path):
    """Give each kernel_stack_id of @events its id from the raw report;
    returns why they cannot be paired, or None."""
    raw, _ = parse_report(raw_path)
    have, want = per_cpu(events, STACK_ID), per_cpu(raw, STACK_ID)
    for key in sorted(set(have) | set(want)):
        a, b = have.get(key, []), want.get(key, [])
        if len(a) != len(b):
            return ('buffer "%s" CPU %d: %d kernel_stack_id events, %d in '
                    '%s' % (key[0], key[1], len(a), len(b),
                            os.path.basename(raw_path)))
        for e, r in zip(a, b):
            m = STACK_ID_TEXT.search(r.text)
            if not m:
                return '%s:%d: no id in %r' % (
                    os.path.basename(raw_path), r.line, r.text)
            e.id = m.group(1)
    return None


def attach_stacks(events):
    """Give each traced event the stack event that follows it on its
    buffer's CPU (a definition may come between them); returns the
    traced events of each (buffer, CPU), in order."""
    last = {}
    streams = collections.defaultdict(list)
    for e in events:
        key = (e.buf, e.cpu)
        if e.name in (STACK_ID, FULL_STACK):
            prev = last.pop(key, None)
            if prev is not None:
                prev.stack = e
        elif e.name != STACK_DEF:
            last[key] = e
            if e.name in TRACED:
                streams[key].append(e)
    return streams


def symbol(frame, offset=False):
    """A frame as compared: its symbol (with "+0xoff" if @offset), or
    its address as "0x..." when it has no symbol."""
    frame = re.sub(r' \([0-9a-f]+\)$', '', frame)
    if re.fullmatch(r'0x[0-9a-f]+|[0-9a-f]{8,16}', frame):
        addr = int(frame, 16)
        return TRAMPOLINE if addr == TRAMPOLINE_MARKER else hex(addr)
    m = re.fullmatch(r'(.+?)(\+0x[0-9a-f]+)(?:/0x[0-9a-f]+)?( \[\w+\])?',
                     frame)
    if not m:
        return frame
    return m.group(1) + (m.group(2) if offset else '') + (m.group(3) or '')


def stack_of(e):
    """The symbols of the stack event @e, or None if it printed none (an
    id left unresolved, or no stack event at all)."""
    if e is None or not e.frames:
        return None
    return [symbol(f) for f in e.frames]


def describe(e):
    """@e and its stack, for a failure's message."""
    if e is None:
        return '(none)'
    s = 'line %d: %s: %s' % (e.line, e.name, e.text)
    st = e.stack if e.name in TRACED else e
    if st is not None and st is not e:
        s += '\n    line %d: %s: %s' % (st.line, st.name, st.text)
    if st is not None:
        s += ''.join('\n      => ' + f for f in st.frames)
    return s


def result(name, ok, why):
    """Print a result and why, one "# " line each."""
    for line in ('%s: %s' % (name, why)).splitlines():
        print('# ' + line)
    print('%s %s' % ('PASS' if ok else 'FAIL', name))


def read_counts(path):
    """(resolved, unresolved) of the counts "stackmap report" printed
    on stderr, or None."""
    with open(path, errors='replace') as f:
        text = f.read()
    good = re.search(r'(\d+)[^,;\d]*\bresolved', text)
    bad = re.search(r'(\d+)[^,;\d]*\bunresolved', text)
    if not good or not bad:
        return None
    return int(good.group(1)), int(bad.group(1))


def outside_edge(events, buf, bad, edge):
    """The events of @bad that are not among the oldest @edge percent of
    the events of their CPU in @buf, in the report's (time) order."""
    per_cpu = {}
    for e in events:
        if e.buf == buf:
            per_cpu.setdefault(e.cpu, []).append(e)
    rank = {}
    for cpu_events in per_cpu.values():
        limit = len(cpu_events) * edge / 100.0
        for i, e in enumerate(cpu_events):
            rank[id(e)] = i < limit
    return [e for e in bad if not rank.get(id(e), False)]


def check_ids(events, buf, counts_path=None, min_share=100.0,
              name='ids-resolve', edge=None):
    """@name: the ids of @buf resolve (at least @min_share percent of
    them; with @edge, every one that does not is among the oldest @edge
    percent of its CPU's events), and the counts the tool printed if
    @counts_path say so; returns the ids."""
    ids = [e for e in events if e.buf == buf and e.name == STACK_ID]
    bad = [e for e in ids if not e.frames]
    defs = sum(e.buf == buf and e.name == STACK_DEF for e in events)
    share = 100.0 * (len(ids) - len(bad)) / len(ids) if ids else 0.0
    ok = share >= min_share and len(ids) >= MIN_EVENTS
    why = '%d ids, %d resolved (%.2f%%), %d unresolved; %d definitions' % (
        len(ids), len(ids) - len(bad), share, len(bad), defs)
    if min_share < 100:
        why += '; at least %g%% wanted' % min_share
    if edge is not None:
        late = outside_edge(events, buf, bad, edge)
        ok = ok and not late
        why += ('; %d unresolved after the oldest %g%% of their CPU\'s '
                'events' % (len(late), edge))
        if late:
            why += ', the first: ' + describe(late[0])
    if counts_path and counts_path != '-':
        counts = read_counts(counts_path)
        if counts is None:
            ok = False
            why += '; no "N resolved, M unresolved" counts in %s' % (
                os.path.basename(counts_path))
        else:
            why += '; the tool counts %d resolved, %d unresolved' % counts
            ok = ok and counts == (len(ids) - len(bad), len(bad))
    if bad:
        why += '; first unresolved: ' + describe(bad[0])
    elif len(ids) < MIN_EVENTS:
        why += '; too few ids to tell'
    result(name, ok, why)
    return ids


def stat_losses(path):
    """The non-zero loss counts of "trace-cmd report --stat": events
    overwritten or dropped. (Its "entries", left in the kernel's buffer,
    are counted when trace-cmd stops, while its recorders still read
    what is left.)"""
    lost = []
    buf, cpu = 'top', None
    with open(path, errors='replace') as f:
        for line in f:
            line = line.strip()
            m = re.fullmatch(r'Buffer: (\S+)', line)
            if m:
                buf = m.group(1)
                continue
            m = re.fullmatch(r'CPU: (\d+)', line)
            if m:
                cpu = int(m.group(1))
                continue
            m = re.fullmatch(r'(overrun|commit overrun|dropped events): '
                             r'(\d+)', line)
            if m and int(m.group(2)):
                lost.append('%s CPU %s %s: %s' % (buf, cpu, m.group(1),
                                                  m.group(2)))
    return lost


def twin(args):
    events, dropped = parse_report(args.report)
    lost = stat_losses(args.stat)
    why = '%d "EVENTS DROPPED" lines, %d non-zero loss counts' % (
        dropped, len(lost))
    if lost:
        why += ': ' + ', '.join(lost[:4])
    result('no-loss', not dropped and not lost, why)

    unpaired = read_ids(events, args.raw)
    ids = check_ids(events, '')
    streams = attach_stacks(events)
    others = sorted({b for b, _ in streams} - {''})
    if len(others) != 1:
        result('equals-twin', False, 'want one twin buffer next to the '
               'top one, found %s' % (others or 'none'))
    elif dropped or lost:
        result('equals-twin', False, 'events were lost: the streams of the '
               'two buffers cannot be compared')
    else:
        result('equals-twin', *equals_twin(streams, others[0]))
    if args.reset:
        result('new-ids', *((False, unpaired) if unpaired else
                            new_ids(events, ids)))


def equals_twin(streams, other):
    """(ok, why) of the comparison of the top buffer's events with
    @other's, CPU by CPU."""
    cpus = sorted({c for _, c in streams})
    total = differ = 0
    first = None
    for cpu in cpus:
        top, ref = streams.get(('', cpu), []), streams.get((other, cpu), [])
        total += len(ref)
        for i in range(max(len(top), len(ref))):
            a = top[i] if i < len(top) else None
            b = ref[i] if i < len(ref) else None
            same = (a is not None and b is not None and
                    a.name == b.name and a.text == b.text and
                    b.stack is not None and b.stack.name == FULL_STACK and
                    stack_of(a.stack) is not None and
                    stack_of(a.stack) == stack_of(b.stack))
            if not same:
                differ += 1
                first = first or (cpu, i, a, b)
    why = '%d events on %d CPU%s compared with buffer %s, %d differ' % (
        total, len(cpus), '' if len(cpus) == 1 else 's', other, differ)
    if first:
        cpu, i, a, b = first
        why += '; first: CPU %d event %d:\n  top: %s\n  %s: %s' % (
            cpu, i, describe(a), other, describe(b))
    elif total < MIN_EVENTS:
        why += '; too few events to tell'
    return not first and total >= MIN_EVENTS, why


def new_ids(events, ids):
    """(ok, why): the top buffer's ids before and after the reset's
    trace_marker lines are disjoint, and definitions follow the reset."""
    begin = end = None
    for i, e in enumerate(events):
        if e.buf == '' and e.name == 'print':
            if begin is None and e.text.endswith('stackmap-reset-begin'):
                begin = i
            elif e.text.endswith('stackmap-reset-end'):
                end = i
    if begin is None or end is None or end < begin:
        return False, 'no stackmap-reset-begin and -end trace_marker lines'
    index = {id(e): i for i, e in enumerate(events)}
    before = {e.id for e in ids if index[id(e)] < begin}
    after = {e.id for e in ids if index[id(e)] > end}
    defs = sum(e.buf == '' and e.name == STACK_DEF for e in events[end:])
    both = sorted(before & after)
    why = ('%d distinct ids before the reset, %d after it, %d in both; '
           '%d definitions after it' % (len(before), len(after), len(both),
                                        defs))
    if both:
        why += '; first in both: ' + both[0]
    return bool(before) and bool(after) and not both and defs > 0, why


def linker_symbol(name):
    """Is @name one the linker script provides, such as a section's
    start? The kernel's kallsyms sorts those after the functions at
    their address, which %pS prints; libtraceevent, which symbolizes
    for the host's tools, may pick either."""
    return name.startswith(('__start_', '__stop_')) or (
        name.startswith('__') and name.endswith(('_start', '_end')))


# The address of each symbol of the traced kernel (--kallsyms), to tell
# aliases apart from other functions: __pi_memcpy, __memcpy and memcpy
# share one address on arm64, and an interrupt taken there prints
# whichever one each symbolizer picks.
ADDRESS = {}


def read_kallsyms(path):
    """Fill ADDRESS from @path, a kallsyms as /proc/kallsyms or
    "trace-cmd dump --kallsyms" prints it."""
    with open(path, errors='replace') as f:
        for line in f:
            m = re.match(r'([0-9a-f]+) \w (\S+)(?:\s+(\[\w+\]))?$', line)
            if m:
                name = m.group(2) + (' ' + m.group(3) if m.group(3) else '')
                ADDRESS.setdefault(name, int(m.group(1), 16))


def same_frame(a, b):
    """Do two printed frames name the same place: the same symbol and
    offset, two names of one address (--kallsyms) at the same offset,
    or a function and a linker symbol at its first byte?"""
    a, b = symbol(a, True), symbol(b, True)
    if a == b:
        return True
    ma = re.fullmatch(r'(.+)\+(0x[0-9a-f]+)', a)
    mb = re.fullmatch(r'(.+)\+(0x[0-9a-f]+)', b)
    if not ma or not mb:
        return False
    if (ma.group(2) == mb.group(2) and ma.group(1) in ADDRESS and
            ADDRESS[ma.group(1)] == ADDRESS.get(mb.group(1))):
        return True
    return (ma.group(2) == mb.group(2) == '0x0' and
            (linker_symbol(ma.group(1)) or linker_symbol(mb.group(1))))


def compare_stacks(ids, stacks, map_name):
    """(ok, why): each resolved id of @ids printed the stack of its id in
    @stacks, read from @map_name; unresolved ids are left to
    ids-resolve."""
    differ = resolved = 0
    first = None
    for e in ids:
        if not e.frames:
            continue
        resolved += 1
        want = stacks.get(e.id)
        if (want is None or len(e.frames) != len(want.frames) or
                not all(map(same_frame, e.frames, want.frames))):
            differ += 1
            first = first or (e, want)
    why = '%d resolved ids, %d stacks in %s, %d differ' % (
        resolved, len(stacks), map_name, differ)
    if first:
        e, want = first
        why += '; first: id %s, %s\n  in %s: %s' % (
            e.id, describe(e), map_name,
            'no such id' if want is None else
            ''.join('\n      [%d] %s' % f for f in enumerate(want.frames)))
    elif resolved < MIN_EVENTS:
        why += '; too few ids to tell'
    return not first and resolved >= MIN_EVENTS, why


def read_stack_map(path):
    """The stacks of a stack_map text, or the error as a string."""
    try:
        return stackmap_text.read(path)
    except (OSError, stackmap_text.StackMapError) as e:
        return str(e)


def stack_map(args):
    pre = args.prefix + '-' if args.prefix else ''
    events, _ = parse_report(args.report)
    unpaired = read_ids(events, args.raw)
    bufs = sorted({e.buf for e in events if e.name == STACK_ID})
    ids = check_ids(events, bufs[0] if len(bufs) == 1 else '', args.counts,
                    args.min_share, pre + 'ids-resolve', args.edge)
    if unpaired or len(bufs) > 1:
        result(pre + 'equals-stack_map', False, unpaired or
               'ids in several buffers: %s' % bufs)
        return
    stacks = read_stack_map(args.stack_map)
    if isinstance(stacks, str):
        result(pre + 'equals-stack_map', False, stacks)
        return
    result(pre + 'equals-stack_map',
           *compare_stacks(ids, stacks, os.path.basename(args.stack_map)))


def first_def_after_drop(events):
    """For each (buffer, CPU) that lost events: the index in @events of
    its first event after an "EVENTS DROPPED" line, and of the first
    definition from there on."""
    dropped = {}
    first = {}
    for i, e in enumerate(events):
        key = (e.buf, e.cpu)
        if e.after_drop and key not in dropped:
            dropped[key] = i
        if key in dropped and key not in first and e.name == STACK_DEF:
            first[key] = i
    return dropped, first


def stalled(args):
    events, drops = parse_report(args.report)
    result('lost-events', drops > 0,
           '%d "EVENTS DROPPED" lines' % drops)
    unpaired = read_ids(events, args.raw)
    two, _ = parse_report(args.two_pass)
    unpaired = unpaired or read_ids(two, args.raw)
    bufs = sorted({e.buf for e in events if e.name == STACK_ID})
    counts = read_counts(args.counts)
    bad2 = [e for e in two if e.name == STACK_ID and not e.frames]
    n2 = sum(e.name == STACK_ID for e in two)
    why = '%d ids in %d buffers, %d unresolved' % (n2, len(bufs), len(bad2))
    if counts is None:
        why += '; no "N resolved, M unresolved" counts in %s' % (
            os.path.basename(args.counts))
    else:
        why += '; the tool counts %d resolved, %d unresolved' % counts
    if bad2:
        why += '; first unresolved: ' + describe(bad2[0])
    result('two-pass-resolve', not unpaired and not bad2 and
           n2 >= MIN_EVENTS and counts == (n2, 0), unpaired or why)

    dropped, first = first_def_after_drop(events)
    after = late = missed = 0
    bad = []
    for i, e in enumerate(events):
        key = (e.buf, e.cpu)
        if e.name != STACK_ID or key not in dropped or i < dropped[key]:
            continue
        after += 1
        missed += not e.frames
        if key in first and i > first[key]:
            late += 1
            if not e.frames:
                bad.append(e)
    why = ('%d (buffer, CPU) streams lost events; %d ids after the loss, '
           '%d of them unresolved; %d after the first definition that '
           'followed it, %d of them unresolved' % (
               len(dropped), after, missed, late, len(bad)))
    if bad:
        why += '; first: ' + describe(bad[0])
    result('plugin-after-drop', not bad and late > 0, why)

    maps = dict(m.split('=', 1) for m in args.map)
    ok, whys = True, []
    for buf in bufs:
        name = 'top' if buf == '' else buf
        stacks = read_stack_map(maps.get(name, '/nonexistent'))
        if isinstance(stacks, str):
            ok = False
            whys.append('%s: %s' % (name, stacks))
            continue
        for report in (events, two):
            ids = [e for e in report if e.buf == buf and e.name == STACK_ID]
            good, why = compare_stacks(ids, stacks, 'stack_map of ' + name)
            ok = ok and good
            whys.append(why)
    result('equals-stack_map', ok and bool(bufs), '\n'.join(whys))

    defined = collections.defaultdict(set)
    for e in events:
        if e.name == STACK_DEF:
            m = re.search(r'<stack_def (0x[0-9a-f]{8})', e.text)
            if m:
                defined[e.buf].add(m.group(1))
    strays = [e for e in two if e.name == STACK_ID and e.frames and
              e.id not in defined[e.buf]]
    why = '%d definitions in %d buffers; %d resolved ids with no ' \
        'definition in their buffer' % (
            sum(len(d) for d in defined.values()), len(defined), len(strays))
    if strays:
        why += '; first: ' + describe(strays[0])
    result('own-buffer', not strays and len(defined) == len(bufs) > 1, why)


def boot_of_ids(raw, buf):
    """{(cpu, n): token} for the n-th kernel_stack_id of each CPU of @buf
    in the raw report @raw: the token of the marker before it on its
    CPU; before the CPU's first marker, that marker's token, or 'older'
    if it is a boot's first; 'none' on a CPU without marker."""
    out = {}
    streams = collections.defaultdict(list)
    for e in raw:
        if e.buf == buf and e.name in (STACK_ID, STACK_BOOT):
            streams[e.cpu].append(e)
    for cpu, evs in streams.items():
        first = next((e for e in evs if e.name == STACK_BOOT), None)
        token = 'none'
        if first is not None:
            m = STACK_BOOT_TEXT.search(first.text)
            token = 'older' if (not m or int(m.group(2), 16) & BOOT_FIRST) \
                else m.group(1)
        n = 0
        for e in evs:
            if e.name == STACK_BOOT:
                m = STACK_BOOT_TEXT.search(e.text)
                token = m.group(1) if m else 'malformed'
                continue
            out[(cpu, n)] = token
            n += 1
    return out


def boots(args):
    pre = args.prefix + '-' if args.prefix else ''
    events, _ = parse_report(args.report)
    unpaired = read_ids(events, args.raw)
    raw, _ = parse_report(args.raw)
    tokens = boot_of_ids(raw, args.buffer)
    seen = collections.Counter()
    ids = []
    for e in events:
        if e.buf != args.buffer or e.name != STACK_ID:
            continue
        e.boot = tokens.get((e.cpu, seen[e.cpu]), 'unpaired')
        seen[e.cpu] += 1
        ids.append(e)
    named = {}
    for spec in (args.last, args.this):
        name, files = spec.split('=', 1)
        smap, stat = files.split(',', 1)
        token = None
        try:
            with open(stat) as f:
                m = re.search(r'^boot_marker: (0x[0-9a-f]{8})$', f.read(),
                              re.M)
                token = m.group(1) if m else None
        except OSError:
            pass
        named[name] = (token, read_stack_map(smap), os.path.basename(smap))
    by_boot = collections.Counter(e.boot for e in ids)
    why = 'ids by marker token: %s' % ', '.join(
        '%s %d' % kv for kv in sorted(by_boot.items()))
    ok = not unpaired
    maps = []
    for name, (token, stacks, _) in named.items():
        why += '; %s: boot_marker %s' % (name, token)
        ok = ok and token is not None and by_boot[token] >= MIN_EVENTS
        if isinstance(stacks, str):
            ok = False
            why += ' (%s)' % stacks
        else:
            maps.append(stacks)
    clash = 0
    if len(maps) == 2:
        for i in set(maps[0]) & set(maps[1]):
            clash += [symbol(f, True) for f in maps[0][i].frames] != \
                [symbol(f, True) for f in maps[1][i].frames]
    why += '; %d id values with a different stack in each map' % clash
    result(pre + 'boots-apart', ok and clash > 0 and
           len({t for t, _, _ in named.values()}) == 2, unpaired or why)

    for name, (token, stacks, map_name) in named.items():
        mine = [e for e in ids if e.boot == token]
        bad = [e for e in mine if not e.frames]
        share = 100.0 * (len(mine) - len(bad)) / len(mine) if mine else 0.0
        why = '%d ids, %d resolved (%.2f%%), %d unresolved; at least ' \
            '%g%% wanted' % (len(mine), len(mine) - len(bad), share,
                             len(bad), args.min_share)
        good = share >= args.min_share and len(mine) >= MIN_EVENTS
        if args.counts != '-':
            counts = read_counts(args.counts)
            total = (sum(bool(e.frames) for e in ids),
                     sum(not e.frames for e in ids))
            why += '; the tool counts %s, both boots %d resolved, %d ' \
                'unresolved' % (counts, total[0], total[1])
            good = good and counts == total
        if bad:
            why += '; first unresolved: ' + describe(bad[0])
        result(pre + name + '-ids-resolve', good, why)
        if isinstance(stacks, str):
            result(pre + name + '-equals-stack_map', False, stacks)
        else:
            result(pre + name + '-equals-stack_map',
                   *compare_stacks(mine, stacks, map_name))


def kernel_defs(args):
    """The definitions the kernel's own trace text printed under the
    markers of the last boot (--token), each against that boot's
    stack_map: their frames, moved by the text delta, must name the
    places the last boot's kernel named."""
    stacks = read_stack_map(args.stack_map)
    if isinstance(stacks, str):
        result('kernel-defs-equal-stack_map', False, stacks)
        return
    boot = {}
    compared = differ = 0
    first = None
    cur = None
    defs = []
    with open(args.trace, errors='replace') as f:
        lines = f.read().splitlines()
    for n, line in enumerate(lines, 1):
        m = re.search(r'\[(\d+)\] \S+ +[\d.]+: <stack_(boot|def) (0x[0-9a-f]{8})',
                      line)
        if m:
            cpu, kind, value = m.groups()
            cur = None
            if kind == 'boot':
                boot[cpu] = value
            elif boot.get(cpu) == args.token:
                cur = (n, value, [])
            if cur:
                defs.append(cur)
            continue
        fm = re.fullmatch(r'  \[\d+\] (.+)', line)
        if fm and cur:
            cur[2].append(fm.group(1))
        elif not fm:
            cur = None
    for n, value, frames in defs:
        want = stacks.get(value)
        if want is None:
            continue
        compared += 1
        if (len(frames) != len(want.frames) or
                not all(map(same_frame, frames, want.frames))):
            differ += 1
            first = first or (n, value, frames)
    why = ('%d definitions of boot %s in the trace text, %d of them in %s, '
           '%d differ' % (len(defs), args.token, compared,
                          os.path.basename(args.stack_map), differ))
    if first:
        why += '; first: line %d, 0x%s: %s' % (first[0], first[1][2:],
                                                ', '.join(first[2][:4]))
    result('kernel-defs-equal-stack_map', compared > 0 and not differ, why)


def main():
    p = argparse.ArgumentParser(
        description='Check the trace-cmd files of a vmtest guest.')
    p.add_argument('--kallsyms', help='the traced kernel\'s symbols, '
                   'as "trace-cmd dump --kallsyms" prints them: frames '
                   'naming one address by two of its names compare equal')
    sub = p.add_subparsers(dest='mode', required=True)
    t = sub.add_parser('twin')
    t.add_argument('--reset', action='store_true')
    t.add_argument('--raw', required=True)
    t.add_argument('--stat', required=True)
    t.add_argument('report')
    m = sub.add_parser('map')
    m.add_argument('--min-share', type=float, default=100.0)
    m.add_argument('--edge', type=float, default=None)
    m.add_argument('--prefix', default='')
    m.add_argument('--raw', required=True)
    m.add_argument('--counts', required=True)
    m.add_argument('report')
    m.add_argument('stack_map')
    st = sub.add_parser('stalled')
    st.add_argument('--raw', required=True)
    st.add_argument('--two-pass', required=True)
    st.add_argument('--counts', required=True)
    st.add_argument('--map', action='append', default=[])
    st.add_argument('report')
    b = sub.add_parser('boots')
    b.add_argument('--min-share', type=float, default=100.0)
    b.add_argument('--prefix', default='')
    b.add_argument('--buffer', required=True)
    b.add_argument('--raw', required=True)
    b.add_argument('--counts', required=True)
    b.add_argument('--last', required=True)
    b.add_argument('--this', required=True)
    b.add_argument('report')
    k = sub.add_parser('kernel-defs')
    k.add_argument('--token', required=True)
    k.add_argument('trace')
    k.add_argument('stack_map')
    args = p.parse_args()
    if args.kallsyms:
        read_kallsyms(args.kallsyms)
    if args.mode == 'boots':
        boots(args)
    elif args.mode == 'twin':
        twin(args)
    elif args.mode == 'map':
        stack_map(args)
    elif args.mode == 'kernel-defs':
        kernel_defs(args)
    else:
        stalled(args)


if __name__ == '__main__':
    main()
