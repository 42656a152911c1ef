"""``sycl::info::event`` descriptors (SYCL 2020 §4.6.6.1)."""

from __future__ import annotations

from ._descriptor import descriptor
from .enums import event_command_status

command_execution_status = descriptor(
    "event", "command_execution_status", event_command_status, lambda e: e._status()
)
