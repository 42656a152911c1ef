"""Buffer destruction (§4.7.2.3; D15, D16): wait, then write back when the spec says so.

Finalizers can run while this thread holds the scheduler lock (garbage collection during a
submit) or on a scheduler thread; then the destruction runs on a thread of its own.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

import numpy as np

from .._async_errors import log
from . import holds
from .coherence import access
from .hostops import host_op, prepare
from .memory_object import READ, MemoryObject
from .progress import spawn
from .state import LOCK


def destroy(root: MemoryObject) -> None:
    """Run the destruction semantics of the root's last user handle.

    On a thread of the scheduler (a host op's, the progress thread) or inside it, blocking
    could wait for that very thread: the destruction then runs on a thread of its own.
    """
    if LOCK._is_owned() or threading.current_thread().name.startswith("sycl_ocl-"):  # type: ignore[attr-defined]
        spawn(_guarded, (root,), "sycl_ocl-destroy",
              lambda error: log.error("sycl_ocl: no thread could destroy a buffer: %s", error))
        return
    _guarded_run(root)


def _guarded(root: MemoryObject) -> None:
    try:
        _guarded_run(root)
    except Exception as error:  # a finalizer cannot raise: report it instead
        log.error("sycl_ocl: buffer destruction failed: %s", error)


def _guarded_run(root: MemoryObject) -> None:
    try:
        _destroy(root)
    finally:
        if root.mutex is not None:
            root.mutex.release()
            root.mutex = None


def _destroy(root: MemoryObject) -> None:
    with LOCK:
        unreleased = list(root.holds)
    # Host accessors still open here belong to garbage or outlive a ``with`` block of the
    # buffer: waiting for them would never end, so their access ends now.
    for hold in unreleased:
        holds.release(root, hold)
    if not root.blocking:
        return
    with LOCK:
        ops = [entry[0] for entry in root.frontier]
    for op in ops:
        op.wait()
    target = _target(root)
    if target is None or not root.written or not root.size:
        return
    with LOCK:
        op = host_op(None, None)
        access(root, 0, root.size, READ, True, None, op, op.moves)
    try:
        prepare(op)
    finally:
        op.finish()
    if not (isinstance(target, np.ndarray) and np.shares_memory(target, root.host_copy())):
        _copy_out(root, target)


def _target(root: MemoryObject) -> Any:
    if not root.write_back:
        return None
    target = root.target
    if isinstance(target, weakref.ref):
        return target()
    return target if target is not None else root.user


def _copy_out(root: MemoryObject, target: Any) -> None:
    dst = np.asarray(target)
    src = root.host_copy().view(root.dtype)
    n = min(dst.size, src.size)
    dst.flat[:n] = src[:n]
