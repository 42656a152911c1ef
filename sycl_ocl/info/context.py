"""``sycl::info::context`` descriptors (SYCL 2020 §4.6.3.2, Table 21).

The atomic capabilities of a context are what all of its devices support: the
intersection of the devices' capabilities.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._device import device as _dev
from .._platform import platform as _platform
from . import _decode
from . import device as _device_info
from ._descriptor import descriptor

if TYPE_CHECKING:
    from .._context import context as _ctx


def _common(dev_desc: descriptor) -> descriptor:
    """The context descriptor of the same name: the intersection over the context's devices."""

    def query(c: _ctx) -> list[Any]:
        return _decode.intersection(d.get_info(dev_desc) for d in c.get_devices())

    return descriptor("context", dev_desc.name, dev_desc.return_type, query)


platform = descriptor("context", "platform", _platform, lambda c: c.get_platform())
devices = descriptor("context", "devices", list[_dev], lambda c: c.get_devices())
atomic_memory_order_capabilities = _common(_device_info.atomic_memory_order_capabilities)
atomic_fence_order_capabilities = _common(_device_info.atomic_fence_order_capabilities)
atomic_memory_scope_capabilities = _common(_device_info.atomic_memory_scope_capabilities)
atomic_fence_scope_capabilities = _common(_device_info.atomic_fence_scope_capabilities)
