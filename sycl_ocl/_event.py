"""``sycl::event`` (SYCL 2020 §4.6.6).

An event refers to one command (``scheduler.command.Command``): a scheduler operation that
may still be waiting in the DAG, or a command known only by its OpenCL event (interop).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ._backend import backend
from ._exception import errc, exception
from .info._descriptor import check_namespace
from .info.enums import event_command_status
from .scheduler import Command, check_wait, complete

if TYPE_CHECKING:
    from ._context import context


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

    ``sycl.event()`` is an event that is already complete. ``wait`` raises ``errc.invalid``
    where the command waits for a host accessor the waiting thread holds open (the wait would
    never end; docs/scheduler.md rule S22).
    """

    __slots__ = ("__weakref__", "_cmd", "_context")

    _cmd: Command
    _context: context | None

    def __new__(cls) -> event:
        """``sycl.event()``: an event that is already complete (§4.6.6), equal only to its
        copies (common reference semantics, §4.5.2)."""
        return event_of(complete(), None)

    def _wait_one(self) -> None:
        watch = check_wait((self._cmd,), "event.wait()")
        self._cmd.wait()
        if watch is not None:
            watch.cancel()

    def _wait_and_throw_one(self) -> None:
        self._wait_one()
        _deliver([self])

    @staticmethod
    def _wait_all(events: Iterable[event]) -> None:
        evs = event_list(events, "event.wait")
        watch = check_wait([ev._cmd for ev in evs], "event.wait(events)")
        for ev in evs:
            ev._cmd.wait()
        if watch is not None:
            watch.cancel()

    @staticmethod
    def _wait_and_throw_all(events: Iterable[event]) -> None:
        evs = event_list(events, "event.wait_and_throw")
        event._wait_all(evs)
        _deliver(evs)

    wait = _WaitMethod(_wait_one, _wait_all)
    wait_and_throw = _WaitMethod(_wait_and_throw_one, _wait_and_throw_all)

    def get_backend(self) -> backend:
        """Always ``backend.opencl`` (§4.6.6)."""
        return backend.opencl

    def get_wait_list(self) -> list[event]:
        """The events this event's command waits on directly (§4.6.6)."""
        return [event_of(dep, self._context) for dep in self._cmd.dependencies()]

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

    # Common reference semantics (§4.5.2): a copy is the same event (copy would otherwise make
    # one through __new__, a new complete command, then replace it).
    def __copy__(self) -> event:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> event:
        return self

    def __hash__(self) -> int:
        return id(self._cmd)

    def __repr__(self) -> str:
        return f"<sycl.event {self._cmd.status().name}>"


def _deliver(events: Iterable[event]) -> None:
    stores = {id(s): s for ev in events if (s := ev._cmd.async_errors) is not None}
    for store in stores.values():
        store.deliver()


def event_list(events: Any, call: str) -> list[event]:
    """``events`` (an event, or an iterable of events) as a list (``call``, in errors).

    Raises:
        sycl.exception: ``errc.invalid`` for anything but ``sycl.event`` objects.
    """
    try:
        evs = [events] if isinstance(events, event) else list(events)
    except TypeError:  # not iterable: reported as the one wrong object below
        evs = [events]
    for ev in evs:
        if not isinstance(ev, event):
            raise exception(errc.invalid, f"{call} takes a sycl.event or a list of them, got {ev!r}")
    return evs


def event_of(cmd: Command, ctx: context | None) -> event:
    """The event of ``cmd``, a command of context ``ctx``: the one builder of an event. A
    function, not an ``__init__``: calling the class would cost a fifth more on every submit."""
    ev = _new(event)
    ev._cmd = cmd
    ev._context = ctx
    return ev


_new = object.__new__
