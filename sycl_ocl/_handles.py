"""One wrapper per OpenCL handle: common reference semantics (SYCL 2020 §4.5.2).

Wrappers compare and hash by the handle (``int_ptr``) they wrap, so two SYCL objects over
one OpenCL object are equal, and ``get_native(make_x(n)) is n`` holds for interop.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, TypeVar

W = TypeVar("W", bound="NativeWrapper")

_lock = threading.Lock()
_wrappers: weakref.WeakValueDictionary[tuple[type, int], NativeWrapper] = (
    weakref.WeakValueDictionary()
)


class NativeWrapper:
    """Base of the SYCL classes that wrap exactly one PyOpenCL object."""

    __slots__ = ("__weakref__", "_handle", "_native")

    _native: Any
    _handle: int

    def _bind(self, native: Any) -> None:
        self._native = native
        self._handle = native.int_ptr

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return other._handle == self._handle  # type: ignore[attr-defined, no-any-return]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._handle))


def cached_wrapper(cls: type[W], native: Any) -> W | None:
    """The live wrapper of ``cls`` over ``native``'s handle, if there is one."""
    return _wrappers.get((cls, native.int_ptr))  # type: ignore[return-value]


def remember(wrapper: W) -> W:
    """Make ``wrapper`` the canonical wrapper of its handle unless one exists; return the winner."""
    key = (type(wrapper), wrapper._handle)
    with _lock:
        existing = _wrappers.get(key)
        if existing is not None and existing._native is wrapper._native:
            return existing  # type: ignore[return-value]
        if existing is None:
            _wrappers[key] = wrapper
        return wrapper
