"""Accessor properties (SYCL 2020 §4.7.6.4): ``sycl::property::no_init``, and its tag object
``sycl::no_init`` (``sycl.no_init``)."""

from __future__ import annotations

from ._base import Property


class no_init(Property):
    """The accessor discards the previous contents of the accessed range (§4.7.6.4)."""

    __slots__ = ()
    applies_to = frozenset({"accessor", "host_accessor"})


# ``inline constexpr property::no_init no_init`` (§4.7.6.4): usable wherever the property is.
NO_INIT = no_init()
