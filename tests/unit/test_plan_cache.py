"""The plan cache (scheduler/replay/plans.py; docs/scheduler.md rule S17): a device command whose
requirement follows the layout its memory object is in replays the plan made there before,
in a repeated command group as in command groups that alternate or cycle, and leaves what
planning in full would leave: the same frontier, validity and edges.

Each test runs one program twice, on fresh memory objects: through ``_plan_device`` and
``apply`` as ``submit`` does (the cache on), and with every command planned in full (the
cache off); after each command both states must be equal, each op named by its command's
position."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from scheduler_fakes import FakeContext, FakeLane, device_op, host_op, memory_object

from sycl_ocl.scheduler.coherence import access, access_on_host, plan, restore
from sycl_ocl.scheduler.command_group import _plan_device
from sycl_ocl.scheduler.memory_object import MemoryObject
from sycl_ocl.scheduler.op import DONE, ISSUED, Op
from sycl_ocl.scheduler.replay.plans import LAYOUT_CAP, PLAN_CAP, apply
from sycl_ocl.scheduler.requirement import HOST_READ, READ, WRITE, Requirement

# A command: (its lane's index in LANES, [(memory object index, lo, hi, writes)]), or a
# callable doing something else to the memory objects (a host accessor, set_final_data, ...).
Access = tuple[int, int, int, bool]
Step = tuple[int, list[Access]] | Callable[[list[MemoryObject], bool], None]

A_W_B_R: Step = (0, [(0, 0, 64, True), (1, 0, 64, False)])  # a = f(a, b)
B_W_A_R: Step = (0, [(1, 0, 64, True), (0, 0, 64, False)])  # b = f(b, a)
BOTH_R: Step = (0, [(0, 0, 64, False), (1, 0, 64, False)])  # reads both


class World:
    """Three memory objects and three lanes (two queues of context 1, one of context 2), the
    ops of every command so far, and how many requirements replayed."""

    def __init__(self, cache: bool) -> None:
        self.cache = cache
        self.memories = [memory_object(), memory_object(), memory_object()]
        self.lanes = [FakeLane(1), FakeLane(1), FakeLane(2)]
        self.ops: list[Op] = []
        self.replayed: list[int] = []
        self.requirements: dict[Access, Requirement] = {}  # made once, as accessors do

    def req(self, spec: Access) -> Requirement:
        found = self.requirements.get(spec)
        if found is None:
            index, lo, hi, writes = spec
            memory = self.memories[index]
            found = self.requirements[spec] = Requirement(memory, lo, hi, writes, True, lo, hi)
        return found

    def run(self, step: Step, issue: bool = True) -> Op | None:
        if callable(step):
            step(self.memories, self.cache)
            return None
        lane = self.lanes[step[0]]
        op = device_op(lane)
        requirements = [self.req(spec) for spec in step[1]]
        if self.cache:
            replays, _ = _plan_device(op, lane, requirements)  # type: ignore[arg-type]
            if replays is not None:
                apply(replays, op)
            self.replayed.append(len(replays or ()))
        else:
            plan(op, requirements, FakeContext(lane.ctx), False, [])  # type: ignore[arg-type]
        if issue:
            _issue(op)
        self.ops.append(op)
        return op

    def state(self) -> list[Any]:
        """The frontier, validity and edges, each op named by its position among the commands."""
        def name(op: Op | None) -> object:
            return None if op is None else next((i for i, o in enumerate(self.ops) if o is op), "other")
        return [
            [[(name(e[0]), *e[1:]) for e in m.frontier if e[0].state != DONE] for m in self.memories],
            [{k: [(a, b, name(p)) for a, b, p in v] for k, v in m.valid.items()} for m in self.memories],
            [sorted(map(str, (name(d) for d in op.deps))) for op in self.ops],  # type: ignore[arg-type]
        ]


def _issue(op: Op) -> Op:
    op.state = ISSUED
    op.event = object()  # type: ignore[assignment]
    return op


def _compare(program: Sequence[Step]) -> World:
    """Run ``program`` with the cache on and off; the states must be equal after each step."""
    cached, full = World(True), World(False)
    for step in program:
        cached.run(step)
        full.run(step)
        assert cached.state() == full.state()
    return cached


def _cycles(steps: list[Step], times: int) -> list[Step]:
    return steps * times


def test_a_repeated_command_group_replays_from_its_third_submit() -> None:
    world = _compare(_cycles([A_W_B_R], 6))
    assert world.replayed == [0, 0, 2, 2, 2, 2]  # the layout it leaves is known from the second


def test_ping_pong_replays_and_leaves_what_full_planning_leaves() -> None:
    """Jacobi: a = f(b), then b = f(a): each memory object alternates between two layouts."""
    world = _compare(_cycles([A_W_B_R, B_W_A_R], 5))
    assert world.replayed[:3] == [0, 0, 0] and world.replayed[4:] == [2] * 6
    a = world.memories[0]
    assert [e[3] for e in a.frontier] == [WRITE, READ]  # the last write of a, then its read


def test_a_cycle_of_three_command_groups_replays() -> None:
    world = _compare(_cycles([A_W_B_R, B_W_A_R, BOTH_R], 5))
    assert world.replayed[6:] == [2] * 9


def test_windows_written_in_turn_replay_their_pieces() -> None:
    """Two halves of one memory object written in turn (its validity in pieces), and one
    command group writing one half of the other reading a window across both."""
    left: Step = (0, [(0, 0, 32, True), (1, 16, 48, False)])
    right: Step = (0, [(0, 32, 64, True), (1, 0, 64, True)])
    world = _compare(_cycles([left, right], 5))
    assert world.replayed[6:] == [2] * 4
    assert [p[:2] for p in world.memories[0].valid[1]] == [(0, 32), (32, 64)]


def test_a_slab_written_by_rows_replays_its_pieces_in_place() -> None:
    """bench/apps.py's Jacobi step: each slab read whole while the other's top row, bottom row
    and inner rows are written in turn, the slabs swapped each step. The replays keep a run of
    the frontier that does not start at its front (``Plan.span``) and replace one piece of a
    validity in several pieces in place (``Plan.replaced``)."""
    def step(src: int, dst: int) -> list[Step]:
        return [(0, [(src, 0, 64, False), (dst, lo, hi, True)]) for lo, hi in ((8, 16), (48, 56), (16, 48))]
    world = _compare(_cycles([*step(0, 1), *step(1, 0)], 6))
    assert world.replayed[-12:] == [2] * 12
    assert [p[:2] for p in world.memories[1].valid[1]] == [(0, 8), (8, 16), (16, 48), (48, 56), (56, 64)]
    plans = [found for layout in world.memories[1].layouts for found in layout.plans]
    assert any(found.replaced for found in plans) and any(
        found.span is not None and found.span.start > 0 for found in plans)


def _slab_step(src: int, dst: int, inner_lane: int) -> list[Step]:
    """A Jacobi step of ``test_a_slab_written_by_rows_replays_its_pieces_in_place``, its inner
    rows on lane ``inner_lane``."""
    rows = ((0, 8, 16), (0, 48, 56), (inner_lane, 16, 48))
    return [(lane, [(src, 0, 64, False), (dst, lo, hi, True)]) for lane, lo, hi in rows]


def test_a_slab_with_its_inner_rows_on_another_queue_replays_with_the_edges_across() -> None:
    """examples/mpi_jacobi.py ``--two-queues``: the inner rows on a second queue of the
    context, so that every command waits for one of the other queue (a read of the slab it
    overwrites, a write of the slab it reads). The plans replay with those edges
    (``Plan.foreign``), to the commands at the same positions: the same frontier, validity
    and edges as full planning."""
    world = _compare(_cycles([*_slab_step(0, 1, 1), *_slab_step(1, 0, 1)], 6))
    assert world.replayed[-12:] == [2] * 12
    lanes = world.lanes
    for op in world.ops[-6:]:  # each waits for a command of the other queue
        assert any(dep.lane is not op.lane for dep in op.deps), op.deps  # type: ignore[attr-defined]
    plans = [found for memory in world.memories[:2] for layout in memory.layouts for found in layout.plans]
    assert {found.lane for found in plans if found.foreign} == {lanes[0], lanes[1]}


def test_a_replay_waits_for_a_command_of_another_queue_held_in_the_dag() -> None:
    """A command of the other queue that waits in the DAG (not enqueued) is waited for by the
    replay after it, as full planning makes it: an edge, not an implied order."""
    cached, full = World(True), World(False)
    program = _cycles([*_slab_step(0, 1, 1), *_slab_step(1, 0, 1)], 4)
    for world in (cached, full):
        for step in program:
            world.run(step)
        for step in _slab_step(0, 1, 1):
            world.run(step, issue=step[0] == 0)  # the inner rows wait in the DAG
    assert cached.state() == full.state()
    held = cached.ops[-1]
    for world in (cached, full):
        for step in _slab_step(1, 0, 1):
            world.run(step)
    assert cached.state() == full.state()
    assert cached.replayed[-3:] == [1, 1, 1]  # the writes; a read after a held command in full
    assert all(held in op.deps for op in cached.ops[-3:])  # each reads what it wrote


def test_two_queues_of_two_contexts_are_planned_in_full() -> None:
    """Another context's command is no edge a wait list can hold (bytes move between the
    contexts, rule S11): such a step is never replayed."""
    world = World(True)
    for step in _cycles([*_slab_step(0, 1, 2), *_slab_step(1, 0, 2)], 5):
        world.run(step)
    assert world.replayed[-6:] == [0] * 6


def test_two_queues_reading_one_memory_object_in_turn_replay() -> None:
    """Reads of another lane are kept whatever their state, and a producer that is done is
    waited for no more: two queues, each writing its own memory object and reading a shared
    one, replay in turn once the first command (which copied the shared one in) is done."""
    first: Step = (0, [(0, 0, 64, True), (1, 0, 64, False)])
    second: Step = (1, [(2, 0, 64, True), (1, 0, 64, False)])
    cached, full = World(True), World(False)
    for k, step in enumerate(_cycles([first, second], 6)):
        for world in (cached, full):
            world.run(step)
            if k == 1:
                world.ops[0].state = DONE
        assert cached.state() == full.state()
    assert cached.replayed[6:] == [2] * 6
    assert [e[0].lane for e in cached.memories[1].frontier] == [cached.lanes[0], cached.lanes[1]]


TRIAD: Step = (0, [(0, 0, 64, True), (1, 0, 64, False), (2, 0, 64, False)])  # a = f(b, c)


def test_a_command_group_of_three_memory_objects_replays() -> None:
    """Three requirements on distinct memory objects replay each its plan, alone as in a
    cycle with the other three-way command groups."""
    assert _compare(_cycles([TRIAD], 5)).replayed == [0, 0, 3, 3, 3]
    cycle: list[Step] = [TRIAD, (0, [(1, 0, 64, True), (2, 0, 64, False), (0, 0, 64, False)]),
                         (0, [(2, 0, 64, True), (0, 0, 64, False), (1, 0, 64, False)])]
    assert _compare(_cycles(cycle, 4)).replayed[6:] == [3] * 6


def test_requirements_sharing_a_memory_object_are_planned_in_full() -> None:
    """Two windows of one memory object in a command group are merged, not replayed."""
    shared: Step = (0, [(0, 0, 32, True), (0, 32, 64, False), (1, 0, 64, False)])
    assert _compare(_cycles([shared], 4)).replayed == [0, 0, 0, 0]


def _host_read(memories: list[MemoryObject], cache: bool) -> None:
    access(Requirement(memories[0], 0, 64, False, True, 0, 64), READ, None, _issue(host_op()), [])


def _host_write(memories: list[MemoryObject], cache: bool) -> None:
    access(Requirement(memories[1], 0, 16, True, True, 0, 16), WRITE, None, _issue(host_op()), [])


def _set_final_data(memories: list[MemoryObject], cache: bool) -> None:
    memories[0].invalidate()


def _refused(memories: list[MemoryObject], cache: bool) -> None:
    """A command planned and rolled back (refused, or failing to enqueue)."""
    op = device_op(FakeLane(1))
    saved = plan(op, [Requirement(memories[0], 0, 64, True, True, 0, 64)], FakeContext(1), False, [],  # type: ignore[arg-type]
                 cache=cache)
    restore(saved)


OTHER_QUEUE: Step = (1, [(0, 0, 64, False)])
OTHER_CONTEXT: Step = (2, [(1, 0, 64, True)])


def test_every_invalidation_breaks_the_cycle_and_it_recovers() -> None:
    """A host accessor (reading, writing), another queue, another context, set_final_data
    or a rollback in the middle of a ping-pong: the next command on that memory object is
    planned in full, and the cycle replays again once its layouts are known again."""
    for interruption in (_host_read, _host_write, OTHER_QUEUE, OTHER_CONTEXT, _set_final_data, _refused):
        program = [*_cycles([A_W_B_R, B_W_A_R], 3), interruption, *_cycles([A_W_B_R, B_W_A_R], 4)]
        world = _compare(program)
        after = world.replayed[6:] if callable(interruption) else world.replayed[7:]
        assert after[0] < 2, interruption  # the next command is planned in full on that one
        assert after[-4:] == [2] * 4, (interruption, world.replayed)


def _checked(memories: list[MemoryObject], cache: bool) -> None:
    """A host accessor reading a window of a (a check every few steps), released before the
    next command."""
    hold = host_op()
    access_on_host(Requirement(memories[0], 0, 16, False, True, 0, 16), HOST_READ, hold, [])
    hold.state = DONE


def test_a_write_after_a_host_accessor_replays() -> None:
    """A pipeline with a check: writes of a, and every third one a host accessor reading a
    window of a. The host accessor leaves a known layout, so the write after it replays its
    plan, which makes the host copy's bytes it overwrote stale (``Plan.others``)."""
    world = _compare(_cycles([A_W_B_R, A_W_B_R, A_W_B_R, _checked], 6))
    assert world.replayed[-6:] == [2] * 6  # the first write of each window too
    assert [p[:2] for p in world.memories[0].valid[0]] == [(0, 16)]  # the last check's window
    plans = [found for layout in world.memories[0].layouts for found in layout.plans]
    assert any(found.others for found in plans)


def test_a_read_is_not_replayed_while_a_command_it_follows_waits_in_the_dag() -> None:
    """A read drops an earlier read of its lane from the frontier only once that one is
    enqueued; a write replays and waits, as full planning makes it, for what it supersedes."""
    cached, full = World(True), World(False)
    for world in (cached, full):
        for step in _cycles([A_W_B_R, B_W_A_R], 3):
            world.run(step)
        world.run(A_W_B_R, issue=False)  # waits in the DAG
    assert cached.state() == full.state()
    for world in (cached, full):
        world.run(BOTH_R)  # reads a after the deferred write: an edge; b after a deferred read
    assert cached.state() == full.state() and cached.replayed[-2:] == [2, 0]
    deferred = cached.ops[-2]
    assert deferred in cached.ops[-1].deps
    for world in (cached, full):
        world.run(B_W_A_R)
    assert cached.state() == full.state()


def test_a_completed_command_stays_in_the_replayed_frontier_only() -> None:
    """Full planning drops completed commands from the frontier; a replay keeps them where the
    plan kept their place (they are waited for no more: rule S6)."""
    world = World(True)
    for step in _cycles([A_W_B_R, B_W_A_R], 3):
        world.run(step)
    for op in world.ops:
        op.state = DONE
    world.run(A_W_B_R)
    assert world.replayed[-1] == 2 and world.ops[-1].deps == []
    assert world.ops[-2] in [e[0] for e in world.memories[1].frontier]  # its write of b, done


def test_plans_and_layouts_stay_few() -> None:
    """However many layouts a memory object passes through (more than ``LAYOUT_CAP`` here),
    it keeps at most ``LAYOUT_CAP``, each with at most ``PLAN_CAP`` plans."""
    world = World(True)
    for lo in range(0, 64, 4):  # windows at another place each time: no layout repeats
        for width in (1, 2, 3, 4):
            for _ in range(3):
                world.run((0, [(0, lo, lo + width, True)]))
    memory = world.memories[0]
    assert 0 < len(memory.layouts) <= LAYOUT_CAP
    assert all(len(layout.plans) <= PLAN_CAP for layout in memory.layouts)
