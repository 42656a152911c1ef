"""A submitted command: the scheduler's implementation of ``event.Command``."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

import pyopencl as cl

from ..event import cl_status
from ..info.enums import event_command_status

if TYPE_CHECKING:
    from .._async_errors import AsyncErrors
    from ..event import Command


class Op:
    """One command of the DAG: an OpenCL event once enqueued, or a host-side completion."""

    __slots__ = ("_done", "_event", "_failed", "_profiled", "_sink", "_submitted", "deps")

    def __init__(self, deps: list[Command], sink: AsyncErrors, profiled: bool) -> None:
        self.deps = deps
        self._sink = sink
        self._profiled = profiled
        self._event: cl.Event | None = None
        self._done: threading.Event | None = None
        self._failed = False
        self._submitted = time.perf_counter_ns() if profiled else None

    # --- Command protocol -----------------------------------------------------------

    def cl_event(self) -> cl.Event | None:
        return self._event

    def wait(self) -> None:
        if self._event is not None:
            try:
                self._event.wait()
            except cl.Error:
                self._failed = True
        elif self._done is not None:
            self._done.wait()

    def status(self) -> event_command_status:
        if self._event is not None:
            return cl_status(self._event)
        if self._done is not None and not self._done.is_set():
            return event_command_status.submitted
        return event_command_status.complete

    def profiled(self) -> bool:
        return self._profiled

    def dependencies(self) -> list[Command]:
        return list(self.deps)

    def errors(self) -> AsyncErrors:
        return self._sink

    def submit_time(self) -> int | None:
        return self._submitted

    # --- scheduler side ---------------------------------------------------------------

    def issued(self, ev: cl.Event | None) -> None:
        """Record the OpenCL event of the enqueued command."""
        self._event = ev

    def run_on_host(self) -> threading.Event:
        """Mark the op as completed by the host; set the returned flag when done."""
        self._done = threading.Event()
        return self._done
