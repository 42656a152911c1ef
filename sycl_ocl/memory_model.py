"""``sycl::memory_order`` and ``sycl::memory_scope`` (SYCL 2020 §3.8.3.1, §3.8.3.2).

Kernels are OpenCL C, so these enums only describe what a device or context supports
(the ``atomic_*_capabilities`` descriptors). Members are listed weakest to strongest
(orders) and narrowest to widest (scopes); the values keep that order.
"""

from __future__ import annotations

import enum


class memory_order(enum.Enum):
    """The memory orders of atomic operations and fences, weakest first (§3.8.3.1)."""

    relaxed = 0
    acquire = 1
    release = 2
    acq_rel = 3
    seq_cst = 4


class memory_scope(enum.Enum):
    """The sets of work-items an atomic operation or fence applies to, narrowest first (§3.8.3.2)."""

    work_item = 0
    sub_group = 1
    work_group = 2
    device = 3
    system = 4


memory_order_relaxed = memory_order.relaxed
memory_order_acquire = memory_order.acquire
memory_order_release = memory_order.release
memory_order_acq_rel = memory_order.acq_rel
memory_order_seq_cst = memory_order.seq_cst

memory_scope_work_item = memory_scope.work_item
memory_scope_sub_group = memory_scope.sub_group
memory_scope_work_group = memory_scope.work_group
memory_scope_device = memory_scope.device
memory_scope_system = memory_scope.system
