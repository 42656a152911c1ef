"""``sycl::ext::oneapi::experimental::property``: ``graph`` (properties of a command graph) and
``node`` (properties of a node added with ``command_graph.add``)."""

from ....property import graph, node

__all__ = ["graph", "node"]
