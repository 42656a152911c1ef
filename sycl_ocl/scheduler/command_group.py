"""What a command group hands the scheduler: its queue, its action and its dependencies."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..event import event
    from ..kernel import kernel
    from ..queue import queue


@dataclass(frozen=True, slots=True)
class KernelLaunch:
    """Enqueue a kernel; sizes are in OpenCL dimension order."""

    kernel: kernel
    global_size: tuple[int, ...]
    local_size: tuple[int, ...] | None
    offset: tuple[int, ...] | None
    args: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class HostTask:
    """Run a Python callable on a worker thread."""

    fn: Callable[..., Any]


@dataclass(frozen=True, slots=True)
class CommandGroup:
    """One submitted command group."""

    queue: queue
    action: KernelLaunch | HostTask | None
    depends_on: tuple[event, ...]
