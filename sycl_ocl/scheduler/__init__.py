"""The scheduler: one process-wide DAG turning command groups into OpenCL commands.

A closed core (docs/scheduler.md): it knows requirements, actions and commands, never the
user's queues, events, buffers, accessors, handlers or kernels. Modules: ``runtime`` (its
state and lifetime), ``requirement``, ``actions``, ``command`` (what an event wraps),
``op`` (an operation of the DAG), ``lane`` (a queue's OpenCL queue), ``memory_object``
(a buffer's coherence record), ``context_record``, ``intervals``, ``coherence`` (planning),
``issue`` (enqueueing), ``progress`` (deferred ops), ``hostops`` (host tasks, read-backs),
``holds`` (host accessors), ``image_memory`` (an image's memory object), ``lifetime`` (buffer
destruction), ``handles`` (what a buffer's handles change), ``command_group`` (the entry point:
``open_lane``, ``submit``), ``replay`` (the fast paths: the plan cache, shapes and their
``launch``, explicit copies' shapes, the direct USM launch, prepared kernels; one contract,
docs/scheduler.md "Fast paths"), ``trace`` (the recorder behind ``sycl_ocl.tools``).

This module is the scheduler's front door: the layers above import what they use from here,
never from a submodule (a contract of ``lint-imports``, docs/scheduler.md "Layers").
"""

from .actions import (
    Barrier,
    DeviceCopy,
    DeviceFill,
    HostCopy,
    HostTask,
    KernelLaunch,
    NativeScope,
    NativeTask,
)
from .command import Command, NativeCommand, complete
from .command_group import open_lane, submit
from .graph import GraphReplay, Step
from .handles import adopt, native_buffers, set_final_data, set_write_back
from .holds import acquire as acquire_hold
from .holds import check_wait
from .holds import release as release_hold
from .image_memory import ImageMemory
from .lane import Lane
from .lifetime import (
    add_handle,
    check_destruction,
    end_handle,
    finalize,
    may_call_user,
    own,
    unwatch,
    watch,
    writeable_alias,
)
from .memory_object import MemoryObject, TransferCounters
from .op import Op
from .progress import run_logged
from .replay.copies import CopyShape
from .replay.copies import copy as copy_shaped
from .replay.copies import key as copy_key
from .replay.direct import FIXED_VALUES, Last, Launcher
from .replay.prepared import PreparedKernel
from .replay.shape import Shape, joined_order, keep, launch, matching
from .requirement import FRONTIER_CAP, READ, WRITE, Requirement, conflicts
from .runtime import RUNTIME
from .trace import DEFAULT_CAPACITY, REASONS, LaneRecord, MemoryRecord, OpRecord, Recorder, recording
from .trace import Snapshot as TraceSnapshot
from .trace import recorder as trace_recorder
from .trace import start as start_trace
from .trace import stop as stop_trace
from .usm_actions import SvmCopy, SvmFill, SvmMigrate

__all__ = [
    "DEFAULT_CAPACITY",
    "FIXED_VALUES",
    "FRONTIER_CAP",
    "READ",
    "REASONS",
    "RUNTIME",
    "WRITE",
    "Barrier",
    "Command",
    "CopyShape",
    "DeviceCopy",
    "DeviceFill",
    "GraphReplay",
    "HostCopy",
    "HostTask",
    "ImageMemory",
    "KernelLaunch",
    "Lane",
    "LaneRecord",
    "Last",
    "Launcher",
    "MemoryObject",
    "MemoryRecord",
    "NativeCommand",
    "NativeScope",
    "NativeTask",
    "Op",
    "OpRecord",
    "PreparedKernel",
    "Recorder",
    "Requirement",
    "Shape",
    "Step",
    "SvmCopy",
    "SvmFill",
    "SvmMigrate",
    "TraceSnapshot",
    "TransferCounters",
    "acquire_hold",
    "add_handle",
    "adopt",
    "check_destruction",
    "check_wait",
    "complete",
    "conflicts",
    "copy_key",
    "copy_shaped",
    "end_handle",
    "finalize",
    "joined_order",
    "keep",
    "launch",
    "matching",
    "may_call_user",
    "native_buffers",
    "open_lane",
    "own",
    "recording",
    "release_hold",
    "run_logged",
    "set_final_data",
    "set_write_back",
    "start_trace",
    "stop_trace",
    "submit",
    "trace_recorder",
    "unwatch",
    "watch",
    "writeable_alias",
]
