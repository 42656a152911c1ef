"""``sycl::ext::oneapi::experimental::property::graph``: properties of command graphs (the
``sycl_ext_oneapi_graph`` extension; ``docs/graphs.md``)."""

from __future__ import annotations

from ._base import Property


class no_cycle_check(Property):
    """``make_edge`` skips its cycle check (the user promises an acyclic graph)."""

    __slots__ = ()
    applies_to = frozenset({"command_graph"})


class assume_buffer_outlives_graph(Property):
    """The user promises that the buffers of the graph outlive it (sycl_ocl accepts buffers in
    graphs without it: a graph keeps what it needs, and refuses to replay after a buffer's
    destruction)."""

    __slots__ = ()
    applies_to = frozenset({"command_graph"})


class updatable(Property):
    """Asks ``finalize`` for an executable graph that can be updated (not implemented: refused
    with ``errc.feature_not_supported``)."""

    __slots__ = ()
    applies_to = frozenset({"command_graph"})


class enable_profiling(Property):
    """Replays of the executable graph can be profiled (on a queue with ``enable_profiling``)."""

    __slots__ = ()
    applies_to = frozenset({"command_graph"})
