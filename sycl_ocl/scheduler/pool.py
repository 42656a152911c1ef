"""The bounded pool of host threads that runs host ops (docs/scheduler.md rule S24).

DPC++ runs host tasks on a bounded pool too. A host op reaches the pool only once its
dependencies are complete or enqueued device commands (``progress._dispatch``), so a thread
never waits for another host op's start; a thread blocked in a SYCL wait (a host task waiting
for another host task's event) does not count against the bound, so such waits cannot starve
the pool.
"""

from __future__ import annotations

import os
import threading
import warnings
from collections import deque
from collections.abc import Callable
from typing import Any

from .._native import threads

# Queued work: (item, run, failed): ``run(item)``, or ``failed(item, error)`` when no thread can.
IDLE_S = 5.0  # a pool thread with no work for this long ends
Work = tuple[Any, Callable[[Any], Any], Callable[[Any, BaseException], Any]]


class HostPool:
    """The host threads that run host ops (rule S24): at most ``size`` of them, plus one for
    each of them blocked in a SYCL wait (a host task waiting for another's event must not
    starve the pool). Threads are started by the progress thread (``grow``; rule S12) and
    stay while there is work.

    ``size`` is ``SYCL_OCL_HOST_THREADS`` (default 16) and may be set at any time.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        # Set by the runtime: wake the progress thread; mark a thread as the scheduler's.
        self.wake: Callable[[], None] = lambda: None
        self.mark: Callable[[], None] = lambda: None
        self.work: deque[Work] = deque()
        self.threads = 0  # started and not ended
        self.idle = 0  # waiting for work
        self.blocked = 0  # in a SYCL wait (``waiting``)
        # Taken through the lock's own (C) methods where a user's thread takes it: a
        # Condition's ``__enter__`` is a Python frame, and a KeyboardInterrupt landing as it
        # returns would leave the lock held (rule S26).
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._local = threading.local()  # .mine: set on the pool's threads

    def submit(self, item: Any, run: Callable[[Any], Any],
               failed: Callable[[Any, BaseException], Any]) -> None:
        """Queue ``run(item)`` (``failed(item, error)`` when no thread can ever run it); an
        idle thread takes it, else the progress thread starts one."""
        with self._lock:
            self.work.append((item, run, failed))
            if self.idle:
                self._cond.notify()
                return
        self.wake()

    def reinit(self) -> None:
        """In a child made by fork(): no thread of the pool exists there (``runtime._forked``)."""
        self._lock._at_fork_reinit()  # type: ignore[attr-defined]
        self.work.clear()
        self.threads = self.idle = self.blocked = 0

    def waiting(self, blocked: bool) -> None:
        """Note that the calling thread enters (True) or leaves (False) a blocking SYCL wait;
        on a pool thread, entering one may make room for another thread."""
        if not getattr(self._local, "mine", False):
            return
        with self._lock:
            self.blocked += 1 if blocked else -1
        if blocked:
            self.wake()

    def grow(self, exiting: bool) -> None:
        """Start the threads the queued work needs, within the bound (on the progress thread).
        When none can start and none runs, the work fails (``errc.runtime``) instead of
        waiting for good; at interpreter exit it runs here (rule S14)."""
        while True:
            with self._cond:
                if len(self.work) <= self.idle or self.threads - self.blocked >= self.size:
                    return
                self.threads += 1
            try:
                threads.start(threading.Thread(target=self._serve, name="sycl_ocl-host", daemon=True))
            except RuntimeError as error:  # "can't start new thread"
                with self._cond:
                    self.threads -= 1
                    stranded = [] if self.threads else list(self.work)
                    if stranded:
                        self.work.clear()
                for item, run, failed in stranded:
                    if exiting:  # Python 3.12 starts no thread at exit
                        run(item)
                    else:
                        failed(item, error)
                return

    def _serve(self) -> None:
        """A pool thread: run queued work; end once there is none and the thread is not
        needed (idle for long, or above the bound)."""
        cond = self._cond
        self._local.mine = True
        self.mark()  # a scheduler thread (rule S12)
        while True:
            with cond:
                while not self.work:
                    self.idle += 1
                    woken = cond.wait(IDLE_S)
                    self.idle -= 1
                    if not woken and not self.work:
                        self.threads -= 1
                        return
                item, run, _ = self.work.popleft()
            run(item)
            del item, run  # an idle thread keeps no op (nor its queue and context) alive



DEFAULT_SIZE = 16


def size_setting(setting: str | None) -> int:
    """The pool's bound from ``SYCL_OCL_HOST_THREADS``: a whole number of 1 or more; anything
    else (``0``, ``-1``, ``abc``) warns and gives the default, since a pool of no thread would
    leave every host task waiting for good (docs/reliability.md, "Host threads")."""
    if not setting:
        return DEFAULT_SIZE
    try:
        size = int(setting)
    except ValueError:
        size = 0
    if size >= 1:
        return size
    warnings.warn(f"sycl_ocl: SYCL_OCL_HOST_THREADS={setting!r} is not a number of threads (a whole "
                  f"number, 1 or more); the host task pool keeps {DEFAULT_SIZE}",
                  RuntimeWarning, stacklevel=2)
    return DEFAULT_SIZE


POOL = HostPool(size_setting(os.environ.get("SYCL_OCL_HOST_THREADS")))
