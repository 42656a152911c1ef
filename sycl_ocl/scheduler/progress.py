"""Issuing device ops: at once when their dependencies allow it, else later from the DAG.

A device op can be enqueued when every dependency is complete or is an enqueued OpenCL
command of the same context (docs/scheduler.md rule S7). Otherwise it waits in
``RUNTIME.deferred``, never behind a user event (rule S8), and ``drain`` issues it, in
submission order, when a host op completes, a host accessor is released, or the progress
thread wakes for an OpenCL completion callback or a host wait (rule S9).

Host ops wait in ``RUNTIME.hosts`` too, until every dependency is complete or an enqueued
device command (which completes without any host thread's help, rule S8); only then does one
go to ``POOL``, a bounded pool of host threads (docs/scheduler.md rule S24).
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from .._async_errors import log
from .._exception import exception
from .._native import cl, threads
from .issue import issue
from .latch import Latch
from .op import DEFERRED, DONE, Op
from .pool import POOL
from .refusal import UNDO, undo
from .runtime import RUNTIME

if TYPE_CHECKING:
    from .._async_errors import AsyncErrors
    from .lane import Lane

BLOCKED: Any = object()


def wait_list(op: Op) -> Any:
    """The OpenCL events ``op`` must wait for, None for none, or ``BLOCKED``."""
    lane: Lane = op.lane  # type: ignore[assignment]
    ctx = lane.ctx
    events: list[cl.Event] | None = None
    ev: Any  # an issued op's event, or a foreign command's
    for dep in op.deps:
        if type(dep) is Op:
            state = dep.state
            if state == DONE:
                continue
            if state == DEFERRED or dep.host:
                return BLOCKED
            ev = dep.event
            if dep.lane is lane:
                if lane.ordered:
                    continue  # the OpenCL queue orders it
            elif dep.ctx != ctx:
                if dep.poll():
                    continue
                dep.lane.flush()  # type: ignore[union-attr]  # some drivers (Oclgrind) run only flushed work
                if _watch(ev):
                    return BLOCKED
                continue  # it completed meanwhile (Oclgrind runs a queue's work as it flushes)
            else:
                dep.lane.flush()  # type: ignore[union-attr]  # another queue's event: flush before waiting on it
        else:
            ev = dep.cl_event()
            if ev is None:
                continue
            if ev.context.int_ptr != ctx:
                if _watch(ev):
                    return BLOCKED
                continue
        if events is None:
            events = [ev]
        else:
            events.append(ev)
    return events


def _watch(ev: cl.Event) -> bool:
    """Have the progress thread woken when ``ev`` (another context's) completes; False when it
    has completed already, so it needs no waiting.

    The status is read after the callback is registered: a driver may never call a callback
    registered on a complete event, and an event that completed in between would then leave
    the op waiting for good.
    """
    key = ev.int_ptr
    watched = RUNTIME.watched
    if key not in watched:
        watched.add(key)
        ev.set_callback(cl.command_execution_status.COMPLETE, lambda status: _fired(key))
    if ev.command_execution_status > cl.command_execution_status.COMPLETE:
        return True
    watched.discard(key)  # its callback may never come: a later event at this address needs its own
    return False


def _fired(key: int) -> None:
    # Runs on a driver thread: no blocking OpenCL calls, no scheduler lock; wake the thread.
    RUNTIME.watched.discard(key)
    RUNTIME.kick()


class Deferred:
    """A device op waiting in the DAG (``defer``). Parked on the latch of the dependency that
    holds it back, it is looked at again only when that latch is set (``park``), as a host
    op is (``Waiting``): a backlog of n deferred ops drains in O(n) looks, not O(n^2). One held
    back by another context's event or a user event (whose callback wakes the progress thread)
    is looked at every pass."""

    __slots__ = ("op", "seq")

    def __init__(self, op: Op) -> None:
        self.op = op
        self.seq = next(_SEQ)

    def __lt__(self, other: Deferred) -> bool:  # submission order, in ``_drain``'s heap
        return self.seq < other.seq


def park(waiting: Deferred | Waiting, latch: Latch) -> bool:
    """Park a waiting op on ``latch``: once set, it puts ``waiting`` where the next pass looks
    (``RUNTIME.looks``, a host op's ``RUNTIME.unblocked``) and wakes the progress thread, by
    calls that run no Python frame, so that no interrupt skips them (``Latch.set``, rule S26).
    False where the latch is set already (its ``set`` may have missed it): look at it again
    now."""
    queued = RUNTIME.looks if type(waiting) is Deferred else RUNTIME.unblocked
    latch.waiters += (partial(queued.append, waiting), _KICK)  # type: ignore[arg-type]  # one deque each
    return not latch.done


def defer(op: Op) -> None:
    """Keep ``op`` in the DAG until its dependencies allow enqueueing it (under the lock)."""
    if op.flag is None:
        op.flag = Latch()
    waiting = Deferred(op)
    RUNTIME.deferred[op] = waiting
    RUNTIME.looks.append(waiting)


def drain() -> None:
    """Issue every deferred op whose dependencies now allow it, in submission order.

    A failed dependency does not stop an op: it runs and reports its own errors
    (docs/scheduler.md rule S10).
    """
    if RUNTIME.looks or RUNTIME.remote or RUNTIME.hosts or RUNTIME.unblocked or RUNTIME.foreign:
        with RUNTIME: _drain(RUNTIME.deferred)  # noqa: E701  # one line (rule S26)


def _drain(deferred: dict[Op, Deferred]) -> None:
    """``drain`` under the lock: look at the deferred ops to look at (``Deferred``), in
    submission order, each op released by one issued here included."""
    _dispatch()
    looks, remote = RUNTIME.looks, RUNTIME.remote
    todo: list[Deferred] = []
    waiting = None
    try:  # interrupted (drain runs on the user's threads too), what it took is looked at again
        todo += remote
        remote.clear()
        while looks:
            todo.append(looks.popleft())
        heapq.heapify(todo)
        while todo:
            waiting = heapq.heappop(todo)
            op = waiting.op
            if op.state != DEFERRED:
                deferred.pop(op, None)
            else:
                _look(waiting, deferred)
            waiting = None
            while looks:  # released by an op issued just now: later in submission order
                heapq.heappush(todo, looks.popleft())
    except BaseException:
        looks.extend([*todo, *remote] if waiting is None else [waiting, *todo, *remote])
        remote.clear()
        raise
    _dispatch()  # a host op behind a device op issued just now


def _look(waiting: Deferred, deferred: dict[Op, Deferred]) -> None:
    """Issue the deferred op of ``waiting`` if its dependencies allow it, else park it."""
    op = waiting.op
    events = wait_list(op)
    if events is BLOCKED:
        latch = _holding(op)
        if latch is None:
            RUNTIME.remote.append(waiting)
            return
        if not park(waiting, latch):
            RUNTIME.looks.append(waiting)
        return
    try:
        issue(op, events)
    except exception as error:
        refuse(op, error, events)
    else:
        UNDO.pop(op, None)
    deferred.pop(op, None)


def _holding(op: Op) -> Latch | None:
    """The latch to park the blocked ``op`` on: the flag of its first dependency that is
    deferred, or a host op not complete, set once that is not so (``Op.issued``,
    ``Op.finish``); None where none is, or its flag is set already (another context's event
    or a user event holds it back: looked at every pass)."""
    for dep in op.deps:
        if type(dep) is Op and dep.state != DONE and (dep.state == DEFERRED or dep.host):
            flag = dep.flag
            return flag if flag is not None and not flag.done else None
    return None


def refuse(op: Op, error: exception, events: list[cl.Event] | None) -> None:
    """A deferred device op failed to enqueue: undo its planning, and have it complete behind
    what it would have followed on its queue (a marker), not before (rule S25)."""
    undo(op)
    try:
        marker = cl.enqueue_marker(op.lane.cl_queue, wait_for=events)  # type: ignore[union-attr]
    except cl.Error:
        marker = None  # the op ends now
    op.fail(error, marker)


class Waiting:
    """A host op waiting in the DAG for its dependencies (``run_host``): ``run(op)`` once they
    allow it, ``failed(op, error)`` when no thread can. Parked on the latch of the dependency
    that holds it back (``park``), it is looked at again only when that latch is set: a
    backlog of n host ops drains in O(n) looks, not O(n^2)."""

    __slots__ = ("failed", "next_dep", "op", "run", "sent", "seq")

    def __init__(self, op: Op, run: Callable[[Op], Any], failed: Callable[[Op, BaseException], Any]) -> None:
        self.op, self.run, self.failed = op, run, failed
        self.seq = next(_SEQ)
        self.next_dep = 0  # the dependencies before it allow the op (they never go back)
        self.sent = False  # handed to the pool


_SEQ = itertools.count()
_KICK = partial(RUNTIME.wake.put, None)  # ``RUNTIME.kick`` in C
_FOREIGN: Any = object()  # held back by a user event (or an op with no latch): looked at every pass


def run_host(op: Op, run: Callable[[Op], Any], failed: Callable[[Op, BaseException], Any]) -> None:
    """Have ``run(op)`` run on a thread of ``POOL`` once ``op``'s dependencies allow it (under
    the lock; rule S24); ``failed(op, error)`` instead when no thread can run it."""
    RUNTIME.hosts.append(Waiting(op, run, failed))
    start()
    RUNTIME.kick()


def _dispatch() -> None:
    """Hand to ``POOL`` the host ops that are ready, in submission order (under the lock).
    Looked at: those submitted since the last pass (``RUNTIME.hosts``), those whose parked
    latch was set since (``RUNTIME.unblocked``) and those held back by a user event
    (``RUNTIME.foreign``); the others stay parked on a latch."""
    hosts, unblocked, foreign = RUNTIME.hosts, RUNTIME.unblocked, RUNTIME.foreign
    if not (hosts or unblocked or foreign):
        return
    todo: list[Waiting] = []
    ready: list[Waiting] = []
    try:  # interrupted (it runs on the user's threads too), what it took is looked at again
        todo += hosts
        todo += foreign
        hosts.clear()
        foreign.clear()
        while unblocked:
            todo.append(unblocked.popleft())
        for waiting in todo:  # grows where a latch was set as the op parked on it
            if waiting.sent:
                continue
            blocker = _blocker(waiting)
            if blocker is None:
                waiting.sent = True
                ready.append(waiting)
            elif blocker is _FOREIGN:
                foreign.append(waiting)
            elif not park(waiting, blocker):  # set meanwhile: its ``set`` may have missed this one
                todo.append(waiting)
    except BaseException:
        hosts.extend(todo)  # looked at once more (those parked meanwhile too)
        raise
    ready.sort(key=_seq)
    for waiting in ready:
        POOL.submit(waiting.op, waiting.run, waiting.failed)


def _seq(waiting: Waiting) -> int:
    return waiting.seq


def _blocker(waiting: Waiting) -> Latch | None:
    """None when every dependency of the waiting host op is complete or an enqueued device
    command (a foreign one too: Oclgrind runs queued work only when it is waited for); else
    the latch of the first that is not, set once it is, or ``_FOREIGN`` (an incomplete user
    event, which wakes the progress thread when it completes)."""
    deps = waiting.op.deps
    for i in range(waiting.next_dep, len(deps)):
        dep = deps[i]
        if type(dep) is Op:
            if dep.state == DONE or (dep.event is not None and not dep.host):
                continue
            waiting.next_dep = i
            return dep.flag if dep.flag is not None else _FOREIGN
        ev = dep.cl_event()
        if ev is not None and ev.command_type == cl.command_type.USER and _watch(ev):
            waiting.next_dep = i
            return _FOREIGN
    return None


def spawn(
    target: Callable[..., Any], args: tuple[Any, ...], name: str,
    failed: Callable[[BaseException], Any],
) -> None:
    """Run ``target(*args)`` on a new thread, started by the progress thread; ``failed(error)``
    instead when no thread can be started.

    Starting a thread waits until it runs, and a garbage collection there may run a buffer's
    finalizer, which takes the scheduler lock: a thread started under the lock could
    deadlock with its starter. Spawning never waits, so it is safe anywhere (rule S12).
    """
    RUNTIME.spawns.append((target, args, name, failed))
    start()
    RUNTIME.kick()


def start() -> None:
    """Start the runtime's progress thread (first called when a queue is made, outside the lock)."""
    RUNTIME.start(_progress)


def _progress() -> None:
    wake, spawns, finalizers = RUNTIME.wake, RUNTIME.spawns, RUNTIME.finalizers
    while True:
        woken = [wake.get()]
        while not wake.empty():  # one pass serves every wake-up so far
            woken.append(wake.get_nowait())
        for item in woken:
            if item is not None:  # an object died unended, its finalizer interrupted (rule S26)
                run_logged(RUNTIME.orphaned(item), "ending what an interrupted finalizer left")
        while finalizers:
            run_logged(*finalizers.popleft())
        while spawns:
            _start(*spawns.popleft())  # in a function: this loop keeps no reference to its args
        try:
            drain()
            POOL.grow(RUNTIME.exiting)
        except Exception:  # the progress thread outlives any one failure; drain retries later
            log.exception("sycl_ocl: issuing deferred commands failed")


def run_logged(work: Callable[[], Any], what: str, errors: AsyncErrors | None = None) -> None:
    """Run a finalizer's ``work``; it cannot raise, so a failure is logged (``what`` names it),
    or, with ``errors``, a ``sycl.exception`` is reported there as an asynchronous error (a
    buffer that its command's completion ended: that queue's, rule S29). Interrupted (a
    KeyboardInterrupt, which Python drops in a finalizer), the work runs again to its end: each
    step of it is done, or undone where interrupted (rule S26)."""
    try:
        work()
    except KeyboardInterrupt:
        work()
        raise
    except Exception as error:  # a finalizer cannot raise: report it instead
        if errors is not None and isinstance(error, exception):
            RUNTIME.report(errors, error)
        else:
            log.error("sycl_ocl: %s failed: %s", what, error)


def _start(
    target: Callable[..., Any], args: tuple[Any, ...], name: str,
    failed: Callable[[BaseException], Any],
) -> None:
    try:
        thread = threading.Thread(target=RUNTIME.run_thread, args=(target, args), name=name, daemon=True)
        threads.start(thread)
    except RuntimeError as error:  # "can't start new thread": fail the work instead of hanging
        if RUNTIME.exiting:  # Python 3.12 starts no thread at exit: the work runs here (rule S14)
            target(*args)
        else:
            failed(error)
