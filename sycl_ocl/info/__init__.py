"""``sycl::info``: the information descriptors and enumerations (SYCL 2020 §4.6)."""

from . import context, device, event, event_profiling, kernel, kernel_device_specific, platform, queue
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
