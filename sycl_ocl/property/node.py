"""``sycl::ext::oneapi::experimental::property::node``: properties of a node added to a command
graph with ``command_graph.add`` (the ``sycl_ext_oneapi_graph`` extension)."""

from __future__ import annotations

from typing import Any

from ._base import Property


class depends_on(Property):
    """The new node runs after these nodes (as well as after what its accessors require)."""

    __slots__ = ("_nodes",)
    applies_to = frozenset({"node"})

    def __init__(self, *nodes: Any) -> None:
        self._nodes = nodes

    def get_nodes(self) -> tuple[Any, ...]:
        """The nodes depended on."""
        return self._nodes


class depends_on_all_leaves(Property):
    """The new node runs after every node of the graph that has no successor yet."""

    __slots__ = ()
    applies_to = frozenset({"node"})
