"""Host accessors as DAG holds (§4.7.4, §3.8.1 Table 6; docs/scheduler.md rule S4).

Constructing one plans a host op that reads (or writes) the window on the host, waits for
the conflicting commands, reads back the missing bytes, and stays incomplete until released:
every later command that touches the buffer depends on it and waits in the DAG (deferred,
never behind a user event), while submit keeps returning at once.
"""

from __future__ import annotations

from .coherence import access, restore
from .hostops import prepare, start, transfer_op
from .memory_object import MemoryObject
from .op import Op
from .progress import drain
from .refusal import UNDO, snapshot
from .requirement import HOST_READ, WRITE, Requirement
from .runtime import RUNTIME


def acquire(req: Requirement) -> Op:
    """Plan and wait for a host hold on ``req``; returns the hold to release.

    Interrupted anywhere (a KeyboardInterrupt), it leaves no hold behind: each ``with RUNTIME``
    is one line (CPython reports the line of a ``with`` again before its exit, where an
    interrupt would skip the release) and the planning undoes itself (rule S23).
    """
    op = None
    try:
        with RUNTIME: op = _plan(req)  # noqa: E701  # one line: see above
        prepare(op)
        return op  # in the try: interrupted here, the hold is released too
    except BaseException:
        if op is not None:
            release(req.memory, op)
        raise


def _plan(req: Requirement) -> Op:
    stagers: list[Op] = []
    op = transfer_op()
    saved = [(req.memory, snapshot(req.memory))]
    try:
        access(req, WRITE if req.writes else HOST_READ, None, op, stagers)
        req.memory.holds.add(op)
        UNDO[op] = saved  # undone if its read-back fails (rule S22)
        for stager in stagers:
            start(stager, saved)
        return op
    except BaseException:
        restore(saved)
        req.memory.holds.discard(op)
        op.finish()
        raise


def release(memory: MemoryObject, op: Op) -> None:
    """End the hold and issue what waited for it (the op finishes first: interrupted after
    that, nothing waits for it)."""
    op.finish()
    with RUNTIME: memory.holds.discard(op)  # noqa: E701  # one line, as in acquire
    if RUNTIME.held():
        RUNTIME.kick()  # a finalizer inside the scheduler: let the progress thread issue
    else:
        drain()
