"""The scheduler: one process-wide DAG turning command groups into OpenCL commands.

A closed core (docs/scheduler.md): it knows requirements, actions and commands, never the
user's queues, events, buffers, accessors, handlers or kernels. Modules: ``runtime`` (its
state and lifetime), ``requirement``, ``actions``, ``command`` (what an event wraps),
``op`` (an operation of the DAG), ``lane`` (a queue's OpenCL queue), ``memory_object``
(a buffer's coherence record), ``context_record``, ``intervals``, ``coherence`` (planning),
``issue`` (enqueueing), ``progress`` (deferred ops), ``hostops`` (host tasks, read-backs),
``holds`` (host accessors), ``lifetime`` (buffer destruction), ``command_group`` (the entry
point: ``open_lane``, ``submit``), ``replay`` (the fast paths: the plan cache, shapes and
their ``launch``, the direct USM launch, prepared kernels; one contract, docs/scheduler.md
"Fast paths"), ``trace`` (the recorder behind ``sycl_ocl.tools``).
"""

from .actions import Barrier, DeviceCopy, DeviceFill, HostTask, KernelLaunch, NativeScope, NativeTask
from .command import COMPLETE, Command, NativeCommand
from .command_group import open_lane, submit
from .lane import Lane
from .memory_object import MemoryObject, TransferCounters
from .op import Op
from .replay.direct import FIXED_VALUES, Last, Launcher
from .replay.prepared import PreparedKernel
from .replay.shape import Shape, keep, launch, matching
from .requirement import FRONTIER_CAP, READ, WRITE, Requirement, conflicts
from .runtime import RUNTIME

__all__ = [
    "COMPLETE",
    "FIXED_VALUES",
    "FRONTIER_CAP",
    "READ",
    "RUNTIME",
    "WRITE",
    "Barrier",
    "Command",
    "DeviceCopy",
    "DeviceFill",
    "HostTask",
    "KernelLaunch",
    "Lane",
    "Last",
    "Launcher",
    "MemoryObject",
    "NativeCommand",
    "NativeScope",
    "NativeTask",
    "Op",
    "PreparedKernel",
    "Requirement",
    "Shape",
    "TransferCounters",
    "conflicts",
    "keep",
    "launch",
    "matching",
    "open_lane",
    "submit",
]
