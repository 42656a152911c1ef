"""Shapes: a kernel launch checked once, to launch again (docs/scheduler.md rule S20).

A command group's launch has a shape: the kernel, the sizes, each argument's requirement (a
whole-buffer accessor, whose requirement is made once per buffer and mode) or type (a
scalar), and the command group's requirements. The handler checks the first launch of a
shape in full (arguments, kernel, sizes) and keeps the shape on the window of its first
accessor (``accessor._Window``); a later command group of the same lane with the same shape skips those
checks, and ``command_group.launch`` skips planning too while cached plans of its requirements
(rule S17) hold: each followed the layout its memory object is in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._exception import exception
from .._native import cl
from .actions import KernelLaunch
from .coherence import blocked, distinct, finished, following
from .memory_object import MISALIGNED
from .requirement import Requirement
from .runtime import RUNTIME

if TYPE_CHECKING:
    from .actions import Kernel
    from .lane import Lane
    from .memory_object import Plan


class Shape:
    """A launch of ``kernel`` on ``lane`` whose arguments were checked: ``signature`` holds,
    per argument, the requirement of an accessor (at the indices ``bindings``) or the type of a
    scalar (at ``scalars``); ``requirements`` are the command group's (a list that never
    changes). ``mems``: the ``cl_mem`` of each
    requirement argument in the lane's context, once bound (``bind``), with ``native``, its
    ``cl_kernel`` of its own.

    ``plans`` are its requirements' cached plans (rule S17), those ``holds`` found last."""

    __slots__ = ("bindings", "call", "global_size", "kernel", "lane", "local_size", "mems", "native",
                 "offset", "plans", "replays", "requirements", "scalars", "set", "signature", "sizes")

    def __init__(
        self, lane: Lane, kernel: Kernel, global_size: tuple[int, ...], local_size: tuple[int, ...] | None,
        offset: tuple[int, ...] | None, signature: tuple[Any, ...], requirements: list[Requirement],
        sizes: Any = None,
    ) -> None:
        self.lane = lane
        self.kernel = kernel
        self.global_size = global_size
        self.local_size = local_size
        self.offset = offset
        # What the handler matches a launch's sizes by (``handler.parallel_for``).
        self.sizes = (global_size, local_size, offset) if sizes is None else sizes
        self.signature = signature
        self.requirements = requirements
        self.bindings = tuple(i for i, want in enumerate(signature) if type(want) is Requirement)
        self.scalars = tuple(i for i, want in enumerate(signature) if type(want) is not Requirement)
        # Whether its plans may replay: distinct memory objects, on an in-order OpenCL queue.
        self.replays = lane.ordered and distinct(requirements)
        self.mems: tuple[Any, ...] | None = None
        self.native: cl.Kernel | None = None
        # Once bound: the arguments of ``cl.enqueue_nd_range_kernel`` that launch it on ``native``.
        self.call: tuple[Any, ...] = ()
        self.set: Sequence[Any] = ()
        self.plans: tuple[Plan, ...] | None = None

    def holds(self) -> bool:
        """Whether a launch replays cached plans of its requirements (rule S17) with nothing to
        wait for: those it replayed last (in a cycle of command groups, each shape finds its
        own again) or else those that followed the layouts its memory objects are in, while
        each memory object is in the layout its plan followed and, where a command waits in
        the DAG, none of those the plans wait for does (``coherence.blocked``)."""
        plans = self.plans
        if plans is not None:
            for found in plans:
                if found.memory.layout is not found.after or (found.gone and not finished(found)):
                    break
            else:
                return not (RUNTIME.deferred and blocked(plans))
        plans = self._found()
        return plans is not None and not (RUNTIME.deferred and blocked(plans))

    def _found(self) -> tuple[Plan, ...] | None:
        """The plans that followed the layouts the shape's memory objects are in (kept in
        ``plans``), or None where one has none, or one dropped as done an entry that is not
        done here (``coherence.finished``)."""
        if not self.replays:
            return None
        plans = []
        for req in self.requirements:
            found = following(req, self.lane)
            if found is None:
                return None
            plans.append(found)
        self.plans = tuple(plans)
        return None if any(found.gone and not finished(found) for found in plans) else self.plans

    def bind(self, args: Sequence[Any]) -> None:
        """Keep in ``mems`` the ``cl_mem`` of each requirement argument in the lane's context,
        and in ``native`` a ``cl_kernel`` of the shape's own with ``args`` set (``set``),
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
            native = self.kernel._private(arguments)
        except exception:  # a driver short of resources: every launch is planned in full
            return
        self.call = (self.lane.cl_queue, native, self.global_size, self.local_size, self.offset)
        self.set = arguments
        self.mems = tuple(mems)
        self.native = native  # last: a bind interrupted before it leaves the shape unbound (rule S26)

    def enqueue(self, cl_queue: cl.CommandQueue, args: Sequence[Any]) -> cl.Event:
        """Enqueue a launch of ``args`` whose scalars are not the very objects set on the shape's
        own ``cl_kernel`` (the scheduler's lock held, the shape bound): through the kernel,
        which sets them all on its own (``command_group.launch`` enqueues the others)."""
        return self.kernel._enqueue(cl_queue, self.global_size, self.local_size, self.offset,
                                    self.arguments(args, self.mems), None)  # type: ignore[arg-type]

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
