"""USM allocation, deallocation and pointer queries (SYCL 2020 §4.8.3, §4.8.4).

Python spelling of the C++ overloads: the allocation target follows the size, as a queue,
a device and a context, or (host memory) a context, positionally or as ``q=``, ``dev=``,
``ctx=``. Typed forms take ``count=`` and ``dtype=`` (``malloc_device<float>(n, q)`` is
``malloc_device(count=n, dtype=numpy.float32, q=q)``; with ``dtype=`` a positional size is
the count). ``malloc`` and ``aligned_alloc`` take the kind as ``sycl.usm.alloc`` among the
target arguments or as ``kind=``.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._context import context
from .._device import device
from .._exception import errc, exception
from .._native import cl, compiler_warnings_off
from .._process import check as check_process
from .._queue import queue
from ..property._base import property_list
from . import allocation
from .allocation import Allocation
from .kinds import ATOMICS, NEEDS, alloc, svm_flags
from .pointer import usm_ptr
from .sizes import as_int, non_negative


@dataclass
class _Request:
    """One allocation call, its arguments sorted out."""

    what: str
    kind: alloc | None = None
    dev: device | None = None
    ctx: context | None = None
    count: int | None = None
    dtype: np.dtype | None = None


def _request(what: str, size: Any, where: tuple[Any, ...], kw: dict[str, Any]) -> _Request:
    """Sort the positional targets and keywords of an allocation call."""
    req = _Request(what, kind=kw.pop("kind", None), dev=kw.pop("dev", None), ctx=kw.pop("ctx", None))
    count, dtype, q = kw.pop("count", None), kw.pop("dtype", None), kw.pop("q", None)
    kw.pop("prop_list", None)  # §4.8.3: no USM allocation properties are defined
    if kw:
        raise exception(errc.invalid, f"{what} got unknown keywords {sorted(kw)}")
    if isinstance(size, (type, np.dtype)):  # malloc_device(numpy.float32, n, q): the template form
        dtype, size, where = size, where[0] if where else None, where[1:]
    for arg in where:
        if isinstance(arg, queue):
            q = arg
        elif isinstance(arg, device):
            req.dev = arg
        elif isinstance(arg, context):
            req.ctx = arg
        elif isinstance(arg, alloc):
            req.kind = arg
        elif not isinstance(arg, property_list):
            raise exception(errc.invalid, f"{what}: unexpected argument {arg!r}; pass a queue, "
                                          "or a device and a context")
    if q is not None:
        req.ctx = q.get_context() if req.ctx is None else req.ctx
        req.dev = q.get_device() if req.dev is None else req.dev
    if dtype is not None:
        if size is not None and count is not None:
            raise exception(
                errc.invalid, f"{what}: give the element count as count= or positionally, not both")
        req.dtype = np.dtype(dtype)
        count = size if count is None else count
    elif count is not None:
        raise exception(errc.invalid, f"{what}: count= needs dtype= (or give num_bytes)")
    req.count = non_negative(what, size if count is None else count)
    return req


def _allocate(req: _Request, alignment: int = 0) -> usm_ptr | None:
    check_process(req.what)
    kind, ctx = req.kind, req.ctx
    if not isinstance(kind, alloc) or kind is alloc.unknown:
        raise exception(errc.invalid, f"{req.what}: give the kind as sycl.usm.alloc.host, device "
                                      "or shared")
    if ctx is None:
        raise exception(errc.invalid, f"{req.what}: give a queue, or a context"
                                      + ("" if kind is alloc.host else " and a device"))
    dev, atomics = _target(req, kind, ctx)
    _check_svm_arguments(req, ctx)
    itemsize = req.dtype.itemsize if req.dtype is not None else 1
    size = req.count * itemsize  # type: ignore[operator]
    if size == 0 or alignment < 0 or alignment & (alignment - 1):
        return None  # §4.8.3: zero bytes, like std::malloc, and unsupported alignments
    if req.dtype is not None:
        alignment = max(alignment, req.dtype.alignment)
    found = _svm_alloc(ctx, size, alignment, svm_flags(kind, atomics))
    if found is None:
        return None
    owner, pad = found
    a = Allocation(owner, pad, size, kind, ctx, dev)
    allocation.add(a)
    return usm_ptr._make(a, 0, req.dtype)


def _target(req: _Request, kind: alloc, ctx: context) -> tuple[device, bool]:
    """The allocation's device and whether it gets SVM atomics; refuses a kind no device
    can back (§4.8.3)."""
    if kind is alloc.host:
        able = [d for d in ctx.get_devices() if d.has(NEEDS[kind])]
        if not able:
            raise _unsupported(req, kind, ctx.get_devices())
        # §4.8.4: a host allocation's device is the context's first
        return ctx.get_devices()[0], able[0].has(ATOMICS[kind])
    dev = req.dev
    if dev is None:
        raise exception(errc.invalid, f"{req.what}: give the device to allocate on (or a queue)")
    ctx._check_device(dev)
    if not dev.has(NEEDS[kind]):
        raise _unsupported(req, kind, [dev])
    return dev, kind in ATOMICS and dev.has(ATOMICS[kind])


_PROBE = "__kernel void sycl_ocl_svm_probe(__global int *a) { a[get_global_id(0)] += 2; }"
# Per context, probed once; an entry goes with its context (a later one at the same address is
# probed anew).
_svm_arguments_work: weakref.WeakKeyDictionary[context, bool] = weakref.WeakKeyDictionary()


def _check_svm_arguments(req: _Request, ctx: context) -> None:
    """Refuse USM in a context of several devices where SVM pointers do not reach kernels
    correctly: NVIDIA 580 fails such launches on one GPU and computes wrong values on the other
    (docs/devices/repro/svm_two_gpu.py), so a pointer there could only lose data."""
    if len(ctx.get_devices()) < 2:
        return
    works = _svm_arguments_work.get(ctx)
    if works is None:
        works = _svm_arguments_work[ctx] = _probe(ctx)
    if not works:
        raise exception(
            errc.feature_not_supported,
            f"{req.what}: this driver does not pass USM pointers to kernels correctly in a context of "
            f"{len(ctx.get_devices())} devices (docs/deviations.md); allocate in a context of one "
            "device: q = sycl.queue(sycl.context(dev), dev)",
        )


def _probe(ctx: context) -> bool:
    """Whether a kernel adds 2 through a device SVM pointer on every device of ``ctx``."""
    native = ctx._native
    try:
        with compiler_warnings_off:
            kernel = cl.Program(native, _PROBE).build(cache_dir=False).sycl_ocl_svm_probe  # type: ignore[arg-type]
        for dev in (d for d in ctx.get_devices() if d.has(NEEDS[alloc.device])):
            q = cl.CommandQueue(native, dev._native)
            values = cl.SVM(cl.csvm_empty(native, 4, np.dtype(np.int32)))
            cl.enqueue_svm_memfill(q, values, np.int32(1))
            kernel(q, (4,), None, values)
            found = np.zeros(4, np.int32)
            cl.enqueue_copy(q, found, values)
            if not (found == 3).all():
                return False
    except cl.Error:
        return False
    return True


def _svm_alloc(ctx: context, size: int, alignment: int, flags: int) -> tuple[Any, int] | None:
    """``clSVMAlloc``; an alignment the driver refuses is made by allocating more and
    starting at the first aligned byte. None when the memory cannot be had."""
    try:
        return cl.SVMAllocation(ctx._native, size, alignment, flags), 0
    except cl.Error:
        if alignment <= 1:
            return None
    try:
        owner = cl.SVMAllocation(ctx._native, size + alignment, 0, flags)
    except cl.Error:
        return None
    return owner, -int(owner.svm_ptr) % alignment


def _unsupported(req: _Request, kind: alloc, devs: list[device]) -> exception:
    which = "no device of the context has" if kind is alloc.host else f"{devs[0]!r} lacks"
    return exception(
        errc.feature_not_supported,
        f"{req.what}: {which} aspect.{NEEDS[kind].name}, so it cannot back {kind.name} USM "
        "(OpenCL SVM: device needs coarse-grain buffers, host and shared need fine-grain buffers)",
    )


# --- the public allocation functions (§4.8.3) -----------------------------------------------


def malloc_device(num_bytes: Any = None, *where: Any, **kw: Any) -> usm_ptr | None:
    """Device USM (§4.8.3.2): ``(num_bytes, q)`` or ``(num_bytes, dev, ctx)``; typed with
    ``count=, dtype=``. None when the memory cannot be had.

    Raises:
        sycl.exception: ``errc.feature_not_supported`` without
            ``aspect.usm_device_allocations``; ``errc.invalid`` for a device not in the context.
    """
    return _allocate(_request("malloc_device", num_bytes, where, {**kw, "kind": alloc.device}))


def malloc_host(num_bytes: Any = None, *where: Any, **kw: Any) -> usm_ptr | None:
    """Host USM (§4.8.3.3): ``(num_bytes, q)`` or ``(num_bytes, ctx)``; typed with
    ``count=, dtype=``. None when the memory cannot be had.

    Raises:
        sycl.exception: ``errc.feature_not_supported`` when no device of the context has
            ``aspect.usm_host_allocations``.
    """
    return _allocate(_request("malloc_host", num_bytes, where, {**kw, "kind": alloc.host}))


def malloc_shared(num_bytes: Any = None, *where: Any, **kw: Any) -> usm_ptr | None:
    """Shared USM (§4.8.3.4): ``(num_bytes, q)`` or ``(num_bytes, dev, ctx)``; typed with
    ``count=, dtype=``. None when the memory cannot be had.

    Raises:
        sycl.exception: ``errc.feature_not_supported`` without
            ``aspect.usm_shared_allocations``; ``errc.invalid`` for a device not in the context.
    """
    return _allocate(_request("malloc_shared", num_bytes, where, {**kw, "kind": alloc.shared}))


def malloc(num_bytes: Any = None, *where: Any, **kw: Any) -> usm_ptr | None:
    """USM of the kind given as a ``sycl.usm.alloc`` (§4.8.3.5):
    ``(num_bytes, dev, ctx, kind)`` or ``(num_bytes, q, kind)``."""
    return _allocate(_request("malloc", num_bytes, where, kw))


def aligned_alloc_device(alignment: int, num_bytes: Any = None, *where: Any, **kw: Any) -> usm_ptr | None:
    """``malloc_device`` aligned to ``alignment`` bytes (a power of two; else None) (§4.8.3.2)."""
    req = _request("aligned_alloc_device", num_bytes, where, {**kw, "kind": alloc.device})
    return _allocate(req, _alignment(alignment))


def aligned_alloc_host(alignment: int, num_bytes: Any = None, *where: Any, **kw: Any) -> usm_ptr | None:
    """``malloc_host`` aligned to ``alignment`` bytes (a power of two; else None) (§4.8.3.3)."""
    req = _request("aligned_alloc_host", num_bytes, where, {**kw, "kind": alloc.host})
    return _allocate(req, _alignment(alignment))


def aligned_alloc_shared(alignment: int, num_bytes: Any = None, *where: Any, **kw: Any) -> usm_ptr | None:
    """``malloc_shared`` aligned to ``alignment`` bytes (a power of two; else None) (§4.8.3.4)."""
    req = _request("aligned_alloc_shared", num_bytes, where, {**kw, "kind": alloc.shared})
    return _allocate(req, _alignment(alignment))


def aligned_alloc(alignment: int, num_bytes: Any = None, *where: Any, **kw: Any) -> usm_ptr | None:
    """``malloc`` aligned to ``alignment`` bytes (a power of two; else None) (§4.8.3.5)."""
    return _allocate(_request("aligned_alloc", num_bytes, where, kw), _alignment(alignment))


def _alignment(value: Any) -> int:
    return as_int("the alignment", value)


# --- deallocation and queries (§4.8.3.6, §4.8.4) ---------------------------------------------


def free(ptr: usm_ptr | None, q_or_ctx: Any) -> None:
    """Free a USM allocation (§4.8.3.6); ``None`` is ignored.

    The memory returns to the driver once no command still running, numpy view or offset
    pointer refers to it; the pointer is invalid at once.

    Raises:
        sycl.exception: ``errc.invalid`` for a pointer freed already, one from another
            context, one inside (not at the start of) an allocation, or not a USM pointer.
    """
    if ptr is None:
        return
    ctx = _context_of(q_or_ctx, "free")
    if not isinstance(ptr, usm_ptr):
        raise exception(errc.invalid, f"free takes the sycl.usm_ptr a malloc returned, got {ptr!r}")
    a = ptr._alloc
    if a.ctx_handle != ctx._handle:
        raise exception(errc.invalid, f"free: {ptr!r} was allocated in {a.context!r}, not in "
                                      f"{ctx!r}; free it with its own context or queue")
    if ptr._offset:
        raise exception(errc.invalid, f"free: {ptr!r} points {ptr._offset} bytes into its "
                                      "allocation; pass the pointer the allocation returned")
    if not allocation.remove(a):
        raise exception(errc.invalid, f"free: {ptr!r} was freed already (double free)")


def get_pointer_type(ptr: Any, ctx: context) -> alloc:
    """The kind of the USM allocation ``ptr`` points into, in ``ctx`` (§4.8.4), else
    ``usm.alloc.unknown``. ``ptr``: a ``usm_ptr``, a numpy array (its data address) or an
    address (``int``)."""
    found = _allocation_of(ptr, _context_of(ctx, "get_pointer_type"))
    return found.kind if found is not None else alloc.unknown


def get_pointer_device(ptr: Any, ctx: context) -> device:
    """The device of the USM allocation ``ptr`` points into (a host allocation: the context's
    first device) (§4.8.4).

    Raises:
        sycl.exception: ``errc.invalid`` when ``ptr`` is not in a live allocation of ``ctx``.
    """
    found = _allocation_of(ptr, _context_of(ctx, "get_pointer_device"))
    if found is None:
        raise exception(errc.invalid, f"get_pointer_device: {ptr!r} does not point into a live "
                                      f"USM allocation of {ctx!r}")
    return found.device


def _allocation_of(ptr: Any, ctx: context) -> Allocation | None:
    if isinstance(ptr, usm_ptr):
        a = ptr._alloc
        live = a.native is not None and a.ctx_handle == ctx._handle
        return a if live and ptr._offset < a.size else None
    if isinstance(ptr, np.ndarray):
        address = int(ptr.__array_interface__["data"][0])
    elif isinstance(ptr, cl.SVMPointer):
        address = int(ptr.svm_ptr)
    elif isinstance(ptr, int):
        address = ptr
    else:
        return None
    return allocation.find(ctx._handle, address)


def _context_of(q_or_ctx: Any, what: str) -> context:
    if isinstance(q_or_ctx, context):
        return q_or_ctx
    if isinstance(q_or_ctx, queue):
        return q_or_ctx.get_context()
    raise exception(errc.invalid, f"{what} takes a sycl.queue or sycl.context, got {q_or_ctx!r}")
