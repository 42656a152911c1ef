"""Sorted disjoint byte intervals ``(lo, hi, producer)``: the validity of one copy of a buffer.

``producer`` is the operation that makes the bytes valid in that copy (``None`` once the
bytes are at rest). Lists stay short in practice (one entry for whole-buffer use).
"""

from __future__ import annotations

from typing import Any

Piece = tuple[int, int, Any]


def remove(pieces: list[Piece], lo: int, hi: int) -> list[Piece]:
    """``pieces`` without the bytes ``[lo, hi)``."""
    out: list[Piece] = []
    for a, b, p in pieces:
        if b <= lo or a >= hi:
            out.append((a, b, p))
            continue
        if a < lo:
            out.append((a, lo, p))
        if b > hi:
            out.append((hi, b, p))
    return out


def insert(pieces: list[Piece], lo: int, hi: int, producer: Any) -> list[Piece]:
    """``pieces`` with ``[lo, hi)`` valid, made so by ``producer``."""
    if lo >= hi:
        return pieces
    if not pieces or (lo <= pieces[0][0] and pieces[-1][1] <= hi):
        return [(lo, hi, producer)]  # covers every piece (whole-buffer writes)
    out = remove(pieces, lo, hi)
    out.append((lo, hi, producer))
    out.sort(key=lambda piece: piece[0])
    return out


def gaps(pieces: list[Piece], lo: int, hi: int) -> list[tuple[int, int]]:
    """The sub-intervals of ``[lo, hi)`` not covered by ``pieces``."""
    out: list[tuple[int, int]] = []
    cursor = lo
    for a, b, _ in pieces:
        if b <= cursor or a >= hi:
            continue
        if a > cursor:
            out.append((cursor, a))
        cursor = max(cursor, b)
        if cursor >= hi:
            break
    if cursor < hi:
        out.append((cursor, hi))
    return out


def overlapping(pieces: list[Piece], lo: int, hi: int) -> list[Piece]:
    """The pieces that overlap ``[lo, hi)``, clipped to it."""
    return [(max(a, lo), min(b, hi), p) for a, b, p in pieces if a < hi and b > lo]
