"""Planning one requirement: dependency edges from the frontier, and the transfers it needs.

Runs under the scheduler lock at submission time, so the logical state (frontier, validity)
advances in submission order even when the physical enqueue is deferred (D01).
"""

from __future__ import annotations

from typing import Any

from .intervals import gaps, insert, overlapping, remove
from .memory_object import HOST, HOST_READ, READ, WRITE, Allocation, MemoryObject
from .op import DONE, ISSUED, Op, depend

FRONTIER_CAP = 16

# A transfer: (root, alloc, lo, hi); its direction follows from the op (device op: host to
# alloc; host op: alloc to host).
Move = tuple[MemoryObject, Allocation, int, int]


def access(
    root: MemoryObject, lo: int, hi: int, kind: int, needs_old: bool, alloc: Allocation | None, op: Op,
    moves: list[Move],
) -> None:
    """Plan ``op``'s access to bytes ``[lo, hi)`` of ``root`` at ``alloc`` (None: the host).

    Appends the dependencies to ``op.deps`` and the transfers to ``moves``; updates the
    frontier and the validity of every copy.
    """
    if lo >= hi:
        return
    _frontier(root, lo, hi, kind, op)
    loc = HOST if alloc is None else alloc.loc
    valid = root.valid
    if needs_old:
        pieces = valid.get(loc, [])
        if len(pieces) == 1 and pieces[0][0] <= lo and pieces[0][1] >= hi:
            producers = [pieces[0][2]]  # already valid here as one piece: the common case
        else:
            missing = gaps(pieces, lo, hi)
            if alloc is not None and alloc.linked:
                if missing:
                    _stage(root, missing, op)  # the device reads the host copy itself
            else:
                for a, b in missing:
                    if alloc is None:
                        _to_host(root, a, b, op, moves)
                    else:
                        _to_device(root, a, b, alloc, op, moves)
            producers = [p for _, _, p in overlapping(valid.get(loc, []), lo, hi)]
        for producer in producers:
            if producer is not None and producer is not op:
                depend(op, producer)
    if kind == WRITE:
        root.written = True
        for key, pieces in valid.items():
            if key != loc and pieces:
                valid[key] = remove(pieces, lo, hi)
        valid[loc] = insert(valid.get(loc, []), lo, hi, op)


def _frontier(root: MemoryObject, lo: int, hi: int, kind: int, op: Op) -> None:
    """Add edges to the conflicting accesses (overlap and a write, or a host hold)."""
    lane = op.lane
    kept: list[tuple[Any, int, int, int]] = []
    for entry in root.frontier:
        other, elo, ehi, ekind = entry
        if other.state == DONE:
            continue
        if other is op or ehi <= lo or elo >= hi:
            kept.append(entry)
            continue
        covered = lo <= elo and ehi <= hi
        if kind == WRITE or ekind == WRITE or (kind == READ and ekind == HOST_READ):
            depend(op, other)
            if kind == WRITE and covered:
                continue  # superseded: later users reach it through this op
        elif (covered and kind == READ and ekind == READ and lane is not None
              and other.lane is lane and other.state == ISSUED):
            continue  # an older read on this in-order lane finishes before this one
        kept.append(entry)
    if len(kept) >= FRONTIER_CAP:
        kept = [entry for entry in kept if not entry[0].poll()]
        while len(kept) >= FRONTIER_CAP:
            depend(op, kept.pop(0)[0])  # still reachable through this op
    kept.append((op, lo, hi, kind))
    root.frontier = kept


def _to_host(root: MemoryObject, lo: int, hi: int, op: Op, moves: list[Move]) -> None:
    """Read back ``[lo, hi)`` from the contexts that hold it (done by the host op itself)."""
    valid = root.valid
    todo = [(lo, hi)]
    for key, pieces in list(valid.items()):
        if key == HOST or not todo:
            continue
        alloc = root.allocs[key]
        left: list[tuple[int, int]] = []
        for a, b in todo:
            for x, y, producer in overlapping(pieces, a, b):
                moves.append((root, alloc, x, y))
                if producer is not None:
                    depend(op, producer)
                valid[HOST] = insert(valid.get(HOST, []), x, y, op)
            left += gaps(pieces, a, b)
        todo = left


def _to_device(root: MemoryObject, lo: int, hi: int, alloc: Allocation, op: Op, moves: list[Move]) -> None:
    """Write ``[lo, hi)`` from the host copy, staging through the host from other contexts."""
    valid = root.valid
    host_pieces = valid.get(HOST, [])
    missing = gaps(host_pieces, lo, hi)
    if missing:
        _stage(root, missing, op)
        host_pieces = valid.get(HOST, [])
    for x, y, producer in overlapping(host_pieces, lo, hi):
        moves.append((root, alloc, x, y))
        if producer is not None:
            depend(op, producer)
        valid[alloc.loc] = insert(valid.get(alloc.loc, []), x, y, op)


def _stage(root: MemoryObject, ranges: list[tuple[int, int]], op: Op) -> None:
    """Read ``ranges`` back to the host copy on a host op of their own; the host pieces it
    makes valid name it as producer, so ``op`` depends on it."""
    from .hostops import stage, start

    stager = stage(root, op.async_errors)
    for a, b in ranges:
        _to_host(root, a, b, stager, stager.moves)
    if stager.moves:
        start(stager)
