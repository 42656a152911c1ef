"""A trace in the Chrome trace event format, for chrome://tracing and https://ui.perfetto.dev.

One process per device (and one for the host), one thread per queue; each command and each
transfer is a complete event (``"ph": "X"``, microseconds), and each DAG edge between two
timed commands is a flow arrow from the end of the one waited for to the start of the other.
Events are sorted by time, metadata first.
"""

from __future__ import annotations

import json
from typing import Any

from .model import HOST_LANE, Span, Trace, lane_name


def to_chrome_trace(trace: Trace) -> dict[str, Any]:
    """The trace as a Chrome trace object (``{"traceEvents": [...], ...}``), a sycl_ocl
    extension; ``json.dump`` it, or use ``to_chrome_trace_json``."""
    pids, tids, meta = _threads(trace)
    events: list[dict[str, Any]] = []
    commands: dict[int, Span] = {}  # the span of each command (not of its transfers)
    for span in trace.spans:
        events.append({
            "name": span.label, "cat": "transfer" if span.transfer else span.what, "ph": "X",
            "ts": span.start_ns / 1000, "dur": max(span.end_ns - span.start_ns, 0) / 1000,
            "pid": pids[span.lane], "tid": tids[span.lane],
            "args": {"command": span.serial, "bytes": span.nbytes},
        })
        if not span.transfer:
            commands[span.serial] = span
    for index, edge in enumerate(trace.edges):
        before, after = commands.get(edge.before), commands.get(edge.after)
        if before is None or after is None:
            continue
        # A flow starts inside the slice it leaves (its last nanosecond) and ends at the next.
        leave = max(before.start_ns, before.end_ns - 1)
        for phase, span, ts in (("s", before, leave), ("f", after, after.start_ns)):
            flow = {"name": edge.reason, "cat": "dependency", "ph": phase, "id": index,
                    "ts": ts / 1000, "pid": pids[span.lane], "tid": tids[span.lane]}
            if phase == "f":
                flow["bp"] = "e"
            events.append(flow)
    events.sort(key=lambda e: e["ts"])
    return {"traceEvents": meta + events, "displayTimeUnit": "ms", "otherData": {"title": trace.title}}


def to_chrome_trace_json(trace: Trace) -> str:
    """``to_chrome_trace`` as JSON text (a sycl_ocl extension)."""
    return json.dumps(to_chrome_trace(trace), indent=1)


def _threads(trace: Trace) -> tuple[dict[str, int], dict[str, int], list[dict[str, Any]]]:
    """Process and thread ids of each lane, and the metadata events that name them."""
    pids: dict[str, int] = {HOST_LANE: 0}
    tids: dict[str, int] = {HOST_LANE: 0}
    processes = {0: HOST_LANE}
    for lane in trace.lanes:
        name = lane_name(lane)
        device = f"{lane.device}"
        pid = next((p for p, d in processes.items() if d == device), len(processes))
        processes[pid] = device
        pids[name], tids[name] = pid, lane.serial
    meta: list[dict[str, Any]] = [
        {"name": "process_name", "ph": "M", "ts": 0, "pid": pid, "tid": 0, "args": {"name": device}}
        for pid, device in processes.items()
    ]
    for lane in trace.lanes:
        name = lane_name(lane)
        order = "in order" if lane.in_order else "out of order"
        meta.append({"name": "thread_name", "ph": "M", "ts": 0, "pid": pids[name], "tid": tids[name],
                     "args": {"name": f"{name} ({order})"}})
    meta.append({"name": "thread_name", "ph": "M", "ts": 0, "pid": 0, "tid": 0,
                 "args": {"name": "host accessors and read-backs"}})
    return pids, tids, meta
