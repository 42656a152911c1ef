"""Any sequence of requirements yields a DAG consistent with §3.8.1 (docs/scheduler.md rules
S2, S4, S5): every pair of conflicting accesses is ordered, transitively; reads are not ordered
with each other unless a write lies between them; no byte's data is ever lost."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st
from scheduler_fakes import SIZE, FakeLane, device_op, host_op, memory_object, reaches, req

from sycl_ocl.scheduler.coherence import access
from sycl_ocl.scheduler.memory_object import HOST, MemoryObject
from sycl_ocl.scheduler.op import Op
from sycl_ocl.scheduler.requirement import FRONTIER_CAP, HOST_READ, READ, WRITE

# The buffer, its two halves and a sub-buffer across both (§3.8.1 Table 5).
VIEWS = [(0, SIZE), (0, SIZE // 2), (SIZE // 2, SIZE), (SIZE // 4, 3 * SIZE // 4)]
CONTEXTS = (1, 2)


@dataclass(frozen=True)
class Access:
    view: tuple[int, int]
    lo: int
    hi: int
    kind: int
    where: int  # HOST, or a context handle
    discard: bool

    @property
    def writes(self) -> bool:
        return self.kind == WRITE


@st.composite
def accesses(draw: st.DrawFn, places: tuple[int, ...]) -> Access:
    view = draw(st.sampled_from(VIEWS))
    lo = draw(st.integers(view[0], view[1]))
    hi = draw(st.integers(lo, view[1]))
    where = draw(st.sampled_from(places))
    kinds = [READ, WRITE, HOST_READ] if where == HOST else [READ, WRITE]
    kind = draw(st.sampled_from(kinds))
    return Access(view, lo, hi, kind, where, kind == WRITE and draw(st.booleans()))


def programs(places: tuple[int, ...]) -> st.SearchStrategy[list[Access]]:
    return st.lists(accesses(places), min_size=1, max_size=FRONTIER_CAP - 4)


def run(program: list[Access]) -> tuple[MemoryObject, list[Op]]:
    """Plan every access in order, each by a new op that stays incomplete."""
    memory = memory_object(SIZE, CONTEXTS)
    lanes = {ctx: FakeLane(ctx, ordered=False) for ctx in CONTEXTS}
    ops = []
    for a in program:
        op = host_op() if a.where == HOST else device_op(lanes[a.where])
        r = req(memory, a.lo, a.hi, a.writes, not a.discard, a.view)
        alloc = None if a.where == HOST else memory.allocs[a.where]
        access(r, a.kind, alloc, op, [])
        ops.append(op)
        check_validity(memory)
    return memory, ops


def conflict(first: Access, later: Access) -> bool:
    """§3.8.1: the views overlap (accessors of one buffer overlap unless on non-overlapping
    sub-buffers) and one side writes; a host accessor holds back later readers too."""
    overlap = first.view[0] < later.view[1] and later.view[0] < first.view[1]
    holds = first.kind == HOST_READ and later.kind == READ
    return overlap and (first.writes or later.writes or holds)


def check_validity(memory: MemoryObject) -> None:
    """Pieces are sorted and disjoint, and every byte is valid somewhere: no data is lost."""
    anywhere: set[int] = set()
    for pieces in memory.valid.values():
        assert all(0 <= lo < hi <= SIZE for lo, hi, _ in pieces)
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(pieces))
        anywhere.update(b for lo, hi, _ in pieces for b in range(lo, hi))
    assert anywhere == set(range(SIZE))


@settings(max_examples=300, deadline=None)
@given(programs((HOST, *CONTEXTS)))
def test_conflicting_accesses_are_ordered(program: list[Access]) -> None:
    _, ops = run(program)
    for j, later in enumerate(program):
        for i in range(j):
            if conflict(program[i], later):
                assert reaches(ops[j], ops[i]), f"access {j} does not wait for access {i}"


@settings(max_examples=300, deadline=None)
@given(programs((HOST,)))
def test_reads_are_not_ordered_without_a_write_between(program: list[Access]) -> None:
    _, ops = run(program)
    for j, later in enumerate(program):
        for i in range(j):
            first = program[i]
            reads = not first.writes and not later.writes and not conflict(first, later)
            if reads and not any(a.writes for a in program[i + 1:j]):
                assert not reaches(ops[j], ops[i]), f"read {j} waits for read {i}"


@settings(max_examples=200, deadline=None)
@given(programs((HOST, *CONTEXTS)))
def test_a_write_leaves_one_valid_copy_of_its_bytes(program: list[Access]) -> None:
    memory, ops = run(program)
    last_writer: dict[int, tuple[int, Op]] = {}
    for a, op in zip(program, ops, strict=True):
        if a.writes:
            for b in range(a.lo, a.hi):
                last_writer[b] = (a.where, op)
    for b, (where, op) in last_writer.items():
        holding = [loc for loc, pieces in memory.valid.items() if any(lo <= b < hi for lo, hi, _ in pieces)]
        assert where in holding  # the writer's copy is current; others may hold it after reads
        for loc in holding:
            producer = next(p for lo, hi, p in memory.valid[loc] if lo <= b < hi)
            assert producer is op or reaches(producer, op)  # any other copy came from it
