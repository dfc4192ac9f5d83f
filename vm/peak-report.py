#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# The memory peak of `make run`: which stacks allocated the memory behind
# it. Reads what vm/guest/peak-run.sh sent from two boots traced from the
# kernel command line into the same buffers, stackmap on and off, and
# answers with "stackmap profile": the top stacks by bytes in the window
# before the peak (from the peak's first pipe to its last page), whether
# each buffer still holds that window, and the stackmap boot's profile as
# pprof (OUTDIR/peak.pb.gz).
#
# With --check, for make vmtest: the peak that vm/guest/vmtest.sh made in
# a buffer it does not fill, checked against its ground truth, one
# "PASS|FAIL NAME" line per check: the top stack by bytes is pipe_write()'s,
# with one event and one page per pipe, and go tool pprof reads the
# profile with that stack in it.
#
# Usage: vm/peak-report.py ON_DIR OFF_DIR OUTDIR
#        vm/peak-report.py --check DIR
#        (STACKMAP_TOOLS: the build directory of tools/tracing/stackmap)
# Exit status: 1 if the stackmap boot's top stack is not the peak's
# known path (pipe_write()), or a check failed; 2 on missing input.

import os
import re
import shutil
import subprocess
import sys

KNOWN = "pipe_write"
TOP = 3
PAGE = 4096


def read_peak(d):
    with open(os.path.join(d, "peak.txt")) as f:
        return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", f.read())}


def oldest(d):
    """The oldest event's time of each CPU's buffer, from its stats."""
    res = {}
    for name in sorted(os.listdir(d)):
        if not name.startswith("stats.cpu"):
            continue
        with open(os.path.join(d, name)) as f:
            stats = dict(line.split(":", 1) for line in f if ":" in line)
        res[name[len("stats."):]] = (float(stats["oldest event ts"]),
                                     int(stats["entries"]),
                                     int(stats["overrun"]))
    return res


def secs(ns):
    return "%d.%09d" % (ns // 1000000000, ns % 1000000000)


def profile(tool, d, *args):
    p = read_peak(d)
    cmd = [tool, "profile", "--weight", "bytes", "--from", secs(p["start"]),
           "--to", secs(p["peak"]), *args, os.path.join(d, "peak.dat")]
    return cmd, subprocess.run(cmd, capture_output=True, text=True)


def report(tool, label, d):
    p = read_peak(d)
    start = p["start"] / 1e9
    print(f"{label}:")
    for cpu, (ts, entries, overrun) in oldest(d).items():
        if ts <= start:
            held = "holds the whole window"
        else:
            held = ("lost the window's first %.2f s of %.2f s" %
                    (ts - start, (p["peak"] - p["start"]) / 1e9))
        print(f"  {cpu}: {entries} events kept, {overrun} overwritten, "
              f"oldest at {ts:.6f} s: {held}")
    cmd, res = profile(tool, d, "--top", str(TOP))
    print("  $ stackmap " + " ".join(cmd[1:-1]) + " peak.dat")
    for line in (res.stdout + res.stderr).splitlines():
        print("  " + line)
    row = known_row(res.stdout)
    print(f"  {row[0] if row else 0} of the peak's {p['pipes']} pages "
          f"from {KNOWN}() are in the window")
    return res


def known_row(table):
    """(events, bytes) of the first row whose stack has KNOWN, or None."""
    for row in rows(table):
        if KNOWN in row[2]:
            return row[:2]
    return None


def check(d):
    """make vmtest's checks of the peak in DIR; the number that failed."""
    tool = os.path.join(os.environ.get("STACKMAP_TOOLS", ""), "stackmap")
    p = read_peak(d)
    failed = 0

    def result(ok, name, why=""):
        nonlocal failed
        failed += not ok
        print(("PASS " if ok else "FAIL ") + name)
        if not ok and why:
            print("  " + why.strip().replace("\n", "\n  "))

    cmd, res = profile(tool, d, "--top", "3")
    table = rows(res.stdout)
    result(res.returncode == 0 and table and KNOWN in table[0][2],
           "top-stack-is-" + KNOWN, " ".join(cmd) + "\n" + res.stdout +
           res.stderr)
    ok = bool(table) and table[0][:2] == (p["pipes"], p["pipes"] * PAGE)
    result(ok, "one-page-per-pipe", "want %d events, %d bytes" %
           (p["pipes"], p["pipes"] * PAGE))
    pb = os.path.join(d, "peak.pb.gz")
    _, res = profile(tool, d, "--pprof", pb)
    go = shutil.which("go")
    raw = subprocess.run([go or "go", "tool", "pprof", "-raw", pb],
                         capture_output=True, text=True) \
        if res.returncode == 0 and go else None
    result(raw is not None and raw.returncode == 0 and KNOWN in raw.stdout,
           "pprof-has-" + KNOWN,
           res.stderr + (raw.stderr if raw else "no go (golang-go)"))
    return failed


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        if not os.path.exists(os.path.join(sys.argv[2], "peak.dat")):
            print("FAIL received")
            return 1
        print("PASS received")
        return 1 if check(sys.argv[2]) else 0
    if len(sys.argv) != 4:
        print("usage: vm/peak-report.py ON_DIR OFF_DIR OUTDIR\n"
              "       vm/peak-report.py --check DIR", file=sys.stderr)
        return 2
    on, off, out = sys.argv[1:]
    tool = os.path.join(os.environ.get("STACKMAP_TOOLS", ""), "stackmap")
    for d in (on, off):
        if not os.path.exists(os.path.join(d, "peak.dat")):
            print(f"peak-report: {d}: no peak.dat", file=sys.stderr)
            return 2
    p = read_peak(on)
    with open(os.path.join(on, "buffer_size_kb")) as f:
        kb = f.read().strip()
    print(f"Memory peak: {p['pipes']} pipes holding a page each, from "
          f"{p['start'] / 1e9:.6f} s to {p['peak'] / 1e9:.6f} s (mono "
          f"clock), freed at {p['end'] / 1e9:.6f} s; kmem events with their "
          f"stacks traced from boot into {kb} KiB per CPU, overwritten as "
          "the buffer wrapped, read out after the peak with trace-cmd "
          "extract.")
    print()
    res = report(tool, "stackmap on", on)
    print()
    report(tool, "stackmap off (full stacks, same buffer)", off)
    print()
    pb = os.path.join(out, "peak.pb.gz")
    _, pres = profile(tool, on, "--pprof", pb)
    if pres.returncode:
        print("peak-report: pprof: " + pres.stderr.strip(), file=sys.stderr)
        return 1
    print(f"pprof profile of the stackmap boot's window: {pb}")
    go = shutil.which("go")
    if go:
        top = subprocess.run([go, "tool", "pprof", "-top", "-cum",
                              "-sample_index=bytes", "-nodecount=12", pb],
                             capture_output=True, text=True)
        print("  $ go tool pprof -top -cum -sample_index=bytes "
              "-nodecount=12 peak.pb.gz")
        for line in (top.stdout + top.stderr).splitlines():
            print("  " + line)
    # The first row of the table is the top stack: its frames follow it.
    top = rows(res.stdout)
    if res.returncode or not top or KNOWN not in top[0][2]:
        print(f"peak-report: the top stack by bytes is not the peak's "
              f"{KNOWN}()", file=sys.stderr)
        return 1
    print(f"\nThe top stack by bytes is the peak's own path, {KNOWN}().")
    return 0


def rows(table):
    """The rows of a "stackmap profile --top" table: (events, first
    weight, frames), the frames those of the row's line and of the lines
    up to the next row."""
    res = []
    for line in table.splitlines():
        m = re.match(r"\s*\d+\s+(\d+)\s+(\d+)\s", line)
        if m:
            res.append((int(m.group(1)), int(m.group(2)), line))
        elif res:
            res[-1] = res[-1][:2] + (res[-1][2] + "\n" + line,)
    return res


if __name__ == "__main__":
    sys.exit(main())
