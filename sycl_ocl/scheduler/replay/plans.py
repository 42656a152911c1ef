"""The plan cache (docs/scheduler.md, "Fast paths"): a requirement planned once from a layout
of its memory object replays that plan whenever the memory object is in that layout again.

``record`` keeps what full planning (``coherence.plan``) decided, by position; ``replayable``
and ``Shape.holds`` find a plan that holds, ``depend_on`` adds its edges and ``apply`` leaves
the frontier and validity that full planning would leave.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..intervals import Piece
from ..op import DEFERRED, DONE, ISSUED, Op, add_edge, depend
from ..requirement import FRONTIER_CAP, READ, WRITE, Requirement, conflicts
from ..trace import HAZARD, RAW

if TYPE_CHECKING:
    from ..lane import Lane
    from ..memory_object import MemoryObject, Snapshot

LAYOUT_CAP = 32  # layouts kept per memory object
PLAN_CAP = 4  # plans kept per layout
_NO_PIECES: list[Piece] = []  # shared, never changed in place
FRONTIER, PIECE = 0, 1  # where a foreign edge's command is found (``Plan.foreign``)
Positions = tuple[tuple[int, int, int], ...]  # pieces, each named by a position (``Plan.pieces``)
Edges = list[tuple[Op, int, "MemoryObject"]]  # edges a replay adds: (command, reason, memory object)


class Layout:
    """Where a memory object stands (docs/scheduler.md rule S17): ``sig``, its frontier and
    validity by position (each frontier entry's window, kind and lane; each copy's byte
    intervals and their producers' lanes), whatever ops fill them. ``plans`` are the plans
    that followed it: planning a requirement from a layout decides by position alone (which
    entries it waits for, keeps, supersedes; which bytes it moves), so a plan made once
    replays whenever the memory object is in that layout again."""

    __slots__ = ("plans", "sig")

    def __init__(self, sig: tuple[Any, ...]) -> None:
        self.sig = sig
        self.plans: list[Plan] = []


class Plan:
    """The plan of ``req`` by a device command of ``lane`` right after the memory object was
    in layout ``after`` (docs/scheduler.md rule S17): it moves no bytes and leaves ``layout``.

    Replaying it for a new op: the frontier keeps the entries at the positions ``keep`` (the
    slice ``span``, where they are consecutive) and adds ``(op, view_lo, view_hi, kind)``
    (``kind`` None: an empty view, no entry); ``waits`` are the positions of the entries
    its view overlaps (``blockers``), each with the reason of its edge (None: no edge, a read
    it drops only while that one is enqueued), ``gone`` those it dropped as done (it replays
    only while those are done), and ``raws``
    the positions of the pieces at ``loc`` whose producers a read waits for. A write's
    validity at ``loc`` (the copy it runs on) becomes ``pieces``: ``(lo, hi, i)``, made valid
    by the producer of the piece at position ``i`` there, or by the new op where ``i`` is -1
    (None: a read, or no bytes: no validity changes; ``alone``: ``[(lo, hi, op)]``, a
    whole-buffer write; ``replaced``: the pieces were those before, at the same positions,
    but the ``(position, lo, hi)`` it names, the new op's); ``others`` are the other copies
    a write changes, each ``(loc, pieces)``: its pieces before, cut where the write made it
    stale, each ``(lo, hi, i)`` kept from the piece at position ``i`` there (a write after a
    host accessor: the host copy's bytes it overwrote are stale). ``foreign``: the edges of
    ``waits`` and ``raws`` to commands of other lanes of its context, each ``(where, i,
    reason)``: the frontier entry (``FRONTIER``) or the piece at ``loc`` (``PIECE``) at
    position ``i``; the layout names each position's lane, so a replay finds there a command
    of that lane, which the OpenCL queue does not order (``crossing``).
    """

    __slots__ = ("after", "alone", "blockers", "foreign", "gone", "hi", "keep", "kind", "lane", "layout",
                 "lo", "loc", "memory", "others", "pieces", "raws", "replaced", "req", "span", "view_hi",
                 "view_lo", "waits")

    def __init__(self, after: Layout, layout: Layout, req: Requirement, lane: Lane, loc: int,
                 keep: tuple[int, ...], waits: tuple[tuple[int, int | None], ...], gone: tuple[int, ...],
                 raws: tuple[int, ...], pieces: Positions | None, old: Sequence[Piece] = (),
                 others: tuple[tuple[int, Positions], ...] = (),
                 foreign: tuple[tuple[int, int, int], ...] = ()) -> None:
        self.after, self.layout, self.req, self.lane, self.loc = after, layout, req, lane, loc
        self.memory: MemoryObject = req.memory
        self.lo, self.hi, self.view_lo, self.view_hi = req.lo, req.hi, req.view_lo, req.view_hi
        self.kind = (WRITE if req.writes else READ) if req.view_lo < req.view_hi else None
        self.keep = keep
        start, stop = (keep[0], keep[0] + len(keep)) if keep else (0, 0)
        self.span = slice(start, stop) if keep == tuple(range(start, stop)) else None
        self.waits = waits
        self.blockers = tuple([i for i, _ in waits])
        self.gone = gone
        self.raws = raws
        self.pieces = pieces
        self.alone = pieces == ((req.lo, req.hi, -1),)
        self.replaced = _replaced(pieces, old)
        self.others = others
        self.foreign = foreign


def _replaced(pieces: Positions | None, old: Sequence[Piece]) -> Positions | None:
    """``Plan.replaced``: where ``pieces`` are the ``old`` ones at the same positions with the
    same bounds but those the new op makes valid, the ``(position, lo, hi)`` of those."""
    if not pieces or len(pieces) != len(old):
        return None
    out = []
    for k, (a, b, j) in enumerate(pieces):
        if j < 0:
            out.append((k, a, b))
        elif j != k or old[k][:2] != (a, b):
            return None
    return tuple(out)




def distinct(requirements: Sequence[Requirement]) -> bool:
    """Whether the requirements are on distinct memory objects, so that none needs merging
    and each can have its plan cached."""
    n = len(requirements)
    if n < 3:  # the common cases, without a set
        return n == 1 or (n == 2 and requirements[0].memory is not requirements[1].memory)
    return len({id(req.memory) for req in requirements}) == n


def layout_of(memory: MemoryObject) -> Layout:
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


def record(after: Layout, layout: Layout, req: Requirement, op: Op, loc: int, before: Snapshot) -> None:
    """Keep, among the plans that followed ``after``, the plan ``op`` just made for ``req``
    (moving no bytes) that left ``layout``, if it decided by position alone: the entries it
    waits for or drops (and the producers of the bytes it reads) are enqueued device commands
    of its context, those it drops without an edge of its own lane (rule S17). Entries it
    dropped as done are ``gone``: it replays only where those are done too. Its edges to
    commands of other lanes are ``foreign``."""
    valid, frontier, _ = before
    memory, lo, hi, writes, needs_old, view_lo, view_hi = req
    lane = op.lane
    ctx = op.ctx
    kind = WRITE if writes else READ
    if len(frontier) + 1 >= FRONTIER_CAP:
        return
    waits, gone = [], []
    foreign: list[tuple[int, int, int]] = []
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
        if other.state != ISSUED or other.host or other.ctx != ctx:
            return
        waits.append((i, reason))
        if other.lane is not lane:  # a conflict: an edge the OpenCL queue does not imply
            foreign.append((FRONTIER, i, HAZARD[kind][ekind]))
    raws: tuple[int, ...] = ()
    pieces = None
    others: tuple[tuple[int, Positions], ...] | None = ()
    old = valid.get(loc, _NO_PIECES)
    if lo < hi:
        if needs_old:  # the producers it reads from, but those the layout says were done
            producers = dict(after.sig[1]).get(loc, ())
            raws = tuple([j for j, (a, b, p) in enumerate(producers) if a < hi and b > lo and p is not True])
            for j in raws:
                producer = old[j][2]
                if producer.state == DEFERRED or producer.host or producer.ctx != ctx:
                    return
                if producer.lane is not lane:
                    foreign.append((PIECE, j, RAW))
        if writes:
            pieces = _pieces(memory.valid[loc], old, op)
            others = _others(memory.valid, valid, loc, op)
            if pieces is None or others is None:
                return
    position = {id(entry): i for i, entry in enumerate(frontier)}
    kept = memory.frontier[:-1] if view_lo < view_hi else memory.frontier
    keep = tuple([position[id(entry)] for entry in kept])
    found = Plan(after, layout, req, lane, loc, keep, tuple(waits), tuple(gone), raws, pieces, old, others,  # type: ignore[arg-type]  # a device op's lane
                 tuple(foreign))
    plans = after.plans
    for i, known in enumerate(plans):
        if known.req == req and known.lane is lane:
            plans[i] = found
            return
    if len(plans) >= PLAN_CAP:
        del plans[0]
    plans.append(found)


def _others(now: dict[int, list[Piece]], before: dict[int, list[Piece]], loc: int,
            op: Op) -> tuple[tuple[int, Positions], ...] | None:
    """``Plan.others``: the copies but ``loc`` whose pieces the write changed, each with its
    pieces named by position among those ``before``; None where one came from nowhere."""
    out = []
    for key, pieces in now.items():
        if key != loc and pieces != before.get(key, pieces):
            mapped = _pieces(pieces, before[key], op)
            if mapped is None:
                return None
            out.append((key, mapped))
    return tuple(out)


def _pieces(now: list[Piece], old: list[Piece], op: Op) -> Positions | None:
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


def crossing(plans: Iterable[Plan]) -> tuple[Edges, list[Any] | None] | None:
    """The edges to commands of other lanes that replaying cached plans (each following the
    layout its memory object is in) adds, each ``(command, reason, memory object)``: one to
    each command not done, each enqueued, its OpenCL queue flushed so that a wait list may
    hold its event (rule S7); with their OpenCL events (None: none). None where one waits in
    the DAG (``submit`` plans it then)."""
    out: Edges = []
    for found in plans:
        if not found.foreign:
            continue
        memory = found.memory
        for where, i, reason in found.foreign:
            other = memory.frontier[i][0] if where == FRONTIER else memory.valid[found.loc][i][2]
            state = other.state
            if state == DEFERRED:
                return None
            if state != DONE:
                for known, _, _ in out:  # one edge each (not any(): its generator costs more)
                    if known is other:
                        break
                else:
                    out.append((other, reason, memory))
    for other, _, _ in out:
        other.lane.flush()  # type: ignore[union-attr]  # a device op's
    return out, [other.event for other, _, _ in out] or None


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


def apply(plans: Iterable[Plan], op: Op, edges: Edges | None = None) -> None:
    """Apply cached plans (of distinct memory objects) for ``op``: the state planning in full
    would leave (rule S17), with ``edges``, those of ``crossing``, to the other lanes' commands
    it waits for (rule S6)."""
    for other, reason, edge_memory in edges or ():
        add_edge(op, other, reason, edge_memory)
    for found in plans:
        memory = found.memory
        span = found.span
        if span is not None:
            kept = memory.frontier[span]
        else:
            frontier = memory.frontier
            kept = [frontier[i] for i in found.keep]
        kind = found.kind
        if kind is not None:
            kept.append((op, found.view_lo, found.view_hi, kind))
        memory.frontier = kept
        pieces = found.pieces
        if pieces is not None:
            replaced = found.replaced
            if found.alone:
                memory.valid[found.loc] = [(found.lo, found.hi, op)]
            elif replaced is not None:
                now = memory.valid[found.loc][:]  # the layout held: the same pieces as recorded
                for k, a, b in replaced:
                    now[k] = (a, b, op)
                memory.valid[found.loc] = now
            else:
                old = memory.valid.get(found.loc, _NO_PIECES)
                memory.valid[found.loc] = [(a, b, op if j < 0 else old[j][2]) for a, b, j in pieces]
            for loc, kept_pieces in found.others:
                old = memory.valid[loc]
                memory.valid[loc] = [(a, b, old[j][2]) for a, b, j in kept_pieces]
            memory.written = True
        memory.layout = found.layout

