"""Build cache statistics and control (SYCL 2020 §4.11; sycl_ocl extension).

``build_cache_stats()`` returns counters that make "a warm start compiles nothing" testable.
"""

from __future__ import annotations

from . import _disk, _memo


def build_cache_stats() -> dict[str, int]:
    """Counters since the process started.

    Keys: ``memory_builds`` (programs made: built, compiled, linked or reloaded),
    ``memory_hits`` (requests served from memory), ``disk_hits`` (programs reloaded from
    disk), ``disk_misses`` (executable programs built from source), ``disk_stores`` and
    ``disk_rejected`` (entries that could not be used).
    """
    return {
        "memory_builds": _memo.counters["builds"],
        "memory_hits": _memo.counters["hits"],
        **{f"disk_{name}": value for name, value in _disk.counters.items()},
    }


def clear_memory_cache() -> None:
    """Forget the programs built in this process (the disk cache stays)."""
    _memo.clear()
