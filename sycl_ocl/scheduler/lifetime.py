"""Buffer destruction (§4.7.2.3; docs/scheduler.md rule S13): wait, then write back when the
spec says so.

Finalizers can run while this thread holds the scheduler lock (garbage collection during a
submit) or on a scheduler thread; then a destruction that may block runs on a thread of its
own. A garbage collection runs finalizers at any point of the thread that triggered it, even
inside a lock of the standard library (an Event's condition) that the destruction's own work
takes: during a collection, finalizers only queue their work, lock-free, for the progress
thread (rule S19).
"""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from .._async_errors import log
from . import holds
from .coherence import access
from .hostops import prepare, transfer_op
from .memory_object import MemoryObject
from .op import Op
from .progress import run_logged, spawn
from .requirement import READ, Requirement
from .runtime import RUNTIME

_collection = threading.local()  # .running: a garbage collection runs on this thread


def _note_collection(phase: str, info: dict[str, int]) -> None:
    _collection.running = phase == "start"


gc.callbacks.append(_note_collection)


def finalize(work: Callable[[], Any], what: str) -> None:
    """Run a finalizer's ``work`` now, or, during a garbage collection, queue it for the
    progress thread (``what`` names it in the log if it fails)."""
    if getattr(_collection, "running", False) and RUNTIME.thread is not None:
        RUNTIME.finalizers.append((work, what))
        RUNTIME.kick()
        return
    run_logged(work, what)


def destroy(memory: MemoryObject) -> None:
    """Run the destruction semantics of the memory object's last user handle.

    On a thread of the scheduler (a host op's, the progress thread) or inside it, blocking
    could wait for that very thread: a destruction that may block then runs on a thread of
    its own.
    """
    if (RUNTIME.held() or RUNTIME.on_own_thread()) and _may_block(memory):
        spawn(run_logged, (partial(_guarded_run, memory), "buffer destruction"), "sycl_ocl-destroy",
              lambda error: log.error("sycl_ocl: no thread could destroy a buffer: %s", error))
        return
    _guarded_run(memory)


def _may_block(memory: MemoryObject) -> bool:
    if not memory.blocking:
        return False
    return not all(op.poll() for op in _frontier_ops(memory)) or _write_back_target(memory) is not None


def _frontier_ops(memory: MemoryObject) -> list[Op]:
    """The commands the destruction waits for: the last accesses of the memory object."""
    with RUNTIME:
        return [entry[0] for entry in memory.frontier]


def _guarded_run(memory: MemoryObject) -> None:
    try:
        _destroy(memory)
    finally:
        if memory.mutex is not None:
            memory.mutex.release()
            memory.mutex = None


def _destroy(memory: MemoryObject) -> None:
    with RUNTIME:
        unreleased = list(memory.holds)
    # Host accessors still open here belong to garbage or outlive a ``with`` block of the
    # buffer: waiting for them would never end, so their access ends now.
    for hold in unreleased:
        holds.release(memory, hold)
    if not memory.blocking:
        return
    accesses = _frontier_ops(memory)
    target = _write_back_target(memory)
    if target is not None:
        _write_back(memory, target)  # waits for the writers the bytes come from
    for op in accesses:
        op.wait()


def _write_back(memory: MemoryObject, target: Any) -> None:
    """Read the memory object's bytes back and copy them to ``target``."""
    stagers: list[Op] = []
    with RUNTIME:
        op = transfer_op(what="write-back")
        access(Requirement(memory, 0, memory.size, False, True, 0, memory.size), READ, None, op, stagers)
    try:
        prepare(op)
    finally:
        op.finish()
    if not (isinstance(target, np.ndarray) and np.shares_memory(target, memory.host_copy())):
        _copy_out(memory, target)


def _write_back_target(memory: MemoryObject) -> Any:
    """Where destruction writes the data back; None when there is nothing to write."""
    if not memory.write_back or not memory.written or not memory.size:
        return None
    target = memory.target
    if isinstance(target, weakref.ref):
        return target()
    return target if target is not None else memory.user


def _copy_out(memory: MemoryObject, target: Any) -> None:
    dst = np.asarray(target)
    src = memory.host_copy().view(memory.dtype)
    n = min(dst.size, src.size)
    dst.flat[:n] = src[:n]
