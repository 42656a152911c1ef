"""``sycl::property::queue`` (SYCL 2020 §4.6.5.3)."""

from __future__ import annotations

from ._base import Property


class in_order(Property):
    """Commands of the queue run in submission order (§4.6.5.3)."""

    __slots__ = ()
    applies_to = frozenset({"queue"})


class enable_profiling(Property):
    """Commands of the queue record profiling timestamps (§4.6.5.3)."""

    __slots__ = ()
    applies_to = frozenset({"queue"})
