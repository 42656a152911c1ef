"""Command graphs: the oneAPI ``sycl_ext_oneapi_graph`` extension, in
``sycl.ext.oneapi.experimental`` (``docs/graphs.md``).

A modifiable ``command_graph`` collects nodes, from queues that record (``begin_recording``:
their submissions become nodes instead of running) or added explicitly (``add``), with edges
from the nodes' accessors (docs/scheduler.md rule S2), from ``depends_on`` on events of
recorded submissions, from in-order recording queues and from ``make_edge``. ``finalize``
resolves everything once into an executable ``command_graph``; ``q.ext_oneapi_graph(exe)``
replays it as one command of the queue (``scheduler/graph.py``, rule S18).
"""

from __future__ import annotations

import enum
import heapq
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ._context import context
from ._device import device
from ._event import event, event_of
from ._exception import errc, exception
from ._handler import GraphOrigin, handler, make_handler
from .property import graph as graph_props
from .property import node as node_props
from .property._base import PropertyHolder, make_property_list, property_list
from .scheduler import (
    FRONTIER_CAP,
    READ,
    RUNTIME,
    WRITE,
    DeviceCopy,
    DeviceFill,
    GraphReplay,
    HostCopy,
    HostTask,
    KernelLaunch,
    NativeTask,
    Step,
    SvmCopy,
    SvmFill,
    SvmMigrate,
    conflicts,
)

if TYPE_CHECKING:
    from ._async_errors import AsyncErrors
    from ._queue import queue
    from .scheduler import Command, MemoryObject, Requirement


class graph_state(enum.Enum):
    """A graph under construction, or finalized for replay."""

    modifiable = 0
    executable = 1


class queue_state(enum.Enum):
    """``q.ext_oneapi_get_state()``: running its submissions, or recording them to a graph."""

    executing = 0
    recording = 1


class node_type(enum.Enum):
    """What a node does (``node.get_type()``)."""

    empty = 0
    subgraph = 1
    kernel = 2
    memcpy = 3
    memset = 4
    memfill = 5
    prefetch = 6
    memadvise = 7
    ext_oneapi_barrier = 8
    host_task = 9
    async_malloc = 10
    async_free = 11


class node:
    """One command of a graph (``command_graph.add`` returns one; a recorded submission makes
    one): common reference semantics, compared by identity."""

    __slots__ = ("__weakref__", "_action", "_cmd", "_graph", "_preds", "_requirements", "_succs", "_type")

    _action: Any
    _cmd: Recorded
    _graph: weakref.ref[_Graph]
    _preds: list[node]
    _requirements: tuple[Requirement, ...]
    _succs: list[node]
    _type: node_type

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("sycl.ext.oneapi.experimental.node cannot be constructed; command_graph.add "
                        "returns one")

    @classmethod
    def _make(cls, graph: _Graph, kind: node_type, action: Any, requirements: Sequence[Requirement]) -> node:
        self = object.__new__(cls)
        self._graph = weakref.ref(graph)
        self._type = kind
        self._action = action
        self._requirements = tuple(requirements)
        self._preds = []
        self._succs = []
        self._cmd = Recorded(self)
        return self

    def get_type(self) -> node_type:
        """The kind of command the node holds."""
        return self._type

    def get_predecessors(self) -> list[node]:
        """The nodes this node depends on directly."""
        return list(self._preds)

    def get_successors(self) -> list[node]:
        """The nodes that depend on this node directly."""
        return list(self._succs)

    @staticmethod
    def get_node_from_event(ev: event) -> node:
        """The node a submission to a recording queue made, from the event it returned.

        Raises:
            sycl.exception: ``errc.invalid`` for an event of a command that was not recorded.
        """
        cmd = ev._cmd if isinstance(ev, event) else None
        if not isinstance(cmd, Recorded):
            raise exception(errc.invalid, f"{ev!r} was not returned by a submission to a recording queue")
        return cmd.node

    def __repr__(self) -> str:
        return f"<sycl.ext.oneapi.experimental.node {self._type.name}>"


class Recorded:
    """What the event of a recorded submission refers to: a node, not a command that runs.

    It can be depended on inside its graph only; waiting on it, or asking its status or its
    profiling information, raises ``errc.invalid`` (the extension's rules).
    """

    __slots__ = ("__weakref__", "node")
    async_errors: AsyncErrors | None = None

    def __init__(self, owner: node) -> None:
        self.node = owner

    def _refuse(self, what: str) -> exception:
        return exception(errc.invalid, f"{what} an event of a recorded command: it never runs by itself; "
                                       "replay the finalized graph (q.ext_oneapi_graph) and use that event")

    def cl_event(self) -> None:
        raise self._refuse("the OpenCL event of")

    def wait(self) -> None:
        raise self._refuse("waiting on")

    def status(self) -> Any:
        raise self._refuse("the status of")

    def profiled(self) -> bool:
        raise self._refuse("profiling")

    def host_time(self, field: str) -> int | None:
        raise self._refuse("profiling")

    def dependencies(self) -> list[Command]:
        return [pred._cmd for pred in self.node._preds]


def _node_type(action: Any, member: str | None) -> node_type:
    if member is not None:
        return node_type[member]
    kind = type(action)
    if kind is KernelLaunch:
        return node_type.kernel
    if kind is DeviceCopy or kind is SvmCopy or kind is HostCopy:
        return node_type.memcpy
    if kind is DeviceFill or kind is SvmFill:
        return node_type.memfill
    if kind is SvmMigrate:
        return node_type.prefetch
    return node_type.empty


class _Graph:
    """The state of a modifiable graph, shared by its queues (weakly) and its handle."""

    __slots__ = ("__weakref__", "accesses", "context", "device", "handle", "last_of", "lock", "nodes",
                 "props", "queues")

    def __init__(self, ctx: context, dev: device, props: property_list, handle: command_graph) -> None:
        self.context, self.device, self.props = ctx, dev, props
        self.handle = weakref.ref(handle)  # the user's graph (``q.ext_oneapi_get_graph``)
        self.lock = threading.RLock()
        self.nodes: list[node] = []
        self.queues: list[queue] = []  # recording to this graph
        self.last_of: dict[int, node] = {}  # the last node of each in-order recording queue
        # Per memory object, the accesses later nodes may conflict with: (node, view_lo, view_hi, kind).
        self.accesses: dict[MemoryObject, list[tuple[node, int, int, int]]] = {}

    # --- adding nodes -------------------------------------------------------------------

    def add_node(self, h: handler, after: Iterable[node], q: queue | None) -> node:
        """The node of a command group (``h``, finished): checked, with its edges."""
        action = h._final_action()
        if isinstance(action, HostTask | NativeTask):  # code on the host: no replay runs it
            raise exception(errc.feature_not_supported, "a command graph cannot hold host commands "
                                                        "(host_task, update_host, a handler.copy done on "
                                                        "the host: a strided accessor or array): submit "
                                                        "them outside the graph, before or after a replay")
        if isinstance(action, GraphReplay):
            raise exception(errc.feature_not_supported, "a command graph cannot hold another graph "
                                                        "(sub-graphs are not implemented); record its "
                                                        "commands into this graph instead")
        preds = list(after)
        for cmd in h._depends:
            if not isinstance(cmd, Recorded) or cmd.node._graph() is not self:
                raise exception(errc.invalid, "a command recorded to a graph may depend only on events of "
                                              "commands recorded to the same graph")
            preds.append(cmd.node)
        n = node._make(self, _node_type(action, h._member), action, h._requirements)
        if q is not None and q._in_order:
            last = self.last_of.get(id(q))
            if last is not None:
                preds.append(last)
            self.last_of[id(q)] = n
        for req in n._requirements:
            preds.extend(self._conflicts(n, req))
        for pred in dict.fromkeys(preds):
            _link(pred, n)
        self.nodes.append(n)
        return n

    def _conflicts(self, n: node, req: Requirement) -> list[node]:
        """The earlier nodes ``n``'s access ``req`` conflicts with (rule S2); remembers it."""
        lo, hi, kind = req.view_lo, req.view_hi, WRITE if req.writes else READ
        found, kept = [], []
        for entry in self.accesses.get(req.memory, ()):
            other, elo, ehi, ekind = entry
            if other is n or ehi <= lo or elo >= hi:
                kept.append(entry)
                continue
            if conflicts(kind, ekind):
                found.append(other)
                if kind == WRITE and lo <= elo and ehi <= hi:
                    continue  # superseded: later nodes reach it through n
            kept.append(entry)
        if len(kept) >= FRONTIER_CAP:
            found.append(kept.pop(0)[0])  # still reached, through n
        kept.append((n, lo, hi, kind))
        self.accesses[req.memory] = kept
        return found

    def leaves(self) -> list[node]:
        return [n for n in self.nodes if not n._succs]


def _link(src: node, dest: node) -> None:
    if dest not in src._succs:
        src._succs.append(dest)
        dest._preds.append(src)


def _reaches(start: node, goal: node) -> bool:
    todo, seen = [start], {id(start)}
    while todo:
        for nxt in todo.pop()._succs:
            if nxt is goal:
                return True
            if id(nxt) not in seen:
                seen.add(id(nxt))
                todo.append(nxt)
    return False


class command_graph(PropertyHolder):
    """A graph of commands, modifiable or executable (``sycl_ext_oneapi_graph``).

    ``command_graph(ctx, dev, prop_list=None)`` or ``command_graph(q, prop_list=None)`` makes a
    modifiable graph for one context and device; ``finalize()`` returns an executable one
    (``state`` tells them apart: C++ makes the state a template parameter). Properties:
    ``property.graph.no_cycle_check``, ``assume_buffer_outlives_graph``, ``enable_profiling``.

    Raises:
        sycl.exception: ``errc.invalid`` for a device not in the context.
    """

    __slots__ = ("__weakref__", "_context", "_device", "_graph", "_props", "_replay", "_state")

    _graph: _Graph | None  # a modifiable graph's nodes and recording state
    _replay: GraphReplay | None  # an executable graph's replay

    def __init__(self, first: context | queue, second: device | None = None,
                 prop_list: property_list | Iterable[Any] | None = None) -> None:
        if isinstance(first, context):
            if not isinstance(second, device):
                raise exception(errc.invalid, "command_graph(ctx, dev): give the device the graph's commands "
                                              "run on")
            first._check_device(second)
            ctx, dev = first, second
        elif hasattr(first, "_lane"):  # a queue (_queue.py imports this module)
            if second is not None and prop_list is None and not isinstance(second, device):
                prop_list, second = second, None
            ctx, dev = first.get_context(), first.get_device()
        else:
            raise exception(errc.invalid,
                            f"command_graph takes a context and a device, or a queue; got {first!r}")
        self._props = make_property_list(prop_list, "command_graph")
        self._state = graph_state.modifiable
        self._context, self._device = ctx, dev
        self._graph = _Graph(ctx, dev, self._props, self)
        self._replay = None
        weakref.finalize(self, _end_all, self._graph)  # recording ends with the graph (exception safety)

    # --- state --------------------------------------------------------------------------

    @property
    def state(self) -> graph_state:
        """``graph_state.modifiable`` or ``graph_state.executable``."""
        return self._state

    def _modifiable(self, call: str) -> _Graph:
        if self._graph is None:
            raise exception(errc.invalid, f"{call} needs a modifiable graph; this one is executable "
                                          "(finalize returned it)")
        return self._graph

    def _not_recording(self, call: str) -> _Graph:
        graph = self._modifiable(call)
        if graph.queues:
            raise exception(errc.invalid,
                            f"{call} while a queue records to the graph; call end_recording first")
        return graph

    # --- queue recording ----------------------------------------------------------------

    def begin_recording(self, queues: queue | Sequence[queue], prop_list: Any = None) -> None:
        """Record the submissions of ``queues`` to this graph instead of running them.

        Raises:
            sycl.exception: ``errc.invalid`` for a queue that records already, or whose
                context or device is not the graph's.
        """
        graph = self._modifiable("begin_recording")
        qs = _queues(queues)
        with graph.lock:
            for q in qs:
                if q._recording is not None:
                    raise exception(errc.invalid,
                                    f"{q!r} records to a graph already; end that recording first")
                if q.get_context() != graph.context or q.get_device() != graph.device:
                    raise exception(errc.invalid, f"{q!r} has another context or device than the graph; "
                                                  "record queues of the graph's context and device")
            for q in qs:
                _start(graph, q)

    def end_recording(self, queues: queue | Sequence[queue] | None = None) -> None:
        """Stop recording ``queues`` (all of this graph's when None); a queue that does not
        record is left alone.

        Raises:
            sycl.exception: ``errc.invalid`` for a queue recording to another graph.
        """
        graph = self._modifiable("end_recording")
        if queues is None:
            _end_all(graph)
            return
        qs = _queues(queues)
        with graph.lock:
            for q in qs:
                if q._recording is not None and q._recording() is not graph:
                    raise exception(errc.invalid, f"{q!r} records to another graph; end it there")
            for q in qs:
                _end(graph, q)

    # --- explicit graph building -----------------------------------------------------------

    def add(self, cgf: Callable[[handler], Any] | None = None, dep: node | Iterable[node] | None = None,
            prop_list: property_list | Iterable[Any] | None = None) -> node:
        """A node running the command group ``cgf`` (an empty node without one), after ``dep``
        and the nodes named by ``property.node.depends_on`` / ``depends_on_all_leaves``, and
        after the earlier nodes its accessors conflict with.

        The command-group function runs now; the command runs at each replay.

        Raises:
            sycl.exception: ``errc.invalid`` while a queue records to the graph, or for a node
                of another graph; ``errc.feature_not_supported`` for a host task.
        """
        graph = self._not_recording("add")
        props = make_property_list(prop_list, "node")
        after = [] if dep is None else [dep] if isinstance(dep, node) else list(dep)
        if props.has_property(node_props.depends_on):
            after += props.get_property(node_props.depends_on).get_nodes()
        h = make_handler(GraphOrigin(graph.context, graph.device))
        if cgf is not None:
            cgf(h)
        with graph.lock:
            for n in after:
                self._check_mine(n)
            if props.has_property(node_props.depends_on_all_leaves):
                after += graph.leaves()
            return graph.add_node(h, after, None)

    def make_edge(self, src: node, dest: node) -> None:
        """``dest`` runs after ``src``.

        Raises:
            sycl.exception: ``errc.invalid`` while a queue records, for a node of another
                graph, for ``src is dest``, or for an edge that closes a cycle (unless the
                graph has ``property.graph.no_cycle_check``).
        """
        graph = self._not_recording("make_edge")
        with graph.lock:
            self._check_mine(src)
            self._check_mine(dest)
            if src is dest:
                raise exception(errc.invalid, "make_edge: a node cannot depend on itself")
            if not self._props.has_property(graph_props.no_cycle_check) and _reaches(dest, src):
                raise exception(errc.invalid, "make_edge: the edge would close a cycle (the source runs "
                                              "after the destination already)")
            _link(src, dest)

    def _check_mine(self, n: Any) -> None:
        if not isinstance(n, node) or n._graph() is not self._graph:
            raise exception(errc.invalid, f"{n!r} is not a node of this graph")

    def get_nodes(self) -> list[node]:
        """The nodes, in the order they were added."""
        return list(self._modifiable("get_nodes").nodes)

    def get_root_nodes(self) -> list[node]:
        """The nodes that depend on none."""
        return [n for n in self._modifiable("get_root_nodes").nodes if not n._preds]

    def empty(self) -> bool:
        """Whether the graph has no node."""
        return not self._modifiable("empty").nodes

    # --- finalize and replay -----------------------------------------------------------

    def finalize(self, prop_list: property_list | Iterable[Any] | None = None) -> command_graph:
        """An executable graph of the nodes so far: their dependencies, memory and kernel
        arguments resolved once, as a native command buffer where the device offers
        ``cl_khr_command_buffer`` and replays it faster than prepared kernels
        (``SYCL_OCL_GRAPH_NATIVE=0`` forces prepared kernels, ``=1`` command buffers).

        Raises:
            sycl.exception: ``errc.feature_not_supported`` for ``property.graph.updatable``
                (executable graph update is not implemented); errors of the recorded kernels
                (``errc.kernel_argument``, ``errc.nd_range``) as a launch raises them.
        """
        graph = self._modifiable("finalize")
        props = make_property_list(prop_list, "command_graph")
        if props.has_property(graph_props.updatable):
            raise exception(errc.feature_not_supported, "executable graph update (property.graph.updatable) "
                                                        "is not implemented; finalize again after changes")
        with graph.lock:
            steps = _steps(graph.nodes)
        with RUNTIME:
            replay = GraphReplay(steps, RUNTIME.context(graph.context._native, graph.context),
                                 graph.device._native)
        exe = object.__new__(command_graph)
        exe._props, exe._state = self._props, graph_state.executable
        exe._context, exe._device = graph.context, graph.device
        exe._graph = None
        exe._replay = replay
        return exe

    def _check_replay(self, ctx: context, dev: device) -> GraphReplay:
        """The replay action of this executable graph, for a queue of ``ctx`` and ``dev``.

        Raises:
            sycl.exception: ``errc.invalid`` for a modifiable graph, another context or
                device, or a graph whose buffers were destroyed.
        """
        replay = self._replay
        if replay is None:
            raise exception(errc.invalid,
                            "a modifiable graph cannot run: submit the graph finalize() returns")
        if ctx != self._context or dev != self._device:
            raise exception(errc.invalid, "the graph was made for another context or device than the queue's")
        for memory in replay.memories:
            if memory.handles <= 0:
                raise exception(errc.invalid, "a buffer this graph uses was destroyed; a graph replays only "
                                              "while its buffers live")
        return replay

    def __repr__(self) -> str:
        return f"<sycl.ext.oneapi.experimental.command_graph {self._state.name} on {self._device!r}>"


def _queues(queues: Any) -> list[queue]:
    return [queues] if hasattr(queues, "_lane") else list(queues)


def _start(graph: _Graph, q: queue) -> None:
    q._recording = weakref.ref(graph)
    graph.queues.append(q)


def _end(graph: _Graph, q: queue) -> None:
    if q in graph.queues:
        graph.queues.remove(q)
        q._recording = None
        graph.last_of.pop(id(q), None)


def _end_all(graph: _Graph) -> None:
    with graph.lock:
        for q in list(graph.queues):
            _end(graph, q)


def record(q: queue, h: handler) -> event:
    """Record the command group ``h`` submitted to ``q``: to the graph ``q`` records to, or, for
    a queue that does not record, to the graph of the recorded events it depends on (the
    queue records to that graph from then on: transitive recording).

    Raises:
        sycl.exception: ``errc.invalid`` for dependencies on another graph's events, or a
            queue whose context or device is not the graph's.
    """
    graph = q._recording() if q._recording is not None else None
    if graph is None:
        graphs = {id(g): g for cmd in h._depends if isinstance(cmd, Recorded) and (g := cmd.node._graph())}
        if not graphs:  # the graph is gone: recording ended with it
            q._recording = None
            return h._submit()
        if len(graphs) > 1:
            raise exception(errc.invalid, "the command group depends on events of commands recorded to two "
                                          "graphs")
        (graph,) = graphs.values()
        with graph.lock:
            if not graph.queues:
                raise exception(errc.invalid, "the command group depends on an event of a recorded command, "
                                              "and its graph records no more: such events are dependencies "
                                              "only while their graph records")
            if q.get_context() != graph.context or q.get_device() != graph.device:
                raise exception(errc.invalid, f"{q!r} depends on a recorded command of a graph of another "
                                              "context or device")
            if q._recording is None:
                _start(graph, q)
    with graph.lock:
        n = graph.add_node(h, (), q)
    return event_of(n._cmd, q.get_context())


def _steps(nodes: Sequence[node]) -> list[Step]:
    """The nodes in an order that respects every edge (insertion order among the ready ones)."""
    position = {id(n): i for i, n in enumerate(nodes)}
    waiting = [len(n._preds) for n in nodes]
    ready = [i for i, count in enumerate(waiting) if count == 0]  # sorted: a heap already
    order: list[int] = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for succ in nodes[i]._succs:
            j = position[id(succ)]
            waiting[j] -= 1
            if waiting[j] == 0:
                heapq.heappush(ready, j)
    if len(order) != len(nodes):
        raise exception(errc.invalid, "the graph has a cycle (made with property.graph.no_cycle_check); "
                                      "it cannot be finalized")
    index = {i: k for k, i in enumerate(order)}
    return [Step(nodes[i]._action, nodes[i]._requirements,
                 tuple(sorted(index[position[id(p)]] for p in nodes[i]._preds))) for i in order]

