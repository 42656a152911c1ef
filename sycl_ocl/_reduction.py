"""``sycl::reduction`` (SYCL 2020 §4.9.2): reductions of OpenCL C kernels.

``h.parallel_for(rng, red1, red2, ..., kernel, *args)`` runs ``kernel`` with one reducer per
reduction; the kernel declares them as its first parameters and combines into them
(docs/reductions.md). The runtime launches a generated variant of the kernel's unit
(``_kernel_bundle.reduction``) whose last work-group writes each result into its variable.
"""

from __future__ import annotations

import functools
import math
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyopencl as cl

from ._accessor import accessor
from ._buffer import buffer
from ._exception import errc, exception
from ._kernel_bundle._kernel import kernel
from ._kernel_bundle._kernel_id import kernel_id
from ._kernel_bundle.reduction import GROUP_SIZE, Reduction, generated_sources, variant
from ._kernel_bundle.registry import LAUNCHABLE, as_kernel_id
from ._kernel_bundle.resolve import resolve_kernel
from ._native import translate
from ._range import id as sycl_id
from ._range import range as sycl_range
from .access import access_mode
from .functional import as_combiner, check_takes, has_known_identity, known_identity
from .property._base import PropertyHolder, is_property_list_like, make_property_list
from .property.reduction import initialize_to_identity
from .scheduler import KernelLaunch, Lane, Shape, joined_order, keep, matching
from .usm.pointer import usm_ptr

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ._context import context
    from ._device import device
    from ._handler import handler


class span:
    """``sycl::span`` of reduction variables (§4.9.2): ``extent`` elements of a typed USM
    pointer, or of a one-dimensional buffer from element ``offset``. ``sycl.reduction(span, ...)``
    reduces into each element separately; the kernel combines into element ``i`` with
    ``SYCL_COMBINE_AT(name, i, value)`` (docs/reductions.md).

    Raises:
        sycl.exception: ``errc.invalid`` for other data, an extent below 1, or a window past
            the buffer's or allocation's end.
    """

    __slots__ = ("data", "extent", "offset")

    def __init__(self, data: Any, extent: int, offset: int = 0) -> None:
        count: int | None = None
        if isinstance(data, buffer):
            count = data.size() if data.get_range().dimensions == 1 else None
        elif type(data) is usm_ptr and data.dtype is not None:
            count = (data._alloc.size - data._offset) // data.dtype.itemsize
            if offset:
                data, offset = data + offset, 0
        if count is None or extent < 1 or offset < 0 or offset + extent > count:
            raise exception(errc.invalid, f"sycl.span takes a one-dimensional sycl.buffer or a typed "
                                          f"sycl.usm_ptr and a window of at least one element inside it; "
                                          f"got {data!r}, extent {extent}, offset {offset}")
        self.data = data
        self.extent = int(extent)
        self.offset = int(offset)

    def size(self) -> int:
        """The number of elements (§4.9.2)."""
        return self.extent


class reduction(PropertyHolder):
    """A reduction variable and how to combine into it (§4.9.2), for ``handler.parallel_for``.

    Forms (``identity`` optional: without one, and none known for the combiner and type, the
    work-items that combined nothing contribute nothing)::

        sycl.reduction(buf, h, combiner, prop_list=None)            # a buffer of one element
        sycl.reduction(buf, h, identity, combiner, prop_list=None)
        sycl.reduction(ptr, combiner, prop_list=None)               # a typed USM pointer
        sycl.reduction(ptr, identity, combiner, prop_list=None)
        sycl.reduction(sycl.span(ptr, n), ...)                      # n variables, each its own
        sycl.reduction(sycl.span(buf, n, offset), h, ...)           # reduction (SYCL_COMBINE_AT)

    The combiner is a SYCL function object (``sycl.plus()``, ``sycl.minimum()``, ...,
    ``sycl.logical_or()``) or a user combiner in OpenCL C: an expression in ``a`` and ``b``
    (``"fmax(a, b)"``) or the name of a function of the kernel's unit, with or without an
    identity. Without ``sycl.property.reduction.initialize_to_identity()`` the variable's value
    is combined into the result; with it and no identity, a variable that nothing was combined
    into keeps its value.

    Example::

        with sycl.buffer(np.zeros(1, np.float32)) as total:
            q.submit(lambda h: h.parallel_for(
                sycl.range(n), sycl.reduction(total, h, sycl.plus()), "sum", sycl.accessor(x, h)))

    Raises:
        sycl.exception: ``errc.invalid`` for a variable that is not a one-element buffer, a
            typed USM pointer or a ``sycl.span`` of either, a combiner that cannot take its
            element type, or a property that is not a reduction's.
    """

    __slots__ = ("_acc", "_count", "_handler", "_identity", "_op", "_props", "_ptr", "dtype")

    def __init__(self, var: Any, *args: Any, prop_list: Any = None) -> None:
        if args and is_property_list_like(args[-1]):  # C++'s position: never a combiner or identity
            if prop_list is not None:
                raise exception(errc.invalid, "sycl.reduction: a property list comes last and once; pass it "
                                              "as prop_list=[...]")
            args, prop_list = args[:-1], args[-1]
        self._props = make_property_list(prop_list, "reduction")
        self._acc: accessor | None = None
        self._ptr: usm_ptr | None = None
        self._handler: handler | None = None
        self._count = 1
        window: span | None = None
        if type(var) is span:  # an array of reductions (§4.9.2): one variable per element
            window, var, self._count = var, var.data, var.extent
        if isinstance(var, buffer):
            if not args:
                raise exception(errc.invalid, "sycl.reduction(buf, h, ...) takes the command group's handler")
            self._handler, args = args[0], args[1:]
            self.dtype = var.dtype
            if window is None and var.size() != 1:
                raise exception(errc.invalid, f"a buffer reduction's variable holds one element, {var!r} "
                                              f"holds {var.size()}; reduce into a buffer of range 1, or into "
                                              "sycl.span(buf, n) for one variable per element")
        elif type(var) is usm_ptr:
            if var.dtype is None:
                raise exception(errc.invalid, f"a reduction into {var!r} needs its element type: allocate "
                                              "it with dtype=")
            self._ptr = var
            self.dtype = var.dtype
        else:
            raise exception(errc.invalid, f"a reduction's variable is a sycl.buffer of one element, a "
                                          f"typed sycl.usm_ptr or a sycl.span of either, got {var!r}")
        if len(args) not in (1, 2):
            raise exception(errc.invalid, "sycl.reduction takes a combiner, or an identity and a combiner, "
                                          f"after its variable; got {len(args)} argument(s)")
        self._op = as_combiner(args[-1])
        self._identity = (_checked(self._op, self.dtype).type(args[0]) if len(args) == 2
                          else _identity_if_known(self._op, self.dtype))
        if isinstance(var, buffer):
            where = (None, None) if window is None else (sycl_range(window.extent), sycl_id(window.offset))
            # The old value is not needed: a write that discards it. Without an identity it stays
            # where no work-item combined anything.
            if self._initializes() and self._identity is not None:
                self._acc = accessor(var, self._handler, access_mode.write, *where)
                self._handler._overwrite(self._acc)  # type: ignore[union-attr]
            else:
                self._acc = accessor(var, self._handler, access_mode.read_write, *where)

    def _initializes(self) -> bool:
        return self._props.has_property(initialize_to_identity)

    def identity(self) -> Any:
        """The identity of the reduction (§4.9.2.3), a numpy scalar of the variable's type.

        Raises:
            sycl.exception: ``errc.invalid`` for a reduction without one (none given, none known).
        """
        if self._identity is None:
            raise exception(errc.invalid, f"{self!r} has no identity: none was given and {self._op!r} has "
                                          f"no known identity for {self.dtype.name}")
        return self._identity

    def _code(self) -> Reduction:
        return _code(self.dtype, self._op, self._identity, self._initializes(), self._count)

    def _variable(self, h: handler) -> accessor | usm_ptr:
        """The variable as the launch kernel's argument (its last work-group writes it).

        Raises:
            sycl.exception: ``errc.invalid`` for a buffer reduction made with another handler.
        """
        if self._acc is None:
            assert self._ptr is not None
            return self._ptr
        if self._handler is not h:
            raise exception(errc.invalid, "a buffer reduction belongs to the command group whose handler "
                                          "made it; make it inside this command group")
        return self._acc

    @staticmethod
    def generated_sources(kernel_name: str) -> list[str]:
        """The OpenCL C sources generated so far for launches of the kernel ``kernel_name``
        with reductions (a sycl_ocl extension, docs/reductions.md)."""
        return generated_sources(kernel_name)

    def __repr__(self) -> str:
        return f"<sycl.reduction {self._op!r} of {self.dtype.name}>"


# Per launch, these cost more than the launch's other checks: each answer is kept.
_code = functools.lru_cache(maxsize=256)(Reduction)


@functools.lru_cache(maxsize=256)
def _identity_if_known(op: Any, dtype: np.dtype[Any]) -> Any:
    """The known identity of ``op`` for ``dtype``, or None: a reduction without one (§4.9.2),
    where work-items that combined nothing contribute nothing (``errc.invalid`` unless ``op``
    takes ``dtype``)."""
    if has_known_identity(op, dtype):
        return known_identity(op, dtype)
    check_takes(op, dtype)
    return None


@functools.lru_cache(maxsize=256)
def _checked(op: Any, dtype: np.dtype[Any]) -> np.dtype[Any]:
    """``dtype``, once ``op`` is known to take it (``errc.invalid`` otherwise)."""
    check_takes(op, dtype)
    return dtype


def launch(h: handler, sizes: Any, first: reduction, rest: tuple[Any, ...]) -> KernelLaunch | Shape:
    """The action of ``h.parallel_for(rng, first, *rest)``: ``rest`` holds any further
    reductions, then the kernel and its arguments; ``sizes`` as ``handler._launch`` takes them.

    A launch of an in-order queue takes what its last launch of the kernel with these
    reductions and sizes prepared (the plan, the partial results, the counter); a launch whose
    arguments are accessors kept by their buffers and scalars is a shape (docs/scheduler.md
    rule S20) from its second time: checked once, then enqueued on a ``cl_kernel`` of its own.

    Raises:
        sycl.exception: ``errc.kernel_argument`` when the kernel's reducers do not match the
            reductions; ``errc.invalid`` for a missing kernel or a kernel bundle set with
            ``use_kernel_bundle``; as any launch otherwise.
    """
    reductions = [first]
    while rest and type(rest[0]) is reduction:
        reductions.append(rest[0])
        rest = rest[1:]
    if not rest:
        raise exception(errc.invalid, "parallel_for(rng, reductions..., kernel, *args) needs a kernel after "
                                      "the reductions")
    spec, args = rest[0], rest[1:]
    settings = h._settings
    if settings is not None and (settings.bundle is not None or settings.args):
        raise exception(errc.invalid, "a launch with reductions runs a generated variant of its kernel: "
                                      "it takes its arguments in parallel_for, and no kernel bundle")
    codes = tuple(r._code() for r in reductions)
    variables = tuple(r._variable(h) for r in reductions)
    lane = h._lane
    constants = settings.spec_constants if settings is not None else None
    # Kept per queue when the kernel is one _plan can key (_Plan.make says what a kernel may be).
    kept = not constants and isinstance(spec, str | kernel_id | kernel)
    if not kept or lane is None or not lane.ordered:  # its own partial results and counter
        found = _Prepared.make(h, spec, codes, sizes, None if kept else constants or {})
        return _kernel_launch(h, found, (*found.head, *variables, *found.tail, *args), sizes)
    found = _prepared(h, lane, spec, codes, sizes)
    call = (*found.head, *variables, *found.tail, *args)
    shapes = _shapes(h, settings)
    if shapes is None:
        return _kernel_launch(h, found, call, sizes)
    key = (spec, codes, lane)
    shape = matching(shapes, key, lane, sizes, call, h._accessors)
    if shape is not None:
        h._call = call
        return shape
    action = _kernel_launch(h, found, call, sizes)
    signature = _signature(found, variables, args)
    order = None if signature is None else joined_order(signature, call, h._accessors)
    if signature is not None and order is not None:
        global_size, local_size, offset = found.plan.sizes
        shape = Shape(lane, found.plan.kernel, global_size, local_size, offset, signature, order,
                      h._requirements, sizes)
        keep(shapes, key, shape)
    return action


def _shapes(h: handler, settings: Any) -> dict[Any, Shape] | None:
    """Where a launch of ``h`` keeps its shape: with the window of its first accessor, when that
    buffer keeps the window (as ``handler._launch`` keeps a kernel's), and the command group set
    nothing else (no specialization constant, no dependency)."""
    accessors = h._accessors
    if settings is not None or not accessors or not accessors[0]._win.shared:
        return None
    return accessors[0]._win.shapes


def _signature(found: _Prepared, variables: tuple[Any, ...], args: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The signature of a shape launching ``(*found.head, *variables, *found.tail, *args)``: the
    handler's of the variables and arguments (None: they have none), the type of the others."""
    from ._handler import _signature as of  # deferred: the handler module imports this one

    mine, theirs = of(variables), of(args)
    if mine is None or theirs is None:
        return None
    return (*map(type, found.head), *mine, *map(type, found.tail), *theirs)


@dataclass(frozen=True, slots=True)
class _Plan:
    """What a launch with reductions runs: its kernel, its sizes (global, local, offset) and
    hidden arguments, and the number of partial results (of work-groups)."""

    kernel: kernel
    sizes: tuple[Any, ...]
    hidden: tuple[Any, ...]
    groups: int

    @staticmethod
    def make(spec: Any, codes: tuple[Reduction, ...], global_size: tuple[int, ...],
             local_size: tuple[int, ...] | None, offset: tuple[int, ...] | None, ctx: context, dev: device,
             constants: Mapping[Any, Any]) -> _Plan:
        kid = as_kernel_id(spec._name if isinstance(spec, kernel) else spec, LAUNCHABLE)
        group, most, chunked, atomics64 = _layout(dev)
        if local_size is None:  # over a range: work-groups of our size, each looping over items
            found = variant(kid, codes, len(global_size), (group,), chunked, atomics64)
            groups = max(1, min(-(-math.prod(global_size) // group), most))
            hidden: tuple[Any, ...] = tuple(np.uint64(n) for n in (*global_size, 1, 1)[:3])
            sizes: tuple[Any, ...] = ((groups * group,), (group,), None)
        else:
            empty = 0 in global_size  # one work-group that runs no body (see _reduction.mako)
            found = variant(kid, codes, 0, local_size, atomics64=atomics64, empty=empty)
            groups = 1 if empty else math.prod(g // n for g, n in zip(global_size, local_size, strict=True))
            hidden = ()
            sizes = (local_size, local_size, None) if empty else (global_size, local_size, offset)
        return _Plan(resolve_kernel(found.main, ctx, dev, None, constants), sizes, hidden, groups)


@dataclass(frozen=True, slots=True)
class _Prepared:
    """A plan with the device memory of its launches: the arguments before the variables (the
    partial results) and after them (the counter of finished work-groups, the hidden ones)."""

    plan: _Plan
    head: tuple[Any, ...]
    tail: tuple[Any, ...]

    @staticmethod
    def make(h: handler, spec: Any, codes: tuple[Reduction, ...], sizes: Any,
             constants: Mapping[Any, Any] | None = None) -> _Prepared:
        """Prepared for one launch (its own partial results and counter), or for the launches of
        ``h``'s in-order queue with ``constants`` None (the plan kept, ``_plan``)."""
        global_size, local_size, offset = ((sizes,), None, None) if type(sizes) is int else sizes
        where = (spec, codes, global_size, local_size, offset, h._context, h._device)
        found = _plan(*where) if constants is None else _Plan.make(*where, constants)
        native, flags = h._context._native, cl.mem_flags.READ_WRITE
        try:
            parts = tuple(cl.Buffer(native, flags, found.groups * r.partial_bytes) for r in codes)
            done = cl.Buffer(native, flags | cl.mem_flags.COPY_HOST_PTR, hostbuf=np.zeros(1, np.uint32))
        except cl.Error as error:
            raise translate(error, "allocating the partial results of a launch with reductions") from error
        return _Prepared(found, parts, (done, *found.hidden))


@functools.lru_cache(maxsize=512)
def _plan(spec: Any, codes: tuple[Reduction, ...], global_size: tuple[int, ...],
          local_size: tuple[int, ...] | None, offset: tuple[int, ...] | None, ctx: context,
          dev: device) -> _Plan:
    """The plan of a launch without specialization constants, kept for the next launches."""
    return _Plan.make(spec, codes, global_size, local_size, offset, ctx, dev, {})


# What the launches of each in-order lane prepared, by kernel, reductions and sizes (at most
# _KEPT, then made anew): its launches reuse the partial results and the counter, each launch
# running after the previous one read them and set the counter back to 0.
_lanes: weakref.WeakKeyDictionary[Lane, dict[tuple[Any, ...], _Prepared]] = weakref.WeakKeyDictionary()
_KEPT = 64


def _prepared(h: handler, lane: Lane, spec: Any, codes: tuple[Reduction, ...], sizes: Any) -> _Prepared:
    """What the launches of ``spec`` with ``codes`` over ``sizes`` on ``lane`` (in order) share."""
    kept = _lanes.get(lane)
    if kept is None:
        kept = _lanes.setdefault(lane, {})
    key = (spec, codes, sizes)
    found = kept.get(key)
    if found is None:
        found = _Prepared.make(h, spec, codes, sizes)
        if len(kept) >= _KEPT:
            kept.clear()  # one call, safe beside other threads; launches in flight hold theirs
        kept[key] = found
    return found


def _kernel_launch(h: handler, found: _Prepared, call: tuple[Any, ...], sizes: Any) -> KernelLaunch:
    """The launch of ``found``'s kernel with the arguments ``call``, checked; ``sizes`` as
    ``launch`` takes them (over an nd_range, the application's arguments may hold local
    accessors)."""
    from ._handler import kernel_args  # deferred: the handler module imports this one

    k = found.plan.kernel
    global_size, local_size, offset = found.plan.sizes
    grouped = type(sizes) is not int and sizes[1] is not None
    memory, bindings, svm_args = kernel_args(call, h._context._handle, grouped, h._accessors)
    k._check_launch(call, local_size, h._device)
    if svm_args:
        k = k._for_svm(svm_args)
    return KernelLaunch(k, global_size, local_size, offset, memory, bindings)


@functools.cache
def _layout(dev: device) -> tuple[int, int, bool, bool]:
    """How a launch with reductions over a range runs on ``dev``: the work-group size, the most
    work-groups (enough to fill the device, so each work-item combines many items), and whether
    each work-item takes a contiguous run of items (a CPU) or every global-size-th (a GPU);
    and whether it has 64-bit atomics (``cl_khr_int64_base_atomics``)."""
    cpu = bool(dev.is_cpu())
    most = min(16 if cpu else GROUP_SIZE, int(dev._native.max_work_group_size))
    atomics64 = "cl_khr_int64_base_atomics" in dev._native.extensions.split()
    return 1 << (most.bit_length() - 1), 16 * int(dev._native.max_compute_units), cpu, atomics64
