"""What the user handles of memory objects share (buffers §4.7.2, images §4.7.3): the
destruction rules of §4.7.2.3, which images follow as buffers do.

Each handle counts (``lifetime.add_handle``); when the last one goes (its ``with`` block ends,
or the last reference is dropped), the memory object is destroyed: wait for the work on it,
then write back where there is host memory to write to.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ._exception import errc, exception
from .property._base import PropertyHolder
from .scheduler import MemoryObject, check_destruction, end_handle, finalize


class MemoryHandle(PropertyHolder):
    """A user handle of a memory object (``_root``), alive until it is released.

    The subclass sets ``_root``, ``_token`` (``add_handle``'s), ``_alive`` and ``_windows``
    (the windows of its accessors, which it keeps and drops at its end).
    """

    __slots__ = ("_alive", "_root", "_token", "_windows")

    _alive: bool
    _root: MemoryObject
    _token: Any
    _windows: dict[Any, Any]

    def _release(self, finalizing: bool = False) -> None:
        if not getattr(self, "_alive", False):
            return
        if not finalizing and self._root.handles == 1:
            # errc.invalid before anything changes: the handle stays alive (rule S22).
            check_destruction(self._root)
        end_handle(self._root, self._token, self._mark_ended)

    def _mark_ended(self) -> None:
        """Under the lock, with the count of handles (``end_handle``, docs/scheduler.md rule
        S26). No accessor of a destroyed memory object: the next one checks and raises."""
        self._alive, self._windows = False, {}

    def __exit__(self, *exc: object) -> None:
        self._release()

    def __del__(self) -> None:
        if getattr(self, "_alive", False):
            finalize(partial(self._release, True), f"{type(self).__name__} destruction")

    def _check_alive(self) -> None:
        if not self._alive:
            name = type(self).__name__
            raise exception(errc.invalid, f"the {name} was destroyed (its with block ended); make a new one")
