"""Shapes (scheduler/replay/shape.py; docs/scheduler.md rule S20): a launch checked once binds its
memory once, hands full planning or a command graph a launch of its own, and replays the plans
its last launch made or replayed while none of its memory objects changed (``holds``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from scheduler_fakes import FakeContext, FakeLane, device_op, host_op, memory_object, req

from sycl_ocl.scheduler.coherence import access, plan
from sycl_ocl.scheduler.memory_object import Allocation
from sycl_ocl.scheduler.op import DONE, ISSUED, Op
from sycl_ocl.scheduler.progress import Deferred
from sycl_ocl.scheduler.replay.plans import apply
from sycl_ocl.scheduler.replay.shape import Shape, joined_order, keep, matching
from sycl_ocl.scheduler.requirement import READ, WRITE
from sycl_ocl.scheduler.runtime import RUNTIME


class FakeBuffer:
    """A ``cl_mem`` of 64 bytes whose sub-buffers are their regions."""

    size = 64

    def get_sub_region(self, origin: int, size: int) -> tuple[int, int]:
        return (origin, size)


class FakeKernel:
    """What a shape needs of a kernel: a ``cl_kernel`` of its own with arguments set."""

    _name = "k"

    def _private(self, args: Any) -> tuple[str, tuple[Any, ...]]:
        return ("private", tuple(args))

    def _set_on(self, native: Any, args: Any) -> None:
        pass


def _shape(signature: tuple[Any, ...], requirements: list[Any], lane: Any = None,
           global_size: tuple[int, ...] = (64,)) -> Shape:
    """A shape whose command group's accessors joined with ``requirements``, in that order."""
    order = tuple(next(i for i, want in enumerate(signature) if want is r) for r in requirements)
    return Shape(lane or FakeLane(1), FakeKernel(), global_size, None, None,  # type: ignore[arg-type]
                 signature, order, requirements)


def test_a_shape_binds_the_memory_of_its_accessors_once() -> None:
    a, b = memory_object(), memory_object()
    buf = FakeBuffer()
    a.allocs[1] = Allocation(buf, FakeContext(1), False)  # type: ignore[arg-type]
    b.allocs[1] = Allocation(buf, FakeContext(1), False)  # type: ignore[arg-type]
    ra, rb = req(a, 0, 64, writes=True), req(b, 16, 32)
    shape = _shape((ra, float, rb), [ra, rb])
    assert shape.bindings == (0, 2) and shape.replays
    shape.bind((None, 2.0, None))
    assert shape.mems == (buf, (16, 16))  # the whole allocation, a sub-buffer of the window
    prepared = shape.prepared
    assert prepared is not None and prepared.native == ("private", (buf, 2.0, (16, 16)))
    assert prepared.args_set == [buf, 2.0, (16, 16)] and prepared.windows == ()
    assert shape.call == (None, prepared.native, (64,), None, None)  # the lane's queue, the sizes
    assert shape.arguments((None, 2.0, None), shape.mems) == [buf, 2.0, (16, 16)]
    bound = shape.action((None, 2.0, None), True)
    assert bound.args == [buf, 2.0, (16, 16)] and bound.bindings == ()
    unbound = shape.action((None, 2.0, None), False)  # a command graph binds its own
    assert unbound.args == [ra, 2.0, rb] and unbound.bindings == (0, 2)


def test_a_shape_binds_nothing_without_an_allocation_or_on_a_misaligned_window() -> None:
    a = memory_object(contexts=())
    ra = req(a, 0, 64)
    shape = _shape((ra,), [ra])
    shape.bind((None,))
    assert shape.mems is None  # no allocation in the lane's context yet
    a.allocs[1] = Allocation(FakeBuffer(), FakeContext(1), False)  # type: ignore[arg-type]
    misaligned = req(a, 2, 64)
    shape = _shape((misaligned,), [misaligned])
    shape.bind((None,))
    assert shape.mems is None  # a scratch copy per launch: KernelLaunch does it
    assert shape.action((None,), True).bindings == (0,)
    empty = _shape((ra,), [ra], global_size=(0,))
    empty.bind((None,))
    assert empty.mems is None and empty.prepared is None  # the kernel enqueues a marker instead


def test_a_shape_replays_only_distinct_memory_objects_on_an_in_order_queue() -> None:
    a = memory_object()
    r1, r2 = req(a, 0, 16), req(a, 32, 48)
    assert not _shape((r1, r2), [r1, r2]).replays  # merged by full planning (rule S3)
    assert not _shape((r1,), [r1], FakeLane(1, ordered=False)).replays
    assert _shape((r1,), [r1]).replays


@contextmanager
def _waiting(op: Op) -> Iterator[None]:
    """``op`` (not enqueued) waits in the DAG, as ``submit`` keeps it (``RUNTIME.deferred``)."""
    RUNTIME.deferred[op] = Deferred(op)
    try:
        yield
    finally:
        del RUNTIME.deferred[op]


def _planned_shape(lane: FakeLane) -> tuple[Shape, list[Any], Op]:
    """A shape writing one memory object and reading another, planned in full twice by issued
    ops (the second makes the plans that follow the layout the first left)."""
    a, b = memory_object(), memory_object()
    requirements = [req(a, 0, 64, writes=True), req(b, 0, 64)]
    shape = _shape(tuple(requirements), requirements, lane)
    for _ in range(2):
        op = device_op(lane, issued=True)
        plan(op, requirements, FakeContext(1), False, [], cache=True)  # type: ignore[arg-type]
    return shape, requirements, op


def test_a_shape_replays_the_plans_of_its_last_launch_as_full_planning_would() -> None:
    lane = FakeLane(1)
    shape, requirements, _ = _planned_shape(lane)
    _, twin_requirements, _ = _planned_shape(lane)
    assert shape.holds() and shape.plans is not None
    assert [found.after for found in shape.plans] == [r.memory.layout for r in requirements]
    second, twin_second = device_op(lane), device_op(lane)
    apply(shape.plans, second)
    plan(twin_second, twin_requirements, FakeContext(1), False, [], cache=True)  # type: ignore[arg-type]
    for r, t in zip(requirements, twin_requirements, strict=True):
        assert [e[1:] for e in r.memory.frontier] == [e[1:] for e in t.memory.frontier]
        assert [e[0] for e in r.memory.frontier] == [second]
        assert {k: [p[:2] for p in v] for k, v in r.memory.valid.items()} == \
            {k: [p[:2] for p in v] for k, v in t.memory.valid.items()}
    assert requirements[0].memory.valid[1] == [(0, 64, second)]
    assert second.deps == twin_second.deps == []
    with _waiting(second):
        assert not shape.holds()  # its last launch is not enqueued: a read would not wait for its waits
    second.state = ISSUED
    assert shape.holds()
    second.state = DONE
    assert shape.holds()


def test_a_shape_stops_replaying_when_anything_else_plans_on_its_memory() -> None:
    lane = FakeLane(1)
    shape, requirements, _ = _planned_shape(lane)
    requirements[1].memory.invalidate()  # set_final_data
    assert not shape.holds()
    shape, requirements, _ = _planned_shape(lane)
    access(req(requirements[1].memory, 0, 64), READ, None, host_op(), [])  # a host accessor
    assert not shape.holds()
    shape, requirements, _ = _planned_shape(lane)
    a = requirements[0].memory
    plan(device_op(lane, issued=True), [req(a, 0, 32, writes=True)], FakeContext(1), False, [],  # type: ignore[arg-type]
         cache=True)  # another requirement on it, planned in full: no plan follows its layout yet
    assert not shape.holds()
    shape, requirements, _ = _planned_shape(lane)
    elsewhere = device_op(FakeLane(1), issued=True)  # another queue, the same requirement
    plan(elsewhere, [requirements[0]], FakeContext(1), False, [], cache=True)  # type: ignore[arg-type]
    assert not shape.holds()


def test_a_shape_replays_plans_another_kernel_over_the_same_accessors_replayed() -> None:
    """Two command groups alternating on one queue, with the same requirements and another
    kernel: each replays what the other left, while that one is enqueued or done."""
    lane = FakeLane(1)
    shape, requirements, _ = _planned_shape(lane)
    other = _shape(shape.signature, requirements, lane)
    assert other.holds()
    second = device_op(lane)
    apply(other.plans, second)  # type: ignore[arg-type]
    with _waiting(second):
        assert not shape.holds()  # second waits in the DAG: a read after it would not wait for its waits
    second.state = ISSUED
    assert shape.holds() and other.holds()
    apply(shape.plans, device_op(lane, issued=True))  # type: ignore[arg-type]
    assert other.holds()


def test_alternating_shapes_each_find_their_plans_again() -> None:
    """a = f(b) and b = f(a) in turn: each memory object goes between two layouts, and each
    shape's plans follow the layouts the other one leaves."""
    lane = FakeLane(1)
    a, b = memory_object(), memory_object()
    wa, rb, wb, ra = req(a, 0, 64, writes=True), req(b, 0, 64), req(b, 0, 64, writes=True), req(a, 0, 64)
    forth, back = _shape((wa, rb), [wa, rb], lane), _shape((wb, ra), [wb, ra], lane)
    for _ in range(2):
        for requirements in ([wa, rb], [wb, ra]):
            plan(device_op(lane, issued=True), requirements, FakeContext(1), False, [],  # type: ignore[arg-type]
                 cache=True)
    for _ in range(3):
        for shape in (forth, back):
            plans = shape.plans
            assert shape.holds()
            assert plans is None or shape.plans == plans  # the same plans again
            apply(shape.plans, device_op(lane, issued=True))  # type: ignore[arg-type]
    assert [e[3] for e in a.frontier] == [WRITE, READ] and [e[3] for e in b.frontier] == [WRITE]


def test_a_shape_takes_the_plans_of_equal_requirements_and_not_merged_ones() -> None:
    lane = FakeLane(1)
    a = memory_object()
    ra = req(a, 0, 64, writes=True)
    shape = _shape((ra,), [ra], lane)
    op = device_op(lane, issued=True)
    plan(op, [req(a, 0, 64, writes=True)], FakeContext(1), False, [], cache=True)  # type: ignore[arg-type]
    assert not shape.holds()  # one planning: no plan follows the layout it left yet
    plan(device_op(lane, issued=True), [req(a, 0, 64, writes=True)], FakeContext(1), False, [],  # type: ignore[arg-type]
         cache=True)
    assert shape.holds() and shape.plans is not None and shape.plans[0] in a.layout.plans  # type: ignore[union-attr]
    merged = device_op(lane, issued=True)
    plan(merged, [req(a, 0, 16, writes=True), req(a, 32, 48)], FakeContext(1), False, [],  # type: ignore[arg-type]
         cache=True)
    assert not shape.holds()  # the layout it left is another
    assert not shape.holds()
    unordered = _shape((ra,), [ra], FakeLane(1, ordered=False))
    assert not unordered.holds()


class FakeAccessor:
    """What a shape matches of an accessor: its window's requirement."""

    def __init__(self, requirement: Any) -> None:
        self._win = self
        self.req = requirement


def test_a_shape_matches_only_the_accessors_it_was_checked_with_in_their_order() -> None:
    """The command group's accessors are the launch's accessor arguments, one each, each with
    the very requirement, in the order they joined; scalars match by type (rule S20)."""
    lane = FakeLane(1)
    a, b = memory_object(), memory_object()
    wa, rb = req(a, 0, 64, writes=True), req(b, 0, 64)
    x, y = FakeAccessor(wa), FakeAccessor(rb)
    signature = (rb, float, wa)
    order = joined_order(signature, (y, 2.0, x), [x, y])
    assert order == (2, 0)
    shapes: dict[Any, Shape] = {}
    keep(shapes, "k", Shape(lane, FakeKernel(), (64,), None, None, signature, order,  # type: ignore[arg-type]
                            [wa, rb]))
    shape = shapes["k"]
    assert matching(shapes, "k", lane, shape.sizes, (y, 3.0, x), [x, y]) is shape
    x2, y2 = FakeAccessor(wa), FakeAccessor(rb)  # the next command group's accessors
    assert matching(shapes, "k", lane, shape.sizes, (y2, 3.0, x2), [x2, y2]) is shape
    assert matching(shapes, "k", lane, shape.sizes, (y2, 3.0, x2), [y2, x2]) is None  # joined the other way
    assert matching(shapes, "k", lane, shape.sizes, (y2, 3.0, x2), [x2, y2, x]) is None  # one more accessor
    assert matching(shapes, "k", lane, shape.sizes, (y2, 3.0, x), [x2, y2]) is None  # another group
    assert matching(shapes, "k", lane, shape.sizes, (x2, 3.0, x2), [x2, y2]) is None  # another requirement
    assert matching(shapes, "k", lane, shape.sizes, (y2, 3, x2), [x2, y2]) is None  # an int for a float
    assert matching(shapes, "k", FakeLane(1), shape.sizes, (y2, 3.0, x2), [x2, y2]) is None  # another queue
    assert matching(shapes, "k", lane, ((32,), None, None), (y2, 3.0, x2), [x2, y2]) is None
    assert matching(shapes, ["unhashable"], lane, shape.sizes, (y2, 3.0, x2), [x2, y2]) is None


def test_a_launch_whose_accessors_are_not_its_arguments_one_each_has_no_shape() -> None:
    a = memory_object()
    wa = req(a, 0, 64, writes=True)
    x, unused = FakeAccessor(wa), FakeAccessor(req(memory_object(), 0, 64))
    assert joined_order((wa, wa), (x, x), [x]) is None  # one accessor passed twice
    assert joined_order((wa,), (x,), [x, unused]) is None  # an accessor not passed
    assert joined_order((float,), (2.0,), [x]) is None
    assert joined_order((wa, float), (x, 2.0), [x]) == (0,)
