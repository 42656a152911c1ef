"""Fakes for the scheduler's pure logic: contexts, lanes and events without OpenCL.

Planning needs only a context's handle and the lane's ordering; nothing here touches a
driver, so the unit tests run with no OpenCL platform installed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from sycl_ocl.scheduler.memory_object import HOST, Allocation, MemoryObject
from sycl_ocl.scheduler.op import ISSUED, Op, new_op
from sycl_ocl.scheduler.requirement import Requirement

SIZE = 64


class FakeContext:
    """What planning reads of a ``ContextRecord``."""

    def __init__(self, handle: int) -> None:
        self.handle = handle
        self.host_unified = False
        self.align = 4
        self.serial = None


class FakeLane:
    """What planning and ``wait_list`` read of a ``Lane``; ``on_flush`` runs at each flush
    (Oclgrind runs a queue's work as it is flushed)."""

    def __init__(self, ctx: int, ordered: bool = True, on_flush: Callable[[], None] | None = None) -> None:
        self.ctx = ctx
        self.context = FakeContext(ctx)
        self.ordered = ordered
        self.profiling = False
        self.cl_queue = None
        self.flushed = 0
        self.on_flush = on_flush

    def flush(self) -> None:
        self.flushed += 1
        if self.on_flush is not None:
            self.on_flush()


class FakeEvent:
    """An enqueued OpenCL command, as ``Op`` and ``wait_list`` see one: running until told,
    and (like some drivers) never calling a callback registered once it has completed."""

    def __init__(self, int_ptr: int = 0x5EED) -> None:
        self.int_ptr = int_ptr
        self.command_execution_status = 1  # running
        self.callbacks: list[Callable[[int], None]] = []

    def get_info(self, param: int) -> int:
        """The status, whatever ``param`` asks (``Op.poll`` asks for nothing else)."""
        return self.command_execution_status

    def set_callback(self, status: int, callback: Callable[[int], None]) -> None:
        if self.command_execution_status > 0:
            self.callbacks.append(callback)

    def complete(self) -> None:
        self.command_execution_status = 0
        for callback in self.callbacks:
            callback(0)


def memory_object(size: int = SIZE, contexts: tuple[int, ...] = (1, 2)) -> MemoryObject:
    """A memory object whose host copy holds the data, with an allocation (no ``cl_mem``) in
    each of ``contexts``."""
    memory = MemoryObject(size, np.zeros(size, dtype=np.uint8), None, False)
    for handle in contexts:
        memory.allocs[handle] = Allocation(None, FakeContext(handle), False)  # type: ignore[arg-type]
    return memory


def req(memory: MemoryObject, lo: int, hi: int, writes: bool = False, needs_old: bool = True,
        view: tuple[int, int] | None = None) -> Requirement:
    """A requirement on ``[lo, hi)``; its view is the whole memory object unless given."""
    view_lo, view_hi = view if view is not None else (0, memory.size)
    return Requirement(memory, lo, hi, writes, needs_old, view_lo, view_hi)


def device_op(lane: Any, issued: bool = False) -> Op:
    """A device op on ``lane`` (enqueued already when ``issued``)."""
    op = new_op(lane, lane.ctx, False, None)
    if issued:
        op.event = FakeEvent()  # type: ignore[assignment]
        op.state = ISSUED
    return op


def host_op() -> Op:
    """A host op (host task or host accessor)."""
    return new_op(None, HOST, True, None)


def reaches(op: Op, target: Op) -> bool:
    """Whether ``op`` depends on ``target``, directly or through other ops."""
    seen: set[int] = set()
    todo = list(op.deps)
    while todo:
        dep = todo.pop()
        if dep is target:
            return True
        if id(dep) not in seen:
            seen.add(id(dep))
            todo.extend(getattr(dep, "deps", ()))
    return False
