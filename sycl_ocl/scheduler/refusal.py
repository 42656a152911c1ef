"""Failed commands and the bytes they leave (docs/scheduler.md rules S10, S25).

Planning records a command's effect before it runs (rule S1). A command that fails before it
changed anything (refused at enqueue, no thread to run it, its read-back or transfers failed)
is *undone*: the pieces of every copy that still name it take back what they held before its
planning, so that no result computed earlier is lost and no stale copy is served. Commands
planned meanwhile, which name it as the producer of bytes they move, move only the bytes
that were valid at the source before it (``current``). A host task with native access whose
body failed keeps its bytes: its memory holds what the body left. A device command that
failed while running leaves bytes nobody reads back (rule S10).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .intervals import Piece, gaps, insert, overlapping, remove
from .op import DONE, Op, new_op

if TYPE_CHECKING:
    from .memory_object import MemoryObject, Snapshot
    from .op import Move

# Ops that may still be undone: what their planning changed (``plan``'s snapshots), until
# they start (a host op) or are enqueued (a deferred device op).
UNDO: weakref.WeakKeyDictionary[Op, Sequence[tuple[MemoryObject, Snapshot]]] = weakref.WeakKeyDictionary()
# Failed ops whose bytes are worth reading: None, all of them (a native task's body failed);
# else, per memory object, each copy's pieces before the op (it was undone).
KEPT: weakref.WeakKeyDictionary[Op, dict[MemoryObject, dict[int, list[Piece]]] | None] = (
    weakref.WeakKeyDictionary())


def _lost() -> Op:
    """A complete command that failed keeping nothing, of no queue: what a ``KEPT`` entry's
    pieces name in place of such a command."""
    op = new_op(None, 0, True, None)
    op.failed = True
    op.finish()
    return op


LOST = _lost()


def snapshot(memory: MemoryObject) -> Snapshot:
    """What planning changes in ``memory`` (its pieces lists are never changed in place)."""
    return dict(memory.valid), memory.frontier, memory.written


def undo(op: Op) -> None:
    """Undo the planning of ``op``, which failed before changing anything (under the lock):
    each copy's pieces that name it take back what that copy held before, and every copy
    takes back the bytes it held there (nothing wrote them since, or the op's pieces would
    be gone). Plans cached on its memory objects are forgotten (rule S17)."""
    saved = UNDO.pop(op, None)
    if saved is None:
        return
    kept: dict[MemoryObject, dict[int, list[Piece]]] = {}
    for memory, (planned_on, _, _) in saved:
        kept[memory] = before = _unrefused(memory, planned_on)
        for loc, pieces in list(memory.valid.items()):
            for lo, hi, producer in pieces:
                if producer is op:
                    _put_back(memory, before, loc, lo, hi)
        memory.layout = None
    KEPT[op] = kept


def _unrefused(memory: MemoryObject, before: dict[int, list[Piece]]) -> dict[int, list[Piece]]:
    """``before`` (each copy's pieces when an op was planned), but where a piece names a
    command undone since (a chain of refused commands, each planned on the previous one), what
    that command's copy held before it: it never ran, so the bytes there are those, and a
    piece naming a failed command is never read (rule S10). Each ``KEPT`` entry is resolved
    so, so one step reaches the last command that ran. A piece of a command complete names
    none where its bytes are to be read (it ran, or it failed keeping them), ``LOST`` where
    they are not: the entry keeps no command alive, whose dependencies would keep the
    commands before it (a loop of failures would keep every one of them; rule S15)."""
    resolved: dict[int, list[Piece]] = {}
    for loc, pieces in before.items():
        out: list[Piece] = []
        for lo, hi, producer in pieces:
            if producer is None or (producer.state == DONE and not producer.failed):
                out.append((lo, hi, None))
            elif not producer.failed:
                out.append((lo, hi, producer))
            elif producer not in KEPT:  # failed while running: its bytes are never read
                out.append((lo, hi, LOST if producer.state == DONE else producer))
            else:
                undone = KEPT[producer]
                if undone is None:
                    out.append((lo, hi, None if producer.state == DONE else producer))
                else:
                    out += overlapping(undone.get(memory, {}).get(loc, []), lo, hi)
        resolved[loc] = out
    return resolved


def _put_back(memory: MemoryObject, before: dict[int, list[Piece]], loc: int, lo: int, hi: int) -> None:
    valid = memory.valid
    for key in set(valid) | set(before):
        now = valid.get(key, [])
        if key == loc:
            now = remove(now, lo, hi)
        for x, y, producer in overlapping(before.get(key, []), lo, hi):
            for a, b in gaps(now, x, y):
                now = insert(now, a, b, producer)
        valid[key] = now


def keep_bytes(op: Op) -> None:
    """``op`` fails, but its bytes are what its memory holds (a native task's body failed)."""
    KEPT[op] = None


def current(move: Move, source: int, lost_if_failed: bool) -> list[tuple[int, int]]:
    """The byte ranges of ``move`` to copy from location ``source``: all, unless its producer
    failed; then those valid at ``source`` before it where it was undone, all where it kept
    its bytes, else none (``lost_if_failed``: a read back, rule S10) or all."""
    memory, _, lo, hi, producer = move
    if producer is None or not producer.failed:
        return [(lo, hi)]
    if producer not in KEPT:
        return [] if lost_if_failed else [(lo, hi)]
    found = KEPT[producer]
    if found is None:
        return [(lo, hi)]
    return [(a, b) for a, b, _ in overlapping(found.get(memory, {}).get(source, []), lo, hi)]
