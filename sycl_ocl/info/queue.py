"""``sycl::info::queue`` descriptors (SYCL 2020 §4.6.5.2)."""

from __future__ import annotations

from ._descriptor import descriptor

context = descriptor("queue", "context", object, lambda q: q.get_context())
device = descriptor("queue", "device", object, lambda q: q.get_device())
