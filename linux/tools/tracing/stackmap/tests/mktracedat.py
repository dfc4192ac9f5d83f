#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write small trace.dat files (trace-cmd file format v6, see
trace-cmd.dat.v6(5)) holding kmem:kfree, ftrace:kernel_stack_id, ftrace:kernel_stack_def
and ftrace:kernel_stack_boot events, so that the plugin and "stackmap report"
can be tested through the real libtracecmd and "trace-cmd report"; and
the allocation events of kmem (kmem_cache_alloc, kmalloc, kmalloc_node,
mm_page_alloc), its free events (kmem_cache_free, mm_page_free,
mm_page_free_batched) and the full ftrace:kernel_stack, for "stackmap
profile".

The formats are those a 6.12 kernel with the stackmap patches exports;
the ring-buffer pages follow its header_page/header_event. A trace can
have several CPUs (one data section each), instance buffers (the BUFFER
option of v6), 4- or 8-byte longs and either byte order.

As a module: TraceDat(kallsyms, ...), then kfree(), kmem_alloc(),
page_alloc(), cache_free(), page_free(), page_free_batched(),
stack_id(), stack_def(), stack_boot(), kernel_stack() per event and
write(path).

As a command, the trace of the first plugin tests: one kfree and one
kernel_stack_id per ID, on one CPU, little-endian, 8-byte longs.

Usage: mktracedat.py OUT.dat KALLSYMS ID...
"""
import struct
import sys

PAGE = 4096
STACK_ID_TYPE = 39
STACK_DEF_TYPE = 40
STACK_BOOT_TYPE = 41
# kernel_stack_boot's flags: the first marker of its depot on its CPU.
BOOT_FIRST = 0x1
KFREE_TYPE = 400
STACK_TYPE = 4
# The allocation events of kmem and their types.
ALLOC_TYPES = {'kmem_cache_alloc': 401, 'kmalloc': 402, 'kmalloc_node': 403}
PAGE_ALLOC_TYPE = 404
# The free events of kmem, for profile --inuse.
CACHE_FREE_TYPE = 405
PAGE_FREE_TYPE = 406
PAGE_FREE_BATCHED_TYPE = 407
# The frames kernel_stack's format declares (FTRACE_STACK_ENTRIES); the
# record holds "size" of them.
STACK_ENTRIES = 8
TS0 = 12345000000000
# The kernel's trace clocks, as its trace_clock file lists them.
CLOCKS = ('local', 'global', 'counter', 'uptime', 'perf', 'mono',
          'mono_raw', 'boot', 'tai', 'x86-tsc')
# Ring-buffer event header: 5 bits type_len, 27 bits time delta.
TYPE_TIME_EXTEND = 30
MAX_SMALL_DATA = 28 * 4
DELTA_BITS = 27
# In a page's commit field: events were lost before this page.
MISSED_EVENTS = 1 << 31

HEADER_EVENT = b"""# compressed entry header
\ttype_len    :    5 bits
\ttime_delta  :   27 bits
\tarray       :   32 bits

\tpadding     : type == 29
\ttime_extend : type == 30
\ttime_stamp : type == 31
\tdata max type_len  == 28
"""
COMMON = b"""\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;
"""


def stack_id_format(id_offset=8):
    return (b"name: kernel_stack_id\nID: %d\nformat:\n" % STACK_ID_TYPE +
            COMMON +
            b"\n\tfield:u32 id;\toffset:%d;\tsize:4;\tsigned:0;\n\n"
            % id_offset +
            b"print fmt: \"<stack_id 0x%08x>\", REC->id\n")


# The fields of kernel_stack_def, as (name, offset) in the order of the
# format; DEF_FIELDS is the kernel's.
DEF_FIELDS = (('id', 8), ('depth', 12), ('caller', 16))


def def_format(fields=DEF_FIELDS):
    lines = []
    for name, off in fields:
        if name == 'caller':
            lines.append(b'\tfield:unsigned long caller[];\toffset:%d;'
                         b'\tsize:0;\tsigned:0;\n' % off)
        else:
            lines.append(b'\tfield:u32 %s;\toffset:%d;\tsize:4;\tsigned:0;\n'
                         % (name.encode(), off))
    return (b"name: kernel_stack_def\nID: %d\nformat:\n" % STACK_DEF_TYPE +
            COMMON + b'\n' + b''.join(lines) +
            b"\nprint fmt: \"<stack_def 0x%08x depth %u>\", REC->id, "
            b"REC->depth\n")


def boot_format():
    """kernel_stack_boot, which boot-mapped instances write: the token of
    the depot (per boot) whose ids and definitions follow on its CPU."""
    return (b"name: kernel_stack_boot\nID: %d\nformat:\n" % STACK_BOOT_TYPE +
            COMMON + b'\n' + field('u32', 'boot', 8, 4) +
            field('u32', 'flags', 12, 4) +
            b"\nprint fmt: \"<stack_boot 0x%08x flags 0x%x>\", REC->boot, "
            b"REC->flags\n")


def kfree_format(long_size):
    return (b"name: kfree\nID: %d\nformat:\n" % KFREE_TYPE + COMMON +
            b"\n\tfield:unsigned long call_site;\toffset:8;\tsize:%d;"
            b"\tsigned:0;\n"
            b"\tfield:const void * ptr;\toffset:%d;\tsize:%d;\tsigned:0;\n"
            b"\nprint fmt: \"call_site=%%pS ptr=%%p\", "
            b"(void *)REC->call_site, REC->ptr\n" %
            (long_size, 8 + long_size, long_size))


def field(ctype, name, off, size, signed=0):
    return (b'\tfield:%s %s;\toffset:%d;\tsize:%d;\tsigned:%d;\n' %
            (ctype.encode(), name.encode(), off, size, signed))


def kmem_alloc_format(name, long_size):
    """kmem_cache_alloc, kmalloc and kmalloc_node of a 6.12 kernel."""
    L = long_size
    return (b"name: %s\nID: %d\nformat:\n" % (name.encode(),
                                              ALLOC_TYPES[name]) +
            COMMON + b'\n' +
            field('unsigned long', 'call_site', 8, L) +
            field('const void *', 'ptr', 8 + L, L) +
            field('size_t', 'bytes_req', 8 + 2 * L, L) +
            field('size_t', 'bytes_alloc', 8 + 3 * L, L) +
            field('unsigned long', 'gfp_flags', 8 + 4 * L, L) +
            field('int', 'node', 8 + 5 * L, 4, 1) +
            b"\nprint fmt: \"call_site=%pS ptr=%p bytes_req=%zu "
            b"bytes_alloc=%zu node=%d\", (void *)REC->call_site, REC->ptr, "
            b"REC->bytes_req, REC->bytes_alloc, REC->node\n")


def page_alloc_layout(long_size):
    """The offsets of mm_page_alloc's pfn, order, gfp_flags and
    migratetype."""
    L = long_size
    gfp = -(-(8 + L + 4) // L) * L
    return 8, 8 + L, gfp, gfp + L


def page_alloc_format(long_size):
    pfn, order, gfp, mt = page_alloc_layout(long_size)
    return (b"name: mm_page_alloc\nID: %d\nformat:\n" % PAGE_ALLOC_TYPE +
            COMMON + b'\n' +
            field('unsigned long', 'pfn', pfn, long_size) +
            field('unsigned int', 'order', order, 4) +
            field('unsigned long', 'gfp_flags', gfp, long_size) +
            field('int', 'migratetype', mt, 4, 1) +
            b"\nprint fmt: \"pfn=0x%lx order=%d migratetype=%d\", "
            b"REC->pfn, REC->order, REC->migratetype\n")


def cache_free_format(long_size):
    L = long_size
    return (b"name: kmem_cache_free\nID: %d\nformat:\n" % CACHE_FREE_TYPE +
            COMMON + b'\n' +
            field('unsigned long', 'call_site', 8, L) +
            field('const void *', 'ptr', 8 + L, L) +
            field('__data_loc char[]', 'name', 8 + 2 * L, 4) +
            b"\nprint fmt: \"call_site=%pS ptr=%p name=%s\", "
            b"(void *)REC->call_site, REC->ptr, __get_str(name)\n")


def page_free_format(long_size):
    return (b"name: mm_page_free\nID: %d\nformat:\n" % PAGE_FREE_TYPE +
            COMMON + b'\n' +
            field('unsigned long', 'pfn', 8, long_size) +
            field('unsigned int', 'order', 8 + long_size, 4) +
            b"\nprint fmt: \"pfn=0x%lx order=%d\", REC->pfn, REC->order\n")


def page_free_batched_format(long_size):
    return (b"name: mm_page_free_batched\nID: %d\nformat:\n" %
            PAGE_FREE_BATCHED_TYPE + COMMON + b'\n' +
            field('unsigned long', 'pfn', 8, long_size) +
            b"\nprint fmt: \"pfn=0x%lx order=0\", REC->pfn\n")


def stack_format(long_size):
    """kernel_stack: "size" frames in caller[], which the format gives
    FTRACE_STACK_ENTRIES entries."""
    off = 8 + max(4, long_size)
    return (b"name: kernel_stack\nID: %d\nformat:\n" % STACK_TYPE +
            COMMON + b'\n' + field('int', 'size', 8, 4, 1) +
            field('unsigned long', 'caller[%d]' % STACK_ENTRIES, off,
                  STACK_ENTRIES * long_size) +
            b"\nprint fmt: \"\\t=> %ps\\n\", (void *)REC->caller[0]\n")


def header_page(long_size):
    return (b"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
            b"\tfield: local_t commit;\toffset:8;\tsize:%d;\tsigned:1;\n"
            b"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
            b"\tfield: char data;\toffset:%d;\tsize:%d;\tsigned:1;\n" %
            (long_size, 8 + long_size, PAGE - 8 - long_size))


class TraceDat:
    """A trace.dat in the making.

    long_size: the kernel's (header_page's commit field, the frames of
    kernel_stack_def); header_long_size: the byte of the file header,
    which trace-cmd fills with its own sizeof(long) (so 4 for a 32-bit
    trace-cmd on a 64-bit kernel). bo: '<' or '>'. buffers: the names of
    the instance buffers, besides the top one (''). id_offset: where
    the format of kernel_stack_id says its id is (the records hold it at
    offset 8 all the same), for formats that lie. clock: the trace
    clock, in a TRACECLOCK option as trace-cmd record writes it; None:
    no option (local).
    """

    def __init__(self, kallsyms, cpus=1, long_size=8, bo='<',
                 header_long_size=None, buffers=(), def_fields=DEF_FIELDS,
                 comms=((1234, 'bash'),), id_offset=8, clock=None):
        self.kallsyms = kallsyms
        self.cpus = cpus
        self.long_size = long_size
        self.lfmt = {4: 'I', 8: 'Q'}[long_size]
        self.bo = bo
        self.header_long_size = header_long_size or long_size
        self.def_fields = def_fields
        self.comms = comms
        self.id_offset = id_offset
        self.clock = clock
        self.buffers = {name: [[] for _ in range(cpus)]
                        for name in ('',) + tuple(buffers)}
        self.missed = set()
        self.flags, self.preempt = 0, 1
        # The formats the events need beyond kfree's and the stack ids'.
        self.kmem_used = set()
        self.full_stacks = False

    def add(self, ts, payload, cpu=0, buf=''):
        """Events of a CPU in buffer order. A time before the previous
        one starts a page, as the events of the next boot do in a
        persistent (boot-mapped) buffer, whose clock restarts."""
        self.buffers[buf][cpu].append((ts, payload))

    def common(self, etype, pid):
        """The common fields; self.flags and self.preempt, the context
        of the events added next (0x08: a hard interrupt), as the kernel
        writes them from trace_ctx for an event and for its stack."""
        return struct.pack(self.bo + 'HBBi', etype, self.flags,
                           self.preempt, pid)

    def kfree(self, ts, ptr, cpu=0, buf='', pid=1234,
              call_site=0xffffffff81000205):
        call_site &= (1 << 8 * self.long_size) - 1
        self.add(ts, self.common(KFREE_TYPE, pid) +
                 struct.pack(self.bo + self.lfmt * 2, call_site, ptr),
                 cpu, buf)

    def kmem_alloc(self, ts, name, bytes_alloc, cpu=0, buf='', pid=1234,
                   bytes_req=None, ptr=0xffff888004000000, node=0,
                   call_site=0xffffffff81000205):
        """kmem_cache_alloc, kmalloc or kmalloc_node."""
        mask = (1 << 8 * self.long_size) - 1
        self.kmem_used.add(name)
        self.add(ts, self.common(ALLOC_TYPES[name], pid) +
                 struct.pack(self.bo + self.lfmt * 5 + 'i', call_site & mask,
                             ptr & mask, bytes_alloc if bytes_req is None
                             else bytes_req, bytes_alloc, 0xcc0, node),
                 cpu, buf)

    def page_alloc(self, ts, order, cpu=0, buf='', pid=1234, pfn=0x1234,
                   migratetype=0):
        self.kmem_used.add('mm_page_alloc')
        body = bytearray(self.common(PAGE_ALLOC_TYPE, pid))
        offs = page_alloc_layout(self.long_size)
        for off, fmt, val in zip(offs, (self.lfmt, 'I', self.lfmt, 'i'),
                                 (pfn, order, 0xcc0, migratetype)):
            body += b'\0' * (off - len(body)) + struct.pack(self.bo + fmt,
                                                            val)
        self.add(ts, bytes(body), cpu, buf)

    def cache_free(self, ts, ptr, cpu=0, buf='', pid=1234,
                   call_site=0xffffffff81000205, name=b'dentry'):
        """kmem_cache_free: its name a __data_loc string after the
        fixed fields."""
        mask = (1 << 8 * self.long_size) - 1
        self.kmem_used.add('kmem_cache_free')
        fixed = 8 + 2 * self.long_size + 4
        loc = len(name) + 1 << 16 | fixed
        self.add(ts, self.common(CACHE_FREE_TYPE, pid) +
                 struct.pack(self.bo + self.lfmt * 2 + 'I',
                             call_site & mask, ptr & mask, loc) +
                 name + b'\0', cpu, buf)

    def page_free(self, ts, pfn, order, cpu=0, buf='', pid=1234):
        self.kmem_used.add('mm_page_free')
        self.add(ts, self.common(PAGE_FREE_TYPE, pid) +
                 struct.pack(self.bo + self.lfmt + 'I', pfn, order),
                 cpu, buf)

    def page_free_batched(self, ts, pfn, cpu=0, buf='', pid=1234):
        self.kmem_used.add('mm_page_free_batched')
        self.add(ts, self.common(PAGE_FREE_BATCHED_TYPE, pid) +
                 struct.pack(self.bo + self.lfmt, pfn), cpu, buf)

    def kernel_stack(self, ts, frames, cpu=0, buf='', pid=1234):
        """The full stack of an event whose stack got no id."""
        self.full_stacks = True
        body = (self.common(STACK_TYPE, pid) +
                struct.pack(self.bo + 'i', len(frames)) +
                b'\0' * (max(4, self.long_size) - 4) +
                b''.join(struct.pack(self.bo + self.lfmt, f)
                         for f in frames))
        self.add(ts, body, cpu, buf)

    def stack_id(self, ts, rid, cpu=0, buf='', pid=1234):
        self.add(ts, self.common(STACK_ID_TYPE, pid) +
                 struct.pack(self.bo + 'I', rid), cpu, buf)

    def stack_def(self, ts, rid, frames, cpu=0, buf='', pid=1234,
                  depth=None, cut=0):
        """depth: the depth field, if not len(frames); cut: bytes to
        take off the end, for a truncated record (the ring buffer still
        pads it to 4 bytes)."""
        fields = {'id': struct.pack(self.bo + 'I', rid),
                  'depth': struct.pack(self.bo + 'I', len(frames)
                                       if depth is None else depth),
                  'caller': b''.join(struct.pack(self.bo + self.lfmt, f)
                                     for f in frames)}
        body = bytearray(self.common(STACK_DEF_TYPE, pid))
        for name, off in sorted(self.def_fields, key=lambda f: f[1]):
            body += b'\0' * (off - len(body)) + fields[name]
        self.add(ts, bytes(body[:len(body) - cut]), cpu, buf)

    def stack_boot(self, ts, token, flags=BOOT_FIRST, cpu=0, buf='',
                   pid=1234, cut=0):
        """A boot marker: the ids and definitions of @cpu that follow, up
        to its next marker, are of the depot of @token. cut: bytes to
        take off the end, for a short record."""
        body = self.common(STACK_BOOT_TYPE, pid) + struct.pack(
            self.bo + 'II', token, flags)
        self.add(ts, body[:len(body) - cut], cpu, buf)

    def lose_events(self, cpu=0, buf=''):
        """Flag the page of the next event of @cpu: events lost before
        it (as the kernel's commit field does in overwrite mode)."""
        self.missed.add((buf, cpu, len(self.buffers[buf][cpu])))

    def word(self, type_len, delta):
        if self.bo == '>':
            return struct.pack('>I', type_len << DELTA_BITS | delta)
        return struct.pack('<I', type_len | delta << 5)

    def event(self, delta, payload):
        payload += b'\0' * (-len(payload) % 4)
        if delta >> DELTA_BITS:
            ext = (self.word(TYPE_TIME_EXTEND, delta & ((1 << DELTA_BITS) - 1))
                   + struct.pack(self.bo + 'I', delta >> DELTA_BITS))
            return ext + self.event(0, payload)
        if len(payload) <= MAX_SMALL_DATA:
            return self.word(len(payload) // 4, delta) + payload
        return (self.word(0, delta) +
                struct.pack(self.bo + 'I', len(payload) + 4) + payload)

    def pages(self, buf, cpu):
        """The ring-buffer pages of one CPU, as trace-cmd extracts them."""
        room = PAGE - 8 - self.long_size
        pages = []
        data = b''
        base = last = None
        flags = 0

        def flush():
            page = (struct.pack(self.bo + 'Q' + self.lfmt, base,
                                len(data) | flags) + data)
            pages.append(page + b'\0' * (PAGE - len(page)))

        for i, (ts, payload) in enumerate(self.buffers[buf][cpu]):
            ev = (None if base is None or ts < last else
                  self.event(ts - last, payload))
            if ev is None or len(data) + len(ev) > room or \
               (buf, cpu, i) in self.missed:
                if base is not None:
                    flush()
                base, data, ev = ts, b'', self.event(0, payload)
                flags = MISSED_EVENTS if (buf, cpu, i) in self.missed else 0
                assert len(ev) <= room, 'event larger than a page'
            data += ev
            last = ts
        if base is not None:
            flush()
        return b''.join(pages)

    def write(self, path):
        bo, n = self.bo, self.cpus
        ftrace = [stack_id_format(self.id_offset)]
        if self.def_fields:
            ftrace.append(def_format(self.def_fields))
        ftrace.append(boot_format())
        if self.full_stacks:
            ftrace.append(stack_format(self.long_size))
        hp = header_page(self.long_size)
        hdr = (b'\x17\x08\x44tracing6\0' +
               struct.pack(bo + 'BBI', bo == '>', self.header_long_size,
                           PAGE) +
               b'header_page\0' + struct.pack(bo + 'Q', len(hp)) + hp +
               b'header_event\0' + struct.pack(bo + 'Q', len(HEADER_EVENT)) +
               HEADER_EVENT + struct.pack(bo + 'I', len(ftrace)) +
               b''.join(struct.pack(bo + 'Q', len(f)) + f for f in ftrace))
        kmem = [kfree_format(self.long_size)]
        special = {'mm_page_alloc': page_alloc_format,
                   'kmem_cache_free': cache_free_format,
                   'mm_page_free': page_free_format,
                   'mm_page_free_batched': page_free_batched_format}
        for name in sorted(self.kmem_used):
            kmem.append(special[name](self.long_size) if name in special
                        else kmem_alloc_format(name, self.long_size))
        hdr += (struct.pack(bo + 'I', 1) + b'kmem\0' +
                struct.pack(bo + 'I', len(kmem)) +
                b''.join(struct.pack(bo + 'Q', len(f)) + f for f in kmem))
        hdr += struct.pack(bo + 'I', len(self.kallsyms)) + self.kallsyms
        hdr += struct.pack(bo + 'I', 0)
        cmdlines = b''.join(b'%d %s\n' % (pid, comm.encode())
                            for pid, comm in self.comms)
        hdr += struct.pack(bo + 'Q', len(cmdlines)) + cmdlines
        hdr += struct.pack(bo + 'I', n) + b'options  \0'

        names = list(self.buffers)[1:]

        def options(offsets):
            out = b''
            if self.clock:
                # The trace_clock file: the clock in use in brackets.
                data = b' '.join(b'[%s]' % c.encode() if c == self.clock
                                 else c.encode() for c in CLOCKS) + b'\n\0'
                out += struct.pack(bo + 'HI', 4, len(data)) + data
            for name, off in zip(names, offsets):
                data = struct.pack(bo + 'Q', off) + name.encode() + b'\0'
                out += struct.pack(bo + 'HI', 3, len(data)) + data
            return out + struct.pack(bo + 'H', 0)

        # Each instance has its own "flyrecord" table, after the top one.
        table = 10 + 16 * n
        start = len(hdr) + len(options([0] * len(names))) + table
        opts = options([start + i * table for i in range(len(names))])
        data_off = -(-(start + table * len(names)) // PAGE) * PAGE
        sections, tables = [], []
        for name in self.buffers:
            entries = b''
            for cpu in range(n):
                pages = self.pages(name, cpu)
                entries += struct.pack(bo + 'QQ', data_off if pages else 0,
                                       len(pages))
                sections.append(pages)
                data_off += len(pages)
            tables.append(b'flyrecord\0' + entries)
        out = hdr + opts + b''.join(tables)
        out += b'\0' * (-len(out) % PAGE)
        with open(path, 'wb') as f:
            f.write(out + b''.join(sections))


def main():
    out, kallsyms, ids = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(kallsyms, 'rb') as f:
        t = TraceDat(f.read(), def_fields=())
    ts = TS0
    for i, rid in enumerate(ids):
        ts += 1000
        t.kfree(ts, 0xffff888004000000 + i)
        t.stack_id(ts + 10, int(rid, 0))
        ts += 10
    t.write(out)


if __name__ == '__main__':
    main()
