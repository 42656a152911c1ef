"""Decoding OpenCL device answers into SYCL values (bitfields, versions, atomic capabilities).

Shared by the device and context descriptors, so each OpenCL-to-SYCL rule is written once.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeVar

import pyopencl as cl

from ..memory_model import memory_order, memory_scope

if TYPE_CHECKING:
    from .._device import device

E = TypeVar("E", bound=enum.Enum)

_CAPS = cl.device_atomic_capabilities
_ORDER_BITS = (
    (_CAPS.ORDER_RELAXED, memory_order.relaxed),
    (_CAPS.ORDER_ACQ_REL, memory_order.acq_rel),
    (_CAPS.ORDER_SEQ_CST, memory_order.seq_cst),
)
# OpenCL has no sub-group scope bit: sub-groups lie between work-items and work-groups,
# so a device reporting work-group scope (mandatory) supports sub-group scope too.
_SCOPE_BITS = (
    (_CAPS.SCOPE_WORK_ITEM, memory_scope.work_item),
    (_CAPS.SCOPE_WORK_GROUP, memory_scope.work_group),
    (_CAPS.SCOPE_DEVICE, memory_scope.device),
    (_CAPS.SCOPE_ALL_DEVICES, memory_scope.system),
)

# What OpenCL 1.x/2.x guarantee when the OpenCL 3.0 capability queries do not exist.
PRE_30_MEMORY_ORDERS = [memory_order.relaxed]
PRE_30_FENCE_ORDERS = [memory_order.relaxed, memory_order.acquire, memory_order.release, memory_order.acq_rel]
PRE_30_SCOPES = [memory_scope.work_item, memory_scope.sub_group, memory_scope.work_group, memory_scope.device]


def bitfield(value: Any, enum_cls: type[E]) -> list[E]:
    """The members of ``enum_cls`` (valued by CL bits) set in ``value``, in declaration order."""
    bits = int(value[0] if isinstance(value, list | tuple) and value else value or 0)
    return [m for m in enum_cls if m.value and bits & m.value == m.value]


def orders_up_to(caps: int) -> list[memory_order]:
    """The memory orders of a CL capability word; a stronger order implies the weaker ones."""
    strongest = max((o.value for bit, o in _ORDER_BITS if caps & bit), default=0)
    return [o for o in memory_order if o.value <= strongest]


def scopes_up_to(caps: int) -> list[memory_scope]:
    """The memory scopes of a CL capability word; a wider scope implies the narrower ones."""
    widest = max((s.value for bit, s in _SCOPE_BITS if caps & bit), default=memory_scope.work_group.value)
    widest = max(widest, memory_scope.work_group.value)
    return [s for s in memory_scope if s.value <= widest]


def intersection(lists: Iterable[list[E]]) -> list[E]:
    """The members common to every list, in the order of the first."""
    lists = list(lists)
    if not lists:
        return []
    common = set(lists[0]).intersection(*lists[1:])
    return [m for m in lists[0] if m in common]


def cl_version(text: str) -> tuple[int, int]:
    """``(major, minor)`` from an OpenCL version string such as ``"OpenCL 3.0 PoCL"``."""
    match = re.search(r"(\d+)\.(\d+)", text)
    return (int(match.group(1)), int(match.group(2))) if match else (1, 0)


def device_cl_version(dev: device) -> tuple[int, int]:
    """The OpenCL version a device implements."""
    return cl_version(str(dev._cl_info("VERSION")))
