"""The fast paths' contract (scheduler/replay; docs/scheduler.md, "Fast paths"): a replay leaves
exactly what full planning leaves. The plan cache is checked command by command against full
planning in test_plan_cache.py, shapes in test_shape.py; here the direct path: the op that
``new_op`` makes of a command already enqueued (a USM launch of the queue shortcuts, a shape's
launch) is the op that full submission makes of it (``new_op``, ``Op.issued``, ``Lane.add``),
and leaves its lane as that one does."""

from __future__ import annotations

from typing import Any

import pytest
from scheduler_fakes import FakeContext, FakeEvent

from sycl_ocl.scheduler.lane import TRIM_EVERY, Lane
from sycl_ocl.scheduler.op import Op, new_op


class FakeQueue:
    """What a lane reads of its OpenCL queue: in order."""

    properties = 0


def _lane(profiling: bool) -> Lane:
    return Lane(FakeQueue(), FakeContext(1), None, True, profiling)  # type: ignore[arg-type]


def _full(lane: Lane, ev: Any, keep: Any) -> Op:
    """What ``command_group.submit`` and ``issue`` leave for a command with no requirement and
    no dependency, enqueued as ``ev``."""
    op = new_op(lane, lane.ctx, False, lane.async_errors)
    lane.unflushed = True  # issue: enqueued, not flushed yet
    op.issued(ev, keep)
    lane.add(op)
    return op


def _state(lane: Lane, ops: list[Op]) -> list[Any]:
    """Each op's fields (its lane as whether it is ``lane``; its submit time only as there or
    not: the clocks differ), and the lane's ops, last op and flush flag, each op by its position."""
    def fields(op: Op) -> list[Any]:
        out = []
        for name in Op.__slots__:
            if name == "__weakref__":
                continue
            value = getattr(op, name)
            if name == "lane":
                value = value is lane
            elif name == "times":
                value = value is not None
            out.append(value)
        return out
    return [[fields(op) for op in ops], [ops.index(op) for op in lane.ops], ops.index(lane.last),  # type: ignore[arg-type]
            lane.unflushed, lane.trim_at]


@pytest.mark.parametrize("profiling", [False, True])
def test_the_op_of_a_command_enqueued_at_once_is_the_one_full_submission_makes(profiling: bool) -> None:
    fast_lane, full_lane = _lane(profiling), _lane(profiling)
    fast_ops: list[Op] = []
    full_ops: list[Op] = []
    keep = ["kept"]
    for k in range(TRIM_EVERY + 3):  # past a trim of the lane's ops
        ev = FakeEvent(k)
        fast_ops.append(new_op(fast_lane, fast_lane.ctx, False, fast_lane.async_errors, ev, keep,
                               1 if profiling else 0))
        full_ops.append(_full(full_lane, ev, keep))
        if k % 2:
            ev.complete()  # every other command done: the trim drops those at the front
        assert _state(fast_lane, fast_ops) == _state(full_lane, full_ops)
    assert [op.state for op in fast_ops] == [op.state for op in full_ops]
