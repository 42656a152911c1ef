"""``sycl::info::event_profiling`` descriptors (SYCL 2020 §4.6.6.2).

``command_submit`` is the host time ``submit`` took the command group (Table 37), expressed on
the device's profiling clock: taken on the host and converted (``ContextRecord.device_time``),
also for a command that waits behind a host task or another queue's command (one enqueued
within its submit is stamped just before its enqueue); for an OpenCL event made into a SYCL
one (``make_event``), OpenCL's ``CL_PROFILING_COMMAND_QUEUED``. A command run on the host (a
host task, a host-side copy) has host start and end times converted alike, so they compare
with its device commands'.

A query blocks only until its answer exists: ``command_submit`` never waits for the command;
``command_start`` of a host command waits until it started. OpenCL gives a device command's
start and end only once it completed (``CL_PROFILING_INFO_NOT_AVAILABLE`` before), so those wait
for its completion. Where the host's converted submit stamp would come after the device's start
(the offset is measured, not exact), start and end are reported no earlier than the submit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pyopencl as cl

from .._exception import errc, exception
from .._native import queued_time, translate
from ._descriptor import descriptor

if TYPE_CHECKING:
    from .._event import event


def _timestamp(field: str) -> Callable[[event], int]:
    def query(ev: event) -> int:
        cmd = ev._cmd
        try:
            stamp = cmd.host_time(field)
            if stamp is not None:
                return stamp
            ev.wait()
            native = cmd.cl_event()
            if native is None:
                raise exception(errc.invalid, "this command has no profiling timestamps")
            if field == "queued":
                return queued_time(native)
            # A host submit stamp is converted with a measured clock offset, whose error can
            # exceed a driver's queuing latency (90 us on NVIDIA): start and end never come
            # before the submit (§4.6.6.2 orders the three).
            submitted = cmd.host_time("queued")
            stamp = int(getattr(native.profile, field))
            return stamp if submitted is None else max(stamp, submitted)
        except cl.Error as error:
            raise translate(error, f"reading the profiling time {field}") from error

    return query


command_submit = descriptor("event_profiling", "command_submit", int, _timestamp("queued"))
command_start = descriptor("event_profiling", "command_start", int, _timestamp("start"))
command_end = descriptor("event_profiling", "command_end", int, _timestamp("end"))
