"""Shapes: a kernel launch checked once, to launch again (docs/scheduler.md rule S20).

A command group's launch has a shape: the kernel, the sizes, each argument's requirement (a
whole-buffer accessor, whose requirement is made once per buffer and mode) or type (a
scalar), and the command group's requirements. The handler checks the first launch of a
shape in full (arguments, kernel, sizes) and keeps the shape on the memory object of its
first requirement; a later command group of the same lane with the same shape skips those
checks, and ``command_group.launch`` skips planning too while the cached plans of all its
requirements hold (rule S17).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .actions import KernelLaunch
from .coherence import distinct
from .memory_object import MISALIGNED
from .requirement import Requirement

if TYPE_CHECKING:
    from .actions import Kernel
    from .lane import Lane


class Shape:
    """A launch of ``kernel`` on ``lane`` whose arguments were checked: ``signature`` holds,
    per argument, the requirement of an accessor or the type of a scalar; ``requirements`` are
    the command group's (a list that never changes). ``mems``: the ``cl_mem`` of each
    requirement argument in the lane's context, once bound (``bind``)."""

    __slots__ = ("bindings", "global_size", "kernel", "lane", "local_size", "mems", "offset", "replays",
                 "requirements", "signature")

    def __init__(
        self, lane: Lane, kernel: Kernel, global_size: tuple[int, ...], local_size: tuple[int, ...] | None,
        offset: tuple[int, ...] | None, signature: tuple[Any, ...], requirements: list[Requirement],
    ) -> None:
        self.lane = lane
        self.kernel = kernel
        self.global_size = global_size
        self.local_size = local_size
        self.offset = offset
        self.signature = signature
        self.requirements = requirements
        self.bindings = tuple(i for i, want in enumerate(signature) if type(want) is Requirement)
        # Whether its plans may replay: distinct memory objects, on an in-order OpenCL queue.
        self.replays = lane.ordered and distinct(requirements)
        self.mems: tuple[Any, ...] | None = None

    def bind(self) -> None:
        """Keep in ``mems`` the ``cl_mem`` of each requirement argument in the lane's context,
        unless one has no allocation there yet or needs a scratch copy."""
        ctx = self.lane.ctx
        mems = []
        for index in self.bindings:
            req = self.signature[index]
            alloc = req.memory.allocs.get(ctx)
            mem = MISALIGNED if alloc is None else alloc.bound(req.lo, req.hi)
            if mem is MISALIGNED:
                return
            mems.append(mem)
        self.mems = tuple(mems)

    def arguments(self, args: Sequence[Any], mems: tuple[Any, ...]) -> Sequence[Any]:
        """``args`` as the kernel takes them: the ``cl_mem`` in place of each accessor."""
        if len(mems) == len(args):
            return mems
        out = list(args)
        for index, mem in zip(self.bindings, mems, strict=True):
            out[index] = mem
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
