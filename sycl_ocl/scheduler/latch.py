"""A one-shot flag that no interrupt can wedge: what an op's waiters wait on (docs/scheduler.md
rule S26).

``threading.Event`` runs frames of the standard library while it holds its condition's lock: a
real signal's KeyboardInterrupt landing there (``Condition.__enter__`` returning with the lock
taken, ``notify_all`` half done) leaves the lock held or a waiter asleep, and every later
``set`` or ``wait`` of that op then waits for good. A latch's waiter sleeps on a lock of its
own that no other thread takes; ``set`` marks the latch done, then releases the waiters (and
the ops parked on it) in one C call, where no interrupt lands. Waiters still look at ``done``
every ``POLL_S``.
"""

from __future__ import annotations

from _thread import allocate_lock
from collections import deque
from collections.abc import Callable, Iterator
from functools import partial
from operator import methodcaller
from time import monotonic

POLL_S = 0.05  # a waiter looks at ``done`` this often

_CALL = methodcaller("__call__")
# Runs an iterator to its end, in C.
_CALL_ALL: Callable[[Iterator[object]], object] = partial(deque, maxlen=0)


class Latch:
    """Set once, waited for by any number of threads (the part of ``threading.Event`` that
    ops use); ``set`` also releases the ops parked on it (``progress``).

    A waiter is a call that takes no argument and runs no Python frame (a lock's ``release``;
    for a parked op, a ``deque.append`` and a ``SimpleQueue.put``): ``set`` calls each in one C
    call, where no interrupt can land, over an iterator made with the latch (a list's iterator
    sees what is appended until it reaches the end), so none is skipped or called twice."""

    __slots__ = ("_calls", "done", "waiters")

    def __init__(self) -> None:
        self.done = False
        self.waiters: list[Callable[[], object]] = []
        self._calls: Iterator[object] = map(_CALL, self.waiters)

    def is_set(self) -> bool:
        return self.done

    def set(self) -> None:
        """Mark done and wake every waiter."""
        self.done = True
        _CALL_ALL(self._calls)
        self.waiters.clear()  # what they hold (a parked op) goes; the iterator reached the end

    def wait(self, timeout: float | None = None) -> bool:
        """Block until set or ``timeout`` seconds passed; whether it is set. Interrupted, the
        waiter leaves nothing held: its lock is its own."""
        if self.done:
            return True
        waiter = allocate_lock()
        waiter.acquire()
        self.waiters.append(waiter.release)  # then ``done`` again: a ``set`` in between called it or saw it
        deadline = None if timeout is None else monotonic() + timeout
        while not self.done:
            left = POLL_S if deadline is None else min(POLL_S, deadline - monotonic())
            if left <= 0 or waiter.acquire(timeout=left):
                break
        if not self.done:
            try:  # noqa: SIM105  # not contextlib.suppress: its frames are more places to interrupt
                self.waiters.remove(waiter.release)
            except ValueError:  # a ``set`` took it just now
                pass
        return self.done
