"""Starting and stopping the scheduler's trace recorder (a sycl_ocl extension, docs/tracing.md)."""

from __future__ import annotations

from .._exception import errc, exception
from ..scheduler import DEFAULT_CAPACITY, Recorder, start_trace, stop_trace, trace_recorder
from .model import Trace


def start_tracing(capacity: int = DEFAULT_CAPACITY, title: str = "sycl_ocl trace") -> None:
    """Record the commands submitted from now on (a sycl_ocl extension, docs/tracing.md).

    The recorder keeps the last ``capacity`` commands. Every queue constructed while it runs
    gets an OpenCL profiling queue (where the device has ``aspect.queue_profiling``), so the
    timeline has device times; ``event.get_profiling_info`` still needs ``enable_profiling``
    (§4.6.6.2). Starting again replaces the running recording.

    Args:
        capacity: how many of the most recent commands to keep.
        title: the title of the pictures (``Trace.title``).

    Raises:
        sycl.exception: ``errc.invalid`` for a capacity below 1.
    """
    if capacity < 1:
        raise exception(errc.invalid, f"start_tracing: capacity must be at least 1, got {capacity}")
    start_trace(capacity).title = title


def current_trace() -> Trace:
    """What the running recording saw so far (a sycl_ocl extension).

    Raises:
        sycl.exception: ``errc.invalid`` when no recording runs (call ``start_tracing`` first).
    """
    recorder = _running()
    return Trace(recorder.snapshot(), recorder.title)


def stop_tracing() -> Trace:
    """Stop recording and return what was recorded (a sycl_ocl extension).

    Commands still running keep their device times out of the trace: wait for the work first
    (``queue.wait()``).

    Raises:
        sycl.exception: ``errc.invalid`` when no recording runs.
    """
    recorder = _running()
    stop_trace()
    return Trace(recorder.snapshot(), recorder.title)


def _running() -> Recorder:
    running = trace_recorder()
    if running is None:
        raise exception(errc.invalid, "no trace is being recorded: call sycl_ocl.tools.start_tracing() first")
    return running
