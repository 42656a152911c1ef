"""Enqueueing a planned device op: its host-to-device transfers, then its action."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyopencl as cl

from .._native import translate

if TYPE_CHECKING:
    from .coherence import Move
    from .command_group import DeviceAction
    from .lane import Lane
    from .op import Op


class DeviceWork:
    """A device op's plan: transfers from the host copies, then the action."""

    __slots__ = ("action", "moves")

    def __init__(self, action: DeviceAction, moves: list[Move]) -> None:
        self.action = action
        self.moves = moves


def issue(op: Op, wait_for: list[cl.Event] | None) -> None:
    """Enqueue ``op`` on its lane after ``wait_for`` (the lane's in-order queue does the rest)."""
    lane: Lane = op.lane  # type: ignore[assignment]
    work: DeviceWork = op.work
    keep: list[Any] = []
    try:
        for root, alloc, lo, hi in work.moves:
            assert alloc.buf is not None  # a move has bytes, so the allocation exists
            # Keep the NannyEvent until the op is known complete (its destructor would block).
            copied = cl.enqueue_copy(
                lane.cl_queue, alloc.buf, root.host_copy()[lo:hi], dst_offset=lo,
                is_blocking=False, wait_for=wait_for)
            keep.append(copied)
            wait_for = lane.after(copied)
            counters = root.counters
            counters.h2d_bytes += hi - lo
            counters.h2d_copies += 1
            keep.append(root.host)
        ev = work.action.enqueue(lane, wait_for, keep)
    except cl.Error as error:
        raise translate(error, "enqueueing a command") from error
    keep.append(work.action)
    op.issued(ev, keep)
    lane.unflushed = True
