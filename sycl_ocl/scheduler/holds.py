"""Host accessors as DAG holds (§4.7.4, §3.8.1 Table 6; docs/scheduler.md rule S4).

Constructing one plans a host op that reads (or writes) the window on the host, waits for
the conflicting commands, reads back the missing bytes, and stays incomplete until released:
every later command that touches the buffer depends on it and waits in the DAG (deferred,
never behind a user event), while submit keeps returning at once.
"""

from __future__ import annotations

from .coherence import access
from .hostops import prepare, start, transfer_op
from .memory_object import MemoryObject
from .op import Op
from .progress import drain
from .refusal import UNDO, snapshot
from .requirement import HOST_READ, WRITE, Requirement
from .runtime import RUNTIME


def acquire(req: Requirement) -> Op:
    """Plan and wait for a host hold on ``req``; returns the hold to release."""
    stagers: list[Op] = []
    with RUNTIME:
        op = transfer_op()
        saved = [(req.memory, snapshot(req.memory))]
        UNDO[op] = saved  # undone if its read-back fails (rule S22)
        access(req, WRITE if req.writes else HOST_READ, None, op, stagers)
        req.memory.holds.add(op)
        for stager in stagers:
            start(stager, saved)
    try:
        prepare(op)
    except BaseException:
        release(req.memory, op)
        raise
    return op


def release(memory: MemoryObject, op: Op) -> None:
    """End the hold and issue what waited for it."""
    with RUNTIME:
        memory.holds.discard(op)
    op.finish()
    if RUNTIME.held():
        RUNTIME.kick()  # a finalizer inside the scheduler: let the progress thread issue
    else:
        drain()
