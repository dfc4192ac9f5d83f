# SPDX-License-Identifier: GPL-2.0
"""Parse the text of tracefs stack_map, as the kernel and "stackmap dump"
print it: one block per stack,

    stack_id 0xIIIIIIII [ref R, depth D]
      [0] symbol+offset/size
      ...
      [D-1] ...

The one parser of that text for scripts: tests/check_snapshot.py and the
project's checks of trace-cmd recordings (vm/check-tracecmd.py) import
it, to hold the tools' output to the kernel's own text. A line that is
neither, a frame out of order, a block with more or fewer frames than
its depth or an id seen twice raises StackMapError, whose message names
the file and the line.
"""
import collections
import re

HEAD = re.compile(r'stack_id (0x[0-9a-f]{8}) \[ref (\d+), depth (\d+)\]')
FRAME = re.compile(r'  \[(\d+)\] (.+)')

# frames: the text after "] ", as printed ("[FTRACE TRAMPOLINE]" for a
# frame inside the ftrace trampoline).
Stack = collections.namedtuple('Stack', 'refs depth frames')


class StackMapError(ValueError):
    pass


def parse(lines, name='stack_map'):
    """{id: Stack} of @lines (a file, or a list of lines), the ids as
    printed ("0x" and eight hex digits); @name is the file's, for the
    messages."""
    stacks = {}
    sid = cur = None
    lineno = 0

    def error(what):
        return StackMapError('%s:%d: %s' % (name, lineno, what))

    def check_ended():
        if cur and len(cur.frames) < cur.depth:
            raise error('stack_id %s ends after %d of its %d frames' %
                        (sid, len(cur.frames), cur.depth))

    for lineno, line in enumerate(lines, 1):
        line = line.rstrip('\n')
        m = HEAD.fullmatch(line)
        if m:
            check_ended()
            sid = m.group(1)
            if sid in stacks:
                raise error('stack_id %s again' % sid)
            cur = stacks[sid] = Stack(int(m.group(2)), int(m.group(3)), [])
            continue
        m = FRAME.fullmatch(line)
        if not m or not cur:
            raise error('neither a stack_id line nor a frame: %r' % line)
        if len(cur.frames) == cur.depth:
            raise error('stack_id %s: a frame past its depth %d' %
                        (sid, cur.depth))
        if int(m.group(1)) != len(cur.frames):
            raise error('stack_id %s: frame [%s] where [%d] belongs' %
                        (sid, m.group(1), len(cur.frames)))
        cur.frames.append(m.group(2))
    lineno += 1
    check_ended()
    return stacks


def read(path):
    """{id: Stack} of the stack_map text in the file @path."""
    with open(path, errors='replace') as f:
        return parse(f, path)
