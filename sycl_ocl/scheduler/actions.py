"""The actions a command group hands the scheduler.

Device actions enqueue themselves on a lane (``enqueue(lane, wait_for, keep)``); host actions
are a callable run on a host thread after the requirements are current on the host.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyopencl as cl

from .usm_actions import SvmCopy, SvmFill, SvmMigrate

if TYPE_CHECKING:
    from ..accessor import accessor
    from ..kernel_bundle.kernel import kernel
    from .lane import Lane


def _alloc(acc: accessor, lane: Lane) -> Any:
    return acc._root.allocs[lane.ctx]


@dataclass(slots=True)
class KernelLaunch:
    """Enqueue a kernel; sizes in OpenCL dimension order; ``accs``: (arg index, accessor)."""

    kernel: kernel
    global_size: tuple[int, ...]
    local_size: tuple[int, ...] | None
    offset: tuple[int, ...] | None
    args: tuple[Any, ...]
    accs: tuple[tuple[int, accessor], ...]

    def enqueue(self, lane: Lane, wait_for: list[cl.Event] | None, keep: list[Any]) -> cl.Event:
        args = self.args
        post: list[tuple[Any, cl.Buffer, int, int]] = []
        if self.accs:
            args = list(args)  # type: ignore[assignment]
            for index, acc in self.accs:
                alloc = acc._root.allocs[lane.ctx]
                lo, hi = acc._lo, acc._hi
                if alloc.buf is None or lo % alloc.ctx.align == 0:
                    args[index] = alloc.window(lo, hi)  # type: ignore[index]
                    continue
                # A misaligned window cannot be a sub-buffer: run on a scratch copy of it.
                tmp = cl.Buffer(alloc.ctx.native, cl.mem_flags.READ_WRITE, hi - lo)
                keep.append(tmp)
                if acc._reads:
                    copied = cl.enqueue_copy(
                        lane.cl_queue, tmp, alloc.buf, byte_count=hi - lo, src_offset=lo,
                        wait_for=wait_for)
                    keep.append(copied)
                    wait_for = lane.after(copied)
                if acc._writes:
                    post.append((alloc, tmp, lo, hi))
                args[index] = tmp  # type: ignore[index]
        ev = self.kernel._enqueue(
            lane.cl_queue, lane.device, self.global_size, self.local_size, self.offset,
            tuple(args), wait_for,
        )
        for alloc, tmp, lo, hi in post:
            keep.append(ev)
            ev = cl.enqueue_copy(
                lane.cl_queue, alloc.buf, tmp, byte_count=hi - lo, dst_offset=lo, wait_for=lane.after(ev))
        return ev


@dataclass(slots=True)
class DeviceCopy:
    """Copy between two contiguous accessor windows in the queue's context."""

    src: accessor
    dst: accessor

    def enqueue(self, lane: Lane, wait_for: list[cl.Event] | None, keep: list[Any]) -> cl.Event:
        src, dst = _alloc(self.src, lane), _alloc(self.dst, lane)
        n = self.src._hi - self.src._lo
        if n == 0 or src.buf is None:
            return cl.enqueue_marker(lane.cl_queue, wait_for=wait_for)
        self.dst._root.counters.d2d_bytes += n
        return cl.enqueue_copy(
            lane.cl_queue, dst.buf, src.buf, byte_count=n, src_offset=self.src._lo,
            dst_offset=self.dst._lo, wait_for=wait_for,
        )


@dataclass(slots=True)
class DeviceFill:
    """Fill a contiguous accessor window with one value."""

    dst: accessor
    pattern: np.ndarray

    def enqueue(self, lane: Lane, wait_for: list[cl.Event] | None, keep: list[Any]) -> cl.Event:
        alloc = _alloc(self.dst, lane)
        lo, hi = self.dst._lo, self.dst._hi
        if hi == lo or alloc.buf is None:
            return cl.enqueue_marker(lane.cl_queue, wait_for=wait_for)
        return cl.enqueue_fill_buffer(
            lane.cl_queue, alloc.buf, self.pattern, lo, hi - lo, wait_for=wait_for
        )


class Barrier:
    """A command group without an action: its requirements still order and move data."""

    __slots__ = ()

    def enqueue(self, lane: Lane, wait_for: list[cl.Event] | None, keep: list[Any]) -> cl.Event:
        return cl.enqueue_marker(lane.cl_queue, wait_for=wait_for)


@dataclass(frozen=True, slots=True)
class HostTask:
    """Run a Python callable on a host thread (host tasks and host-side copies)."""

    fn: Callable[[], Any]


DeviceAction = KernelLaunch | DeviceCopy | DeviceFill | Barrier | SvmCopy | SvmFill | SvmMigrate
