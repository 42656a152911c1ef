"""Asynchronous error delivery (SYCL 2020 §4.13.1).

Errors found after ``submit`` returned are stored on the queue (or, with no queue, the
context) and handed over once: to the queue's ``async_handler``, else the context's, at
``wait_and_throw`` / ``throw_asynchronous``. With no handler anywhere they are raised
there instead. A queue destroyed on a user's thread (``del q``, its last reference dropped)
hands its errors to its handler, else its context's. Errors never delivered are logged when
their queue or context is collected, or at interpreter exit. The interpreter is never
terminated.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from ._exception import errc, exception, exception_list

log = logging.getLogger("sycl_ocl")  # the one logger of the package


class AsyncErrors:
    """The undelivered asynchronous errors of one queue or context."""

    __slots__ = ("__weakref__", "_lock", "_pending", "fallback", "handler")

    def __init__(
        self, handler: Callable[[exception_list], Any] | None, fallback: AsyncErrors | None = None
    ) -> None:
        self.handler = handler
        self.fallback = fallback
        self._pending: list[BaseException] = []
        self._lock = threading.Lock()
        if handler is not None and not callable(handler):
            raise exception(
                errc.invalid, f"an async_handler is a callable taking a sycl.exception_list, got {handler!r}")

    def report(self, error: BaseException) -> None:
        """Store an error for the next delivery."""
        with self._lock:
            self._pending.append(error)

    def pending(self) -> bool:
        """Whether undelivered errors are waiting."""
        return bool(self._pending)

    def _take(self) -> list[BaseException]:
        with self._lock:
            errors, self._pending = self._pending, []
        return errors

    def deliver(self) -> None:
        """Hand stored errors to the handler, or raise the first when there is none."""
        errors = self._take()
        if self.fallback is not None:
            errors += self.fallback._take()
        if not errors:
            return
        handler = self._handler()
        if handler is not None:
            handler(exception_list(errors))
            return
        first = errors[0]
        if len(errors) > 1:
            log.error("sycl_ocl: %d more asynchronous errors after the first: %s", len(errors) - 1,
                      "; ".join(map(str, errors[1:])))
        raise first if isinstance(first, exception) else exception(errc.runtime, str(first))

    def _handler(self) -> Callable[[exception_list], Any] | None:
        return self.handler or (self.fallback.handler if self.fallback else None)

    def hand_over(self) -> None:
        """At the owner's destruction on a user's thread: the stored errors go to the handler
        (the owner's, else its fallback's), or are logged where there is none (a destructor
        cannot raise)."""
        handler = self._handler()
        if handler is None:
            self.log_undelivered()
            return
        errors = self._take()
        if errors:
            handler(exception_list(errors))

    def log_undelivered(self) -> None:
        """Log the errors nobody received (the queue or context is gone, or the interpreter ends)."""
        for error in self._take():
            log.error("sycl_ocl: asynchronous error never delivered: %s", error, exc_info=_exc_info(error))

    def __del__(self) -> None:  # docs/scheduler.md rule S14
        if self._pending:
            self.log_undelivered()


def _exc_info(error: BaseException) -> Any:
    """The original exception of a wrapped one (a host task's), so its traceback is logged."""
    cause = error.__cause__
    return (type(cause), cause, cause.__traceback__) if cause is not None else None
