"""Byte intervals of one copy's validity (scheduler/intervals.py), against a model: the set of
bytes each producer made valid."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from sycl_ocl.scheduler.intervals import Piece, gaps, insert, overlapping, remove

SIZE = 32
spans = st.tuples(st.integers(0, SIZE), st.integers(0, SIZE)).map(sorted).map(tuple)


def model(pieces: list[Piece]) -> dict[int, object]:
    """Byte -> producer."""
    return {byte: producer for lo, hi, producer in pieces for byte in range(lo, hi)}


def well_formed(pieces: list[Piece]) -> bool:
    """Sorted, disjoint, non-empty pieces."""
    return all(lo < hi for lo, hi, _ in pieces) and all(
        a[1] <= b[0] for a, b in itertools.pairwise(pieces))


@st.composite
def validity(draw: st.DrawFn) -> list[Piece]:
    """Pieces built by a sequence of inserts, as the scheduler builds them."""
    pieces: list[Piece] = []
    for i, (lo, hi) in enumerate(draw(st.lists(spans, max_size=6))):
        pieces = insert(pieces, lo, hi, f"op{i}")
    return pieces


def test_remove_cuts_a_hole_in_a_piece() -> None:
    assert remove([(0, 10, "w")], 3, 5) == [(0, 3, "w"), (5, 10, "w")]


def test_insert_covering_everything_leaves_one_piece() -> None:
    assert insert([(0, 4, "a"), (6, 8, "b")], 0, 8, "c") == [(0, 8, "c")]


def test_insert_of_an_empty_window_changes_nothing() -> None:
    pieces = [(0, 4, "a")]
    assert insert(pieces, 3, 3, "b") is pieces


def test_gaps_and_overlapping_split_a_window() -> None:
    pieces = [(2, 4, "a"), (6, 9, "b")]
    assert gaps(pieces, 0, 10) == [(0, 2), (4, 6), (9, 10)]
    assert overlapping(pieces, 3, 7) == [(3, 4, "a"), (6, 7, "b")]


@given(validity(), spans)
def test_insert_makes_the_window_valid_by_its_producer(pieces: list[Piece], span: tuple[int, int]) -> None:
    lo, hi = span
    after = insert(pieces, lo, hi, "new")
    expected = model(pieces)
    expected.update({byte: "new" for byte in range(lo, hi)})
    assert well_formed(after) and model(after) == expected


@given(validity(), spans)
def test_remove_drops_exactly_the_window(pieces: list[Piece], span: tuple[int, int]) -> None:
    lo, hi = span
    after = remove(pieces, lo, hi)
    assert well_formed(after)
    assert model(after) == {b: p for b, p in model(pieces).items() if not lo <= b < hi}


@given(validity(), spans)
def test_gaps_and_overlapping_partition_the_window(pieces: list[Piece], span: tuple[int, int]) -> None:
    lo, hi = span
    covered = model(pieces)
    missing = {b for a, z in gaps(pieces, lo, hi) for b in range(a, z)}
    present = model(overlapping(pieces, lo, hi))
    assert missing == {b for b in range(lo, hi) if b not in covered}
    assert present == {b: covered[b] for b in range(lo, hi) if b in covered}
