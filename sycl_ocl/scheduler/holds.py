"""Host accessors as DAG holds (§4.7.4, §3.8.1 Table 6; D06).

Constructing one plans a host op that reads (or writes) the window on the host, waits for
the conflicting commands, reads back the missing bytes, and stays incomplete until released:
every later command that touches the window depends on it and waits in the DAG (deferred,
never behind a user event), while submit keeps returning at once.
"""

from __future__ import annotations

from .coherence import access
from .hostops import host_op, prepare
from .memory_object import HOST_READ, WRITE, MemoryObject
from .op import Op
from .progress import drain, kick
from .state import LOCK


def acquire(root: MemoryObject, lo: int, hi: int, writes: bool, needs_old: bool) -> Op:
    """Plan and wait for a host hold on bytes ``[lo, hi)``; returns the hold to release."""
    with LOCK:
        op = host_op(None, None)
        access(root, lo, hi, WRITE if writes else HOST_READ, needs_old, None, op, op.moves)
        root.holds.add(op)
    try:
        prepare(op)
    except BaseException:
        release(root, op)
        raise
    return op


def release(root: MemoryObject, op: Op) -> None:
    """End the hold and issue what waited for it."""
    with LOCK:
        root.holds.discard(op)
    op.finish()
    if LOCK._is_owned():  # type: ignore[attr-defined]
        kick()  # a finalizer inside the scheduler: let the progress thread issue
    else:
        drain()
