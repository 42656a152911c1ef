"""A one-shot flag that no interrupt can wedge: what an op's waiters wait on (docs/scheduler.md
rule S26).

``threading.Event`` runs frames of the standard library while it holds its condition's lock: a
real signal's KeyboardInterrupt landing there (``Condition.__enter__`` returning with the lock
taken, ``notify_all`` half done) leaves the lock held or a waiter asleep, and every later
``set`` or ``wait`` of that op then waits for good. A latch's waiter sleeps on a lock of its
own that no other thread takes; ``set`` marks the latch done, then releases the waiters, one C
call each. An interrupt between those calls leaves a waiter asleep for ``POLL_S`` at most:
waiters look at ``done`` that often.
"""

from __future__ import annotations

from _thread import allocate_lock
from time import monotonic
from typing import Protocol

POLL_S = 0.05  # a waiter whose release an interrupted ``set`` skipped wakes this late at most


class Waiter(Protocol):
    """What waits on a latch: a lock a thread sleeps on, or a host op parked there
    (``progress.Waiting``)."""

    def release(self) -> None: ...


class Latch:
    """Set once, waited for by any number of threads (the part of ``threading.Event`` that
    ops use); ``set`` also releases the host ops parked on it (``progress._dispatch``)."""

    __slots__ = ("done", "waiters")

    def __init__(self) -> None:
        self.done = False
        self.waiters: list[Waiter] = []

    def is_set(self) -> bool:
        return self.done

    def set(self) -> None:
        """Mark done and wake every waiter."""
        self.done = True
        waiters = self.waiters
        while waiters:
            waiters.pop().release()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until set or ``timeout`` seconds passed; whether it is set. Interrupted, the
        waiter leaves nothing held: its lock is its own."""
        if self.done:
            return True
        waiter = allocate_lock()
        waiter.acquire()
        self.waiters.append(waiter)  # then ``done`` again: a ``set`` in between popped it or saw it
        deadline = None if timeout is None else monotonic() + timeout
        while not self.done:
            left = POLL_S if deadline is None else min(POLL_S, deadline - monotonic())
            if left <= 0 or waiter.acquire(timeout=left):
                break
        if not self.done:
            try:  # noqa: SIM105  # not contextlib.suppress: its frames are more places to interrupt
                self.waiters.remove(waiter)
            except ValueError:  # a ``set`` took it just now
                pass
        return self.done
