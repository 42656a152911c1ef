"""Planning requirements: the dependency edges of an access, and the transfers it needs.

Runs under the scheduler lock at submission time, so the logical state (frontier, validity)
advances in submission order even when the enqueue itself is deferred (docs/scheduler.md
rule S1). Planning touches no OpenCL object: ``tests/unit`` checks it without a device.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ..exception import errc, exception
from .context_record import ContextRecord
from .hostops import transfer_op
from .intervals import Piece, gaps, insert, overlapping, remove
from .memory_object import HOST, Access, Allocation, MemoryObject, Plan, Snapshot
from .op import DEFERRED, DONE, ISSUED, Op, add_move, depend
from .requirement import HOST_READ, READ, WRITE, Requirement
from .trace import HAZARD, ORDER, RAW

if TYPE_CHECKING:
    from .lane import Lane

FRONTIER_CAP = 16
_NO_PIECES: list[Piece] = []  # shared, never changed in place (``replay`` copies it)


def plan(op: Op, requirements: Sequence[Requirement], ctx: ContextRecord, on_host: bool,
         stagers: list[Op], cache: bool = False) -> list[tuple[MemoryObject, Snapshot]]:
    """Plan ``op``'s requirements for a queue of context ``ctx``, on its device or on the host.

    Returns what to restore if ``op`` cannot be enqueued. Staging reads it needs on their own
    host ops are appended to ``stagers``, to be started by the caller. ``cache``: record the
    plan of each memory object that ``op`` accesses through one requirement, for the next
    command of the same lane to replay (``replayable``; rule S17).
    """
    saved: list[tuple[MemoryObject, Snapshot]] = []
    try:
        _plan_each(op, requirements, ctx, on_host, stagers, cache, saved)
    except BaseException:  # refused or failed part way: the op never runs, nothing may wait for it
        restore(saved)
        raise
    return saved


def _plan_each(op: Op, requirements: Sequence[Requirement], ctx: ContextRecord, on_host: bool,
               stagers: list[Op], cache: bool, saved: list[tuple[MemoryObject, Snapshot]]) -> None:
    last = None
    alloc = None
    for req in requirements if distinct(requirements) else _merged(requirements):
        memory = req.memory
        if memory is last:  # another window of the same memory object: no plan to replay
            access(req, WRITE if req.writes else READ, alloc, op, stagers)
            memory.plan = None
            continue
        last = memory
        if memory.bound_to is not None and memory.bound_to != ctx.handle:
            raise exception(
                errc.invalid,
                "the buffer has the context_bound property for another context; use it only "
                "on queues of that context",
            )
        saved.append((memory, (dict(memory.valid), memory.frontier, memory.written)))  # see restore
        alloc = None if on_host else memory.allocation(ctx)
        access(req, WRITE if req.writes else READ, alloc, op, stagers)
        if cache:
            _record(memory, req, op)


def restore(saved: Sequence[tuple[MemoryObject, Snapshot]]) -> None:
    """Undo the planning of a command that will not run (``plan`` returned ``saved``)."""
    for memory, snapshot in saved:
        memory.restore(snapshot)


def distinct(requirements: Sequence[Requirement]) -> bool:
    """Whether the requirements are on distinct memory objects, so that none needs merging
    and each can have its plan cached (told for one or two; more are merged in any case)."""
    n = len(requirements)
    return n == 1 or (n == 2 and requirements[0].memory is not requirements[1].memory)


def _record(memory: MemoryObject, req: Requirement, op: Op) -> None:
    """Keep the plan ``op`` just made for ``req`` on ``memory`` (rule S17); the first replay
    puts it in the terms it applies it in (``_prepare``): most plans are never replayed."""
    found = memory.plan
    if found is None:
        found = memory.plan = Plan()
        found.memory = memory
    found.req, found.op, found.epoch, found.base = req, op, memory.epoch, None


def _prepare(found: Plan) -> list[Access]:
    """Derive from the memory object, as the plan's command left it (its epoch holds), what
    ``replay`` puts in place of that command: the frontier without its entry (returned), and
    the validity around its window."""
    memory, op = found.memory, found.op
    frontier = memory.frontier
    found.base = base = frontier[:-1] if frontier and frontier[-1][0] is op else frontier
    _, lo, hi, writes, _, view_lo, view_hi = found.req  # unpacked: a field of a named tuple is a call
    found.view_lo, found.view_hi, found.lo, found.hi = view_lo, view_hi, lo, hi
    found.kind = None if view_lo >= view_hi else WRITE if writes else READ
    found.loc = None
    if writes and lo < hi:
        found.loc = loc = memory.allocs[op.ctx].loc
        pieces = memory.valid[loc]
        if len(pieces) == 1:  # this op's window is all there is (a whole-buffer write)
            found.pre = found.post = _NO_PIECES
        else:
            found.pre = [piece for piece in pieces if piece[1] <= lo]
            found.post = [piece for piece in pieces if piece[0] >= hi]
    return base


def replayable(req: Requirement, lane: Lane) -> Plan | None:
    """The cached plan of ``req`` for a device command of ``lane`` (an in-order OpenCL queue),
    if it still holds (docs/scheduler.md rule S17).

    It holds when nothing changed the memory object since the last command of ``lane`` with
    the same requirement (its epoch), and, for a read, when that command was enqueued or
    done: then everything the new command would wait for, that command waited for, and the
    OpenCL queue orders the new command after it. A write waits for that command instead
    (``replay``), as full planning would.
    """
    memory = req.memory
    found = memory.plan
    if found is None or found.epoch != memory.epoch or (found.req is not req and found.req != req):
        return None
    prev = found.op
    if prev.lane is not lane or (not req.writes and prev.state == DEFERRED):
        return None
    return found


def replay(plans: Iterable[Plan], op: Op) -> None:
    """Apply cached plans (of distinct memory objects) for ``op``: the state planning in full
    would leave (rule S17)."""
    for found in plans:
        base = found.base
        if base is None:
            base = _prepare(found)
        memory = found.memory
        kind = found.kind
        if kind is None:
            memory.frontier = base
        else:
            memory.frontier = [*base, (op, found.view_lo, found.view_hi, kind)]
        loc = found.loc
        if loc is not None:
            memory.valid[loc] = [*found.pre, (found.lo, found.hi, op), *found.post]
        memory.epoch = found.epoch = memory.epoch + 1
        found.op = op


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


def access(req: Requirement, kind: int, alloc: Allocation | None, op: Op, stagers: list[Op]) -> None:
    """Plan ``op``'s access of ``kind`` to ``req`` at ``alloc`` (None: the host; docs/scheduler.md
    rule S5).

    Adds the dependencies to ``op.deps`` and the transfers to ``op.moves``; updates the
    frontier and the validity of every copy.
    """
    memory, lo, hi, _, needs_old, view_lo, view_hi = req
    memory.epoch += 1  # any cached plan of this memory object is out of date (rule S17)
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
        if kind == WRITE or ekind == WRITE or (kind == READ and ekind == HOST_READ):
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
                add_move(op, (memory, alloc, x, y))
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
        add_move(op, (memory, alloc, x, y))
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
