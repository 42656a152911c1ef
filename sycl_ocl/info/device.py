"""``sycl::info::device`` descriptors (SYCL 2020 §4.6.4.2)."""

from __future__ import annotations

from ._descriptor import descriptor
from .enums import device_type as _device_type
from .enums import partition_property as _partition_property


def _raw(name: str, cl_name: str, return_type: type) -> descriptor:
    return descriptor("device", name, return_type, lambda d: return_type(d._cl_info(cl_name)))


def _text(name: str, cl_name: str) -> descriptor:
    return descriptor("device", name, str, lambda d: str(d._cl_info(cl_name)).strip())


device_type = descriptor(
    "device",
    "device_type",
    _device_type,
    lambda d: next(t for t in _device_type if t.value and d._native.type & t.value and t.name not in ("all", "automatic")),
)
name = _text("name", "NAME")
vendor = _text("vendor", "VENDOR")
driver_version = _text("driver_version", "DRIVER_VERSION")
version = _text("version", "VERSION")
max_compute_units = _raw("max_compute_units", "MAX_COMPUTE_UNITS", int)
platform = descriptor("device", "platform", object, lambda d: d.get_platform())
partition_properties = descriptor(
    "device",
    "partition_properties",
    list,
    lambda d: [p for p in _partition_property if p.value and p.value in (d._cl_info("PARTITION_PROPERTIES") or [])],
)
