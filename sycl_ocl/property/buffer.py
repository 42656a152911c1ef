"""``sycl::property::buffer`` (SYCL 2020 §4.7.2.2)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from .._exception import errc, exception
from ._base import Property

if TYPE_CHECKING:
    from .._context import context

_BUFFERS = frozenset({"buffer"})


class use_host_ptr(Property):
    """The buffer uses the host memory it was given, never a copy of it (§4.7.2.2)."""

    __slots__ = ()
    applies_to = _BUFFERS


class use_mutex(Property):
    """The runtime holds ``mutex`` while it uses the buffer's host memory (§4.7.2.2).

    Args:
        mutex: a ``threading.Lock`` or ``threading.RLock``.
    """

    __slots__ = ("_mutex",)
    applies_to = _BUFFERS

    def __init__(self, mutex: Any = None) -> None:
        if mutex is not None and not all(callable(getattr(mutex, m, None)) for m in ("acquire", "release")):
            raise exception(errc.invalid, f"use_mutex takes a lock (with acquire and release), got {mutex!r}")
        self._mutex = mutex if mutex is not None else threading.Lock()

    def get_mutex_ptr(self) -> Any:
        """The mutex given at construction (§4.7.2.2)."""
        return self._mutex

    def __eq__(self, other: object) -> bool:
        return isinstance(other, use_mutex) and other._mutex is self._mutex

    def __hash__(self) -> int:
        return id(self._mutex)


class context_bound(Property):
    """The buffer may only be used in ``ctx`` (§4.7.2.2).

    Args:
        ctx: the only context the buffer may be used in.
    """

    __slots__ = ("_context",)
    applies_to = _BUFFERS

    def __init__(self, ctx: context) -> None:
        if not hasattr(ctx, "_handle") or not hasattr(ctx, "get_devices"):  # context.py imports this module
            raise exception(errc.invalid, f"context_bound takes a sycl.context, got {ctx!r}")
        self._context = ctx

    def get_context(self) -> context:
        """The bound context (§4.7.2.2)."""
        return self._context

    def __eq__(self, other: object) -> bool:
        return isinstance(other, context_bound) and other._context == self._context

    def __hash__(self) -> int:
        return hash(self._context)
