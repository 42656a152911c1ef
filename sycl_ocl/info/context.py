"""``sycl::info::context`` descriptors (SYCL 2020 §4.6.3.2)."""

from __future__ import annotations

from ._descriptor import descriptor

platform = descriptor("context", "platform", object, lambda c: c.get_platform())
devices = descriptor("context", "devices", list, lambda c: c.get_devices())
