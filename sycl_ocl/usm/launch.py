"""The kernel launches of the queue shortcuts (``q.parallel_for(n, kernel, p, x)``, §4.6.5.2):
the fast path of the runtime (docs/usm.md, "The queue shortcuts' fast path").

A launch whose arguments are USM pointers (live, of the queue's context, at the start of their
allocations, holding their parameters' element types) and values, with no dependency, needs
no handler, no requirement and no action: ``scheduler.replay.direct`` enqueues it at once.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from .._kernel_bundle.range_launch import Guarded, range_launch
from .._range import SIZE_END, range
from ..scheduler import FIXED_VALUES, Last, Launcher, PreparedKernel
from . import allocation
from .pointer import usm_ptr

if TYPE_CHECKING:
    from .._device import device
    from .._kernel_bundle._kernel import kernel
    from ..scheduler import Lane


class Shortcut(Launcher):
    """The launches of one kernel of a queue's shortcuts (the kernel its spec resolves to on
    the queue), on the fast path (``direct.Launcher``).

    Its cache of the last launch never keeps memory alive: it refers to the USM pointers
    weakly, and a pointer that dies or any ``sycl.free`` empties it (``forget``).
    """

    __slots__ = ("ctx", "device", "kernel", "prepared", "variants")

    def __init__(self, found: kernel, lane: Lane, ctx: int, dev: device | None) -> None:
        super().__init__(lane)
        self.kernel = found
        self.ctx = ctx  # the handle of the queue's context
        self.device = dev  # the queue's device; None: its range launches do not round
        # Per mask of the arguments that are SVM pointers, the kernel on a cl_kernel of its own,
        # which every launch of that mask leaves its arguments set on (``kernel._for_svm`` says why
        # one per mask); and likewise its guarded variant's (``range_launch``).
        self.prepared: dict[int, PreparedKernel] = {}
        self.variants: dict[int, PreparedKernel] = {}
        allocation.forget_at_free(self)

    def size(self, rng: Any) -> tuple[tuple[int, ...], tuple[int, ...] | None, Guarded | None] | None:
        """The launch over an ``int`` or a ``sycl.range`` that is not empty (an empty range
        enqueues a marker, a negative one raises: the queue's way), in work-groups of our
        choice where the kernel allows (``range_launch``)."""
        if type(rng) is int:
            if not 0 < rng < SIZE_END:
                return None
            global_size: tuple[int, ...] = (rng,)
        elif type(rng) is range and 0 not in rng._cl:
            global_size = rng._cl
        else:
            return None
        launched, global_size, local_size = range_launch(self.kernel, self.device, global_size, 0)
        return global_size, local_size, launched if type(launched) is Guarded else None

    def guarded(self, last: Last, launch: Guarded) -> PreparedKernel:
        """The guarded variant's prepared kernel for ``last``'s SVM arguments, with the range of
        ``launch`` set as its hidden arguments."""
        svm_args = last[3][1]
        found = self.variants.get(svm_args)
        if found is None:
            variant = launch.kernel._for_svm(svm_args) if svm_args else launch.kernel
            found = self.variants[svm_args] = PreparedKernel(Guarded(variant, launch.tail))
        elif found.kernel.tail != launch.tail:  # type: ignore[attr-defined]  # a Guarded
            found.kernel.tail = launch.tail  # type: ignore[attr-defined]
            found.args_set = None  # the next launch sets its arguments, the range with them
        return found

    def check(self, args: tuple[Any, ...]) -> Last | None:
        """The arguments checked and converted, remembered as the last launch; None when one
        is not a plain value or a live USM pointer of the queue's context at the start of its
        allocation, holding its parameter's element type (``kernel._check_launch``)."""
        found = self.kernel
        wanted = found._wanted
        if wanted is None or len(args) != len(wanted):
            return None
        seen = allocation.RELEASES
        values = list(args)
        guards: list[weakref.ref[usm_ptr]] = []
        svm_args = 0
        for index, arg in enumerate(args):
            kind = type(arg)
            if kind is usm_ptr:
                a = arg._alloc
                native = a.native
                held = arg.dtype
                if native is None or arg._offset or a.ctx_handle != self.ctx or (
                        held is not None and held is not wanted[index] and wanted[index] is not None):
                    return None
                values[index] = native
                svm_args |= 1 << index
                guards.append(weakref.ref(arg, self._dead))
            elif wanted[index] is not None or not isinstance(arg, FIXED_VALUES):
                return None  # an accessor, a pyopencl buffer, a value that may change in place
        prepared = self.prepared.get(svm_args)
        if prepared is None:
            prepared = self.prepared[svm_args] = PreparedKernel(found)
        last = (tuple(map(id, args)), values, prepared, (guards, svm_args))
        allocation.hold(self, last, seen)
        return last

    def forget(self) -> None:
        """Drop the last launch, and the arguments its kernel keeps set (``sycl.free``, or a
        pointer of the launch that died): they must not keep memory from the driver."""
        self.last = None
        for prepared in (*self.prepared.values(), *self.variants.values()):
            prepared.args_set = None  # unknown: the next launch sets its arguments

    def _dead(self, _: weakref.ref[usm_ptr]) -> None:
        self.forget()
