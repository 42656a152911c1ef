"""The plan cache (scheduler/coherence.py ``replayable``/``replay``; docs/scheduler.md rule S17):
a repeated device command replays the plan of its requirement while the memory object's epoch
holds, and leaves the state that planning in full would leave."""

from __future__ import annotations

from scheduler_fakes import FakeContext, FakeLane, device_op, host_op, memory_object, req

from sycl_ocl.scheduler.coherence import access, plan, replay, replayable
from sycl_ocl.scheduler.memory_object import HOST
from sycl_ocl.scheduler.op import DONE, ISSUED, Op
from sycl_ocl.scheduler.requirement import READ, WRITE


def _planned(op: Op, requirement: object) -> None:
    """Plan ``op`` in full on its lane's context, recording its plans (as ``submit`` does)."""
    plan(op, [requirement], FakeContext(op.ctx), False, [], cache=True)  # type: ignore[list-item, arg-type]


def _issued(op: Op) -> Op:
    op.state = ISSUED
    op.event = object()  # type: ignore[assignment]
    return op


def test_a_repeated_write_replays_and_leaves_what_full_planning_leaves() -> None:
    lane = FakeLane(1)
    cached, full = memory_object(), memory_object()
    first_c, first_f = _issued(device_op(lane)), _issued(device_op(lane))
    _planned(first_c, req(cached, 0, 64, writes=True))
    _planned(first_f, req(full, 0, 64, writes=True))
    second_c, second_f = device_op(lane), device_op(lane)
    found = replayable(req(cached, 0, 64, writes=True), lane)  # an equal requirement, made again
    assert found is not None and found.op is first_c
    replay([found], second_c)
    _planned(second_f, req(full, 0, 64, writes=True))
    assert [e[1:] for e in cached.frontier] == [e[1:] for e in full.frontier]
    assert [e[0] for e in cached.frontier] == [second_c]
    assert {k: [p[:2] for p in v] for k, v in cached.valid.items()} == \
        {k: [p[:2] for p in v] for k, v in full.valid.items()}
    assert cached.valid[1] == [(0, 64, second_c)] and cached.valid[HOST] == []
    assert second_c.deps == second_f.deps == []  # the first is enqueued on the same in-order queue
    assert replayable(req(cached, 0, 64, writes=True), lane) is found  # and again


def test_the_epoch_moves_on_with_anything_else_on_the_memory_object() -> None:
    lane, other = FakeLane(1), FakeLane(1)
    memory = memory_object()
    r = req(memory, 0, 64)
    _planned(_issued(device_op(lane)), r)
    assert replayable(r, lane) is not None
    assert replayable(r, other) is None  # another queue's lane
    assert replayable(req(memory, 0, 32), lane) is None  # another window
    access(req(memory, 0, 64), READ, None, host_op(), [])  # a host accessor
    assert replayable(r, lane) is None
    _planned(_issued(device_op(lane)), r)
    assert replayable(r, lane) is not None
    _planned(_issued(device_op(FakeLane(2))), req(memory, 0, 64, writes=True))  # another context
    assert replayable(r, lane) is None
    _planned(_issued(device_op(lane)), r)
    memory.invalidate()  # set_final_data
    assert replayable(r, lane) is None


def test_a_read_after_a_deferred_read_is_planned_in_full() -> None:
    """The deferred read waits for something (a host task writing the buffer): a replayed read
    would not, so the plan is not replayed until the earlier read is enqueued."""
    lane = FakeLane(1)
    memory = memory_object()
    writer = host_op()
    access(req(memory, 0, 64, writes=True), WRITE, None, writer, [])
    first = device_op(lane)
    _planned(first, req(memory, 0, 64))
    assert writer in first.deps
    assert replayable(req(memory, 0, 64), lane) is None  # first is deferred
    second = device_op(lane)
    _planned(second, req(memory, 0, 64))
    assert writer in second.deps  # planned in full: it waits for the writer itself
    _issued(second)
    assert replayable(req(memory, 0, 64), lane) is not None


def test_a_write_after_a_deferred_command_waits_for_it() -> None:
    lane = FakeLane(1)
    memory = memory_object()
    first = device_op(lane)
    _planned(first, req(memory, 0, 64, writes=True))
    found = replayable(req(memory, 0, 64, writes=True), lane)
    assert found is not None and found.op is first  # a write replays: it waits for the last access
    first.state = DONE
    assert replayable(req(memory, 0, 64, writes=True), lane) is found


def test_several_windows_of_one_memory_object_are_not_cached() -> None:
    lane = FakeLane(1)
    memory = memory_object()
    op = _issued(device_op(lane))
    plan(op, [req(memory, 0, 16, writes=True), req(memory, 32, 48)], FakeContext(1), False, [],  # type: ignore[arg-type]
         cache=True)
    assert memory.plan is None


def test_a_repeated_write_of_a_window_replays_what_full_planning_leaves() -> None:
    """The validity around the window (pieces before and after it) and a sub-buffer's view."""
    lane = FakeLane(1)
    cached, full = memory_object(), memory_object()
    for memory in (cached, full):
        _planned(_issued(device_op(lane)), req(memory, 0, 64, writes=True))
        _planned(_issued(device_op(FakeLane(1))), req(memory, 48, 64, writes=True))  # another lane
    window = (16, 32)
    first_c, first_f = _issued(device_op(lane)), _issued(device_op(lane))
    _planned(first_c, req(cached, 16, 32, writes=True, view=window))
    _planned(first_f, req(full, 16, 32, writes=True, view=window))
    second_c, second_f = device_op(lane), device_op(lane)
    found = replayable(req(cached, 16, 32, writes=True, view=window), lane)
    assert found is not None
    replay([found], second_c)
    _planned(second_f, req(full, 16, 32, writes=True, view=window))
    assert [e[1:] for e in cached.frontier] == [e[1:] for e in full.frontier]
    pieces = [(0, 16), (16, 32), (32, 48), (48, 64)]
    assert [p[:2] for p in cached.valid[1]] == [p[:2] for p in full.valid[1]] == pieces
    assert [p[2] for p in cached.valid[1]][1:2] == [second_c]


def test_a_repeated_read_replays_its_frontier_entry() -> None:
    lane = FakeLane(1)
    memory = memory_object()
    writer = _issued(device_op(lane))
    _planned(writer, req(memory, 0, 64, writes=True))
    first = _issued(device_op(lane))
    _planned(first, req(memory, 0, 64))
    valid = memory.valid
    second = device_op(lane)
    found = replayable(req(memory, 0, 64), lane)
    assert found is not None
    replay([found], second)
    assert [e[0] for e in memory.frontier] == [writer, second]
    assert memory.valid is valid and memory.valid[1] == [(0, 64, writer)]  # a read changes no validity
