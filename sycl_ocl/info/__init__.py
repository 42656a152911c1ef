"""``sycl::info``: the information descriptors and enumerations (SYCL 2020 §4.6).

The enumerations load with the package. A descriptor namespace (``sycl.info.device``, ...)
loads on first use: it refers to the class whose information it describes, and that class
imports the enumerations from here, so loading every namespace here would import those
classes half-made.
"""

from __future__ import annotations

import importlib
from typing import Any

from .enums import (
    device_type,
    event_command_status,
    execution_capability,
    fp_config,
    global_mem_cache_type,
    local_mem_type,
    partition_affinity_domain,
    partition_property,
)

_NAMESPACES = frozenset(
    {"context", "device", "event", "event_profiling", "kernel", "kernel_device_specific", "platform", "queue"}
)

__all__ = [
    "context",
    "device",
    "device_type",
    "event",
    "event_command_status",
    "event_profiling",
    "execution_capability",
    "fp_config",
    "global_mem_cache_type",
    "kernel",
    "kernel_device_specific",
    "local_mem_type",
    "partition_affinity_domain",
    "partition_property",
    "platform",
    "queue",
]


def __getattr__(name: str) -> Any:
    if name in _NAMESPACES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__
