"""Enqueueing a planned device op: its host-to-device transfers (``op.moves``), then its action
(``op.work``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._native import cl, translate
from .actions import KernelLaunch
from .memory_object import HOST
from .refusal import current
from .runtime import to_the_end

if TYPE_CHECKING:
    from .actions import DeviceAction
    from .lane import Lane
    from .op import Op


def issue(op: Op, wait_for: list[cl.Event] | None) -> None:
    """Enqueue ``op`` on its lane after ``wait_for`` (the lane's in-order queue does the rest)."""
    lane: Lane = op.lane  # type: ignore[assignment]
    action: DeviceAction = op.work  # held by the op until it completes
    keep: list[Any] = []
    ev: Any = keep  # not an event: not enqueued yet
    try:
        if op.moves:
            wait_for = enqueue_moves(op, lane, wait_for, keep)
        ev = action.enqueue(lane, wait_for, keep)
        op.issued(ev, keep or None)
    except BaseException as error:
        if ev is not keep:  # enqueued, an interrupt before it was recorded: issued all the same (rule S26)
            try:
                to_the_end(op.issued, ev, keep or None)
            except KeyboardInterrupt:  # a second one, landed as it began (CPython looks there)
                to_the_end(op.issued, ev, keep or None)
        elif isinstance(error, cl.Error):
            raise translate(error, "enqueueing a command") from error
        raise
    lane.unflushed = True


def enqueue_moves(
    op: Op, lane: Lane, wait_for: list[cl.Event] | None, keep: list[Any]
) -> list[cl.Event] | None:
    """Enqueue ``op``'s host-to-device transfers after ``wait_for``; returns the wait list of
    what follows them. Their events and host memory go to ``keep``."""
    if type(op.work) is KernelLaunch:  # its windows' sub-buffers first: the moves go through them
        op.work.bound(lane.context)
    for move in op.moves:
        memory, alloc, start, end, producer = move
        # Bytes of an undone host command: only those the host held before it (rule S25).
        ranges = current(move, HOST, False) if producer is not None and producer.failed else ((start, end),)
        for lo, hi in ranges:
            # Keep the NannyEvent until the op is known complete (its destructor would block).
            copied = alloc.upload(lane.cl_queue, memory.host_copy(), lo, hi, wait_for)
            keep.append(copied)
            wait_for = lane.after(copied)
            counters = memory.counters
            counters.h2d_bytes += hi - lo
            counters.h2d_copies += 1
            keep.append(memory.host)
    return wait_for
