# SPDX-License-Identifier: GPL-2.0
"""Tests of what "stackmap profile --pprof FILE" does to FILE (outfile.c):
a regular file is replaced whole, a symlink's target is, a hard-linked
file is refused, a device or FIFO is written through and stays what it
is, a directory is refused; bad input leaves FILE untouched.

run_tests.py calls run(); the cases need its Runner (r.check(), r.bin,
r.tmp).
"""
import os
import select
import stat
import subprocess
import time

import profile_tests

GZIP = b'\x1f\x8b'
PREFIX = 'stackmap: profile: '
# What profile says of the trace on a run that writes the profile.
LEFTOVER = (PREFIX + 'events with a stack id without definition: 1 (the '
            'first 0x%08x), each counted as the stack [unresolved '
            'stack_id ID]\n' % profile_tests.X3)


def eq(a, b, what=''):
    assert a == b, '%s: expected %r, got %r' % (what, b, a)


def umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def no_temp_files(d):
    left = [f for f in os.listdir(d) if f.startswith('.')]
    eq(left, [], 'temporary files left in ' + d)


def keep_device(path, major, minor):
    """Fail, and put @path back, if a run replaced the device (as the
    tool before outfile.c did, as root)."""
    st = os.lstat(path)
    if stat.S_ISCHR(st.st_mode):
        return
    os.unlink(path)
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(major, minor))
    os.chmod(path, 0o666)
    raise AssertionError('%s was replaced by mode %o; restored' %
                         (path, st.st_mode))


def tests_outfile(r, dat):
    base = os.path.join(r.tmp, 'outfile')
    os.makedirs(base, exist_ok=True)

    def run(path, args=(), timeout=30):
        p = subprocess.run([r.bin, 'profile', '--pprof', path] + list(args)
                           + [dat], capture_output=True, timeout=timeout)
        return p.returncode, p.stdout.decode(), p.stderr.decode()

    def read(path):
        with open(path, 'rb') as f:
            return f.read()

    # The bytes of the profile, to compare what other files receive.
    ref = os.path.join(base, 'ref.pb.gz')
    eq(run(ref), (0, '', LEFTOVER), 'reference run')
    want = read(ref)
    assert want.startswith(GZIP), want[:4]

    def new_file():
        path = os.path.join(base, 'new.pb.gz')
        eq(run(path), (0, '', LEFTOVER), 'run')
        eq(read(path), want, 'content')
        st = os.stat(path)
        eq(stat.S_IMODE(st.st_mode), 0o666 & ~umask(), 'mode')
        no_temp_files(base)
    r.check('outfile_new_file', new_file)

    def regular():
        # Replaced whole: a new inode, mode as a new file's, not
        # mkstemp()'s 0600.
        path = os.path.join(base, 'old.pb.gz')
        with open(path, 'wb') as f:
            f.write(b'old content' * 1000)
        os.chmod(path, 0o600)
        ino = os.stat(path).st_ino
        eq(run(path), (0, '', LEFTOVER), 'run')
        eq(read(path), want, 'content')
        st = os.stat(path)
        eq(stat.S_IMODE(st.st_mode), 0o666 & ~umask(), 'mode')
        assert st.st_ino != ino, 'written in place, not replaced'
        no_temp_files(base)
    r.check('outfile_regular_file_replaced', regular)

    def symlink():
        # The target is replaced; the link stays the same link. The
        # target is in another directory: the temporary file goes there.
        d = os.path.join(base, 'targets')
        os.makedirs(d, exist_ok=True)
        target = os.path.join(d, 'target.pb.gz')
        with open(target, 'wb') as f:
            f.write(b'old')
        link = os.path.join(base, 'link.pb.gz')
        os.symlink('targets/target.pb.gz', link)
        eq(run(link), (0, '', LEFTOVER), 'run')
        assert os.path.islink(link), 'the link was replaced'
        eq(os.readlink(link), 'targets/target.pb.gz', 'link')
        eq(read(target), want, 'target')
        no_temp_files(base)
        no_temp_files(d)
    r.check('outfile_symlink_target_replaced', symlink)

    def dangling():
        # A link to a missing file creates it, as open(O_CREAT) would,
        # through a chain of two links.
        d = os.path.join(base, 'dangling')
        os.makedirs(d, exist_ok=True)
        target = os.path.join(d, 'made.pb.gz')
        link = os.path.join(base, 'dangling.pb.gz')
        os.symlink(os.path.join(base, 'dangling2.pb.gz'), link)
        os.symlink('dangling/made.pb.gz', os.path.join(base,
                                                       'dangling2.pb.gz'))
        eq(run(link), (0, '', LEFTOVER), 'run')
        assert os.path.islink(link), 'the link was replaced'
        assert os.path.islink(os.path.join(base, 'dangling2.pb.gz')), \
            'the second link was replaced'
        eq(read(target), want, 'created target')
        no_temp_files(base)
        no_temp_files(d)
    r.check('outfile_dangling_symlink_creates_target', dangling)

    def hard_link():
        # Refused: both names keep the old content, the same inode.
        a = os.path.join(base, 'hard_a.pb.gz')
        b = os.path.join(base, 'hard_b.pb.gz')
        with open(a, 'wb') as f:
            f.write(b'old')
        os.link(a, b)
        eq(run(a), (1, '', PREFIX + '%s: a file with 2 hard links: not '
                    'replaced, which would part it from its other names '
                    '(remove it, or write elsewhere)\n' % a), 'run')
        eq((read(a), read(b)), (b'old', b'old'), 'contents')
        eq(os.stat(a).st_ino, os.stat(b).st_ino, 'one inode')
        eq(os.stat(a).st_nlink, 2, 'links')
        no_temp_files(base)
    r.check('outfile_hard_link_refused', hard_link)

    def dev_null():
        try:
            eq(run('/dev/null'), (0, '', LEFTOVER), 'run')
        finally:
            keep_device('/dev/null', 1, 3)
        eq(os.stat('/dev/null').st_rdev, os.makedev(1, 3), 'device')
    r.check('outfile_dev_null_stays_a_device', dev_null)

    def dev_full():
        # Written through: the write error is the run's.
        try:
            eq(run('/dev/full'), (1, '', PREFIX + '/dev/full: %s\n'
                                  % os.strerror(28)), 'run')
        finally:
            keep_device('/dev/full', 1, 7)
    r.check('outfile_dev_full_write_error', dev_full)

    def fifo_reader():
        # The reader receives the profile; the FIFO stays a FIFO. The
        # reader opens first (non-blocking, so no race with the writer).
        path = os.path.join(base, 'fifo_r')
        os.mkfifo(path)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        got = b''
        try:
            p = subprocess.Popen([r.bin, 'profile', '--pprof', path, dat],
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
            deadline = time.time() + 30
            while time.time() < deadline:
                ready = select.select([fd], [], [], 0.1)[0]
                chunk = None
                if ready:
                    try:
                        chunk = os.read(fd, 65536)
                    except BlockingIOError:
                        pass
                    got += chunk or b''
                if not chunk and p.poll() is not None:
                    break
            else:
                p.kill()
            out, err = p.communicate()
        finally:
            os.close(fd)
        eq((p.returncode, out, err), (0, b'', LEFTOVER.encode()), 'run')
        eq(got, want, 'bytes the reader received')
        assert stat.S_ISFIFO(os.lstat(path).st_mode), 'no longer a FIFO'
        no_temp_files(base)
    r.check('outfile_fifo_with_reader', fifo_reader)

    def fifo_no_reader():
        # No hang, a clear error, the FIFO kept.
        path = os.path.join(base, 'fifo_n')
        os.mkfifo(path)
        t = time.time()
        eq(run(path, timeout=20), (1, '', PREFIX + '%s: a FIFO that no '
                                   'process reads (ENXIO)\n' % path), 'run')
        assert time.time() - t < 10, 'took %.1f s' % (time.time() - t)
        assert stat.S_ISFIFO(os.lstat(path).st_mode), 'no longer a FIFO'
        no_temp_files(base)
    r.check('outfile_fifo_without_reader', fifo_no_reader)

    def directory():
        d = os.path.join(base, 'dir.pb.gz')
        os.makedirs(d)
        with open(os.path.join(d, 'inside'), 'wb') as f:
            f.write(b'x')
        eq(run(d), (1, '', PREFIX + '%s: %s\n' % (d, os.strerror(21))),
           'run')
        assert os.path.isdir(d) and not os.path.islink(d), 'not a directory'
        eq(os.listdir(d), ['inside'], 'contents')
        no_temp_files(base)
    r.check('outfile_directory_refused', directory)

    def bad_input():
        # Bad input (--from after --to) opens nothing: a file, a symlink
        # and a FIFO without a reader are left as they are.
        msg = PREFIX + '--from %s is after --to %s\n' % (
            profile_tests.us(60), profile_tests.us(30))
        args = ['--from', profile_tests.us(60), '--to', profile_tests.us(30)]
        path = os.path.join(base, 'keep.pb.gz')
        with open(path, 'wb') as f:
            f.write(b'old')
        link = os.path.join(base, 'keep_link.pb.gz')
        os.symlink('keep.pb.gz', link)
        fifo = os.path.join(base, 'keep_fifo')
        os.mkfifo(fifo)
        for p in (path, link, fifo):
            eq(run(p, args), (2, '', msg), p)
        eq(read(path), b'old', 'file')
        assert os.path.islink(link), 'the link was replaced'
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode), 'no longer a FIFO'
        no_temp_files(base)
    r.check('outfile_bad_input_leaves_file', bad_input)


def run(r, kallsyms):
    """kallsyms: the text of run_tests.py's (64-bit) kallsyms."""
    dat = profile_tests.kmem_trace(kallsyms.encode(),
                                   os.path.join(r.tmp, 'outfile.dat'))
    tests_outfile(r, dat)
