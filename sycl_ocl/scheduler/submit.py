"""Submitting a command group: dependencies, then one OpenCL command or host task."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import pyopencl as cl

from .._native import translate
from ..event import Command, event
from ..exception import errc, exception
from .command_group import CommandGroup, HostTask, KernelLaunch
from .lane import Lane
from .op import Op

if TYPE_CHECKING:
    from ..queue import queue


def lane_for(q: queue) -> Lane:
    """The lane of a queue."""
    return Lane(q)


def submit(cg: CommandGroup) -> event:
    """Schedule one command group; returns its event without blocking on device work."""
    q = cg.queue
    lane: Lane = q._lane
    deps: list[Command] = [ev._cmd for ev in cg.depends_on]
    if q._in_order and lane.last is not None:
        deps.append(lane.last)
    op = Op(deps, q._errors, q._profiling)
    action = cg.action
    if isinstance(action, HostTask):
        _start_host_task(op, action)
    else:
        wait_for = _native_wait_list(deps, q)
        try:
            if isinstance(action, KernelLaunch):
                ev = action.kernel._enqueue(
                    q._native, q._device, action.global_size, action.local_size,
                    action.offset, action.args, wait_for,
                )
            else:
                ev = cl.enqueue_marker(q._native, wait_for=wait_for)
        except cl.Error as error:
            raise translate(error, "enqueueing a command", q._context) from error
        op.issued(ev)
    lane.add(op)
    return event(op, q._context)


def _native_wait_list(deps: list[Command], q: queue) -> list[cl.Event] | None:
    wait_for = []
    for dep in deps:
        ev = dep.cl_event()
        if ev is not None and ev.context == q._context._native:
            wait_for.append(ev)
        else:
            dep.wait()
    return wait_for or None


def _start_host_task(op: Op, task: HostTask) -> None:
    done = op.run_on_host()

    def run() -> None:
        try:
            for dep in op.deps:
                dep.wait()
            task.fn()
        except exception as error:
            op.errors().report(error)
        except Exception as error:  # a user error inside the host task
            op.errors().report(exception(errc.runtime, f"host task raised {error!r}"))
        finally:
            done.set()

    threading.Thread(target=run, name="sycl_ocl-host-task", daemon=True).start()
