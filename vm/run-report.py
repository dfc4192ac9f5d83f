#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Report of `make run`: reads what the guest saved of the two tracing
# sessions (stackmap off and on, same buffer, events and workload) and
# prints what deduplication bought, from the ring buffer's own per-CPU
# stats and the traces themselves. Writes the artifacts of the stackmap
# session, a folded-stacks file, a flame graph and summary.json.
#
# The stacks are the stackmap CLI's to read: "stackmap dump" decodes the
# session's stack_map_bin, "stackmap fold" folds its trace, "stackmap
# report" reads the trace-cmd session's trace.dat; the guest's kallsyms
# (RAWDIR/kallsyms) names the frames. This script only counts the
# trace's events and the kind of stack each carries, which no command
# does for trace text.
#
# Usage: vm/run-report.py RAWDIR OUTDIR
#        (STACKMAP_TOOLS: the build directory of tools/tracing/stackmap,
#        default the tree's own, built by "make tools")

import html
import json
import os
import re
import subprocess
import sys
import zlib

# The depot's memory target at this workload (256 KiB per CPU, 2 CPUs),
# and what stackmap should keep per byte of memory, buffers and depot.
DEPOT_TARGET = 64 * 1024
PER_MEMORY_TARGET = 1.9

TOOLS = os.environ.get("STACKMAP_TOOLS") or os.path.join(
    os.path.dirname(os.path.realpath(__file__)), "..", "linux", "tools",
    "tracing", "stackmap", "build")


class ToolError(Exception):
    pass


def stackmap(*args):
    """stdout of the stackmap CLI run with @args; ToolError if it fails."""
    cmd = [os.path.join(TOOLS, "stackmap"), *args]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True,
                             errors="replace")
    except OSError as e:
        raise ToolError(f"{cmd[0]}: {e.strerror} (make tools builds it)")
    if res.returncode:
        raise ToolError(f"{' '.join(cmd)}: exit {res.returncode}: "
                        f"{res.stderr.strip()}")
    return res.stdout


EVENT_RE = re.compile(r"^\s*(?P<comm>.*)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+"
                      r"\S+\s+(?P<ts>\d+\.\d+): (?P<what>.*)$")


def rb_bytes(payload):
    """Ring buffer bytes of an entry with a payload of @payload bytes."""
    payload = (payload + 3) & ~3
    return payload + (4 if payload <= 112 else 8)


def format_size(path):
    """Payload size of a trace entry, from its events/.../format file, the
    offset of its array field and the size of one element of it (a frame
    of kernel_stack: 8 bytes on 64-bit kernels, 4 on 32-bit ones)."""
    end = 0
    fixed_array = None
    elem = None
    with open(path) as f:
        for line in f:
            m = re.search(r"field:(.*?);\s*offset:(\d+);\s*size:(\d+);", line)
            if m:
                end = max(end, int(m.group(2)) + int(m.group(3)))
                a = re.search(r"\[(\d*)\]", m.group(1))
                if a:
                    fixed_array = int(m.group(2))
                    if a.group(1):
                        elem = int(m.group(3)) // int(a.group(1))
    return end, fixed_array, elem


def scan_trace(path):
    """The events of a trace text and the kind of stack each carries:
    [(event, ts, stack)] where stack is ('full', depth), ('id', id) or
    None. A stack entry belongs to the last event of its own CPU: the
    trace merges the CPUs by time, and another CPU's event can come
    between an event and its stack."""
    events = []
    last = {}       # cpu -> its last event
    full = None     # the event whose "<stack trace>" the " => " lines are
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#") or not line:
                continue
            if line.startswith(" => "):
                if full is not None:
                    full[2] = ("full", full[2][1] + 1)
                continue
            full = None
            m = EVENT_RE.match(line)
            if not m:
                continue
            what = m.group("what")
            cur = last.get(m.group("cpu"))
            # A stack's definition: an entry of its own, not an event;
            # its "  [i] frame" lines match nothing here.
            if what.startswith("<stack_def "):
                continue
            if what.startswith("<stack trace>"):
                if cur is not None and cur[2] is None:
                    cur[2] = ("full", 0)
                    full = cur
                continue
            if what.startswith("<stack_id "):
                if cur is not None and cur[2] is None:
                    cur[2] = ("id", what[len("<stack_id "):].split(">")[0])
                continue
            cur = [what.split(":", 1)[0], float(m.group("ts")), None]
            last[m.group("cpu")] = cur
            events.append(cur)
    return events


def read_kv(path):
    kv = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if ":" in line:
                    k, v = line.split(":", 1)
                    kv[k.strip()] = v.strip()
    return kv


def cpu_stats(d):
    tot = {"entries": 0, "overrun": 0, "bytes": 0, "dropped events": 0}
    cpus = 0
    for name in sorted(os.listdir(d)):
        if name.startswith("stats.cpu"):
            cpus += 1
            kv = read_kv(os.path.join(d, name))
            for k in tot:
                tot[k] += int(float(kv.get(k, "0")))
    tot["cpus"] = cpus
    return tot


def written_bytes(d):
    """Ring-buffer bytes written in a session, retained or overwritten:
    each CPU's entries and overruns at the mean size of its retained
    entries (the per-CPU stats count bytes only of what is retained)."""
    total = 0.0
    for name in sorted(os.listdir(d)):
        if name.startswith("stats.cpu"):
            kv = read_kv(os.path.join(d, name))
            entries = int(float(kv.get("entries", "0")))
            if entries:
                total += (int(float(kv.get("bytes", "0"))) / entries *
                          (entries + int(float(kv.get("overrun", "0")))))
    return total


def definition_cost(sess):
    """Ring-buffer bytes of the stack definitions a session wrote, from
    stack_map_stat (their payload bytes) and the depths in stack_map (the
    event header of each: 4 bytes, 8 above 112 bytes of payload), plus
    the 8-byte absolute time stamp the ring buffer usually puts before
    each one the tracing path writes (it follows the discard of the id's
    reservation; an interrupt's entry in between spares it), against all
    it wrote. None without definitions."""
    smstat = read_kv(os.path.join(sess["dir"], "stack_map_stat"))
    defs = int(smstat.get("definitions", 0))
    emitted = int(smstat.get("definitions_emitted", 0))
    payload = int(smstat.get("definitions_bytes", 0))
    if not defs:
        return None
    # The frames' size from kernel_stack, where they start from
    # kernel_stack_def's own format.
    frame = format_size(os.path.join(sess["dir"], "format.kernel_stack"))[2]
    def_off = format_size(os.path.join(sess["dir"],
                                       "format.kernel_stack_def"))[1]
    sizes = [((def_off + frame * len(f)) + 3) & ~3
             for f in sess["stacks"].values()]
    # One definition per stored stack, unless the buffer was cleared or
    # "emit" ran: then the headers are estimated at the same mix.
    headers = sum(rb_bytes(p) - p for p in sizes)
    if len(sizes) != defs and sizes:
        headers = headers * defs / len(sizes)
    rb = payload + headers + 8 * (defs - emitted)
    written = written_bytes(sess["dir"])
    return {"definitions": defs, "payload_bytes": payload,
            "ring_buffer_bytes": rb, "written_bytes": written,
            "share": ratio(rb, written),
            "exact": len(sizes) == defs and sum(sizes) == payload}


def map_stacks(raw, d):
    """{id: [frame]} of the session's stack_map_bin, by "stackmap dump",
    frames as the kernel's stack_map prints them; {} without a map."""
    path = os.path.join(d, "stack_map_bin")
    if not os.path.exists(path):
        return {}
    dump = json.loads(stackmap("dump", "--json", "--kallsyms",
                               os.path.join(raw, "kallsyms"), path))
    return {r["id"]: [f["symbol"] for f in r["frames"]]
            for r in dump["records"]}


def session(raw, mode):
    d = os.path.join(raw, mode)
    events = scan_trace(os.path.join(d, "trace"))
    stats = cpu_stats(d)
    smstat = read_kv(os.path.join(d, "stack_map_stat"))
    span = events[-1][1] - events[0][1] if len(events) > 1 else 0.0
    with_stack = [e for e in events if e[2] is not None]
    ids = sum(1 for e in with_stack if e[2][0] == "id")
    return {
        "dir": d, "events": events,
        # Only the stackmap session saved a map.
        "stacks": map_stacks(raw, d),
        "retained_events": len(events),
        "cpus": stats["cpus"],
        "ring_buffer_bytes": stats["bytes"],
        "ring_buffer_entries": stats["entries"],
        "overruns": stats["overrun"],
        "bytes_per_event": stats["bytes"] / len(events) if events else 0,
        "time_span_s": span,
        "events_with_stack": len(with_stack),
        "stack_id_records": ids,
        "full_stack_records": len(with_stack) - ids,
        "stack_records": int(smstat.get("records", 0)),
        "depot_bytes": int(smstat.get("mem_allocated", 0)),
        "depot_bytes_used": int(smstat.get("mem_used", 0)),
        "depot_drops": sum(int(smstat.get(k, 0)) for k in
                           ("drops_full", "drops_grow", "drops_probe",
                            "drops_too_deep", "drops_busy")),
    }


def record_limit(off, on_dir):
    """(event + full-stack record) / (event + stack-id record), in ring
    buffer bytes, over the events of the stackmap-off session."""
    d = off["dir"]
    ev_size = {}
    for name in os.listdir(d):
        if name.startswith("format.") and name not in (
                "format.kernel_stack", "format.kernel_stack_id",
                "format.kernel_stack_def"):
            ev_size[name[len("format."):]] = format_size(os.path.join(d, name))[0]
    _, caller_off, frame = format_size(os.path.join(d, "format.kernel_stack"))
    if frame is None:
        sys.exit("format.kernel_stack: no caller[N] field to size a frame by")
    id_payload = format_size(os.path.join(on_dir, "format.kernel_stack_id"))[0]
    full = ids = 0
    depths = []
    for name, ts, stack in off["events"]:
        e = rb_bytes(ev_size.get(name, 0))
        if stack is None:
            full += e
            ids += e
            continue
        depth = stack[1]
        depths.append(depth)
        full += e + rb_bytes(caller_off + frame * depth)
        ids += e + rb_bytes(id_payload)
    avg_depth = sum(depths) / len(depths) if depths else 0
    return (full / ids if ids else 0), avg_depth, rb_bytes(id_payload)


def write_folded(raw, sess, path):
    """The session's trace folded by "stackmap fold" into @path; its
    {stack: count}."""
    text = stackmap("fold", "--map", os.path.join(sess["dir"], "stack_map_bin"),
                    "--kallsyms", os.path.join(raw, "kallsyms"),
                    os.path.join(sess["dir"], "trace"))
    with open(path, "w") as f:
        f.write(text)
    folded = {}
    for line in text.splitlines():
        key, _, count = line.rpartition(" ")
        folded[key] = int(count)
    return folded


def write_flamegraph(folded, path, title):
    """A plain SVG flame graph (root at the bottom) of folded stacks."""
    root = {"n": 0, "kids": {}}
    for key, count in folded.items():
        node = root
        node["n"] += count
        for frame in key.split(";"):
            node = node["kids"].setdefault(frame, {"n": 0, "kids": {}})
            node["n"] += count

    def height(node):
        return 1 + max((height(k) for k in node["kids"].values()), default=0)

    width, row = 1200, 16
    depth = height(root)
    total = max(root["n"], 1)
    svg_h = (depth + 2) * row + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{svg_h}" font-family="monospace" font-size="11">',
           f'<text x="10" y="14">{html.escape(title)}</text>']

    def draw(node, name, x, level):
        w = node["n"] * (width - 20) / total
        if w < 0.5:
            return
        y = svg_h - (level + 1) * row
        # A hash that is the same in every run, unlike str's.
        hue = (zlib.crc32(name.encode()) % 60) + 10
        label = html.escape(name)
        out.append(f'<g><title>{label} ({node["n"]} events)</title>'
                   f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row - 1}" '
                   f'fill="hsl({hue},85%,60%)"/>')
        if w > 40:
            chars = int(w / 7)
            out.append(f'<text x="{x + 3:.1f}" y="{y + 12}">'
                       f'{html.escape(name[:chars])}</text>')
        out.append("</g>")
        cx = x
        for kname, kid in sorted(node["kids"].items()):
            draw(kid, kname, cx, level + 1)
            cx += kid["n"] * (width - 20) / total

    draw(root, "all", 10, 0)
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def ratio(a, b):
    return a / b if b else 0.0


def tracecmd_report(raw, out, summary):
    """The trace-cmd session: its trace.dat reported on the host with the
    plugin and no map file (trace-cmd report, one pass, learning the
    definitions as it reads) and with "stackmap report" (two passes)."""
    d = os.path.join(raw, "tracecmd")
    dat = os.path.join(d, "trace.dat")
    print()
    if not os.path.exists(dat) or not os.path.getsize(dat):
        print("trace-cmd session: no trace.dat (see tracecmd/record.log)")
        return
    rc = open(os.path.join(d, "rc")).read().strip()
    env = dict(os.environ, TRACEEVENT_PLUGIN_DIR=TOOLS)
    tc = subprocess.run(["trace-cmd", "report", "-i", dat], env=env,
                        capture_output=True, text=True, errors="replace")
    lines = tc.stdout.splitlines()
    with open(os.path.join(out, "tracecmd-report.txt"), "w") as f:
        f.write(tc.stdout)
    ids = [i for i, l in enumerate(lines) if " kernel_stack_id: " in l]
    resolved = [i for i in ids if lines[i].rstrip().endswith("<stack trace>")]
    defs = [i for i, l in enumerate(lines) if " kernel_stack_def: " in l]
    events = [l for l in lines if re.match(r"\s*\S.*\[\d+\]\s+\d+\.\d+:", l)]
    smstat = read_kv(os.path.join(d, "stack_map_stat"))
    before = read_kv(os.path.join(d, "stack_map_stat.before"))
    payload = (int(smstat.get("definitions_bytes", 0)) -
               int(before.get("definitions_bytes", 0)))
    print(f"trace-cmd record in the guest (stackmap on, trace-cmd exit {rc}), "
          f"reported here with no map file:")
    print(f"  trace.dat: {os.path.getsize(dat):,} bytes, {len(events):,} "
          f"entries: {len(ids):,} stack ids, {len(defs):,} definitions "
          f"({payload:,} bytes of entries)")
    print(f"  trace-cmd report + plugin_stackmap.so: {len(resolved):,} of "
          f"{len(ids):,} ids resolved from the definitions in the file")
    rep = subprocess.run([os.path.join(TOOLS, "stackmap"), "report", dat],
                         capture_output=True, text=True, errors="replace")
    with open(os.path.join(out, "stackmap-report.txt"), "w") as f:
        f.write(rep.stdout)
    counts = rep.stderr.strip()
    if counts.startswith("stackmap: "):
        counts = counts[len("stackmap: "):]
    print(f"  stackmap report (two passes): {counts}")
    summary["tracecmd"] = {"trace_dat_bytes": os.path.getsize(dat),
                           "stack_ids": len(ids), "resolved": len(resolved),
                           "definitions": len(defs),
                           "stackmap_report": rep.stderr.strip()}
    # An excerpt: the first definition, and the first id after it.
    if defs and resolved:
        print("  excerpt of trace-cmd report:")
        first = next((i for i in resolved if i > defs[0]), resolved[0])
        shown = list(range(max(first - 1, 0), first + 7))
        if defs[0] not in shown:
            shown = [defs[0], None] + shown
        for i in shown:
            print("    ..." if i is None else "    " + lines[i][:110])


def flight_report(raw, out, summary):
    """The stackmap session's wrapped buffer, read out with trace-cmd
    extract and no "emit": how many of its ids each reader resolves from
    the definitions the kernel wrote again as the buffer wrapped."""
    d = os.path.join(raw, "on")
    dat = os.path.join(d, "flight.dat")
    if not os.path.exists(dat) or not os.path.getsize(dat):
        return
    env = dict(os.environ, TRACEEVENT_PLUGIN_DIR=TOOLS)
    tc = subprocess.run(["trace-cmd", "report", "-i", dat], env=env,
                        capture_output=True, text=True, errors="replace")
    lines = tc.stdout.splitlines()
    ids = [l for l in lines if " kernel_stack_id: " in l]
    resolved = [l for l in ids if l.rstrip().endswith("<stack trace>")]
    defs = sum(" kernel_stack_def: " in l for l in lines)
    redefine = open(os.path.join(d, "redefine")).read().strip() \
        if os.path.exists(os.path.join(d, "redefine")) else "?"
    smstat = read_kv(os.path.join(d, "stack_map_stat"))
    print()
    print(f"Flight recorder: the stackmap session's wrapped buffer, "
          f"trace-cmd extract, no emit (stack_map_redefine {redefine}, "
          f"{int(smstat.get('redefinitions', 0)):,} redefinitions):")
    share = 100.0 * len(resolved) / len(ids) if ids else 0.0
    print(f"  trace-cmd report + plugin (one pass): {len(resolved):,} of "
          f"{len(ids):,} ids resolved ({share:.1f}%), {defs:,} definitions "
          f"in the file")
    entry = {"redefine": redefine, "stack_ids": len(ids),
             "plugin_resolved": len(resolved), "definitions": defs}
    rep = subprocess.run([os.path.join(TOOLS, "stackmap"), "report", dat],
                         capture_output=True, text=True, errors="replace")
    m = re.search(r"(\d+) stack ids resolved.*?(\d+) unresolved",
                  rep.stderr)
    if m:
        good, bad = int(m.group(1)), int(m.group(2))
        share = 100.0 * good / (good + bad) if good + bad else 0.0
        print(f"  stackmap report (two passes): {good:,} of "
              f"{good + bad:,} ids resolved ({share:.1f}%)")
        entry["report_resolved"] = good
        entry["report_unresolved"] = bad
    else:
        print(f"  stackmap report: {rep.stderr.strip()}")
    summary["flight"] = entry


def main():
    if len(sys.argv) != 3:
        print("usage: run-report.py RAWDIR OUTDIR", file=sys.stderr)
        return 2
    raw, out = sys.argv[1], sys.argv[2]
    try:
        off = session(raw, "off")
        on = session(raw, "on")
    except (ToolError, ValueError, KeyError) as e:
        print(f"run-report: {e}", file=sys.stderr)
        return 1
    if not off["retained_events"] or not on["retained_events"]:
        print("run-report: a session retained no events", file=sys.stderr)
        return 1
    limit, avg_depth, id_bytes = record_limit(off, on["dir"])

    rows = [
        ("retained events", "retained_events", "{:,.0f}"),
        ("ring-buffer bytes/event", "bytes_per_event", "{:,.1f}"),
        ("time span (s)", "time_span_s", "{:,.3f}"),
        ("overruns", "overruns", "{:,.0f}"),
        ("events with a stack", "events_with_stack", "{:,.0f}"),
        ("  as stack id", "stack_id_records", "{:,.0f}"),
        ("  as full stack", "full_stack_records", "{:,.0f}"),
        ("stack records (depot)", "stack_records", "{:,.0f}"),
        ("depot memory (bytes)", "depot_bytes", "{:,.0f}"),
        ("  of it in use", "depot_bytes_used", "{:,.0f}"),
        ("depot drops", "depot_drops", "{:,.0f}"),
    ]
    params = open(os.path.join(raw, "params")).read().split()
    # What a session's history costs: its ring buffers (buffer_size_kb
    # on each CPU that saved its stats) and, with stackmap, the depot.
    for sess in (off, on):
        sess["memory_bytes"] = (int(params[0]) * 1024 * sess["cpus"] +
                                sess["depot_bytes"])
        sess["events_per_mib"] = (sess["retained_events"] /
                                  (sess["memory_bytes"] / 2**20))
    rows += [
        ("memory: buffers + depot", "memory_bytes", "{:,.0f}"),
        ("retained events per MiB", "events_per_mib", "{:,.0f}"),
    ]
    print(f"Buffer {params[0]} KiB per CPU, events {params[1]}, "
          f"workload: {open(os.path.join(raw, 'workload')).read().strip()}")
    print(f"{'':26} {'stackmap off':>14} {'stackmap on':>14} {'on/off':>8}")
    summary = {"buffer_kb": int(params[0]), "events": params[1],
               "off": {}, "on": {}, "ratios": {}}
    for label, key, fmt in rows:
        a, b = off[key], on[key]
        r = ratio(b, a) if key in ("retained_events", "bytes_per_event",
                                   "time_span_s", "memory_bytes",
                                   "events_per_mib") else None
        rs = f"{r:7.2f}x" if r is not None else ""
        print(f"{label:26} {fmt.format(a):>14} {fmt.format(b):>14} {rs:>8}")
        summary["off"][key] = a
        summary["on"][key] = b
        if r is not None:
            summary["ratios"][key] = r
    measured = ratio(on["retained_events"], off["retained_events"])
    per_mem = ratio(on["events_per_mib"], off["events_per_mib"])
    print()
    print(f"Per byte of memory (ring buffers + depot), stackmap keeps "
          f"{per_mem:.2f}x the events of full stacks "
          f"({measured:.2f}x per byte of ring buffer), target >= "
          f"{PER_MEMORY_TARGET}x: "
          f"{'met' if per_mem >= PER_MEMORY_TARGET else 'MISSED'}")
    print(f"Limit from record sizes: {limit:.2f}x "
          f"(avg stack depth {avg_depth:.1f} frames, stack-id record {id_bytes} B)")
    print(f"Retained-events ratio {measured:.2f}x = "
          f"{100 * ratio(measured, limit):.1f}% of that limit (target 95%)")
    mem = on["depot_bytes"]
    print(f"Depot memory: {mem:,} bytes allocated for "
          f"{on['stack_records']:,} stacks, target <= {DEPOT_TARGET:,}: "
          f"{'met' if mem <= DEPOT_TARGET else 'MISSED'}")
    cost = definition_cost(on)
    if cost:
        print(f"Stack definitions (options/stackmap-defs): "
              f"{cost['definitions']:,} written, {cost['ring_buffer_bytes']:,.0f} "
              f"ring-buffer bytes{'' if cost['exact'] else ' (estimated)'}, "
              f"{100 * cost['share']:.3f}% of the {cost['written_bytes']:,.0f} "
              f"bytes the session wrote")
        summary["definitions"] = cost
    summary.update({"depot_target": DEPOT_TARGET,
                    "retained_per_memory_target": PER_MEMORY_TARGET,
                    "limit": limit, "avg_depth": avg_depth,
                    "retained_ratio": measured,
                    "retained_per_memory_ratio": per_mem,
                    "fraction_of_limit": ratio(measured, limit)})

    # Top stacks of the stackmap session, by events.
    counts = {}
    for name, ts, stack in on["events"]:
        if stack is not None and stack[0] == "id":
            counts[stack[1]] = counts.get(stack[1], 0) + 1
    print()
    print("Top 10 stacks (stackmap session, by retained events):")
    top = sorted(counts.items(), key=lambda kv: -kv[1])[:10]
    summary["top_stacks"] = []
    for sid, n in top:
        frames = on["stacks"].get(sid, [])
        print(f"  {n:7d}  stack_id {sid}, depth {len(frames)}")
        for fr in frames[:6]:
            print(f"             {fr}")
        if len(frames) > 6:
            print(f"             ... {len(frames) - 6} more")
        summary["top_stacks"].append({"id": sid, "events": n, "frames": frames})

    os.makedirs(out, exist_ok=True)
    for name in ("trace", "stack_map", "stack_map_bin", "stack_map_stat"):
        src = os.path.join(on["dir"], name)
        if os.path.exists(src):
            with open(src, "rb") as a, open(os.path.join(out, name), "wb") as b:
                b.write(a.read())
    try:
        folded = write_folded(raw, on, os.path.join(out, "stacks.folded"))
    except ToolError as e:
        print(f"run-report: {e}", file=sys.stderr)
        return 1
    write_flamegraph(folded, os.path.join(out, "flamegraph.svg"),
                     "stackmap session: kernel stacks of traced events")
    flight_report(raw, out, summary)
    tracecmd_report(raw, out, summary)
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    print()
    print(f"Artifacts in {out}/: trace stack_map stack_map_bin stack_map_stat "
          f"stacks.folded flamegraph.svg summary.json tracecmd-report.txt "
          f"stackmap-report.txt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
