"""Planning requirements (scheduler/coherence.py, op.depend): the edges and transfers of each
access, with fake lanes and contexts (docs/scheduler.md rules S2-S6, S15)."""

from __future__ import annotations

import pytest
from scheduler_fakes import FakeContext, FakeLane, device_op, host_op, memory_object, reaches, req

import sycl_ocl as sycl
from sycl_ocl.scheduler.coherence import access, merge, plan
from sycl_ocl.scheduler.memory_object import HOST, Allocation
from sycl_ocl.scheduler.op import DONE, Op, add_edge, depend, new_op
from sycl_ocl.scheduler.refusal import UNDO, undo
from sycl_ocl.scheduler.requirement import FRONTIER_CAP, HOST_READ, READ, WRITE


def _plan_one(op: Op, requirement: object, kind: int, ctx: int | None) -> list[Op]:
    memory = requirement.memory  # type: ignore[attr-defined]
    stagers: list[Op] = []
    access(requirement, kind, None if ctx is None else memory.allocs[ctx], op, stagers)  # type: ignore[arg-type]
    return stagers


# --- requirements -----------------------------------------------------------------------------


def test_discarding_keeps_the_window_and_drops_the_copy_in() -> None:
    memory = memory_object()
    r = req(memory, 8, 16).discarding()
    assert (r.lo, r.hi, r.writes, r.needs_old) == (8, 16, True, False)


def test_merge_joins_overlapping_windows_and_keeps_disjoint_ones() -> None:
    memory = memory_object()
    merged = merge([req(memory, 8, 16, writes=True, needs_old=False), req(memory, 0, 10),
                    req(memory, 20, 24, view=(16, 32))])
    assert [(r.lo, r.hi, r.writes, r.needs_old) for r in merged] == [
        (0, 16, True, True), (20, 24, False, True)]
    assert (merged[1].view_lo, merged[1].view_hi) == (16, 32)


# --- transfers and validity (rule S5) ---------------------------------------------------------


def test_a_host_read_of_host_data_moves_nothing() -> None:
    memory = memory_object()
    op = host_op()
    _plan_one(op, req(memory, 0, 64), HOST_READ, None)
    assert op.moves == [] and op.deps == []


def test_a_device_read_copies_in_once_per_context() -> None:
    memory = memory_object()
    lane = FakeLane(1)
    first, second = device_op(lane), device_op(lane)
    _plan_one(first, req(memory, 0, 32), READ, 1)
    _plan_one(second, req(memory, 0, 32), READ, 1)
    assert [(lo, hi) for _, _, lo, hi, _ in first.moves] == [(0, 32)]
    assert second.moves == [] and second.deps == [first]  # it needs the bytes first brings


def test_a_discarding_write_copies_nothing_in() -> None:
    memory = memory_object()
    op = device_op(FakeLane(1))
    _plan_one(op, req(memory, 0, 64).discarding(), WRITE, 1)
    assert op.moves == []
    assert memory.valid[1] == [(0, 64, op)] and memory.valid[HOST] == [] and memory.written


def test_a_host_read_after_a_device_write_reads_back_from_the_writer() -> None:
    memory = memory_object()
    writer, reader = device_op(FakeLane(1)), host_op()
    _plan_one(writer, req(memory, 16, 32, writes=True), WRITE, 1)
    _plan_one(reader, req(memory, 0, 64), READ, None)
    assert [(alloc.loc, lo, hi) for _, alloc, lo, hi, _ in reader.moves] == [(1, 16, 32)]
    assert writer in reader.deps
    assert memory.valid[HOST] == [(0, 16, None), (16, 32, reader), (32, 64, None)]


def test_a_host_read_keeps_the_host_bytes_of_a_failed_writer() -> None:
    """Bytes a failed command produced are never read back (rule S10): the host copy keeps
    what it held, and later accesses find it valid there."""
    memory = memory_object()
    writer, reader = device_op(FakeLane(1)), host_op()
    _plan_one(writer, req(memory, 16, 32, writes=True), WRITE, 1)
    writer.failed, writer.state = True, DONE
    _plan_one(reader, req(memory, 0, 64), READ, None)
    assert reader.moves == [] and writer not in reader.deps
    assert memory.valid[HOST] == [(0, 16, None), (16, 32, reader), (32, 64, None)]


def test_another_context_reads_through_a_staging_host_op() -> None:
    memory = memory_object()
    writer, reader = device_op(FakeLane(1)), device_op(FakeLane(2))
    _plan_one(writer, req(memory, 0, 64, writes=True), WRITE, 1)
    stagers = _plan_one(reader, req(memory, 0, 64), READ, 2)
    assert len(stagers) == 1 and stagers[0].host and stagers[0].work.staging
    assert stagers[0] in reader.deps and writer in stagers[0].deps
    assert [(alloc.loc, lo, hi) for _, alloc, lo, hi, _ in stagers[0].moves] == [(1, 0, 64)]
    assert [(alloc.loc, lo, hi) for _, alloc, lo, hi, _ in reader.moves] == [(2, 0, 64)]


def test_a_linked_allocation_reads_the_host_copy_itself() -> None:
    memory = memory_object(contexts=())
    memory.allocs[1] = linked = Allocation(None, FakeContext(1), True)  # type: ignore[arg-type]
    op, writer = device_op(FakeLane(1)), device_op(FakeLane(1))
    assert _plan_one(op, req(memory, 0, 64), READ, 1) == [] and op.moves == []
    _plan_one(writer, req(memory, 0, 64, writes=True), WRITE, 1)
    assert linked.loc == HOST and memory.valid == {HOST: [(0, 64, writer)]}  # one copy: the host's


# --- edges (rules S2, S4, S6) -----------------------------------------------------------------


def test_a_write_after_a_read_of_overlapping_views_waits() -> None:
    memory = memory_object()
    reader, writer = host_op(), host_op()
    _plan_one(reader, req(memory, 0, 8), READ, None)
    _plan_one(writer, req(memory, 40, 48, writes=True), WRITE, None)
    assert writer.deps == [reader]  # disjoint windows, one view: ordered (§3.8.1)


def test_reads_do_not_wait_for_reads() -> None:
    memory = memory_object()
    first, second = host_op(), host_op()
    _plan_one(first, req(memory, 0, 64), READ, None)
    _plan_one(second, req(memory, 0, 64), READ, None)
    assert second.deps == []


def test_disjoint_sub_buffers_do_not_overlap() -> None:
    memory = memory_object()
    low, high = host_op(), host_op()
    _plan_one(low, req(memory, 0, 32, writes=True, view=(0, 32)), WRITE, None)
    _plan_one(high, req(memory, 32, 64, writes=True, view=(32, 64)), WRITE, None)
    assert high.deps == []


def test_a_host_accessor_holds_back_later_readers() -> None:
    memory = memory_object()
    hold, reader, other_hold = host_op(), host_op(), host_op()
    _plan_one(hold, req(memory, 0, 64), HOST_READ, None)
    _plan_one(other_hold, req(memory, 0, 64), HOST_READ, None)
    _plan_one(reader, req(memory, 0, 64), READ, None)
    assert other_hold.deps == [] and set(reader.deps) == {hold, other_hold}


def test_a_covering_write_supersedes_the_frontier() -> None:
    memory = memory_object()
    readers = [host_op() for _ in range(3)]
    for op in readers:
        _plan_one(op, req(memory, 0, 64), READ, None)
    writer = host_op()
    _plan_one(writer, req(memory, 0, 64, writes=True), WRITE, None)
    assert [entry[0] for entry in memory.frontier] == [writer]
    assert set(writer.deps) == set(readers)


def test_the_frontier_is_capped_and_completed_entries_leave() -> None:
    memory = memory_object()
    readers = [host_op() for _ in range(FRONTIER_CAP + 4)]
    for op in readers:
        _plan_one(op, req(memory, 0, 64), READ, None)
        assert len(memory.frontier) <= FRONTIER_CAP
    # The op that drops an entry depends on it: what conflicts with it reaches it through that op.
    assert all(reaches(readers[FRONTIER_CAP - 1 + i], readers[i - 1]) for i in range(1, 5))
    for op in readers:
        op.finish()
    _plan_one(host_op(), req(memory, 0, 64), READ, None)
    assert len(memory.frontier) == 1


def test_edges_to_completed_or_queued_commands_are_not_recorded() -> None:
    lane = FakeLane(1)
    done, queued, gated = device_op(lane), device_op(lane, issued=True), device_op(lane)
    done.state = DONE
    op = device_op(lane)
    for other in (done, queued, gated):
        depend(op, other)
    assert op.deps == [gated]  # done: dropped; queued on the same in-order queue: implied


def test_an_out_of_order_queue_records_every_edge() -> None:
    lane = FakeLane(1, ordered=False)
    queued, op = device_op(lane, issued=True), device_op(lane)
    depend(op, queued)
    assert op.deps == [queued]


def test_a_host_op_waits_for_a_queued_command_explicitly() -> None:
    queued = device_op(FakeLane(1), issued=True)
    op = host_op()
    depend(op, queued)
    assert op.deps == [queued]


def test_dependencies_are_listed_once_in_the_order_added() -> None:
    a, b, op = host_op(), host_op(), host_op()
    for other in (a, b, a):
        add_edge(op, other)
    assert op.dependencies() == [a, b]


# --- a command group's plan -------------------------------------------------------------------


def test_a_plan_is_undone_by_restoring_its_snapshots() -> None:
    memory = memory_object()
    op = device_op(FakeLane(1))
    before = (dict(memory.valid), list(memory.frontier), memory.written)
    saved = plan(op, [req(memory, 0, 64, writes=True)], FakeContext(1), False, [])  # type: ignore[arg-type]
    assert memory.written and memory.frontier
    for mem, snapshot in saved:
        mem.restore(snapshot)
    assert (memory.valid, memory.frontier, memory.written) == before


def test_refused_commands_undone_in_a_row_give_back_what_ran_before_them() -> None:
    """A ran; B and C, each planned on the last, are refused in turn and undone (rule S25):
    C's snapshot names B, which never ran, so its undo puts back what B's copy held, A's
    bytes, and a host read after them reads A's bytes back (issue 33 item 2)."""
    memory = memory_object()
    lane = FakeLane(1)
    ran, first, second = device_op(lane), device_op(lane), device_op(lane)
    plan(ran, [req(memory, 0, 64, writes=True)], FakeContext(1), False, [])  # type: ignore[arg-type]
    for op in (first, second):
        UNDO[op] = plan(op, [req(memory, 0, 64, writes=True)], FakeContext(1), False, [])  # type: ignore[arg-type]
    for op in (first, second):
        undo(op)
        op.failed, op.state = True, DONE
    assert memory.valid[1] == [(0, 64, ran)]
    reader = host_op()
    _plan_one(reader, req(memory, 0, 64), READ, None)
    assert [(alloc.loc, lo, hi, producer) for _, alloc, lo, hi, producer in reader.moves] == [(1, 0, 64, ran)]


def test_a_context_bound_memory_object_refuses_other_contexts() -> None:
    memory = memory_object()
    memory.bound_to = 1
    with pytest.raises(sycl.exception) as info:
        plan(device_op(FakeLane(2)), [req(memory, 0, 64)], FakeContext(2), False, [])  # type: ignore[arg-type]
    assert info.value.code() is sycl.errc.invalid
    plan(device_op(FakeLane(1)), [req(memory, 0, 64)], FakeContext(1), False, [])  # type: ignore[arg-type]


def test_a_refused_requirement_undoes_the_planning_of_the_others() -> None:
    """A command refused while planning (a context_bound buffer of another context) is never
    enqueued: the memory objects planned before the refusal must not wait for it."""
    planned, bound = memory_object(), memory_object()
    bound.bound_to = 2
    before = (dict(planned.valid), planned.frontier, planned.written)
    with pytest.raises(sycl.exception):
        plan(device_op(FakeLane(1)), [req(planned, 0, 64, writes=True), req(bound, 0, 64)],
             FakeContext(1), False, [])  # type: ignore[arg-type]
    assert (planned.valid, planned.frontier, planned.written) == before


def test_a_host_command_of_a_queue_plans_on_the_host() -> None:
    memory = memory_object()
    writer = device_op(FakeLane(1))
    plan(writer, [req(memory, 0, 64, writes=True)], FakeContext(1), False, [])  # type: ignore[arg-type]
    task = new_op(FakeLane(1), HOST, True, None)  # type: ignore[arg-type]
    plan(task, [req(memory, 0, 64)], FakeContext(1), True, [])  # type: ignore[arg-type]
    assert [alloc.loc for _, alloc, _, _, _ in task.moves] == [1] and writer in task.deps


def test_a_plan_merges_a_commands_requirements_on_one_memory_object() -> None:
    """Rule S3: a discarding write and a read of overlapping windows in one command: the read
    still gets the old bytes, so they come in."""
    memory, other = memory_object(), memory_object()
    for requirements in ([req(memory, 0, 16).discarding(), req(memory, 8, 24)],
                         [req(memory, 0, 16).discarding(), req(other, 0, 8), req(memory, 8, 24)]):
        memory.valid, other.valid = {HOST: [(0, 64, None)]}, {HOST: [(0, 64, None)]}
        op = device_op(FakeLane(1))
        plan(op, requirements, FakeContext(1), False, [])  # type: ignore[arg-type]
        moved = sorted((m is memory, lo, hi) for m, _, lo, hi, _ in op.moves)
        assert moved == ([(True, 0, 24)] if len(requirements) == 2 else [(False, 0, 8), (True, 0, 24)])
        assert memory.valid[1] == [(0, 24, op)] and memory.valid[HOST] == [(24, 64, None)]
