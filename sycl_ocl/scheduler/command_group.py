"""Submitting a command group: plan its requirements, then issue it now or defer it.

The scheduler's entry point (docs/scheduler.md). ``open_lane`` makes the lane of a queue;
``submit`` takes what the handler recorded (an action, requirements, the commands it
depends on) and returns the operation that the queue wraps in the user's event. Planning
runs under the one scheduler lock, in submission order (rule S1); ``submit`` never blocks
(rule S8).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._native import cl
from .._process import STATE as PROCESS
from .._process import forked_error
from . import progress
from .actions import Barrier, DeviceAction, HostTask, NativeTask
from .coherence import plan, restore
from .hostops import start
from .issue import issue
from .lane import Lane
from .op import DEFERRED, DONE, Op, add_edge, depend, new_op
from .progress import BLOCKED, defer, wait_list
from .refusal import UNDO, snapshot
from .replay.plans import apply, depend_on, distinct, replayable
from .runtime import RUNTIME, to_the_end
from .trace import DEPENDS_ON, IN_ORDER

if TYPE_CHECKING:
    from .._async_errors import AsyncErrors
    from .command import Command
    from .memory_object import MemoryObject, Snapshot
    from .replay.plans import Plan
    from .requirement import Requirement


def open_lane(
    cl_queue: cl.CommandQueue, owner: Any, async_errors: AsyncErrors, in_order: bool, profiling: bool
) -> Lane:
    """The lane of a new queue on ``cl_queue`` (``owner``: the queue's context, named in errors)."""
    lane = Lane(cl_queue, RUNTIME.context(cl_queue.context, owner), async_errors, in_order, profiling)
    if profiling:  # measured from the start: its stamps' offsets lie between this and the latest
        lane.context.device_time(cl_queue.device, 0)
    progress.start()  # here, outside the scheduler lock (see progress.spawn)
    with RUNTIME:
        RUNTIME.lanes.add(lane)
    return lane


def submit(
    lane: Lane, action: DeviceAction | HostTask | NativeTask, requirements: Sequence[Requirement],
    depends_on: Sequence[Command], owners: Any = None,
) -> Op:
    """Schedule one command group on ``lane``; returns its operation without blocking on
    device work. ``owners``: what the op keeps alive until it completes (rule S29).

    A device action without requirements (a USM command, a kernel launched with USM pointers
    and scalars) is ordered by ``depends_on`` and the in-order queue alone: nothing is planned.
    """
    if PROCESS.forked:
        raise forked_error("submitting a command group")
    kind = type(action)
    if kind is HostTask or kind is NativeTask:
        return _submit_host(lane, action, requirements, depends_on, owners)  # type: ignore[arg-type]
    with RUNTIME: op = _device_op(lane, action, requirements, depends_on, owners)  # type: ignore[arg-type]  # noqa: E701
    return op


def _device_op(
    lane: Lane, action: DeviceAction, requirements: Sequence[Requirement], depends_on: Sequence[Command],
    owners: Any,
) -> Op:
    """``submit`` of a device action, under the lock. Refused at enqueue, or interrupted before
    it is enqueued or deferred, it undoes the planning and ends the op, so that nothing waits
    for it; interrupted after, the op joins its lane, so that ``queue.wait()`` waits for it
    and the buffers it owns end when it completes (rules S26, S29)."""
    op = _open(lane, depends_on, False, owners)
    saved = replays = None
    try:
        replays, saved = _plan_device(op, lane, requirements) if requirements else (None, None)
        op.work = action
        events = wait_list(op) if op.deps else None
        if events is BLOCKED:
            defer(op)
            # Undone if its enqueue fails (rule S25): the replayed memory objects as they are now.
            UNDO[op] = [*(saved or ()), *((found.memory, snapshot(found.memory)) for found in replays or ())]
        else:
            issue(op, events)
        if replays is not None:
            apply(replays, op)
            replays = None
        lane.add(op)
    except BaseException:
        try:
            to_the_end(_unwind, op, lane, requirements, saved, replays)
        except KeyboardInterrupt:  # a second one, landed as it began (CPython looks there): again
            to_the_end(_unwind, op, lane, requirements, saved, replays)
        raise
    return op


def _unwind(op: Op, lane: Lane, requirements: Sequence[Requirement], saved: Any, replays: Any) -> None:
    """``_device_op`` refused or interrupted: an op neither enqueued nor waiting is undone and
    ended; one enqueued or waiting joins its lane, so that the lane's wait and its owners' end
    wait for it, and a barrier settles its plans where they were maybe half replayed. Safe to
    run again (``to_the_end``)."""
    if op.state == DEFERRED and op not in RUNTIME.deferred:
        _abandon(op, saved or ())
    elif op.state != DONE:
        lane.add(op)
        if replays is not None:
            settle(lane, requirements, (op,), None)


def settle(lane: Lane, requirements: Sequence[Requirement], after: Sequence[Command], owners: Any) -> None:
    """After a command enqueued (or deferred: its op in ``after``) on ``lane`` whose records an
    interrupt left unfinished (its op not made, or its plans half replayed): a barrier behind
    it on the lane's in-order queue that reads and writes each of its ``requirements`` there,
    planned in full, so that the memory objects' records are those of a write on the lane's
    device after it, whatever the replay left, and later commands, ``queue.wait()`` and the
    end of ``owners`` (what the command was to keep, rule S29) wait for it (rule S26). Run by
    ``to_the_end``: a second barrier is harmless."""
    both = [req._replace(writes=True, needs_old=True) for req in requirements]
    _device_op(lane, Barrier(), both, after, owners)


def _open(lane: Lane, depends_on: Sequence[Command], host: bool, owners: Any) -> Op:
    """A new op of ``lane`` after ``depends_on`` and, on an in-order queue, the previous op,
    keeping ``owners`` until it completes (rule S29)."""
    op = new_op(lane, lane.ctx, host, lane.async_errors)
    op.owners = owners
    for cmd in depends_on:
        add_edge(op, cmd, DEPENDS_ON)
    last = lane.last
    if last is not None and lane.in_order:
        depend(op, last, IN_ORDER)
    return op


def _plan_device(op: Op, lane: Lane, requirements: Sequence[Requirement]) -> tuple[list[Plan] | None, Any]:
    """Plan a device op: each requirement whose cached plan holds is replayed after the
    enqueue (rule S17), the others are planned in full now. Returns the plans to replay and
    what to restore if the enqueue fails."""
    replays: list[Plan] | None = None
    rest: Sequence[Requirement] = requirements
    if lane.ordered and distinct(requirements):
        missed: list[Requirement] = []
        for req in requirements:
            found = replayable(req, lane)
            if found is None:
                missed.append(req)
                continue
            depend_on(found, op)
            if replays is None:
                replays = [found]
            else:
                replays.append(found)
        if not missed:
            return replays, None
        rest = missed
    stagers: list[Op] = []
    saved = plan(op, rest, lane.context, False, stagers, cache=lane.ordered)
    for stager in stagers:
        start(stager, saved)
    return replays, saved


def _submit_host(
    lane: Lane, action: HostTask | NativeTask, requirements: Sequence[Requirement],
    depends_on: Sequence[Command], owners: Any,
) -> Op:
    """A host task on ``lane``: planned in full, run on a host thread (rules S11, S24)."""
    with RUNTIME: op = _host_task(lane, action, requirements, depends_on, owners)  # noqa: E701  # rule S26
    return op


def _host_task(
    lane: Lane, action: HostTask | NativeTask, requirements: Sequence[Requirement],
    depends_on: Sequence[Command], owners: Any,
) -> Op:
    """``_submit_host`` under the lock; interrupted before the op starts, it undoes the
    planning and ends the op, so that nothing waits for it (rule S26)."""
    # A host task's body may hold accessors, and so their buffers: what its end drops (rule S29).
    op = _open(lane, depends_on, True, () if owners is None else owners)
    saved: Sequence[tuple[MemoryObject, Snapshot]] = ()
    try:
        if requirements:
            stagers: list[Op] = []
            # A native task's memory is current in the lane's context, a host task's on the host.
            saved = plan(op, requirements, lane.context, type(action) is HostTask, stagers)
            for stager in stagers:
                start(stager, saved)
        op.work = action
        lane.add(op)
        start(op, saved)
    except BaseException:
        try:
            to_the_end(_unwind_host, op, saved)
        except KeyboardInterrupt:  # a second one, landed as it began (CPython looks there): again
            to_the_end(_unwind_host, op, saved)
        raise
    return op


def _unwind_host(op: Op, saved: Sequence[tuple[MemoryObject, Snapshot]]) -> None:
    """``_host_task`` refused or interrupted: undone and ended where it did not start."""
    if not any(waiting.op is op for waiting in RUNTIME.hosts):
        _abandon(op, saved)


def _abandon(op: Op, saved: Sequence[tuple[MemoryObject, Snapshot]]) -> None:
    """Undo the planning of ``op``, refused or interrupted before it was enqueued, deferred or
    started, and end it: nothing may wait for it (rule S26). Safe to run again."""
    restore(saved)
    op.finish()
