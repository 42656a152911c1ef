"""Device actions of USM commands (SYCL 2020 §4.9.4.3): copies, fills and migrations of SVM.

A USM command has no requirements: the scheduler orders it by its ``depends_on`` events and
its in-order queue only, so it costs one enqueue. Host memory in a copy is wrapped in
``pyopencl.SVM`` (``clEnqueueSVMMemcpy`` takes host pointers too); the action holds it, and
the op keeps the action until the command completed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._native import cl

if TYPE_CHECKING:
    from .lane import Lane


@dataclass(slots=True)
class SvmCopy:
    """Copy ``nbytes`` between two SVM pointers (either may wrap host memory)."""

    dst: Any
    src: Any
    nbytes: int

    def enqueue(self, lane: Lane, wait_for: list[cl.Event] | None, keep: list[Any]) -> cl.Event:
        return cl.enqueue_copy(lane.cl_queue, self.dst, self.src, byte_count=self.nbytes,
                               is_blocking=False, wait_for=wait_for)


@dataclass(slots=True)
class SvmFill:
    """Repeat a pattern (one element, its size a power of two up to 128 bytes, its address
    aligned to it) over ``nbytes``, which ``dst`` spans exactly (PyOpenCL fills all of it)."""

    dst: Any
    pattern: np.ndarray
    nbytes: int

    def enqueue(self, lane: Lane, wait_for: list[cl.Event] | None, keep: list[Any]) -> cl.Event:
        return cl.enqueue_svm_memfill(lane.cl_queue, self.dst, self.pattern, self.nbytes,
                                      wait_for=wait_for)


@dataclass(slots=True)
class SvmMigrate:
    """Migrate shared memory to the queue's device (``prefetch``); ``svm`` spans the bytes."""

    svm: Any

    def enqueue(self, lane: Lane, wait_for: list[cl.Event] | None, keep: list[Any]) -> cl.Event:
        return cl.enqueue_svm_migrate_mem(lane.cl_queue, [self.svm], 0, wait_for=wait_for)  # type: ignore[arg-type]
