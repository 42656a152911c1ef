"""A recorded trace as pictures see it: commands, their edges and their spans on one clock.

Host times are ``time.perf_counter_ns``; device times come from OpenCL profiling on the
device's clock. Each device's clock is put on the host's by the offset that the commands
themselves bound: a command is queued (``CL_PROFILING_COMMAND_QUEUED``, device clock) before
the host saw its enqueue return (``OpRecord.started``, host clock), so
``queued - started`` is at most the offset, and the largest such value over the trace is its
best estimate (off by at most the cost of one enqueue).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..scheduler import REASONS, LaneRecord, MemoryRecord, OpRecord
from ..scheduler import TraceSnapshot as Snapshot

HOST_LANE = "host"


@dataclass(frozen=True, slots=True)
class Span:
    """One bar of the timeline: a command, or one of its transfers (``transfer``); a sycl_ocl
    extension."""

    lane: str
    serial: int
    what: str  # the command's kind, or "h2d" / "d2h" for a transfer
    label: str
    short: str  # a shorter label: the kernel's or host task's name, or the kind
    start_ns: int  # since the trace's first span
    end_ns: int
    transfer: bool
    nbytes: int


@dataclass(frozen=True, slots=True)
class DagEdge:
    """``before`` -> ``after`` (serials): ``after`` comes after ``before`` for ``reason``.

    ``state``: ``waited`` (the edge entered the DAG), ``implied`` (both run in order on one
    OpenCL queue, which keeps the order itself) or ``completed`` (``before`` had completed
    when ``after`` was submitted).
    """

    before: int
    after: int
    reason: str
    memory: MemoryRecord | None
    state: str


class Trace:
    """What a recording saw (a sycl_ocl extension): ``ops`` (oldest first), ``edges``, and
    ``spans`` on one clock.

    Build one with ``sycl_ocl.tools.stop_tracing`` or ``current_trace``; draw it with
    ``to_dot``, ``to_chrome_trace`` and ``save_timeline``, or ``save`` for all three.
    """

    def __init__(self, snapshot: Snapshot, title: str = "sycl_ocl trace") -> None:
        self.title = title
        self.edges = _edges(snapshot.ops)
        linked = {e.before for e in self.edges} | {e.after for e in self.edges}
        # An op that never ran and that nothing waits for (a staging op with nothing to read)
        # was never part of the DAG.
        self.ops: list[OpRecord] = [op for op in snapshot.ops if op.what or op.serial in linked]
        self.lanes: list[LaneRecord] = snapshot.lanes
        self.memories: list[MemoryRecord] = snapshot.memories
        self.spans = _spans(self.ops)

    def lane_names(self) -> list[str]:
        """Every lane with a span: the queues in the order they were made, then the host (a
        sycl_ocl extension)."""
        used = {span.lane for span in self.spans}
        names = [lane_name(lane) for lane in self.lanes if lane_name(lane) in used]
        return names + ([HOST_LANE] if HOST_LANE in used else [])

    def save(self, stem: str) -> list[str]:
        """Write ``STEM.dot``, ``STEM.json`` and, with matplotlib installed, ``STEM.png``;
        returns the paths written (a sycl_ocl extension).

        Raises:
            OSError: when a file cannot be written.
        """
        from .chrome import to_chrome_trace_json
        from .dot import to_dot
        from .timeline import save_timeline, timeline_available

        written = []
        for path, text in ((f"{stem}.dot", to_dot(self)), (f"{stem}.json", to_chrome_trace_json(self))):
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
            written.append(path)
        if timeline_available():
            save_timeline(self, f"{stem}.png")
            written.append(f"{stem}.png")
        return written


def lane_name(lane: LaneRecord | None) -> str:
    """``queue N``, or ``host`` for the host ops of no queue (host accessors, read-backs)."""
    return f"queue {lane.serial}" if lane is not None else HOST_LANE


def memory_name(memory: MemoryRecord) -> str:
    """``buffer N``."""
    return f"buffer {memory.serial}"


def command_name(op: OpRecord) -> str:
    """``kernel scale``, ``host task load``, ``copy``, ...; ``pending`` for an op that never ran."""
    what = op.what or "pending"
    return f"{what} {op.name}" if _named(op) else what


def size_text(nbytes: int) -> str:
    """``12 B``, ``4 KiB``, ``1.5 MiB``."""
    value = float(nbytes)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" or value >= 10 else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def transfer_direction(op: OpRecord) -> str:
    """``h2d`` for a device op's transfers (host copy to device), ``d2h`` for a host op's."""
    return "d2h" if op.host else "h2d"


EDGE_STATES = ("waited", "implied", "completed")  # scheduler.trace.WAITED, IMPLIED, COMPLETED


def _edges(ops: list[OpRecord]) -> list[DagEdge]:
    """The recorded edges between recorded ops, one per pair, reason and memory object: the
    scheduler may find one dependency twice (a conflict and a producer), and the one that
    entered the DAG wins."""
    known = {op.serial for op in ops}
    best: dict[tuple[int, int, int, int], DagEdge] = {}
    for op in ops:
        for edge in sorted(op.edges, key=lambda e: e.state):
            key = (edge.other, edge.op, edge.reason, edge.memory.serial if edge.memory is not None else 0)
            if edge.other in known and key not in best:
                best[key] = DagEdge(edge.other, edge.op, REASONS[edge.reason], edge.memory,
                                    EDGE_STATES[edge.state])
    return list(best.values())


def _spans(ops: list[OpRecord]) -> list[Span]:
    offsets = _clock_offsets(ops)
    raw: list[Span] = []
    for op in ops:
        if op.host:
            raw += _host_spans(op)
        elif op.lane is not None and op.lane.device in offsets:
            raw += _device_spans(op, offsets[op.lane.device])
    if not raw:
        return []
    origin = min(span.start_ns for span in raw)
    return sorted(
        (replace(s, start_ns=s.start_ns - origin, end_ns=s.end_ns - origin) for s in raw),
        key=lambda s: (s.start_ns, s.serial),
    )


def _clock_offsets(ops: list[OpRecord]) -> dict[str, int]:
    """Per device: device clock minus host clock (see the module's docstring)."""
    offsets: dict[str, int] = {}
    for op in ops:
        if op.host or op.lane is None or not op.lane.profiled or op.started is None:
            continue
        for times in op.device_times():
            if times is not None:
                bound = times[0] - op.started
                device = op.lane.device
                offsets[device] = max(offsets.get(device, bound), bound)
    return offsets


def _device_spans(op: OpRecord, offset: int) -> list[Span]:
    lane = lane_name(op.lane)
    spans = []
    every = op.device_times()
    for (memory, nbytes), times in zip(op.transfers, every, strict=False):
        if times is not None:
            spans.append(Span(lane, op.serial, "h2d", f"h2d {size_text(nbytes)} {memory_name(memory)}",
                              size_text(nbytes), times[1] - offset, times[2] - offset, True, nbytes))
    times = every[len(op.transfers)] if len(every) > len(op.transfers) else None
    if times is not None:
        spans.append(Span(lane, op.serial, op.what, command_name(op), _short(op), times[1] - offset,
                          times[2] - offset, False, op.nbytes))
    return spans


def _host_spans(op: OpRecord) -> list[Span]:
    if op.started is None or op.finished is None:
        return []
    lane = lane_name(op.lane)
    spans = []
    body_start = op.started
    moved = sum(nbytes for _, nbytes in op.transfers)
    if op.transfers and op.moved is not None:
        buffers = " ".join(sorted({memory_name(m) for m, _ in op.transfers}))
        spans.append(Span(lane, op.serial, "d2h", f"d2h {size_text(moved)} {buffers}", size_text(moved),
                          op.started, op.moved, True, moved))
        body_start = op.moved
    if op.what != "staging read-back" or not op.transfers:
        spans.append(Span(lane, op.serial, op.what, command_name(op), _short(op), body_start, op.finished,
                          False, 0))
    return spans


def _short(op: OpRecord) -> str:
    return op.name if _named(op) else op.what


def _named(op: OpRecord) -> bool:
    """Whether the op has a name of its own (a kernel's, a host task's), not ``<lambda>``."""
    return bool(op.name) and not op.name.startswith("<")


# One color per kind of command, shared by the DAG and the timeline.
_COLORS = {
    "kernel": "#4C72B0", "host task": "#DD8452", "copy": "#55A868", "fill": "#55A868",
    "usm copy": "#55A868", "usm fill": "#55A868", "prefetch": "#55A868", "barrier": "#8C8C8C",
    "host accessor": "#C44E52", "update_host": "#C44E52", "write-back": "#C44E52",
    "staging read-back": "#937860", "h2d": "#8172B3", "d2h": "#DA8BC3",
}


def color(what: str) -> str:
    """The color of a kind of command or transfer (``#RRGGBB``)."""
    return _COLORS.get(what, "#BBBBBB")
