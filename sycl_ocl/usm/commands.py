"""The USM explicit memory operations of a command group (SYCL 2020 §4.9.4.3): argument
checks, then the scheduler action that does the work.

``dest``/``src`` of ``memcpy`` and ``copy`` are USM pointers or numpy arrays (host memory);
``memset``, ``fill``, ``prefetch`` and ``mem_advise`` take USM pointers. Every byte range is
checked against its allocation (or array), so no command reads or writes past an end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._exception import errc, exception
from .._native import cl
from ..scheduler import Barrier, SvmCopy, SvmFill, SvmMigrate
from .kinds import alloc
from .pointer import usm_ptr
from .sizes import as_int, non_negative

if TYPE_CHECKING:
    from .._handler import handler

_MAX_FILL_PATTERN = 128  # clEnqueueSVMMemFill: a power of two up to the largest OpenCL type


def memcpy(h: handler, dest: Any, src: Any, num_bytes: Any) -> Any:
    """The action of ``handler.memcpy(dest, src, num_bytes)``."""
    return _copy(h, dest, src, non_negative("memcpy", num_bytes), "memcpy")


def copy(h: handler, src: Any, dest: Any, count: Any) -> Any:
    """The action of ``handler.copy(src, dest, count)``: ``count`` elements of the pointers'
    (or arrays') element type."""
    types = {t for t in (_dtype(src), _dtype(dest)) if t is not None}
    if len(types) != 1:
        raise exception(
            errc.invalid,
            "copy(src, dest, count) needs one element type: "
            + ("typed USM pointers (dtype=) or numpy arrays; use memcpy for bytes" if not types
               else f"the source and destination have {' and '.join(map(str, sorted(types, key=str)))}"),
        )
    return _copy(h, dest, src, non_negative("copy", count) * types.pop().itemsize, "copy")


def memset(h: handler, ptr: Any, value: Any, num_bytes: Any) -> Any:
    """The action of ``handler.memset(ptr, value, num_bytes)``: ``value`` as an unsigned char."""
    n = non_negative("memset", num_bytes)
    pattern = np.array([as_int("memset", value) & 0xFF], dtype=np.uint8)
    return _fill(h, ptr, pattern, n, "memset")


def fill(h: handler, ptr: Any, pattern: Any, count: Any) -> Any:
    """The action of ``handler.fill(ptr, pattern, count)``: ``count`` copies of ``pattern``,
    an element of the numpy scalar's type (a Python number takes the pointer's dtype)."""
    value: np.ndarray[Any, np.dtype[Any]]  # numpy's stubs give reshape(1) different shapes
    if isinstance(pattern, (np.generic, np.ndarray)):
        value = np.array(pattern).reshape(1)
    elif isinstance(ptr, usm_ptr) and ptr.dtype is not None:
        value = np.array([pattern], dtype=ptr.dtype)
    else:
        raise exception(errc.invalid, "fill: give the pattern as a numpy scalar (its type is the "
                                      f"element type), got {pattern!r}")
    return _fill(h, ptr, value, non_negative("fill", count) * value.itemsize, "fill")


def prefetch(h: handler, ptr: Any, num_bytes: Any) -> Any:
    """The action of ``handler.prefetch``: migrate shared memory to the queue's device; a hint
    that changes nothing for host and device memory."""
    n = non_negative("prefetch", num_bytes)
    _pointer(h, ptr, n, "prefetch")
    if n == 0 or ptr._alloc.kind is not alloc.shared or not _has_migrate(h):
        return Barrier()
    return SvmMigrate(ptr._span(n))


def mem_advise(h: handler, ptr: Any, num_bytes: Any, advice: Any) -> Any:
    """The action of ``handler.mem_advise``: OpenCL has no advice, so every value is accepted
    and the command only orders (§4.9.4.3 leaves the values to the backend)."""
    _pointer(h, ptr, non_negative("mem_advise", num_bytes), "mem_advise")
    as_int("mem_advise", advice)
    return Barrier()


# --- checks ------------------------------------------------------------------------------------


def _copy(h: handler, dest: Any, src: Any, n: int, what: str) -> Any:
    if n == 0:
        return Barrier()
    return SvmCopy(_end(h, dest, n, f"{what} destination", True), _end(h, src, n, f"{what} source", False), n)


def _fill(h: handler, ptr: Any, pattern: np.ndarray, n: int, what: str) -> Any:
    svm = _pointer(h, ptr, n, what)
    if n == 0:
        return Barrier()
    size = pattern.itemsize
    aligned = (ptr._alloc.address + ptr._offset) % size == 0
    if size & (size - 1) == 0 and size <= _MAX_FILL_PATTERN and aligned:
        return SvmFill(ptr._span(n), pattern, n)
    # A pattern OpenCL cannot fill with: copy a host array of it instead.
    return SvmCopy(svm, cl.SVM(np.tile(pattern.view(np.uint8), n // size)), n)


def _pointer(h: handler, ptr: Any, n: int, what: str) -> Any:
    """The SVM pointer of a USM pointer that ``n`` bytes from it stay in its allocation."""
    if not isinstance(ptr, usm_ptr):
        if ptr is None and n == 0:
            return None
        got = "None (a failed or zero-byte allocation)" if ptr is None else repr(ptr)
        raise exception(errc.invalid, f"{what}: expected a sycl.usm_ptr (from sycl.malloc_*), got {got}")
    svm = ptr._in(h._context._handle, what)
    room = ptr._alloc.size - ptr._offset
    if n > room:
        raise exception(errc.invalid, f"{what}: {n} bytes from {ptr!r} pass the end of its "
                                      f"allocation ({room} bytes left)")
    return svm


def _end(h: handler, end: Any, n: int, what: str, writes: bool) -> Any:
    """One end of a copy: a USM pointer's SVM pointer, or host memory wrapped in ``SVM``."""
    if not isinstance(end, np.ndarray):
        if end is not None and not isinstance(end, usm_ptr):
            raise exception(errc.invalid, f"{what}: expected a sycl.usm_ptr or a numpy array, got {end!r}")
        return _pointer(h, end, n, what)
    if not end.flags.c_contiguous or (writes and not end.flags.writeable):
        raise exception(errc.invalid, f"{what}: a numpy array must be C-contiguous"
                                      + (" and writeable" if writes else "")
                                      + "; pass numpy.ascontiguousarray(x) or a copy")
    if n > end.nbytes:
        raise exception(errc.invalid, f"{what}: {n} bytes pass the end of the numpy array "
                                      f"({end.nbytes} bytes)")
    return cl.SVM(end)


def _dtype(end: Any) -> np.dtype | None:
    if isinstance(end, usm_ptr):
        return end.dtype
    return end.dtype if isinstance(end, np.ndarray) else None


def _has_migrate(h: handler) -> bool:
    """``clEnqueueSVMMigrateMem`` came with OpenCL 2.1."""
    version = h._device._native.version.split()[1]
    return tuple(map(int, version.split(".")[:2])) >= (2, 1)
