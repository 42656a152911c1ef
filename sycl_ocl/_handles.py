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
        return other._handle == self._handle

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._handle))

    # Common reference semantics (§4.5.2): a copy is the same object. Without these, copy
    # would rebuild the wrapper through __new__ (which selects a device) and corrupt it.
    def __copy__(self: W) -> W:
        return self

    def __deepcopy__(self: W, memo: dict[int, Any]) -> W:
        return self

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise TypeError(f"cannot pickle {self!r}: it wraps an OpenCL handle of this process")


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
