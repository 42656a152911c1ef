"""The scheduler's state in one object, with a lifetime (docs/scheduler.md rules S12, S14).

``RUNTIME`` is made when sycl_ocl is imported and holds everything the scheduler keeps
between calls: the lock, the lanes, the deferred operations, the OpenCL events it watches,
the threads it has yet to start, the error stores holding undelivered errors, the records
of the contexts in use and the commands of interop events. The first queue starts it
(``progress.start``): its progress thread runs, and the interpreter's exit waits for the
work still in flight, then logs the asynchronous errors nobody received.
"""

from __future__ import annotations

import atexit
import os
import queue
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pyopencl as cl

from .._async_errors import log
from .._process import STATE as PROCESS
from .command import NativeCommand
from .context_record import ContextRecord
from .pool import POOL

if TYPE_CHECKING:
    from .._async_errors import AsyncErrors
    from .lane import Lane
    from .op import Op
    from .progress import Deferred, Waiting

# A thread to start: (target, args, name, what to do with the error when none can start).
Spawn = tuple[Callable[..., Any], tuple[Any, ...], str, Callable[[BaseException], Any]]

EXIT_PATIENCE_S = 10.0  # at exit, give up on work that completes nothing for this long
EXIT_POLL_S = 0.01  # at exit, the period of polling the work in flight
# The scheduler lock, one per process. ``with RUNTIME`` calls its C methods: no Python frame
# runs in taking or releasing it (cheaper, and no line there for a KeyboardInterrupt to land on).
_LOCK = threading.RLock()


class Watch(weakref.ref):
    """A weak reference to an object whose finalizer ends something (a buffer's handle, a
    host accessor's hold): if the object dies before ``Runtime.unwatch``, its finalizer was
    interrupted before it began (a KeyboardInterrupt on its first line, which Python prints
    and drops), and the progress thread runs ``end`` (docs/scheduler.md rule S26). Its
    callback is C code (``SimpleQueue.put`` of itself), which no interrupt can stop."""

    __slots__ = ("end", "key")
    end: Callable[[], Any]
    key: int


class Runtime:
    """The scheduler's state; ``with RUNTIME:`` holds its lock.

    The lock is re-entrant (a buffer's finalizer may run inside the scheduler) and knows its
    owner, so that finalizers can tell whether their own thread holds it (``held``); the submit
    paths take it through its own methods (``acquire``, ``release``).
    """

    __slots__ = (
        "_records_lock", "_start_lock", "contexts", "deferred", "exit_first", "exiting", "finalizers",
        "foreign", "hosts", "lanes", "local", "lock", "looks", "native_commands", "orphans", "remote",
        "spawns", "thread", "unblocked", "undelivered", "wake", "watched",
    )

    def __init__(self) -> None:
        self.lock = _LOCK
        self.local = threading.local()  # .scheduler_thread: set on the scheduler's own threads
        self.lanes: weakref.WeakSet[Lane] = weakref.WeakSet()
        # Device ops waiting in the DAG (``progress.Deferred``), in submission order; to look at
        # in the next pass (deferred since the last, or parked on a latch that was set since);
        # held back by another context's event or a user event (looked at every pass).
        self.deferred: dict[Op, Deferred] = {}
        self.looks: deque[Deferred] = deque()
        self.remote: list[Deferred] = []
        # Host ops waiting for their dependencies (``progress.Waiting``): submitted since the
        # dispatcher's last pass; parked on a latch that was set since; held back by a user event.
        self.hosts: list[Waiting] = []
        self.unblocked: deque[Waiting] = deque()
        self.foreign: list[Waiting] = []
        self.watched: set[int] = set()  # OpenCL events with a completion callback
        # Wakes the progress thread. A SimpleQueue, not an Event: its put takes no Python lock,
        # so a finalizer may wake the thread even when it runs inside an Event's own lock.
        self.wake: queue.SimpleQueue[Watch | None] = queue.SimpleQueue()
        self.spawns: deque[Spawn] = deque()  # threads for the progress thread to start
        # Finalizer work queued during a garbage collection, for the progress thread to run.
        self.finalizers: deque[tuple[Callable[[], Any], str]] = deque()
        self.orphans: dict[int, Watch] = {}  # by the id of the object watched (``watch``)
        self.undelivered: weakref.WeakSet[AsyncErrors] = weakref.WeakSet()
        self.contexts: weakref.WeakValueDictionary[int, ContextRecord] = weakref.WeakValueDictionary()
        self.native_commands: weakref.WeakValueDictionary[int, NativeCommand] = weakref.WeakValueDictionary()
        self.thread: threading.Thread | None = None
        self.exiting = False  # set by shutdown: Python 3.12 starts no thread from then on
        # What shutdown runs before it waits for the work in flight (``holds.end_all_at_exit``).
        self.exit_first: list[Callable[[], Any]] = []
        self._start_lock = threading.Lock()
        self._records_lock = threading.Lock()

    # --- the lock -------------------------------------------------------------------------

    __enter__ = staticmethod(_LOCK.__enter__)
    __exit__ = staticmethod(_LOCK.__exit__)

    def held(self) -> bool:
        """Whether this thread holds the scheduler lock."""
        return self.lock._is_owned()  # type: ignore[attr-defined]  # the RLock keeps its owner

    def on_own_thread(self) -> bool:
        """Whether this is one of the scheduler's threads (progress, host commands, destruction)."""
        return getattr(self.local, "scheduler_thread", False)

    # --- threads --------------------------------------------------------------------------

    def start(self, loop: Callable[[], None]) -> None:
        """Start the progress thread running ``loop``, once; from then on the interpreter's
        exit waits for the work in flight."""
        if self.thread is None:
            with self._start_lock:
                if self.thread is None:
                    thread = threading.Thread(
                        target=self.run_thread, args=(loop, ()), name="sycl_ocl-progress", daemon=True
                    )
                    thread.start()
                    self.thread = thread
                    atexit.register(self.shutdown)

    def run_thread(self, target: Callable[..., Any], args: tuple[Any, ...]) -> None:
        """The body of every scheduler thread: ``target(*args)``, marked as the scheduler's
        (rule S12)."""
        self.mark_thread()
        target(*args)

    def mark_thread(self) -> None:
        """Mark the calling thread as one of the scheduler's (rule S12)."""
        self.local.scheduler_thread = True

    def kick(self) -> None:
        """Wake the progress thread: something it waits for may have happened. Lock-free, so
        safe in finalizers and driver callbacks."""
        self.wake.put(None)

    def watch(self, obj: Any, end: Callable[[], Any]) -> None:
        """Have the progress thread run ``end()`` if ``obj`` dies before ``unwatch(obj)``
        (``Watch``)."""
        ref = Watch(obj, self.wake.put)
        ref.end, ref.key = end, id(obj)
        self.orphans[id(obj)] = ref

    def unwatch(self, obj: Any) -> None:
        """``obj``'s finalizer (or its explicit end) began: forget the ``watch``. The weak
        reference goes, and its callback with it."""
        self.orphans.pop(id(obj), None)

    def orphaned(self, ref: Watch) -> Callable[[], Any]:
        """What to run for a watched object that died unended (the progress thread)."""
        if self.orphans.get(ref.key) is ref:
            del self.orphans[ref.key]
        return ref.end

    # --- records of the world outside ---------------------------------------------------

    def context(self, native: cl.Context, owner: Any = None) -> ContextRecord:
        """The record of an OpenCL context (``owner``: the user's context, named in errors),
        made on first use and kept while a lane or an allocation uses it."""
        with self._records_lock:
            record = self.contexts.get(native.int_ptr)
            if record is None:
                record = self.contexts[native.int_ptr] = ContextRecord(native, owner, self)
            return record

    def native_command(self, ev: cl.Event) -> NativeCommand:
        """The one command of an OpenCL event (interop), kept while an event refers to it."""
        with self._records_lock:
            cmd = self.native_commands.get(ev.int_ptr)
            if cmd is None:
                cmd = self.native_commands[ev.int_ptr] = NativeCommand(ev)
            return cmd

    def report(self, store: AsyncErrors, error: BaseException) -> None:
        """Store an asynchronous error for its queue's (or context's) handler."""
        store.report(error)
        self.undelivered.add(store)

    # --- the end of the interpreter -------------------------------------------------------

    def shutdown(self) -> None:
        """At interpreter exit: wait for the commands still in flight (as DPC++ does at
        shutdown), then log the asynchronous errors never delivered (rule S14). Host accessors
        still open are ended first: the work behind them runs, and is waited for."""
        for end in self.exit_first:
            try:
                end()
            except Exception:  # the interpreter is ending: say so, do not raise into its exit
                log.exception("sycl_ocl: ending what was still open at interpreter exit failed")
        self._wait_for_lanes()
        for store in list(self.undelivered):
            store.log_undelivered()

    def _wait_for_lanes(self) -> None:
        """Poll the work in flight until it completes or completes nothing for EXIT_PATIENCE_S.
        The exiting thread polls itself: Python 3.12 starts no thread in an atexit function
        (3.12.0-3.12.2 none once the main thread ended), so the host commands left run on the
        progress thread (``progress.spawn``)."""
        self.exiting = True
        left, since = -1, time.monotonic()
        try:
            while now := _poll_unfinished(self):
                with self: lanes = list(self.lanes)  # noqa: E701  # one line (rule S26)
                for lane in lanes:  # buffers' ends that got no thread run here (rule S29)
                    lane.run_deferred()
                if left < 0 or now < left:
                    left, since = now, time.monotonic()
                elif time.monotonic() - since > EXIT_PATIENCE_S:
                    log.error(
                        "sycl_ocl: %d commands were still waiting at interpreter exit and completed "
                        "nothing for %.0f s (waiting for a user event or a host task that never ends?); "
                        "they are abandoned", left, EXIT_PATIENCE_S,
                    )
                    return
                time.sleep(EXIT_POLL_S)
        except Exception:  # the interpreter is ending: say so, do not raise into its exit
            log.exception("sycl_ocl: waiting for the work in flight at interpreter exit failed")


def _poll_unfinished(runtime: Runtime) -> int:
    """How many commands are unfinished, after flushing every queue (some drivers, Oclgrind,
    run only flushed work) and waking the progress thread to issue the deferred ones."""
    ending = 0
    with runtime:
        ops = []
        for lane in list(runtime.lanes):
            lane.flush()
            ops += lane.unfinished()
            ending += len(lane.ending_left())  # buffers their commands ended, being written back (rule S29)
    runtime.kick()
    return sum(not op.poll() for op in ops) + ending


def to_the_end(work: Callable[..., Any], *args: Any) -> None:
    """Run ``work(*args)`` to its end, again while a KeyboardInterrupt interrupts it: the undo
    in a handler, where a second interrupt (a real signal's lands anywhere) would leave it half
    done and a command waited for for good (rule S26). ``work`` must be safe to run again; the
    handler raises the first interrupt afterwards. CPython also looks for an interrupt as this
    function begins, before its ``try``: the handler calls it in a ``try`` of its own, and
    again where one landed there."""
    while True:
        try:
            work(*args)
            return
        except KeyboardInterrupt:
            continue


def _forked() -> None:
    """In a child made by fork() after OpenCL was opened (``_process``; docs/reliability.md,
    "Processes"): the threads that held the locks are gone, so the locks are made anew (the
    finalizers of inherited objects take them before they learn that they end nothing), and
    the exit waits for none of the parent's work."""
    if PROCESS.forked:
        RUNTIME.lock._at_fork_reinit()  # type: ignore[attr-defined]  # what threading does for its own
        POOL.reinit()
        atexit.unregister(RUNTIME.shutdown)


RUNTIME = Runtime()
POOL.wake = RUNTIME.kick
POOL.mark = RUNTIME.mark_thread
os.register_at_fork(after_in_child=_forked)
