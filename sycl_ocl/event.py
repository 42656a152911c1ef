"""``sycl::event`` (SYCL 2020 §4.6.6).

An event refers to one command. The command is either a plain OpenCL event (interop,
or work enqueued at once) or a scheduler operation that may still be waiting in the DAG;
both implement :class:`Command`.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

import pyopencl as cl

from ._native import status_name, translate
from .backend import backend
from .exception import errc, exception
from .info._descriptor import check_namespace
from .info.enums import event_command_status

if TYPE_CHECKING:
    from ._async_errors import AsyncErrors
    from .context import context


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

    def submit_time(self) -> int | None:
        """Host submission time in ns, if recorded."""


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
    """A command known only by its OpenCL event (interop, or an already enqueued command)."""

    __slots__ = ("__weakref__", "_event", "_profiled")
    async_errors: AsyncErrors | None = None  # errors of a native command are raised at once
    _by_handle: weakref.WeakValueDictionary[int, NativeCommand] = weakref.WeakValueDictionary()
    _lock = threading.Lock()

    @classmethod
    def of(cls, ev: cl.Event) -> NativeCommand:
        """The one command object of an OpenCL event, so that its SYCL events compare equal."""
        with cls._lock:
            cmd = cls._by_handle.get(ev.int_ptr)
            if cmd is None:
                cmd = cls._by_handle[ev.int_ptr] = cls(ev)
            return cmd

    def __init__(self, ev: cl.Event | None, profiled: bool | None = None) -> None:
        self._event = ev
        self._profiled = profiled

    def cl_event(self) -> cl.Event | None:
        return self._event

    def wait(self) -> None:
        if self._event is not None:
            try:
                self._event.wait()
                status = self._event.command_execution_status
            except cl.Error as error:
                raise translate(error, "waiting for an event") from error
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

    def submit_time(self) -> int | None:
        return None


_COMPLETE = NativeCommand(None, profiled=False)


class _WaitMethod:
    """``event.wait()`` on an instance, ``event.wait(list)`` on the class (§4.6.6)."""

    def __init__(self, instance_fn: Callable[..., None], static_fn: Callable[..., None]) -> None:
        self._instance_fn = instance_fn
        self._static_fn = static_fn

    def __get__(self, obj: Any, owner: type) -> Callable[..., None]:
        if obj is None:
            return self._static_fn
        return self._instance_fn.__get__(obj, owner)


class event:
    """The status of a submitted command, for waiting, profiling and dependencies (§4.6.6).

    ``sycl.event()`` is an event that is already complete.
    """

    __slots__ = ("__weakref__", "_cmd", "_context")

    def __init__(self, _cmd: Command | None = None, _context: context | None = None) -> None:
        self._cmd: Command = _cmd if _cmd is not None else _COMPLETE
        self._context = _context

    def _wait_one(self) -> None:
        self._cmd.wait()

    def _wait_and_throw_one(self) -> None:
        self._cmd.wait()
        _deliver([self])

    @staticmethod
    def _wait_all(events: Iterable[event]) -> None:
        for ev in events:
            ev._cmd.wait()

    @staticmethod
    def _wait_and_throw_all(events: Iterable[event]) -> None:
        evs = list(events)
        event._wait_all(evs)
        _deliver(evs)

    wait = _WaitMethod(_wait_one, _wait_all)
    wait_and_throw = _WaitMethod(_wait_and_throw_one, _wait_and_throw_all)

    def get_backend(self) -> backend:
        """Always ``backend.opencl`` (§4.6.6)."""
        return backend.opencl

    def get_wait_list(self) -> list[event]:
        """The events this event's command waits on directly (§4.6.6)."""
        return [event(dep, self._context) for dep in self._cmd.dependencies()]

    def get_info(self, desc: Any) -> Any:
        """The value of a ``sycl.info.event`` descriptor (§4.6.6.1)."""
        return check_namespace(desc, "event", "event").query(self)

    def get_profiling_info(self, desc: Any) -> int:
        """A profiling timestamp in nanoseconds (§4.6.6.2).

        Raises ``errc.invalid`` when the command's queue lacks ``enable_profiling``.
        """
        desc = check_namespace(desc, "event_profiling", "event")
        if not self._cmd.profiled():
            raise exception(
                errc.invalid,
                "profiling information needs a queue constructed with "
                "sycl.property.queue.enable_profiling()",
            )
        return int(desc.query(self))

    def _status(self) -> event_command_status:
        return self._cmd.status()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, event) and other._cmd is self._cmd

    def __hash__(self) -> int:
        return id(self._cmd)

    def __repr__(self) -> str:
        return f"<sycl.event {self._cmd.status().name}>"


def _deliver(events: Iterable[event]) -> None:
    stores = {id(s): s for ev in events if (s := ev._cmd.async_errors) is not None}
    for store in stores.values():
        store.deliver()
