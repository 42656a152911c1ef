"""``sycl::info::context`` descriptors (SYCL 2020 §4.6.3.2, Table 21).

The atomic capabilities of a context are what all of its devices support: the
intersection of the devices' capabilities.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..device import device as _dev
from ..memory_model import memory_order, memory_scope
from ..platform import platform as _platform
from . import _decode
from . import device as _device_info
from ._descriptor import descriptor

if TYPE_CHECKING:
    from ..context import context as _ctx


def _common(per_device: Callable[[_dev], list[Any]]) -> Callable[[_ctx], list[Any]]:
    return lambda c: _decode.intersection(per_device(d) for d in c.get_devices())


platform = descriptor("context", "platform", _platform, lambda c: c.get_platform())
devices = descriptor("context", "devices", list[_dev], lambda c: c.get_devices())
atomic_memory_order_capabilities = descriptor(
    "context",
    "atomic_memory_order_capabilities",
    list[memory_order],
    _common(_device_info.device_memory_orders),
)
atomic_fence_order_capabilities = descriptor(
    "context",
    "atomic_fence_order_capabilities",
    list[memory_order],
    _common(_device_info.device_fence_orders),
)
atomic_memory_scope_capabilities = descriptor(
    "context",
    "atomic_memory_scope_capabilities",
    list[memory_scope],
    _common(_device_info.device_memory_scopes),
)
atomic_fence_scope_capabilities = descriptor(
    "context",
    "atomic_fence_scope_capabilities",
    list[memory_scope],
    _common(_device_info.device_fence_scopes),
)
