"""Buffer destruction (§4.7.2.3; D15, D16): wait, then write back when the spec says so.

Finalizers can run while this thread holds the scheduler lock (garbage collection during a
submit); then the destruction is queued and run at the next submit, outside the lock.
"""

from __future__ import annotations

import logging
import weakref
from typing import Any

import numpy as np

from .coherence import access
from .hostops import host_op, prepare
from .memory import READ, Root
from .state import LOCK

log = logging.getLogger("sycl_ocl")

pending: list[Root] = []


def destroy(root: Root) -> None:
    """Run the destruction semantics of the root's last user handle."""
    if LOCK._is_owned():  # type: ignore[attr-defined]
        pending.append(root)
        return
    try:
        _destroy(root)
    finally:
        if root.mutex is not None:
            root.mutex.release()
            root.mutex = None


def run_pending() -> None:
    """Destructions queued by finalizers that ran inside the scheduler."""
    while pending:
        root = pending.pop()
        try:
            destroy(root)
        except Exception as error:  # a finalizer cannot raise: report it instead
            log.error("sycl_ocl: buffer destruction failed: %s", error)


def _destroy(root: Root) -> None:
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
        access(root, 0, root.size, READ, True, None, op, op.work.moves)
    try:
        prepare(op)
    finally:
        op.finish()
    if not (isinstance(target, np.ndarray) and np.shares_memory(target, root.host_copy())):
        _copy_out(root, target)


def _target(root: Root) -> Any:
    if not root.write_back:
        return None
    target = root.target
    if isinstance(target, weakref.ref):
        return target()
    return target if target is not None else root.user


def _copy_out(root: Root, target: Any) -> None:
    dst = np.asarray(target)
    src = root.host_copy().view(root.dtype)
    n = min(dst.size, src.size)
    dst.flat[:n] = src[:n]
