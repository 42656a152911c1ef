"""Planning requirements: the dependency edges of an access, and the transfers it needs.

Runs under the scheduler lock at submission time, so the logical state (frontier, validity)
advances in submission order even when the enqueue itself is deferred (docs/scheduler.md
rule S1). Planning touches no OpenCL object: ``tests/unit`` checks it without a device.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._exception import errc, exception
from .context_record import ContextRecord
from .hostops import transfer_op
from .intervals import gaps, insert, overlapping, remove
from .memory_object import HOST, Allocation, MemoryObject, Snapshot
from .op import DONE, ISSUED, Op, add_move, depend
from .refusal import snapshot
from .replay.plans import distinct, layout_of, record
from .requirement import FRONTIER_CAP, READ, WRITE, Requirement, conflicts
from .trace import HAZARD, ORDER, RAW


def plan(op: Op, requirements: Sequence[Requirement], context: ContextRecord, on_host: bool,
         stagers: list[Op], cache: bool = False) -> list[tuple[MemoryObject, Snapshot]]:
    """Plan ``op``'s requirements for a queue of context ``context``, on its device or on the host.

    Returns what to restore if ``op`` cannot be enqueued. Staging reads it needs on their own
    host ops are appended to ``stagers``, to be started by the caller. ``cache``: record the
    plan of each memory object that ``op`` accesses through one requirement, for the next
    command of the same lane to replay (``replayable``; rule S17).
    """
    saved: list[tuple[MemoryObject, Snapshot]] = []
    try:
        _plan_each(op, requirements, context, on_host, stagers, cache, saved)
        return saved  # in the try: interrupted here, the planning is undone too (rule S26)
    except BaseException:  # refused or failed part way: the op never runs, nothing may wait for it
        restore(saved)
        raise


def _plan_each(op: Op, requirements: Sequence[Requirement], context: ContextRecord, on_host: bool,
               stagers: list[Op], cache: bool, saved: list[tuple[MemoryObject, Snapshot]]) -> None:
    last = None
    alloc = None
    for req in requirements if distinct(requirements) else _merged(requirements):
        memory = req.memory
        if memory is last:  # another window of the same memory object: its layout is unknown
            access(req, WRITE if req.writes else READ, alloc, op, stagers)
            continue
        last = memory
        if memory.bound_to is not None and memory.bound_to != context.handle:
            raise exception(
                errc.invalid,
                "the buffer has the context_bound property for another context; use it only "
                "on queues of that context",
            )
        before = snapshot(memory)
        saved.append((memory, before))  # see restore
        alloc = None if on_host else memory.allocation(context)
        if on_host:
            access_on_host(req, WRITE if req.writes else READ, op, stagers)
            continue
        if not cache:
            access(req, WRITE if req.writes else READ, alloc, op, stagers)
            continue
        after, moves, staged = memory.layout, len(op.moves), len(stagers)
        access(req, WRITE if req.writes else READ, alloc, op, stagers)
        memory.layout = layout = layout_of(memory)
        if after is not None and moves == len(op.moves) and staged == len(stagers):
            record(after, layout, req, op, alloc.loc, before)  # type: ignore[union-attr]


def restore(saved: Sequence[tuple[MemoryObject, Snapshot]]) -> None:
    """Undo the planning of a command that will not run (``plan`` returned ``saved``)."""
    for memory, before in saved:
        memory.restore(before)


def _merged(requirements: Sequence[Requirement]) -> list[Requirement]:
    """The requirements grouped by memory object, each group merged (``merge``)."""
    groups: dict[MemoryObject, list[Requirement]] = {}
    for req in requirements:
        groups.setdefault(req.memory, []).append(req)
    return [req for group in groups.values() for req in (group if len(group) == 1 else merge(group))]


def merge(group: list[Requirement]) -> list[Requirement]:
    """One command's requirements on one memory object, overlapping windows merged into one
    (docs/scheduler.md rule S3)."""
    out: list[Requirement] = []
    for req in sorted(group, key=lambda r: (r.lo, r.hi)):
        if out and req.lo < out[-1].hi:
            last = out[-1]
            out[-1] = last._replace(
                hi=max(last.hi, req.hi), writes=last.writes or req.writes,
                needs_old=last.needs_old or req.needs_old,
                view_lo=min(last.view_lo, req.view_lo), view_hi=max(last.view_hi, req.view_hi),
            )
        else:
            out.append(req)
    return out


def access_on_host(req: Requirement, kind: int, op: Op, stagers: list[Op]) -> None:
    """``access`` of ``req`` by a host op (a host task, a host accessor's hold), which leaves
    the layout of the memory object known: the device command after it may replay its plan
    (rule S17; host ops themselves are planned in full)."""
    access(req, kind, None, op, stagers)
    req.memory.layout = layout_of(req.memory)


def access(req: Requirement, kind: int, alloc: Allocation | None, op: Op, stagers: list[Op]) -> None:
    """Plan ``op``'s access of ``kind`` to ``req`` at ``alloc`` (None: the host; docs/scheduler.md
    rule S5).

    Adds the dependencies to ``op.deps`` and the transfers to ``op.moves``; updates the
    frontier and the validity of every copy.
    """
    memory, lo, hi, _, needs_old, view_lo, view_hi = req
    memory.layout = None  # its plans are replayed no more until it is known again (rule S17)
    if memory.exposed:
        memory.disown_host_copy()  # before anything moves from or into it (rule S30)
    if view_lo < view_hi:
        _frontier(memory, view_lo, view_hi, kind, op)
    if lo >= hi:
        return
    loc = HOST if alloc is None else alloc.loc
    valid = memory.valid
    if needs_old:
        pieces = valid.get(loc, [])
        if len(pieces) == 1 and pieces[0][0] <= lo and pieces[0][1] >= hi:
            producers = [pieces[0][2]]  # already valid here as one piece: the common case
        else:
            missing = gaps(pieces, lo, hi)
            if alloc is not None and alloc.linked:
                if missing:
                    _stage(memory, missing, op, stagers)  # the device reads the host copy itself
            else:
                for a, b in missing:
                    if alloc is None:
                        _to_host(memory, a, b, op)
                    else:
                        _to_device(memory, a, b, alloc, op, stagers)
            producers = [p for _, _, p in overlapping(valid.get(loc, []), lo, hi)]
        for producer in producers:
            if producer is not None and producer is not op:
                depend(op, producer, RAW, memory)
    if kind == WRITE:
        memory.written = True
        for key, pieces in valid.items():
            if key != loc and pieces:
                valid[key] = remove(pieces, lo, hi)
        valid[loc] = insert(valid.get(loc, []), lo, hi, op)


def _frontier(memory: MemoryObject, lo: int, hi: int, kind: int, op: Op) -> None:
    """Add edges to the conflicting accesses: views that overlap, and a write or a host
    hold on either side (docs/scheduler.md rules S2, S4)."""
    lane = op.lane
    kept = []
    for entry in memory.frontier:
        other, elo, ehi, ekind = entry
        if other.state == DONE:
            continue
        if other is op or ehi <= lo or elo >= hi:
            kept.append(entry)
            continue
        covered = lo <= elo and ehi <= hi
        if conflicts(kind, ekind):
            depend(op, other, HAZARD[kind][ekind], memory)
            if kind == WRITE and covered:
                continue  # superseded: later users reach it through this op
        elif (covered and kind == READ and ekind == READ and lane is not None
              and other.lane is lane and other.state == ISSUED):
            continue  # an older read on this in-order lane finishes before this one
        kept.append(entry)
    if len(kept) >= FRONTIER_CAP:  # rule S15
        kept = [entry for entry in kept if not entry[0].poll()]
        while len(kept) >= FRONTIER_CAP:
            depend(op, kept.pop(0)[0], ORDER, memory)  # still reachable through this op
    kept.append((op, lo, hi, kind))
    memory.frontier = kept


def _to_host(memory: MemoryObject, lo: int, hi: int, op: Op) -> None:
    """Read back ``[lo, hi)`` from the contexts that hold it (done by the host op itself)."""
    valid = memory.valid
    todo = [(lo, hi)]
    for key, pieces in list(valid.items()):
        if key == HOST or not todo:
            continue
        alloc = memory.allocs[key]
        left: list[tuple[int, int]] = []
        for a, b in todo:
            for x, y, producer in overlapping(pieces, a, b):
                if producer is None or not producer.failed:  # a failed command's bytes stay there (S10)
                    add_move(op, (memory, alloc, x, y, producer))
                    if producer is not None:
                        depend(op, producer, RAW, memory)
                valid[HOST] = insert(valid.get(HOST, []), x, y, op)
            left += gaps(pieces, a, b)
        todo = left


def _to_device(
    memory: MemoryObject, lo: int, hi: int, alloc: Allocation, op: Op, stagers: list[Op]
) -> None:
    """Write ``[lo, hi)`` from the host copy, staging through the host from other contexts."""
    valid = memory.valid
    host_pieces = valid.get(HOST, [])
    missing = gaps(host_pieces, lo, hi)
    if missing:
        _stage(memory, missing, op, stagers)
        host_pieces = valid.get(HOST, [])
    for x, y, producer in overlapping(host_pieces, lo, hi):
        add_move(op, (memory, alloc, x, y, producer))
        if producer is not None:
            depend(op, producer, RAW, memory)
        valid[alloc.loc] = insert(valid.get(alloc.loc, []), x, y, op)


def _stage(memory: MemoryObject, ranges: list[tuple[int, int]], op: Op, stagers: list[Op]) -> None:
    """Read ``ranges`` back to the host copy on a host op of their own (rule S11); the host
    pieces it makes valid name it as producer, so ``op`` depends on it."""
    stager = transfer_op(op.async_errors, staging=True)
    for a, b in ranges:
        _to_host(memory, a, b, stager)
    if stager.moves:
        stagers.append(stager)
