"""Shapes: a kernel launch checked once, to launch again (docs/scheduler.md rule S20).

A command group's launch has a shape: the kernel, the sizes, each argument's requirement (a
whole-buffer accessor, whose requirement is made once per buffer and mode) or type (a
scalar), and the command group's requirements. The handler checks the first launch of a
shape in full (arguments, kernel, sizes) and keeps the shape on the window of its first
accessor (``accessor._Window``); a later command group of the same lane with the same shape skips those
checks, and ``launch`` skips planning too while cached plans of its requirements
(rule S17) hold: each followed the layout its memory object is in.
"""

from __future__ import annotations

from collections.abc import Sequence
from time import monotonic_ns
from typing import TYPE_CHECKING, Any, Protocol

from ..._exception import exception
from ..._native import cl, translate
from .. import trace
from ..actions import KernelLaunch
from ..command_group import settle, submit
from ..memory_object import MISALIGNED
from ..op import DEFERRED, new_op
from ..requirement import Requirement
from ..runtime import RUNTIME, to_the_end
from .plans import apply, blocked, crossing, distinct, finished, following
from .prepared import PreparedKernel

if TYPE_CHECKING:
    from ..actions import Kernel
    from ..command import Command
    from ..lane import Lane
    from ..op import Op
    from .plans import Plan


class AccessorWindow(Protocol):
    """What an accessor argument holds (``accessor._Window``): the requirement it makes, the
    same object in every accessor of its window, and the shapes launched with it first."""

    req: Requirement
    shapes: dict[Any, Shape]


class CommandGroup(Protocol):
    """What ``launch`` reads of a command group (a ``handler``): its accessors, in the order
    they joined; its requirements; the arguments of its launch."""

    _accessors: list[Any]
    _call: tuple[Any, ...]

    @property
    def _requirements(self) -> list[Requirement]: ...


# The shapes of one kernel that a window keeps per lane (``keep``): the latest launches'.
KEPT_SHAPES = 4


class Shape:
    """A launch of ``kernel`` on ``lane`` whose arguments were checked: ``signature`` holds,
    per argument, the requirement of an accessor (at the indices ``bindings``) or the type of a
    scalar (at ``scalars``). The command group's accessors are its accessor arguments, one
    each: ``order`` holds the argument index of each, in the order they joined it, and
    ``joined`` pairs each index with its accessor's position, the last joined first;
    ``requirements`` (a list that never changes) are the command group's, theirs in that order
    (where one discards, as a reduction's variable with ``initialize_to_identity``, the kernel
    says so: the key the shape is kept under holds it). ``mems``: the ``cl_mem`` of each
    requirement argument in the lane's context, once bound (``bind``), with ``prepared``, the
    kernel on a ``cl_kernel`` of the shape's own with the last launch's arguments set.

    ``plans`` are its requirements' cached plans (rule S17), those ``holds`` found last;
    ``crosses``: whether they wait for commands of other lanes (``Plan.foreign``)."""

    __slots__ = ("arity", "bindings", "call", "crosses", "earlier", "global_size", "joined", "joins",
                 "kernel", "lane", "local_size", "mems", "offset", "plans", "prepared", "replays",
                 "requirements", "scalars", "signature", "sizes")

    def __init__(
        self, lane: Lane, kernel: Kernel, global_size: tuple[int, ...], local_size: tuple[int, ...] | None,
        offset: tuple[int, ...] | None, signature: tuple[Any, ...], order: tuple[int, ...],
        requirements: list[Requirement], sizes: Any = None,
    ) -> None:
        self.lane = lane
        self.kernel = kernel
        self.global_size = global_size
        self.local_size = local_size
        self.offset = offset
        # What the handler matches a launch's sizes by (``handler.parallel_for``).
        self.sizes = (global_size, local_size, offset) if sizes is None else sizes
        self.signature = signature
        self.arity = len(signature)
        self.requirements = requirements
        # The last joined first: the first accessor's requirement is that of the window the
        # shape is kept on, so the others tell apart the shapes kept there (``matching``).
        self.joined = tuple(reversed([(index, k) for k, index in enumerate(order)]))
        self.joins = len(order)
        self.bindings = tuple(i for i, want in enumerate(signature) if type(want) is Requirement)
        self.scalars = tuple(i for i, want in enumerate(signature) if type(want) is not Requirement)
        # Whether its plans may replay: distinct memory objects, on an in-order OpenCL queue.
        self.replays = lane.ordered and distinct(requirements)
        self.mems: tuple[Any, ...] | None = None
        self.prepared: PreparedKernel | None = None
        # Once bound: the arguments of ``cl.enqueue_nd_range_kernel`` that launch it on ``prepared``.
        self.call: tuple[Any, Any, Any, Any, Any] = (None, None, None, None, None)
        self.plans: tuple[Plan, ...] | None = None
        self.crosses = False
        # The shape of the kernel kept before it under the same window and lane (``keep``).
        self.earlier: Shape | None = None

    def holds(self) -> bool:
        """Whether a launch replays cached plans of its requirements (rule S17) with nothing to
        wait for: those that followed the layouts its memory objects are in, while, where a
        command waits in the DAG, none of those the plans wait for does (``plans.blocked``).
        ``launch`` tries the plans it replayed last first (in a cycle of command groups each
        shape finds its own again), and asks this only when one of their layouts changed."""
        plans = self._found()
        return plans is not None and not (RUNTIME.deferred and blocked(plans))

    def _found(self) -> tuple[Plan, ...] | None:
        """The plans that followed the layouts the shape's memory objects are in (kept in
        ``plans``), or None where one has none, or one dropped as done an entry that is not
        done here (``plans.finished``)."""
        if not self.replays:
            return None
        plans = []
        crosses = False
        for req in self.requirements:
            found = following(req, self.lane)
            if found is None:
                return None
            plans.append(found)
            if found.foreign:
                crosses = True
        self.plans = tuple(plans)
        self.crosses = crosses
        return None if any(found.gone and not finished(found) for found in plans) else self.plans

    def bind(self, args: Sequence[Any]) -> None:
        """Keep in ``mems`` the ``cl_mem`` of each requirement argument in the lane's context,
        and in ``prepared`` the kernel on a ``cl_kernel`` of the shape's own with ``args`` set,
        unless a requirement has no allocation there yet or needs a scratch copy, or the
        range is empty (the kernel enqueues a marker instead)."""
        ctx = self.lane.ctx
        mems = []
        for index in self.bindings:
            req = self.signature[index]
            alloc = req.memory.allocs.get(ctx)
            mem = MISALIGNED if alloc is None else alloc.bound(req.lo, req.hi)
            if mem is MISALIGNED:
                return
            mems.append(mem)
        if 0 in self.global_size:
            return
        arguments = self.arguments(args, tuple(mems))
        try:
            prepared = PreparedKernel(self.kernel, arguments)
        except exception:  # a driver short of resources: every launch is planned in full
            return
        self.call = (self.lane.cl_queue, prepared.native, self.global_size, self.local_size, self.offset)
        self.mems = tuple(mems)
        self.prepared = prepared  # last: a bind interrupted before it leaves the shape unbound (rule S26)

    def arguments(self, args: Sequence[Any], mems: tuple[Any, ...]) -> Sequence[Any]:
        """``args`` as the kernel takes them: the ``cl_mem`` in place of each accessor."""
        if not self.scalars:
            return mems
        out = list(args)
        for k, index in enumerate(self.bindings):  # not zip: its strict= keyword costs a dict per call
            out[index] = mems[k]
        return out

    def action(self, args: Sequence[Any], bound: bool) -> KernelLaunch:
        """The launch of ``args`` as an action of its own, for full planning (``bound``: with
        the shape's memory in place, where it is bound) or for a command graph."""
        mems = self.mems
        if bound and mems is not None:
            return KernelLaunch(self.kernel, self.global_size, self.local_size, self.offset,
                                self.arguments(args, mems), ())
        memory = list(args)
        for index in self.bindings:
            memory[index] = self.signature[index]
        return KernelLaunch(
            self.kernel, self.global_size, self.local_size, self.offset, memory, self.bindings)


def launch(shape: Shape, group: CommandGroup, depends_on: Sequence[Command] = (), owners: Any = None) -> Op:
    """Schedule the kernel launch of ``group``, a command group of the shape's lane matched to
    ``shape`` (``matching``), with ``group._call`` its arguments (docs/scheduler.md rule S20).

    When no accessor joined the command group since it matched (it has the shape's
    requirements), nothing is to wait for, and the plans of the shape's last launch hold
    (``Shape.holds``), it is enqueued at once on the memory the shape bound and the plans are
    replayed: what ``submit`` would do, with nothing to decide. Otherwise ``submit`` plans it.
    ``owners``: what the op keeps alive until it completes (rule S29).
    """
    with RUNTIME: return _launch(shape, group, depends_on, owners)  # noqa: E701  # rule S26


def _launch(shape: Shape, group: CommandGroup, depends_on: Sequence[Command], owners: Any) -> Op:
    """``launch`` under the lock."""
    lane = shape.lane
    prepared = shape.prepared  # None until bound (Shape.bind)
    if (depends_on or prepared is None or trace.RECORDER is not None or len(group._accessors) != shape.joins
            or (lane.in_order and (last := lane.last) is not None and last.state == DEFERRED)):
        return _in_full(shape, group, depends_on, owners)
    # The plans of the shape's last launch, while each memory object is in the layout its plan
    # followed: the common case of Shape.holds, in place (the call would cost 1% of a launch).
    plans = shape.plans
    if plans is not None:
        for found in plans:
            if found.memory.layout is not found.after or (found.gone and not finished(found)):
                plans = None
                break
    if plans is None:
        if not shape.holds():
            return _in_full(shape, group, depends_on, owners)
    elif RUNTIME.deferred and blocked(plans):
        return _in_full(shape, group, depends_on, owners)
    edges = events = None
    if shape.crosses:  # it waits for other lanes' commands: their events in its wait list (rule S7)
        crossed = crossing(shape.plans)  # type: ignore[arg-type]  # found above
        if crossed is None:
            return _in_full(shape, group, depends_on, owners)
        edges, events = crossed
    args = group._call
    kept = prepared.args_set
    for index in shape.scalars:  # a scalar not the very object kept: all are set anew
        if kept is None or args[index] is not kept[index]:
            prepared.set_args(shape.arguments(args, shape.mems))  # type: ignore[arg-type]  # bound
            break
    submitted = monotonic_ns() if lane.profiling else 0  # its command_submit
    ev = None
    try:  # on the shape's own cl_kernel, whose arguments stay set
        # Positional: a keyword costs pybind11 more than the rest of the call.
        ev = cl.enqueue_nd_range_kernel(*shape.call) if edges is None else cl.enqueue_nd_range_kernel(
            *shape.call, events)
        op = new_op(lane, lane.ctx, False, lane.async_errors, ev, None, submitted)
        op.owners = owners
        apply(shape.plans, op, edges)  # type: ignore[arg-type]  # found above
    except BaseException as error:
        if ev is not None:  # enqueued, its records unfinished (an interrupt): settled (rule S26)
            try:
                to_the_end(settle, lane, group._requirements, (), owners)
            except KeyboardInterrupt:  # a second one, landed as it began (CPython looks there)
                to_the_end(settle, lane, group._requirements, (), owners)
        elif isinstance(error, cl.Error):
            raise translate(error, "enqueueing a command") from error
        raise
    return op


def _in_full(shape: Shape, group: CommandGroup, depends_on: Sequence[Command], owners: Any) -> Op:
    """``submit`` of the launch, planned in full; the shape binds its memory after the first."""
    prepared = shape.prepared
    args = group._call
    op = submit(shape.lane, shape.action(args, True), group._requirements, depends_on, owners)
    if prepared is None:
        shape.bind(args)  # its memory is allocated now: the next launch takes it as it is
    return op


def matching(shapes: dict[Any, Shape], kernel: Any, lane: Lane | None, sizes: Any, args: tuple[Any, ...],
             accessors: list[Any]) -> Shape | None:
    """The shape (rule S20) that a launch of ``kernel`` over ``sizes`` with ``args`` on ``lane``
    is, among ``shapes`` (those of the window of the command group's first accessor): the same
    sizes and arguments of the same kinds, the command group's ``accessors`` (each holding an
    ``AccessorWindow`` as ``_win``) at the shape's indices in the order they joined, each with
    the very requirement, and each scalar of the same type. None: the handler checks the
    launch in full. Not a method of the handler: the scheduler keeps the one statement of what
    a shape matches."""
    try:
        shape = shapes.get(kernel)
        if shape is not None and shape.lane is not lane:
            shape = shapes.get((kernel, lane))  # another queue's, kept beside the first's
    except TypeError:  # an unhashable kernel: resolve_kernel says what a kernel may be
        return None
    while shape is not None:  # the shapes kept of the kernel, the latest first (``keep``)
        if shape.sizes == sizes and len(args) == shape.arity and len(accessors) == shape.joins:
            signature = shape.signature
            for index, k in shape.joined:  # not zip or enumerate: either costs more than its body
                acc = accessors[k]
                if args[index] is not acc or acc._win.req is not signature[index]:
                    break
            else:
                for index in shape.scalars:
                    if type(args[index]) is not signature[index]:
                        break
                else:
                    return shape
        shape = shape.earlier
    return None


def joined_order(signature: tuple[Any, ...], args: Sequence[Any],
                 accessors: Sequence[Any]) -> tuple[int, ...] | None:
    """The ``order`` of a ``Shape`` with ``signature`` launching ``args``: the argument index of
    each of the command group's ``accessors``, in the order they joined; None unless they are
    its accessor arguments, one each (such a launch is checked in full each time)."""
    order = []
    for acc in accessors:
        at = [index for index, arg in enumerate(args) if arg is acc]
        if len(at) != 1 or type(signature[at[0]]) is not Requirement:
            return None
        order.append(at[0])
    if len(order) != sum(type(want) is Requirement for want in signature):
        return None
    return tuple(order)


def keep(shapes: dict[Any, Shape], kernel: Any, shape: Shape) -> None:
    """Keep ``shape``, a launch of ``kernel`` checked in full, among ``shapes`` for ``matching``
    to find (another queue's launch of the kernel stays, the new one kept under ``(kernel,
    lane)``), before the ``KEPT_SHAPES - 1`` kept last: a program that launches the kernel
    with one first accessor over several shapes in turn (a slab's rows cut into sub-buffers,
    examples/mpi_jacobi.py) finds each of them."""
    known = shapes.get(kernel)
    key = kernel if known is None or known.lane is shape.lane else (kernel, shape.lane)
    earlier = shapes.get(key)
    shape.earlier = earlier
    for _ in range(KEPT_SHAPES - 2):  # the oldest beyond KEPT_SHAPES is let go
        if earlier is None:
            break
        earlier = earlier.earlier
    if earlier is not None:
        earlier.earlier = None
    shapes[key] = shape
