"""Zero-copy export of host memory (a sycl_ocl extension, docs/data-movement.md "Zero-copy
exchange"): DLPack, the buffer protocol and the numpy array interface.

``HostExport`` gives a class whose ``__array__()`` returns a numpy view of host memory the
three protocols, all through that view: host accessors, accessors inside a host task and host
or shared USM pointers. Whatever ``__array__`` refuses (a released accessor, device memory, a
freed allocation) every export refuses the same way, and each export holds a reference to the
view, whose base holds the memory: no export outlives what it points to.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided


class HostExport:
    """The exchange protocols over ``self.__array__()``, a numpy view of host memory (read-only
    where the access is read-only: the exports are then read-only too)."""

    __slots__ = ()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise NotImplementedError

    def __dlpack__(self, **kwargs: Any) -> Any:
        """A DLPack capsule of the host view (``numpy.from_dlpack(x)``, mpi4py); the keywords
        (``stream``, ``max_version``, ``dl_device``, ``copy``) are numpy's. A read-only view
        is exported read-only (DLPack 1.0), or refused with ``BufferError`` by a consumer that
        asks for an older DLPack."""
        return self.__array__().__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        """``(1, 0)``: CPU memory (DLPack's ``kDLCPU``), once the host view exists."""
        return self.__array__().__dlpack_device__()

    def __buffer__(self, flags: int) -> memoryview:
        """The buffer protocol (PEP 688): ``memoryview(x)`` on Python 3.12 and later. A
        request for a writable buffer of a read-only view raises ``BufferError``."""
        return self.__array__().data

    @property
    def __array_interface__(self) -> dict[str, Any]:
        """numpy's array interface (version 3). Its ``data`` is an array over the view's bytes,
        so an array made from the interface keeps the memory alive."""
        view = self.__array__()
        return {"version": 3, "shape": view.shape, "typestr": view.dtype.str, "descr": view.dtype.descr,
                "strides": view.strides, "data": _covering_bytes(view)}


def _covering_bytes(view: np.ndarray) -> np.ndarray:
    """A contiguous uint8 array from the first to the last byte of ``view`` (its strides are
    not negative), as writeable as ``view`` and keeping its memory alive."""
    if view.flags.c_contiguous or not view.size:
        return view
    span = view.itemsize + sum((n - 1) * s for n, s in zip(view.shape, view.strides, strict=True))
    first = view[(slice(0, 1),) * view.ndim].reshape(-1).view(np.uint8)
    return as_strided(first, shape=(span,), strides=(1,), writeable=bool(view.flags.writeable))
