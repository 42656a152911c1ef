"""``sycl::ext::oneapi::experimental``: command graphs (``sycl_ext_oneapi_graph``; docs/graphs.md)."""

from ....graph import command_graph, graph_state, node, node_type, queue_state
from . import property

__all__ = ["command_graph", "graph_state", "node", "node_type", "property", "queue_state"]
