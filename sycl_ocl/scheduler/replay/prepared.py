"""Prepared kernels: a kernel's arguments set once on a ``cl_kernel`` of its own, launched
again with nothing to set (docs/scheduler.md rule S28).

The one type behind a shape (``Shape.bind``), a command graph's kernel node (``graph``) and
a USM launch of the queue shortcuts (``direct.Launcher``). ``Window`` binds a requirement to
the ``cl_mem`` a kernel receives in a context, with the scratch copy of a misaligned window;
a kernel launch planned in full (``actions.KernelLaunch``) binds its windows the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..._native import cl
from ..memory_object import MISALIGNED

if TYPE_CHECKING:
    from ..actions import Kernel
    from ..context_record import ContextRecord
    from ..lane import Lane
    from ..memory_object import Allocation
    from ..requirement import Requirement


class Window:
    """A kernel argument bound to a requirement's window in one context: ``arg``, the
    ``cl_mem`` the kernel receives (``Allocation.bound``). A misaligned window (no sub-buffer
    possible) runs on ``scratch``, copied in before the kernel where its old contents are
    needed (``copy_in``) and out after it where it is written (``copy_out``)."""

    __slots__ = ("alloc", "arg", "copy_in", "copy_out", "lo", "scratch", "size")

    def __init__(self, req: Requirement, alloc: Allocation) -> None:
        lo, hi = req.lo, req.hi
        self.alloc, self.lo, self.size = alloc, lo, hi - lo
        self.scratch: cl.Buffer | None = None
        self.copy_in = self.copy_out = False
        self.arg: Any = alloc.bound(lo, hi)
        if self.arg is MISALIGNED:
            self.arg = self.scratch = cl.Buffer(alloc.context.native, cl.mem_flags.READ_WRITE, hi - lo)
            self.copy_in, self.copy_out = req.needs_old, req.writes

    def buf(self) -> cl.Buffer:
        """The whole allocation (a window with a scratch copy has bytes)."""
        assert self.alloc.buf is not None
        return self.alloc.buf


def bind(args: Sequence[Any], bindings: tuple[int, ...],
         context: ContextRecord) -> tuple[list[Any], tuple[Window, ...]]:
    """``args`` with the requirement at each index of ``bindings`` bound to its window in
    ``context`` (the memory object's allocation there made on first use), and the windows."""
    bound = list(args)
    windows = []
    for index in bindings:
        req: Requirement = bound[index]
        window = Window(req, req.memory.allocation(context))
        bound[index] = window.arg
        windows.append(window)
    return bound, tuple(windows)


def copy_in(lane: Lane, windows: tuple[Window, ...], wait_for: list[cl.Event] | None,
            keep: list[Any]) -> list[cl.Event] | None:
    """Before a kernel on ``windows``: each scratch copy kept alive with the op (``keep``) and
    filled where its old contents are needed; returns the kernel's wait list."""
    for w in windows:
        if w.scratch is not None:
            keep.append(w.scratch)
            if w.copy_in:
                copied = cl.enqueue_copy(lane.cl_queue, w.scratch, w.buf(), byte_count=w.size,
                                         src_offset=w.lo, wait_for=wait_for)
                keep.append(copied)
                wait_for = lane.after(copied)
    return wait_for


def copy_out(lane: Lane, windows: tuple[Window, ...], ev: cl.Event, keep: list[Any]) -> cl.Event:
    """After a kernel on ``windows`` (its event ``ev``): each written scratch copy copied back;
    returns the event of the last command."""
    for w in windows:
        if w.scratch is not None and w.copy_out:
            keep.append(ev)
            ev = cl.enqueue_copy(lane.cl_queue, w.buf(), w.scratch, byte_count=w.size, dst_offset=w.lo,
                                 wait_for=lane.after(ev))
    return ev


class PreparedKernel:
    """``kernel`` on ``native``, a ``cl_kernel`` of its own that only its owner sets arguments
    on, under the scheduler's lock. ``args_set`` is the argument list set on it last (None:
    unknown): OpenCL keeps a kernel's arguments between enqueues, so a launch with that very
    list sets nothing. ``windows``: the arguments bound to windows of memory objects (``bind``);
    ``sizes``: the global and local sizes and the offset of every launch (``enqueue``), where
    they are fixed (a command graph's node).

    Raises:
        sycl.exception: ``errc.kernel_argument`` for an argument that does not fit its
            parameter, the translated OpenCL error of a ``cl_kernel`` the driver refuses.
    """

    __slots__ = ("args_set", "kernel", "native", "sizes", "windows")

    def __init__(self, kernel: Kernel, args: Sequence[Any] | None = None, windows: tuple[Window, ...] = (),
                 sizes: tuple[Any, ...] = ()) -> None:
        self.kernel = kernel
        self.windows = windows
        self.sizes = sizes
        self.native = kernel._private(args)
        self.args_set = args

    def set_args(self, args: Sequence[Any]) -> None:
        """Set ``args`` and remember them as ``args_set``.

        Raises:
            sycl.exception: ``errc.kernel_argument`` as for a launch.
        """
        self.args_set = None
        self.kernel._set_on(self.native, args)
        self.args_set = args

    def enqueue(self, lane: Lane, wait_for: list[cl.Event] | None, keep: list[Any]) -> cl.Event:
        """Enqueue a launch over ``sizes`` with the arguments set (scratch copies around it);
        the event of its last command (a device action: a command graph's node)."""
        windows = self.windows
        if windows:
            wait_for = copy_in(lane, windows, wait_for, keep)
        global_size, local_size, offset = self.sizes
        ev = cl.enqueue_nd_range_kernel(lane.cl_queue, self.native, global_size, local_size, offset,
                                        wait_for=wait_for)
        return copy_out(lane, windows, ev, keep) if windows else ev
