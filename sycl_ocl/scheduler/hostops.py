"""Host ops: host tasks, host-side copies, host accessors and staging reads (§4.10, §4.7.4;
docs/scheduler.md rule S11).

A host op waits for its dependencies on its own thread, reads back what it needs from the
devices with blocking copies (so no host transfer is ever gated on a user event), runs its
body, then lets the deferred device ops that waited on it go.
"""

from __future__ import annotations

from contextlib import suppress
from typing import TYPE_CHECKING, Any

import pyopencl as cl

from .._native import translate
from ..exception import errc, exception
from . import trace
from .actions import HostTask
from .memory_object import HOST
from .op import Op
from .progress import drain, spawn

if TYPE_CHECKING:
    from .._async_errors import AsyncErrors
    from .memory_object import MemoryObject


def transfer_op(
    async_errors: AsyncErrors | None = None, staging: bool = False, what: str = "host accessor"
) -> Op:
    """A host op whose whole work is its transfers to the host: a host accessor's or a buffer's
    write-back (run by their caller, which gets its errors; ``what`` names it in traces), or a
    read-back on the way to another context (``staging``, reporting to ``async_errors``)."""
    op = Op(None, HOST, True, async_errors)
    op.work = HostTask(None, staging, what)
    return op


def start(op: Op) -> None:
    """Run the host op on its own thread."""
    spawn(_run, (op,), "sycl_ocl-host-op",
          lambda error: op.fail(exception(errc.runtime, f"no thread could run a host command: {error}")))


def _run(op: Op) -> None:
    try:
        prepare(op)
        body = op.work.fn
        if body is not None:
            body()
    except exception as error:
        op.fail(error)
    except Exception as error:  # the user's host task raised: errc.runtime, caused by it
        failure = exception(errc.runtime, f"a host task raised {error!r}")
        failure.__cause__ = error  # keeps the original and its traceback (docs/scheduler.md rule S10)
        op.fail(failure)
    else:
        op.finish()
    drain()


def prepare(op: Op) -> None:
    """Wait for the dependencies, then read the needed bytes back into the host copies.

    A failed dependency does not stop the op: it runs and reports its own errors
    (docs/scheduler.md rule S10).
    """
    for dep in op.deps:
        with suppress(exception):  # a failed interop event: it ended, all this op waits for
            dep.wait()
    recorder = trace.RECORDER
    if recorder is not None:
        recorder.started(op)
    staging = op.work.staging
    for memory, alloc, lo, hi in op.moves:
        read_back(memory, alloc, lo, hi, staging)
    if recorder is not None:
        recorder.moved(op)


def read_back(memory: MemoryObject, alloc: Any, lo: int, hi: int, staging: bool = False) -> None:
    """Blocking copy of bytes ``[lo, hi)`` from ``alloc`` into the memory object's host copy."""
    host = memory.host_copy()
    serial = alloc.ctx.serial
    try:
        if serial is not None:
            with serial:
                _copy_back(alloc, host, lo, hi)
        else:
            _copy_back(alloc, host, lo, hi)
    except cl.Error as error:
        raise translate(error, f"reading {hi - lo} bytes back to the host") from error
    counters = memory.counters
    counters.d2h_bytes += hi - lo
    counters.d2h_copies += 1
    if staging:
        counters.staged_bytes += hi - lo


def _copy_back(alloc: Any, host: Any, lo: int, hi: int) -> None:
    cl.enqueue_copy(alloc.ctx.transfer_queue(), host[lo:hi], alloc.buf, src_offset=lo, is_blocking=True)
