"""Commands as an ``event`` sees them (SYCL 2020 §4.6.6).

A user's ``event`` wraps a :class:`Command`: a scheduler operation (``op.Op``), which may
still wait in the DAG, or a :class:`NativeCommand`, known only by its OpenCL event (interop,
``make_event``). The scheduler returns operations and never makes events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from .._exception import errc, exception
from .._native import cl, status_name, translate
from ..info.enums import event_command_status
from .pool import POOL

if TYPE_CHECKING:
    from .._async_errors import AsyncErrors


class Command(Protocol):
    """What an event needs from the command it refers to."""

    async_errors: AsyncErrors | None  # where the command's asynchronous errors are stored

    def cl_event(self) -> cl.Event | None:
        """The OpenCL event, or ``None`` while the command is not enqueued (or has none)."""

    def wait(self) -> None:
        """Block until the command completed (issuing what it waits on first)."""

    def status(self) -> event_command_status:
        """The command's execution status."""

    def profiled(self) -> bool:
        """Whether the command's queue has ``enable_profiling``."""

    def dependencies(self) -> list[Command]:
        """The commands this one waits on directly."""

    def host_time(self, field: str) -> int | None:
        """A profiling timestamp ("queued", "start", "end") taken on the host (any command's
        submit, a host command's start and end), on its device's profiling clock; None where
        the OpenCL event has it."""


_CL_STATUS = {
    cl.command_execution_status.COMPLETE: event_command_status.complete,
    cl.command_execution_status.RUNNING: event_command_status.running,
    cl.command_execution_status.SUBMITTED: event_command_status.submitted,
    cl.command_execution_status.QUEUED: event_command_status.submitted,
}


def cl_status(ev: cl.Event) -> event_command_status:
    """The SYCL status of an OpenCL event (§4.6.6.1).

    A negative (error) status is ``complete``: the command ended, and its failure is an
    asynchronous error, reported when the event or its queue is waited on.
    """
    try:
        raw = ev.command_execution_status
    except cl.Error as error:
        raise translate(error, "querying an event's status") from error
    return event_command_status.complete if raw < 0 else _CL_STATUS[raw]


class NativeCommand:
    """A command known only by its OpenCL event (interop: ``Runtime.native_command`` keeps one
    per event, so that its SYCL events compare equal)."""

    __slots__ = ("__weakref__", "_event", "_profiled")
    async_errors: AsyncErrors | None = None  # its failure is raised by wait()

    def __init__(self, ev: cl.Event | None, profiled: bool | None = None) -> None:
        self._event = ev
        self._profiled = profiled

    def cl_event(self) -> cl.Event | None:
        return self._event

    def wait(self) -> None:
        if self._event is not None:
            POOL.waiting(True)  # a user event may wait for another host task (rule S24)
            try:
                self._event.wait()
                status = self._event.command_execution_status
            except cl.Error as error:
                raise translate(error, "waiting for an event") from error
            finally:
                POOL.waiting(False)
            if status < 0:  # some drivers (NVIDIA) end the wait without an error for it
                raise exception(
                    errc.runtime,
                    f"the command ended with OpenCL error {status_name(status)} ({status})",
                )

    def status(self) -> event_command_status:
        return event_command_status.complete if self._event is None else cl_status(self._event)

    def profiled(self) -> bool:
        if self._profiled is None:
            if self._event is None:
                return False
            props = self._event.command_queue.properties
            self._profiled = bool(props & cl.command_queue_properties.PROFILING_ENABLE)
        return self._profiled

    def dependencies(self) -> list[Command]:
        return []

    def host_time(self, field: str) -> int | None:
        return None


def complete() -> NativeCommand:
    """A new command that is already complete: the command of ``sycl.event()``, one per event
    (events made separately differ, §4.5.2)."""
    return NativeCommand(None, profiled=False)
