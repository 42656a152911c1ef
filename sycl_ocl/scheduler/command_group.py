"""Submitting a command group: plan its requirements, then issue it now or defer it.

The scheduler's entry point (docs/scheduler.md). ``open_lane`` makes the lane of a queue;
``submit`` takes what the handler recorded (an action, requirements, the commands it
depends on) and returns the operation that the queue wraps in the user's event. Planning
runs under the one scheduler lock, in submission order (rule S1); ``submit`` never blocks
(rule S8).
"""

from __future__ import annotations

from collections.abc import Sequence
from threading import get_ident
from typing import TYPE_CHECKING, Any

import pyopencl as cl

from . import progress
from .actions import DeviceAction, HostTask, NativeTask
from .coherence import plan
from .hostops import start
from .issue import issue
from .lane import Lane
from .op import Op, add_edge, depend
from .progress import BLOCKED, defer, wait_list
from .runtime import RUNTIME
from .trace import DEPENDS_ON, IN_ORDER

if TYPE_CHECKING:
    from .._async_errors import AsyncErrors
    from .command import Command
    from .requirement import Requirement


def open_lane(
    cl_queue: cl.CommandQueue, owner: Any, async_errors: AsyncErrors, in_order: bool, profiling: bool
) -> Lane:
    """The lane of a new queue on ``cl_queue`` (``owner``: the queue's context, named in errors)."""
    lane = Lane(cl_queue, RUNTIME.context(cl_queue.context, owner), async_errors, in_order, profiling)
    progress.start()  # here, outside the scheduler lock (see progress.spawn)
    with RUNTIME:
        RUNTIME.lanes.add(lane)
    return lane


def submit(
    lane: Lane, action: DeviceAction | HostTask | NativeTask, requirements: Sequence[Requirement],
    depends_on: Sequence[Command],
) -> Op:
    """Schedule one command group on ``lane``; returns its operation without blocking on
    device work."""
    kind = type(action)
    host = kind is HostTask or kind is NativeTask
    runtime = RUNTIME
    runtime.lock.acquire()  # ``with RUNTIME``, spelled out on the submit path
    owner, runtime.owner = runtime.owner, get_ident()
    try:
        op = Op(lane, lane.ctx, host, lane.async_errors)
        for cmd in depends_on:
            add_edge(op, cmd, DEPENDS_ON)
        if lane.in_order and lane.last is not None:
            depend(op, lane.last, IN_ORDER)
        stagers: list[Op] = []
        # A native task's memory is current in the lane's context, a host task's on the host.
        saved = plan(op, requirements, lane.context, kind is HostTask, stagers) if requirements else None
        for stager in stagers:
            start(stager)
        op.work = action
        if host:
            lane.add(op)
            start(op)
        else:
            events = wait_list(op)
            if events is BLOCKED:
                defer(op)
            else:
                try:
                    issue(op, events)
                except BaseException:
                    for memory, snapshot in saved or ():
                        memory.restore(snapshot)
                    op.finish()
                    raise
            lane.add(op)
    finally:
        runtime.owner = owner
        runtime.lock.release()
    return op
