#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a small trace.dat (trace-cmd file format v6, see
trace-cmd.dat.v6(5)) holding kmem:kfree and ftrace:kernel_stack_id events,
so that the plugin can be tested through a real "trace-cmd report".

The formats are those a 6.12 x86_64 kernel with the stackmap patches
exports; the ring buffer page follows its header_page/header_event.

Usage: mktracedat.py OUT.dat KALLSYMS ID...
"""
import struct
import sys

PAGE = 4096
STACK_ID_TYPE = 39
KFREE_TYPE = 400

HEADER_PAGE = b"""\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;
\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;
\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;
\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;
"""
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
STACK_ID_FORMAT = (b"name: kernel_stack_id\nID: %d\nformat:\n" % STACK_ID_TYPE +
                   COMMON +
                   b"\n\tfield:u32 id;\toffset:8;\tsize:4;\tsigned:0;\n\n"
                   b"print fmt: \"<stack_id 0x%08x>\", REC->id\n")
KFREE_FORMAT = (b"name: kfree\nID: %d\nformat:\n" % KFREE_TYPE + COMMON +
                b"\n\tfield:unsigned long call_site;\toffset:8;\tsize:8;"
                b"\tsigned:0;\n"
                b"\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
                b"\nprint fmt: \"call_site=%pS ptr=%p\", "
                b"(void *)REC->call_site, REC->ptr\n")


def event(delta, payload):
    assert len(payload) % 4 == 0 and len(payload) <= 28 * 4
    return struct.pack('<I', (len(payload) // 4) | (delta << 5)) + payload


def main():
    out, kallsyms, ids = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(kallsyms, 'rb') as f:
        ksyms = f.read()
    pid = 1234
    data = b''
    for i, rid in enumerate(ids):
        call_site = 0xffffffff81000205
        data += event(1000, struct.pack('<HBBiQQ', KFREE_TYPE, 0, 1, pid,
                                        call_site, 0xffff888004000000 + i))
        data += event(10, struct.pack('<HBBiI', STACK_ID_TYPE, 0, 1, pid,
                                      int(rid, 0)))
    page = struct.pack('<QQ', 12345000000000, len(data)) + data
    page += b'\0' * (PAGE - len(page))

    hdr = b'\x17\x08\x44tracing6\0' + struct.pack('<BBI', 0, 8, PAGE)
    hdr += b'header_page\0' + struct.pack('<Q', len(HEADER_PAGE)) + HEADER_PAGE
    hdr += (b'header_event\0' + struct.pack('<Q', len(HEADER_EVENT)) +
            HEADER_EVENT)
    hdr += struct.pack('<IQ', 1, len(STACK_ID_FORMAT)) + STACK_ID_FORMAT
    hdr += struct.pack('<I', 1) + b'kmem\0'
    hdr += struct.pack('<IQ', 1, len(KFREE_FORMAT)) + KFREE_FORMAT
    hdr += struct.pack('<I', len(ksyms)) + ksyms
    hdr += struct.pack('<I', 0)
    cmdlines = b'%d bash\n' % pid
    hdr += struct.pack('<Q', len(cmdlines)) + cmdlines
    hdr += struct.pack('<I', 1) + b'options  \0' + struct.pack('<H', 0)
    hdr += b'flyrecord\0'
    cpu_off = (len(hdr) + 16 + PAGE - 1) // PAGE * PAGE
    hdr += struct.pack('<QQ', cpu_off, PAGE)
    hdr += b'\0' * (cpu_off - len(hdr))
    with open(out, 'wb') as f:
        f.write(hdr + page)


if __name__ == '__main__':
    main()
