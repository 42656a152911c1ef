"""``sycl.usm_ptr``: a pointer into a USM allocation (SYCL 2020 §4.8).

In C++ a USM pointer is a plain ``T*``; in Python it is this small object, which knows its
allocation, so a kernel argument, a copy or a numpy view costs no table lookup.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import pyopencl as cl

from .._exception import errc, exception
from .._exchange import HostExport
from .allocation import Allocation
from .kinds import alloc


class usm_ptr(HostExport):
    """A pointer to byte ``offset`` of a USM allocation; returned by ``sycl.malloc_*`` (§4.8.3).

    - As a kernel argument it is a ``__global T*`` (``clSetKernelArgSVMPointer``).
    - ``p + k`` / ``p - k`` move it by ``k`` elements of ``dtype`` (bytes when untyped),
      within the allocation (its end included).
    - ``numpy.asarray(p)`` views a host or shared allocation from ``p`` to its end; device
      memory is never visible from the host. The same view goes out without a copy through
      ``numpy.from_dlpack(p)``, ``memoryview(p)`` (Python 3.12+) and the array interface
      (``HostExport``); it keeps the memory alive after ``sycl.free``.
    - ``sycl.get_native(p)`` is the PyOpenCL SVM pointer to the same address.

    ``p.dtype`` is the element type (``numpy.dtype``) of a typed allocation, else None.
    """

    __slots__ = ("__weakref__", "_alloc", "_offset", "_svm", "dtype")
    # How a kernel's element-type error tells to retype it (``kernel._check_launch``).
    _retype_hint = "allocate it with dtype={wanted} (or untyped, without dtype=)"

    _alloc: Allocation
    _offset: int
    _svm: Any
    dtype: np.dtype | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("sycl.usm_ptr cannot be constructed; allocate with sycl.malloc_device/"
                        "malloc_host/malloc_shared")

    @classmethod
    def _make(cls, a: Allocation, offset: int, dtype: np.dtype | None) -> usm_ptr:
        self = object.__new__(cls)
        self._alloc = a
        self._offset = offset
        self._svm = None
        self.dtype = dtype
        return self

    # --- pointer arithmetic -----------------------------------------------------------------

    def __add__(self, k: int) -> usm_ptr:
        try:
            step = operator.index(k)
        except TypeError:
            return NotImplemented
        offset = self._offset + step * (self.dtype.itemsize if self.dtype is not None else 1)
        if not 0 <= offset <= self._alloc.size:
            raise exception(
                errc.invalid,
                f"{self!r} + {step} points outside its allocation of {self._alloc.size} bytes "
                f"(byte {offset}); USM pointers stay within [start, end] of their allocation",
            )
        return usm_ptr._make(self._alloc, offset, self.dtype)

    __radd__ = __add__

    def __sub__(self, k: int) -> usm_ptr:
        try:
            return self + -operator.index(k)
        except TypeError:
            return NotImplemented

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, usm_ptr) and other._alloc is self._alloc
                and other._offset == self._offset)

    def __hash__(self) -> int:
        return hash((id(self._alloc), self._offset))

    # --- host view --------------------------------------------------------------------------

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        a = self._alloc
        data = a.bytes
        if data is None:
            raise self._freed("viewed from the host")
        if a.kind is alloc.device:
            raise exception(
                errc.invalid,
                f"{self!r} is device memory, which the host cannot access (§4.8.2); copy it "
                "into a numpy array with q.memcpy / q.copy, or allocate with malloc_shared or "
                "malloc_host",
            )
        elem = self.dtype if self.dtype is not None else np.dtype(np.uint8)
        rest = data[self._offset:]
        view = rest[: rest.size - rest.size % elem.itemsize].view(elem)
        if dtype is not None and np.dtype(dtype) != elem:
            if copy is False:
                raise ValueError(f"a view of {self!r} has dtype {elem}, not {np.dtype(dtype)}")
            return view.astype(dtype)
        return view.copy() if copy else view

    # --- native access ----------------------------------------------------------------------

    def _native(self) -> Any:
        """The PyOpenCL SVM pointer to this address."""
        a = self._alloc
        native, data = a.native, a.bytes  # each read once: another thread may free meanwhile
        if native is None or data is None:
            raise self._freed("used")
        if not self._offset:
            return native
        svm = self._svm
        if svm is None:
            svm = self._svm = cl.SVM(data[self._offset:])
        return svm

    def _span(self, n: int) -> Any:
        """An SVM pointer spanning exactly ``n`` bytes from here (checked by the caller).

        PyOpenCL's SVM fill and migrate take their size from the pointer (the fill ignores
        its ``byte_count``), so they get this one.
        """
        a = self._alloc
        native, data = a.native, a.bytes
        if native is None or data is None:
            raise self._freed("used")
        if not self._offset and n == a.size:
            return native
        return cl.SVM(data[self._offset:self._offset + n])

    def _get_native(self) -> Any:
        return self._native()

    def _in(self, ctx_handle: int, what: str) -> Any:
        """The SVM pointer, checked to be live and of the context ``ctx_handle``."""
        a = self._alloc
        if a.ctx_handle != ctx_handle:
            raise exception(
                errc.invalid,
                f"{what}: {self!r} was allocated in {a.context!r}, not in the queue's context; "
                "USM memory is used only by queues of its own context (§4.8.2)",
            )
        return self._native()

    def _freed(self, how: str) -> exception:
        return exception(
            errc.invalid,
            f"{self!r} cannot be {how}: its allocation was freed with sycl.free",
        )

    def __repr__(self) -> str:
        a = self._alloc
        elem = f" {self.dtype}" if self.dtype is not None else ""
        state = "" if a.native is not None else " freed"
        return f"<sycl.usm_ptr {a.kind.name}{state} {a.address + self._offset:#x}{elem}>"
