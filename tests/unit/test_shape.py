"""Shapes (scheduler/shape.py; docs/scheduler.md rule S20): a launch checked once binds its
memory once, and hands full planning or a command graph a launch of its own."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from scheduler_fakes import FakeContext, FakeLane, memory_object, req

from sycl_ocl.scheduler.memory_object import Allocation
from sycl_ocl.scheduler.shape import Shape


class FakeBuffer:
    """A ``cl_mem`` of 64 bytes whose sub-buffers are their regions."""

    size = 64

    def get_sub_region(self, origin: int, size: int) -> tuple[int, int]:
        return (origin, size)


def _shape(signature: tuple[Any, ...], requirements: list[Any], lane: Any = None) -> Shape:
    return Shape(lane or FakeLane(1), SimpleNamespace(_name="k"), (64,), None, None,  # type: ignore[arg-type]
                 signature, requirements)


def test_a_shape_binds_the_memory_of_its_accessors_once() -> None:
    a, b = memory_object(), memory_object()
    buf = FakeBuffer()
    a.allocs[1] = Allocation(buf, FakeContext(1), False)  # type: ignore[arg-type]
    b.allocs[1] = Allocation(buf, FakeContext(1), False)  # type: ignore[arg-type]
    ra, rb = req(a, 0, 64, writes=True), req(b, 16, 32)
    shape = _shape((ra, float, rb), [ra, rb])
    assert shape.bindings == (0, 2) and shape.replays
    shape.bind()
    assert shape.mems == (buf, (16, 16))  # the whole allocation, a sub-buffer of the window
    assert shape.arguments((None, 2.0, None), shape.mems) == [buf, 2.0, (16, 16)]
    bound = shape.action((None, 2.0, None), True)
    assert bound.args == [buf, 2.0, (16, 16)] and bound.bindings == ()
    unbound = shape.action((None, 2.0, None), False)  # a command graph binds its own
    assert unbound.args == [ra, 2.0, rb] and unbound.bindings == (0, 2)


def test_a_shape_binds_nothing_without_an_allocation_or_on_a_misaligned_window() -> None:
    a = memory_object(contexts=())
    ra = req(a, 0, 64)
    shape = _shape((ra,), [ra])
    shape.bind()
    assert shape.mems is None  # no allocation in the lane's context yet
    a.allocs[1] = Allocation(FakeBuffer(), FakeContext(1), False)  # type: ignore[arg-type]
    misaligned = req(a, 2, 64)
    shape = _shape((misaligned,), [misaligned])
    shape.bind()
    assert shape.mems is None  # a scratch copy per launch: KernelLaunch does it
    assert shape.action((None,), True).bindings == (0,)


def test_a_shape_replays_only_distinct_memory_objects_on_an_in_order_queue() -> None:
    a = memory_object()
    r1, r2 = req(a, 0, 16), req(a, 32, 48)
    assert not _shape((r1, r2), [r1, r2]).replays  # merged by full planning (rule S3)
    assert not _shape((r1,), [r1], FakeLane(1, ordered=False)).replays
    assert _shape((r1,), [r1]).replays
