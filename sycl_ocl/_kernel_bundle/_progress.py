"""Progress of a build of several units, shown only when stderr is a terminal.

A cold build of many units takes seconds (PoCL compiles each one with LLVM); on a terminal
the user sees which unit is being built and how many are left, on one line that is
rewritten, then a summary. Nothing is printed when stderr is not a terminal (logs, CI,
pipes) or when every unit comes from a cache.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

_local = threading.local()
_CLEAR = "\r\033[K"


class _Batch:
    """The units of one bundle operation: which one is current, how many were built."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.index = 0
        self.built = 0
        self.started = time.perf_counter()

    def building(self, what: str) -> None:
        self.built += 1
        left = self.total - self.index
        line = f"sycl_ocl: building unit {self.index} of {self.total} ({left} left): {what}"
        width = _columns() - 1  # a wrapped line could not be rewritten
        _write(_CLEAR + (line if width < 20 or len(line) <= width else line[:width - 3] + "..."))

    def finish(self) -> None:
        if self.built:
            seconds = time.perf_counter() - self.started
            _write(f"{_CLEAR}sycl_ocl: built {self.built} of {self.total} units in {seconds:.1f} s\n")


def units(items: Sequence[T]) -> Iterator[T]:
    """Iterate the units ``items``, reporting the builds each one causes.

    Only the outermost batch of a thread reports, and only when it has several units and
    stderr is a terminal.
    """
    if len(items) < 2 or getattr(_local, "batch", None) is not None or not _on_terminal():
        yield from items
        return
    batch = _local.batch = _Batch(len(items))
    try:
        for item in items:
            batch.index += 1
            yield item
    finally:
        _local.batch = None
        batch.finish()


def building(what: str) -> None:
    """A unit is being compiled now (not taken from a cache): show it if a batch reports."""
    batch: _Batch | None = getattr(_local, "batch", None)
    if batch is not None:
        batch.building(what)


def _on_terminal() -> bool:
    stream = sys.stderr
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stderr
        return False


def _columns() -> int:
    """The terminal's width; 0 when unknown."""
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return 0


def _write(text: str) -> None:
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
    except (OSError, ValueError):  # the terminal went away: progress is not worth failing a build
        pass
