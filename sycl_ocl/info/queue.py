"""``sycl::info::queue`` descriptors (SYCL 2020 §4.6.5.3, Table 30)."""

from __future__ import annotations

from .._context import context as _context
from .._device import device as _device
from ._descriptor import descriptor

context = descriptor("queue", "context", _context, lambda q: q.get_context())
device = descriptor("queue", "device", _device, lambda q: q.get_device())
