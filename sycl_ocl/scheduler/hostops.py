"""Host ops: host tasks, host-side copies, host accessors and staging reads (§4.10, §4.7.4).

A host op waits for its dependencies on its own thread, reads back what it needs from the
devices with blocking copies (so no host transfer is ever gated on a user event), runs its
body, then lets the deferred device ops that waited on it go.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pyopencl as cl

from .._native import translate
from ..exception import errc, exception
from .memory_object import HOST
from .op import Op
from .progress import drain, spawn

if TYPE_CHECKING:
    from .._async_errors import AsyncErrors
    from .memory_object import MemoryObject


class HostWork:
    """What a host op does once its dependencies completed."""

    __slots__ = ("body", "staging")

    def __init__(self, body: Callable[[], Any] | None, staging: bool = False) -> None:
        self.body = body
        self.staging = staging


def host_op(async_errors: AsyncErrors | None, body: Callable[[], Any] | None, lane: Any = None) -> Op:
    """A new host op (not started)."""
    op = Op(lane, HOST, True, async_errors)
    op.work = HostWork(body)
    return op


def stage(root: MemoryObject, async_errors: AsyncErrors | None) -> Op:
    """A host op reading data back to the host copy on its way to another context."""
    op = Op(None, HOST, True, async_errors)
    op.work = HostWork(None, staging=True)
    return op


def start(op: Op) -> None:
    """Run the host op on its own thread."""
    spawn(_run, (op,), "sycl_ocl-host-op",
          lambda error: op.fail(exception(errc.runtime, f"no thread could run a host command: {error}")))


def _run(op: Op) -> None:
    try:
        prepare(op)
        body = op.work.body
        if body is not None:
            body()
    except exception as error:
        op.fail(error)
    except Exception as error:  # the user's host task raised
        op.fail(exception(errc.runtime, f"a host task raised {error!r}"))
    else:
        op.finish()
    drain()


def prepare(op: Op) -> None:
    """Wait for the dependencies, then read the needed bytes back into the host copies."""
    for dep in op.deps:
        dep.wait()
    for dep in op.deps:
        if getattr(dep, "failed", False):
            raise exception(
                errc.runtime, "not run: a command it depends on failed (see the earlier error)"
            )
    staging = op.work.staging
    for root, alloc, lo, hi in op.moves:
        read_back(root, alloc, lo, hi, staging)


def read_back(root: MemoryObject, alloc: Any, lo: int, hi: int, staging: bool = False) -> None:
    """Blocking copy of bytes ``[lo, hi)`` from ``alloc`` into the root's host copy."""
    host = root.host_copy()
    serial = alloc.ctx.serial
    try:
        if serial is not None:
            with serial:
                _copy_back(alloc, host, lo, hi)
        else:
            _copy_back(alloc, host, lo, hi)
    except cl.Error as error:
        raise translate(error, f"reading {hi - lo} bytes back to the host") from error
    counters = root.counters
    counters.d2h_bytes += hi - lo
    counters.d2h_copies += 1
    if staging:
        counters.staged_bytes += hi - lo


def _copy_back(alloc: Any, host: Any, lo: int, hi: int) -> None:
    cl.enqueue_copy(alloc.ctx.transfer_queue(), host[lo:hi], alloc.buf, src_offset=lo, is_blocking=True)
