"""Accessor properties (SYCL 2020 §4.7.6.4): ``sycl::property::no_init``."""

from __future__ import annotations

from ._base import Property


class no_init(Property):
    """The accessor discards the previous contents of the accessed range (§4.7.6.4)."""

    __slots__ = ()
    applies_to = frozenset({"accessor", "host_accessor"})
