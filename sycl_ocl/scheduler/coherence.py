"""Planning requirements: the dependency edges of an access, and the transfers it needs.

Runs under the scheduler lock at submission time, so the logical state (frontier, validity)
advances in submission order even when the enqueue itself is deferred (docs/scheduler.md
rule S1). Planning touches no OpenCL object: ``tests/unit`` checks it without a device.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .._exception import errc, exception
from .context_record import ContextRecord
from .hostops import transfer_op
from .intervals import Piece, gaps, insert, overlapping, remove
from .memory_object import HOST, Allocation, Layout, MemoryObject, Plan, Snapshot
from .op import DEFERRED, DONE, ISSUED, Op, add_move, depend
from .refusal import snapshot
from .requirement import HOST_READ, READ, WRITE, Requirement
from .trace import HAZARD, ORDER, RAW

if TYPE_CHECKING:
    from .lane import Lane

FRONTIER_CAP = 16
LAYOUT_CAP = 8  # layouts kept per memory object
PLAN_CAP = 4  # plans kept per layout
_NO_PIECES: list[Piece] = []  # shared, never changed in place


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
        return saved  # in the try: interrupted here, the planning is undone too (rule S26)
    except BaseException:  # refused or failed part way: the op never runs, nothing may wait for it
        restore(saved)
        raise


def _plan_each(op: Op, requirements: Sequence[Requirement], ctx: ContextRecord, on_host: bool,
               stagers: list[Op], cache: bool, saved: list[tuple[MemoryObject, Snapshot]]) -> None:
    last = None
    alloc = None
    for req in requirements if distinct(requirements) else _merged(requirements):
        memory = req.memory
        if memory is last:  # another window of the same memory object: its layout is unknown
            access(req, WRITE if req.writes else READ, alloc, op, stagers)
            continue
        last = memory
        if memory.bound_to is not None and memory.bound_to != ctx.handle:
            raise exception(
                errc.invalid,
                "the buffer has the context_bound property for another context; use it only "
                "on queues of that context",
            )
        before = snapshot(memory)
        saved.append((memory, before))  # see restore
        alloc = None if on_host else memory.allocation(ctx)
        if not cache:
            access(req, WRITE if req.writes else READ, alloc, op, stagers)
            continue
        after, moves, staged = memory.layout, len(op.moves), len(stagers)
        access(req, WRITE if req.writes else READ, alloc, op, stagers)
        memory.layout = layout = _layout(memory)
        if after is not None and moves == len(op.moves) and staged == len(stagers):
            _record(after, layout, req, op, alloc.loc, before)  # type: ignore[union-attr]


def restore(saved: Sequence[tuple[MemoryObject, Snapshot]]) -> None:
    """Undo the planning of a command that will not run (``plan`` returned ``saved``)."""
    for memory, before in saved:
        memory.restore(before)


def distinct(requirements: Sequence[Requirement]) -> bool:
    """Whether the requirements are on distinct memory objects, so that none needs merging
    and each can have its plan cached."""
    n = len(requirements)
    if n < 3:  # the common cases, without a set
        return n == 1 or (n == 2 and requirements[0].memory is not requirements[1].memory)
    return len({id(req.memory) for req in requirements}) == n


def _layout(memory: MemoryObject) -> Layout:
    """The layout ``memory`` is in now, one of those it was in before where it is the same (a
    producer that is done counts as none: it stays done)."""
    sig = (tuple([(lo, hi, kind, other.lane, other.host) for other, lo, hi, kind in memory.frontier]),
           tuple([(loc, tuple([(a, b, _producer(p)) for a, b, p in pieces]))
                  for loc, pieces in memory.valid.items()]))
    layouts = memory.layouts
    for found in layouts:
        if found.sig == sig:
            return found
    if len(layouts) >= LAYOUT_CAP:
        layouts.clear()  # all at once: a layout left behind is reached by no plan of these
    found = Layout(sig)
    layouts.append(found)
    return found


def _producer(p: Op | None) -> Any:
    """A producer in a layout: its lane and whether it is a host op; True for none or one
    that is done."""
    return p is None or p.state == DONE or (p.lane, p.host)


def _record(after: Layout, layout: Layout, req: Requirement, op: Op, loc: int, before: Snapshot) -> None:
    """Keep, among the plans that followed ``after``, the plan ``op`` just made for ``req``
    (moving no bytes) that left ``layout``, if it decided by position alone: the entries it
    waits for or drops (and the producers of the bytes it reads) are device commands of its
    own lane, enqueued, and it changed no other copy (rule S17). Entries it dropped as done
    are ``gone``: it replays only where those are done too."""
    valid, frontier, _ = before
    memory, lo, hi, writes, needs_old, view_lo, view_hi = req
    lane = op.lane
    kind = WRITE if writes else READ
    if len(frontier) + 1 >= FRONTIER_CAP:
        return
    waits, gone = [], []
    for i, (other, elo, ehi, ekind) in enumerate(frontier):
        if other.state == DONE:
            gone.append(i)  # dropped as done: a replay drops it only where it is done too
            continue
        if elo >= view_hi or ehi <= view_lo:
            continue
        if conflicts(kind, ekind):
            reason: int | None = HAZARD[kind][ekind]
        elif other.lane is lane and view_lo <= elo and ehi <= view_hi:
            reason = None  # a read of its lane that it covers: dropped only once enqueued
        else:
            continue  # a read of another lane, or one it does not cover: kept in any state
        if other.lane is not lane or other.state != ISSUED or other.host:
            return
        waits.append((i, reason))
    found = Plan()
    found.raws = ()
    found.pieces = None
    if lo < hi:
        old = valid.get(loc, _NO_PIECES)
        if needs_old:  # the producers it reads from, but those the layout says were done
            producers = dict(after.sig[1]).get(loc, ())
            found.raws = tuple([j for j, (a, b, p) in enumerate(producers)
                                if a < hi and b > lo and p is not True])
            if any(old[j][2].lane is not lane or old[j][2].state == DEFERRED or old[j][2].host
                   for j in found.raws):
                return
        if writes:
            found.pieces = _pieces(memory.valid[loc], old, op)
            changed = [key for key, now in memory.valid.items() if key != loc and now != valid.get(key, now)]
            if found.pieces is None or changed:
                return
    position = {id(entry): i for i, entry in enumerate(frontier)}
    kept = memory.frontier[:-1] if view_lo < view_hi else memory.frontier
    found.keep = keep = tuple([position[id(entry)] for entry in kept])
    found.prefix = len(keep) if keep == tuple(range(len(keep))) else None
    found.alone = found.pieces == ((lo, hi, -1),)
    found.lo, found.hi = lo, hi
    found.waits = tuple(waits)
    found.gone = tuple(gone)
    found.blockers = tuple([i for i, _ in waits])
    found.after, found.layout, found.memory, found.req, found.lane = after, layout, memory, req, lane  # type: ignore[assignment]
    found.loc, found.view_lo, found.view_hi = loc, view_lo, view_hi
    found.kind = kind if view_lo < view_hi else None
    plans = after.plans
    for i, known in enumerate(plans):
        if known.req == req and known.lane is lane:
            plans[i] = found
            return
    if len(plans) >= PLAN_CAP:
        del plans[0]
    plans.append(found)


def _pieces(now: list[Piece], old: list[Piece], op: Op) -> tuple[tuple[int, int, int], ...] | None:
    """The pieces of a copy that ``op`` wrote, each named by where its producer was among
    ``old``, the pieces before (-1: ``op`` itself); None where one came from nowhere there."""
    out = []
    for a, b, p in now:
        if p is op:
            out.append((a, b, -1))
            continue
        for j, (x, y, q) in enumerate(old):
            if q is p and x <= a and b <= y:
                out.append((a, b, j))
                break
        else:
            return None
    return tuple(out)


def following(req: Requirement, lane: Lane) -> Plan | None:
    """The plan of ``req`` by a command of ``lane`` that followed the layout its memory
    object is in (docs/scheduler.md rule S17), if one was made."""
    layout = req.memory.layout
    if layout is not None:
        for found in layout.plans:
            if (found.req is req or found.req == req) and found.lane is lane:
                return found
    return None


def blocked(plans: Iterable[Plan]) -> bool:
    """Whether replaying cached plans (of distinct memory objects, each following the layout
    its memory object is in) needs an edge: one of the commands they would wait for (device
    commands of their lane: enqueued ones are implied, rule S6) waits in the DAG. Only while
    some command does (``RUNTIME.deferred``): ``Shape.holds`` asks then."""
    for found in plans:
        memory = found.memory
        frontier = memory.frontier
        for i in found.blockers:
            if frontier[i][0].state == DEFERRED:
                return True
        if found.raws:
            pieces = memory.valid[found.loc]
            for j in found.raws:
                if pieces[j][2].state == DEFERRED:
                    return True
    return False


def finished(found: Plan) -> bool:
    """Whether the entries ``found`` dropped as done (``gone``) are done where it replays."""
    frontier = found.memory.frontier
    return all(frontier[i][0].state == DONE for i in found.gone)


def replayable(req: Requirement, lane: Lane) -> Plan | None:
    """The cached plan of ``req`` for a device command of ``lane`` (an in-order OpenCL queue),
    if it holds (docs/scheduler.md rule S17): one followed the memory object's layout, and
    for a read, none of the commands whose entries it keeps or drops waits in the DAG (a
    read drops an earlier read of its lane only once that one is enqueued). ``depend_on``
    then adds the edges full planning would add."""
    found = following(req, lane)
    if found is None or (found.gone and not finished(found)):
        return None
    if req.writes:
        return found
    frontier = req.memory.frontier
    for i in found.blockers:
        if frontier[i][0].state == DEFERRED:
            return None
    return found


def depend_on(found: Plan, op: Op) -> None:
    """Make ``op`` wait, as full planning would, for what ``found`` waits for (the edges
    that are implied or to completed commands are dropped: rule S6)."""
    memory = found.memory
    frontier = memory.frontier
    for i, reason in found.waits:
        if reason is not None:
            depend(op, frontier[i][0], reason, memory)
    if found.raws:
        pieces = memory.valid[found.loc]
        for j in found.raws:
            depend(op, pieces[j][2], RAW, memory)


def replay(plans: Iterable[Plan], op: Op) -> None:
    """Apply cached plans (of distinct memory objects) for ``op``: the state planning in full
    would leave (rule S17)."""
    for found in plans:
        memory = found.memory
        prefix = found.prefix
        if prefix is not None:
            kept = memory.frontier[:prefix]
        else:
            frontier = memory.frontier
            kept = [frontier[i] for i in found.keep]
        kind = found.kind
        if kind is not None:
            kept.append((op, found.view_lo, found.view_hi, kind))
        memory.frontier = kept
        pieces = found.pieces
        if pieces is not None:
            if found.alone:
                memory.valid[found.loc] = [(found.lo, found.hi, op)]
            else:
                old = memory.valid.get(found.loc, _NO_PIECES)
                memory.valid[found.loc] = [(a, b, op if j < 0 else old[j][2]) for a, b, j in pieces]
            memory.written = True
        memory.layout = found.layout


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
    memory.layout = None  # its plans are replayed no more until it is known again (rule S17)
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


def conflicts(kind: int, other: int) -> bool:
    """Whether an access of ``kind`` waits for an earlier one of kind ``other`` on an
    overlapping view: a write on either side, or a read after a host hold (rule S2, S4)."""
    return kind == WRITE or other == WRITE or (kind == READ and other == HOST_READ)


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
