# SPDX-License-Identifier: GPL-2.0
"""Build stack_map_bin streams, good and bad, in either byte order.

The layout is the one of Documentation/trace/ftrace-stackmap.rst: a
32-byte header, then per record a 16-byte header and depth u64 addresses.
Ids split at the header's index_bits; unless told otherwise, streams here
split at bit 20, as a depot of the largest table (2^20 slots) does.
"""
import struct

MAGIC = 0x46534D42
VERSION = 1
TRAMPOLINE = 0x7FFFFFFF


def header(gen, nr, bo='<', magic=MAGIC, version=VERSION, header_size=32,
           flags=1, max_depth=128, record_size=16, index_bits=20,
           extra=b''):
    return struct.pack(bo + 'IHHIIIIII', magic, version, header_size, gen,
                       nr, flags, max_depth, record_size, index_bits) + extra


def make_id(gen, index, index_bits=20):
    """An index that does not fit in index_bits spills into the tag, as in
    a writer that got the split wrong."""
    return ((gen << index_bits) + index) & 0xffffffff


def record(rid, addrs, refs=1, bo='<', depth=None, reserved=0, extra=b''):
    if depth is None:
        depth = len(addrs)
    return (struct.pack(bo + 'IIII', rid, depth, refs, reserved) + extra +
            b''.join(struct.pack(bo + 'Q', a) for a in addrs))


def stream(recs, gen=1, bo='<', **kw):
    """recs: list of (id, addrs, refs)."""
    out = [header(gen, len(recs), bo, **kw)]
    for rid, addrs, refs in recs:
        out.append(record(rid, addrs, refs, bo))
    return b''.join(out)


def large(path, size_mb=100, depth=12, gen=1, bo='<'):
    """A valid stream of about size_mb MB, written in bounded memory;
    up to 2^20 records, so its ids use the whole index of index_bits 20."""
    rec_len = 16 + 8 * depth
    nr = min(-(-(size_mb << 20) // rec_len), 1 << 20)
    with open(path, 'wb') as f:
        f.write(header(gen, nr, bo))
        addrs = b''.join(struct.pack(bo + 'Q', 0xffffffff81000000 + i * 64)
                         for i in range(depth))
        chunk = []
        for i in range(nr):
            chunk.append(struct.pack(bo + 'IIII', make_id(gen, i), depth,
                                     i, 0) + addrs)
            if len(chunk) == 4096:
                f.write(b''.join(chunk))
                chunk = []
        f.write(b''.join(chunk))
    return nr
