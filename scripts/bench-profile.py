# SPDX-License-Identifier: GPL-2.0-only
#
# gdb -batch -x scripts/bench-profile.py VMLINUX: where the instructions of
# one stack event go, in the guest of `make bench` (scripts/bench.sh,
# part "profile"), which waits for gdb on PROFILE_PORT.
#
# Samples calls of __ftrace_trace_stack(), PROFILE_GAP seconds apart (the
# 500th call after the guest resumes, so that a stop between two runs does
# not pick the first events of a run, which define their stacks), and
# single-steps each from the return of its stack_trace_save() (the unwind,
# the same with stackmap off and on) to its own return: what recording the
# stack costs, the full copy (off) or the id (on). QEMU steps with
# interrupts and timers masked, so a sample holds the instructions of that
# one event. Each sample is classed by workload (the caller: the function
# tracer's function_stack_trace_call(), or __trace_stack() where it is not
# inlined, for getppid; an event's commit for mix) and by
# mode (on if trace_stackmap_record() ran), until every class has
# PROFILE_N samples or the guest ends. Writes PROFILE_OUT (JSON): per
# class, the instructions of each sample and per function their sum.

import collections
import json
import os
import signal
import threading

import gdb

port = os.environ.get("PROFILE_PORT", "1234")
want = int(os.environ.get("PROFILE_N", "8"))
gap = float(os.environ.get("PROFILE_GAP", "0.3"))
settle = 500
out = os.environ["PROFILE_OUT"]
classes = [("getppid", "off"), ("getppid", "on"), ("mix", "off"), ("mix", "on")]

gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set suppress-cli-notifications on")


def symbol(pc):
    block = gdb.current_progspace().block_for_pc(pc)
    while block is not None and block.function is None:
        block = block.superblock
    if block is not None:
        return block.function.name
    found = gdb.execute("info symbol %#x" % pc, to_string=True).split()
    return found[0] if found and found[0] != "No" else "?"


names = {}


def name(pc):
    if pc not in names:
        names[pc] = symbol(pc)
    return names[pc]


# Read from the file, before the guest's memory stands in for it:
# the instruction after the call of stack_trace_save() in __ftrace_trace_stack()
after = None
lines = gdb.execute("disassemble __ftrace_trace_stack", to_string=True).splitlines()
for i, line in enumerate(lines):
    if "<stack_trace_save>" in line and "call" in line:
        after = int(lines[i + 1].split()[0], 16)
if after is None:
    raise gdb.GdbError("no call of stack_trace_save() in __ftrace_trace_stack()")

gdb.execute("target remote :" + port)
# Step with interrupts and timers masked (QEMU's SSTEP_ENABLE | NOIRQ | NOTIMER).
gdb.execute("maintenance packet Qqemu.sstep=0x7", to_string=True)
tracer = ("__trace_stack", "function_stack_trace_call")
entry = gdb.Breakpoint("__ftrace_trace_stack", internal=True)
samples = collections.defaultdict(list)
done = lambda: all(len(samples[c]) >= want for c in classes)


def run_for(seconds):
    """Let the guest run; then stop it as ^C would (gdb sends QEMU a break)."""
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        gdb.execute("continue", to_string=True)
    except KeyboardInterrupt:
        pass
    timer.cancel()


while not done():
    try:
        # Breakpoints cost a round trip to gdb at every call: none while
        # the guest runs on to the next sample.
        entry.enabled = False
        run_for(gap)
        # Not the first calls after the stop, which the stop biases
        # towards the start of a run, where stacks are defined again.
        entry.enabled = True
        entry.ignore_count = settle
        gdb.execute("continue", to_string=True)
        sp0 = int(gdb.selected_frame().read_register("rsp"))
        caller = name(int(gdb.parse_and_eval("*(unsigned long *)$rsp")))
        entry.enabled = False
        gdb.Breakpoint("*%#x" % after, internal=True, temporary=True)
        gdb.execute("continue", to_string=True)
        pcs = []
        for _ in range(100000):
            pcs.append(int(gdb.selected_frame().pc()))
            gdb.execute("stepi", to_string=True)
            if int(gdb.selected_frame().read_register("rsp")) > sp0:
                break
    except gdb.error:
        break  # the guest ended
    funcs = [name(pc) for pc in pcs]
    # The function tracer's (getppid), or an event's (mix)
    workload = "getppid" if caller in tracer else "mix"
    mode = "on" if "trace_stackmap_record" in funcs else "off"
    samples[(workload, mode)].append(collections.Counter(funcs))

result = {}
for (workload, mode), counts in samples.items():
    total = collections.Counter()
    for c in counts:
        total.update(c)
    result["%s/%s" % (workload, mode)] = {
        "samples": len(counts),
        "instructions": [sum(c.values()) for c in counts],
        "functions": dict(total),
    }
with open(out, "w") as f:
    json.dump(result, f, indent=1, sort_keys=True)
try:
    gdb.execute("kill")
except gdb.error:
    pass  # the guest ended first
