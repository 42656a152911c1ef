"""``sycl::property::reduction`` (SYCL 2020 §4.9.2.1)."""

from __future__ import annotations

from ._base import Property


class initialize_to_identity(Property):
    """The reduction replaces the variable's value instead of combining it in (§4.9.2.1)."""

    __slots__ = ()
    applies_to = frozenset({"reduction"})
