"""Submitting a command group: plan its requirements, then issue it now or defer it.

Planning runs under the one scheduler lock, in submission order (D01). ``submit`` never
blocks (D05): a command that cannot be enqueued yet waits in the DAG (see ``progress``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..event import event
from ..exception import errc, exception
from .actions import DeviceAction, HostTask
from .coherence import Move, access
from .hostops import HostWork, start
from .issue import issue
from .lane import Lane
from .memory_object import READ, WRITE, MemoryObject, context_record
from .op import Op, depend
from .progress import BLOCKED, defer, ensure_running, wait_list
from .state import LOCK

if TYPE_CHECKING:
    from ..accessor import accessor
    from ..context import context
    from ..queue import queue

Saved = list[tuple[MemoryObject, dict[int, Any], list[Any], bool]]


def lane_for(q: queue) -> Lane:
    """The lane of a queue."""
    lane = Lane(q._native, q._context._handle, q._device, q._async_errors, q._in_order, q._profiling)
    lane.serial = context_record(q._context).serial
    ensure_running()  # here, outside the scheduler lock (see progress.spawn)
    return lane


def submit(
    q: queue, action: DeviceAction | HostTask, accessors: list[accessor], depends_on: list[event],
) -> event:
    """Schedule one command group; returns its event without blocking on device work."""
    lane: Lane = q._lane
    host = type(action) is HostTask
    with LOCK:
        op = Op(lane, lane.ctx, host, lane.async_errors)
        deps = op.deps
        for ev in depends_on:
            deps.append(ev._cmd)
        if lane.in_order and lane.last is not None:
            depend(op, lane.last)
        moves = op.moves
        saved = _plan(accessors, q._context, op, moves, host) if accessors else None
        if host:
            op.work = HostWork(action.fn)  # type: ignore[union-attr]
            lane.add(op)
            start(op)
        else:
            op.work = action
            events = wait_list(op)
            if events is BLOCKED:
                defer(op)
            else:
                try:
                    issue(op, events)
                except BaseException:
                    _restore(saved)
                    op.finish()
                    raise
            lane.add(op)
    return event(op, q._context)


def _plan(accs: list[accessor], ctx: context, op: Op, moves: list[Move], host: bool) -> Saved:
    groups: dict[MemoryObject, list[accessor]] = {}
    for acc in accs:
        root = acc._root
        if root.bound is not None and root.bound != ctx:
            raise exception(
                errc.invalid,
                "the buffer has the context_bound property for another context; use it only "
                "on queues of that context",
            )
        group = groups.get(root)
        if group is None:
            groups[root] = [acc]
        else:
            group.append(acc)
    saved: Saved = []
    for root, group in groups.items():
        saved.append((root, dict(root.valid), root.frontier, root.written))
        alloc = None if host else root.alloc(ctx)
        reqs = [group[0]._req] if len(group) == 1 else combine(group)
        for lo, hi, writes, needs_old in reqs:
            access(root, lo, hi, WRITE if writes else READ, needs_old, alloc, op, moves)
    return saved


def combine(group: list[accessor]) -> list[tuple[int, int, bool, bool]]:
    """Merge one CG's accessors of one buffer: overlapping spans become one requirement (D03)."""
    spans = sorted(acc._req for acc in group)
    out: list[tuple[int, int, bool, bool]] = []
    for lo, hi, writes, needs_old in spans:
        if out and lo < out[-1][1]:
            plo, phi, pw, pn = out[-1]
            out[-1] = (plo, max(phi, hi), pw or writes, pn or needs_old)
        else:
            out.append((lo, hi, writes, needs_old))
    return out


def _restore(saved: Saved | None) -> None:
    for root, valid, frontier, written in saved or ():
        root.valid = valid
        root.frontier = frontier
        root.written = written
