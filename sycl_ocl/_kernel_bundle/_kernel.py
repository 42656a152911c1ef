"""``sycl::kernel`` (SYCL 2020 §4.11.13): one executable kernel of one OpenCL program.

Arguments are set with a typed setter built once per kernel from the declared parameter
types (PyOpenCL's ``set_scalar_arg_dtypes``: about 20x cheaper than untyped scalars), so a
Python ``int``/``float`` becomes the parameter's type. ``set_args`` plus the enqueue run under
a per-kernel lock because a ``cl_kernel``'s arguments are shared state.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._backend import backend
from .._context import context
from .._exception import errc, exception
from .._handles import NativeWrapper, cached_wrapper, remember
from .._native import ARGUMENT_ERRORS, argument_exception, cl, translate
from ..info._descriptor import check_namespace
from ._preprocess import definitions_from_options
from ._reducers import PARAM_PREFIX as REDUCER_PREFIX
from ._signature import KernelParam, parse_kernels

if TYPE_CHECKING:
    from .._device import device
    from ._device_image import device_image
    from .bundle import kernel_bundle

_ADDRESS = {
    cl.kernel_arg_address_qualifier.GLOBAL: "global",
    cl.kernel_arg_address_qualifier.LOCAL: "local",
    cl.kernel_arg_address_qualifier.CONSTANT: "constant",
}


class kernel(NativeWrapper):
    """An executable kernel (§4.11.13); get one from ``kernel_bundle.get_kernel``.

    Not constructible directly; compares and hashes by its ``cl_kernel``.
    """

    __slots__ = (
        "_bits", "_ctx_native", "_device_ptrs", "_elements", "_image", "_local_room", "_locals",
        "_name", "_params", "_program", "_range_plans", "_reqd", "_svm_twins", "_values",
        "_wanted",
    )

    _bits: int
    _ctx_native: cl.Context
    _device_ptrs: frozenset[int]
    _elements: tuple[tuple[int, np.dtype[Any]], ...]
    _image: device_image
    _local_room: dict[int, tuple[int, int]]
    _locals: tuple[int, ...] | None
    _name: str
    _params: tuple[KernelParam, ...] | None
    _program: cl.Program
    _range_plans: dict[int, Any]  # per device handle: how range launches run (``range_launch``)
    _reqd: tuple[int, ...] | None
    _svm_twins: dict[int, kernel]
    _values: tuple[tuple[int, KernelParam, type | None], ...]
    _wanted: tuple[np.dtype[Any] | None, ...] | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # §4.11.13: no public constructor.
        raise TypeError(
            "sycl.kernel cannot be constructed; use kernel_bundle.get_kernel(kernel_id) "
            "or sycl.make_kernel(pyopencl_kernel, ctx)"
        )

    @classmethod
    def _make(
        cls,
        native: cl.Kernel,
        program: cl.Program,
        image: device_image,
        params: Sequence[KernelParam] | None,
    ) -> kernel:
        existing = cached_wrapper(cls, native)
        if existing is not None and existing._native is native:
            return existing
        self = object.__new__(cls)
        self._setup(native, program, image, params)
        self._svm_twins = {}
        return remember(self)

    def _setup(
        self, native: cl.Kernel, program: cl.Program, image: device_image,
        params: Sequence[KernelParam] | None,
    ) -> None:
        self._bind(native)
        self._program = program  # keeps the program alive as long as the kernel (driver defect)
        self._ctx_native = program.context
        # The devices the program was built for (its image's), never all of its context's:
        # NVIDIA's driver crashes in clGetKernelWorkGroupInfo for any other
        # (docs/devices/repro/two_gpu_query.py).
        devices = [d._native for d in image._devices]
        self._device_ptrs = frozenset(d.int_ptr for d in devices)
        self._bits = int(devices[0].address_bits)  # size_t's width; one per program in practice
        self._image = image
        self._name = str(native.function_name)
        self._reqd = _required_size(native, devices[0])
        self._params = (tuple(params) if params is not None else _params_from_arg_info(native)
                        or _params_from_source(native, program, devices[0]))
        # The element type of each parameter (None: any, or not a pointer), None when the
        # parameters are unknown; and (index, element type) of those that are checked.
        self._wanted = (
            tuple(p.element_dtype(self._bits) for p in self._params) if self._params is not None else None)
        self._elements = tuple((i, dtype) for i, dtype in enumerate(self._wanted or ()) if dtype is not None)
        # (index, parameter, the numpy scalar type that needs no check) of the by-value
        # parameters: their values are checked at submit, also for a launch enqueued later.
        self._values = tuple(
            (i, p, None if dtype is None or dtype.kind == "V" else dtype.type)
            for i, p in enumerate(self._params or ()) if p.kind == "value"
            for dtype in (p.dtype_for(self._bits),))
        # The indices of the ``__local`` parameters (None: unknown, any argument may be one), and
        # per device the local memory it has and this kernel's own (``_check_local_memory``).
        params = self._params
        self._locals = None if params is None else tuple(i for i, p in enumerate(params) if p.kind == "local")
        self._local_room = {}
        self._range_plans = {}
        if self._params is not None:
            _set_dtypes(native, self._params, self._bits)

    # --- public API (§4.11.13) -----------------------------------------------------------

    def get_backend(self) -> backend:
        """Always ``backend.opencl`` (§4.11.13)."""
        return backend.opencl

    def get_context(self) -> context:
        """The context the kernel belongs to (§4.11.13): the live ``sycl.context`` of that handle."""
        live = cached_wrapper(context, self._ctx_native)
        return live if live is not None else context._from_native(self._ctx_native)

    def get_kernel_bundle(self) -> kernel_bundle:
        """An executable bundle holding the device image this kernel comes from (§4.11.13).

        Raises:
            sycl.exception: ``errc.invalid`` for a kernel made by ``make_kernel`` from a
                PyOpenCL kernel, which comes from no device image.
        """
        from .bundle import kernel_bundle  # bundle.py imports this module (§4.11.13 <-> §4.11.12)

        return kernel_bundle._of_kernel(self)

    def get_info(self, desc: Any, dev: device | None = None) -> Any:
        """``info.kernel.*``, or ``info.kernel_device_specific.*`` for ``dev`` (§4.11.13.2)."""
        if getattr(desc, "namespace", None) == "kernel_device_specific":
            if dev is None:
                raise exception(
                    errc.invalid, f"{desc!r} is device specific: call k.get_info(desc, device)"
                )
            self._check_device(dev)
            return desc.query(self, dev)
        return check_namespace(desc, "kernel", "kernel").query(self)

    def _is_builtin(self) -> bool:
        """Whether this is a device built-in kernel (§4.11.6)."""
        return self._image is not None and any(k._is_builtin() for k in self._image._ids)

    def _check_device(self, dev: device) -> None:
        if dev._handle not in self._device_ptrs:
            raise exception(
                errc.invalid,
                f"kernel {self._name!r} was not built for {dev!r}; query a device of its bundle",
            )

    # --- launches --------------------------------------------------------------------------

    def _check_launch(
        self, args: tuple[Any, ...], local_size: tuple[int, ...] | None, dev: device | None = None,
    ) -> None:
        """Reject a launch before anything is submitted (the handler calls this).

        ``args`` are the handler's arguments (accessors, not yet memory). An argument for a
        ``__global``/``__constant T*`` parameter that carries an element type (a ``dtype``
        attribute: an accessor, a typed USM pointer) must hold ``T``; ``void*``, ``char*`` and
        ``uchar*`` take any.

        Raises:
            sycl.exception: ``errc.kernel_argument`` for a wrong argument count or element
                type, a value its by-value parameter cannot take, or a kernel taking reducers
                launched without reductions;
                ``errc.nd_range`` for a local range that contradicts the kernel's
                ``reqd_work_group_size``; ``errc.kernel_argument`` for local memory beyond
                what ``dev`` has (``_check_local_memory``).
        """
        params = self._params
        if params and params[0].name.startswith(REDUCER_PREFIX):
            raise exception(
                errc.kernel_argument,
                f"kernel {self._name!r} takes reducers (SYCL_REDUCER): launch it with one sycl.reduction "
                "per reducer, h.parallel_for(rng, reduction, ..., kernel, *args) (docs/reductions.md)",
            )
        if params is None:
            self._check_unknown_params(args)
        elif len(args) != len(params):
            raise self._count_error(len(args))
        for index, wanted in self._elements:
            arg = args[index]
            held = getattr(arg, "dtype", None)
            if held is None or held is wanted:  # numpy's dtypes of one type are one object
                continue
            if held != wanted and not isinstance(arg, _NUMPY_VALUES):
                raise self._element_error(index, arg, held)
        for index, param, scalar in self._values:
            arg = args[index]
            if type(arg) is not scalar and (problem := _check_argument(param, arg, self._bits)):
                raise exception(errc.kernel_argument, f"kernel {self._name!r}, argument {index} "
                                                      f"({param.declaration()}): {problem}; got {arg!r}")
        if self._reqd is not None and local_size is not None and local_size != self._reqd[:len(local_size)]:
            raise self._local_size_error(local_size)
        if self._locals is not None:
            self._check_local_places(args)
        if local_size is not None and dev is not None and self._locals != ():
            self._check_local_memory(args, dev)

    def _check_unknown_params(self, args: tuple[Any, ...]) -> None:
        """``errc.kernel_argument`` for a Python number given to a kernel whose parameter types
        are unknown (no argument information, no source): its type cannot be chosen."""
        for index, arg in enumerate(args):
            if problem := _check_argument(None, arg, self._bits):
                raise exception(errc.kernel_argument, f"kernel {self._name!r}, argument {index}: {problem}; "
                                                      f"got {arg!r}")

    def _check_local_places(self, args: tuple[Any, ...]) -> None:
        """``errc.kernel_argument`` for local memory given to a parameter that is not
        ``__local``, or a ``__local`` parameter given anything else: NVIDIA's driver takes
        local memory for a ``__global`` pointer, and the kernel then writes through a null
        pointer, which ends the context for good."""
        locals_ = self._locals or ()
        for index, arg in enumerate(args):
            mem = _local_memory(arg)
            if (mem is not None) != (index in locals_):
                assert self._params is not None  # _locals is known only with the parameters
                param = self._params[index]
                problem = _check_argument(param, mem if mem is not None else arg, self._bits)
                raise exception(errc.kernel_argument, f"kernel {self._name!r}, argument {index} "
                                                      f"({param.declaration()}): {problem}; got {arg!r}")

    def _check_local_memory(self, args: tuple[Any, ...], dev: device) -> None:
        """``errc.kernel_argument`` when the ``__local`` arguments and the kernel's own local
        memory (``CL_KERNEL_LOCAL_MEM_SIZE``, its ``__local`` variables) exceed the device's
        ``local_mem_size``: a driver may abort the process instead of failing the launch
        (PoCL asserts). Each argument counts rounded up to ``LOCAL_ALIGNMENT``, as a driver
        lays them out; the device's figures are queried once (docs/errors.md)."""
        indices = self._locals if self._locals is not None else range(len(args))
        asked = [_local_bytes(args[i]) for i in indices]
        room = self._local_room.get(dev._handle)
        if room is None:
            room = self._local_room[dev._handle] = self._query_local_room(dev)
        limit, own = room
        needed = own + sum(-(-n // LOCAL_ALIGNMENT) * LOCAL_ALIGNMENT for n in asked)
        if needed > limit:
            sizes = ", ".join(f"argument {i}: {n} bytes" for i, n in zip(indices, asked, strict=True) if n)
            raise exception(
                errc.kernel_argument,
                f"kernel {self._name!r} needs {needed} bytes of local memory per work-group ({sizes}; "
                f"the kernel's own: {own} bytes; each argument rounded up to {LOCAL_ALIGNMENT}), but "
                f"{dev!r} has local_mem_size {limit}; use smaller local_accessors (fewer elements per "
                "work-group, a smaller local range)",
            )

    def _query_local_room(self, dev: device) -> tuple[int, int]:
        """The device's ``local_mem_size`` and this kernel's own local memory on it, read on a
        ``cl_kernel`` with no argument set (``CL_KERNEL_LOCAL_MEM_SIZE`` counts those set);
        0 for a device the program was not built for (some drivers crash on the query)."""
        limit = int(dev._native.local_mem_size)
        if dev._handle not in self._device_ptrs:
            return limit, 0
        try:
            fresh = self._new_native()
            own = int(fresh.get_work_group_info(cl.kernel_work_group_info.LOCAL_MEM_SIZE, dev._native))
        except cl.Error:
            own = 0
        return limit, own

    def _element_error(self, index: int, arg: Any, held: np.dtype[Any]) -> exception:
        assert self._params is not None
        param = self._params[index]
        wanted = _numpy_name(param.element_dtype(self._bits))
        # A memory kind says how to retype it (USM: at allocation); buffers have views.
        fix = getattr(arg, "_retype_hint", "view the buffer as {wanted} with buffer.reinterpret")
        return exception(
            errc.kernel_argument,
            f"argument {index} of {self._name!r} is `{param.declaration()}`, the "
            f"{type(arg).__name__} holds {_numpy_name(held)}; pass memory of {wanted}, or "
            + fix.format(wanted=wanted),
        )

    def _for_svm(self, svm_args: int) -> kernel:
        """This kernel on a ``cl_kernel`` of its own for launches whose SVM pointers are the
        arguments at the set bits of ``svm_args`` (the handler passes the others as ``cl_mem``
        or by value); made on first need, then reused.

        Every ``cl_kernel`` then sees each argument always as the same kind: NVIDIA's driver
        refuses a ``cl_mem`` argument on a kernel that had an SVM pointer set
        (docs/devices/repro/svm_then_buffer.py, docs/usm.md). Buffer-only launches of a
        handler keep the kernel's own ``cl_kernel``, the one ``get_native`` returns; the
        queue shortcuts' fast launches take a ``cl_kernel`` of their own for every
        ``svm_args`` (``_private``), since they leave their arguments set.
        """
        twins = self._svm_twins
        twin = twins.get(svm_args)
        if twin is None:
            twin = object.__new__(kernel)
            twin._setup(self._new_native(), self._program, self._image, self._params)
            twin._svm_twins = twins
            twin = twins.setdefault(svm_args, twin)  # a racing thread's twin may have won
        return twin

    # --- the scheduler's entry point -----------------------------------------------------

    def _enqueue(
        self,
        cl_queue: cl.CommandQueue,
        global_size: tuple[int, ...],
        local_size: tuple[int, ...] | None,
        offset: tuple[int, ...] | None,
        args: Sequence[Any],
        wait_for: list[cl.Event] | None,
    ) -> cl.Event:
        """Set ``args`` and enqueue over ``global_size`` (OpenCL dimension order); the
        handler checked the launch first (``_check_launch``).

        An empty range enqueues a marker instead, so dependencies still resolve.

        Raises:
            sycl.exception: ``errc.kernel_argument`` naming the parameter for an argument
                that does not fit its declared type.
        """
        # The caller holds the scheduler lock, which keeps set_args + enqueue atomic.
        self._set_on(self._native, args)
        if 0 in global_size:
            return cl.enqueue_marker(cl_queue, wait_for=wait_for)
        return cl.enqueue_nd_range_kernel(cl_queue, self._native, global_size, local_size, offset, wait_for)

    def _set_on(self, native: cl.Kernel, args: Sequence[Any]) -> None:
        """Set ``args`` on ``native``, a ``cl_kernel`` of this kernel's function (its own, or
        one of ``_private``'s). The caller holds the scheduler lock.

        Raises:
            sycl.exception: as ``_enqueue``.
        """
        try:
            native.set_args(*args)
        except ARGUMENT_ERRORS as error:
            raise self._argument_error(args, error) from error

    def _all_args(self, args: Sequence[Any]) -> Sequence[Any]:
        """``args``: a kernel has no hidden arguments (``range_launch.Guarded`` has)."""
        return args

    def _private(self, args: Sequence[Any] | None) -> cl.Kernel:
        """A ``cl_kernel`` of this kernel's own with ``args`` set (None: none yet), that no
        launch of the kernel changes: a ``scheduler.PreparedKernel``'s, whose arguments stay
        set from one launch to the next.

        Raises:
            sycl.exception: ``errc.kernel_argument`` as for a launch.
        """
        private = self._new_native()
        if self._params is not None:
            _set_dtypes(private, self._params, self._bits)
        if args is not None:
            self._set_on(private, args)
        return private

    def _new_native(self) -> cl.Kernel:
        """Another ``cl_kernel`` of this kernel's function, with no argument set."""
        try:
            return cl.Kernel(self._program, self._name)
        except cl.Error as error:
            raise translate(error, f"creating another instance of kernel {self._name!r}") from error

    def _count_error(self, given: int) -> exception:
        params = self._params or ()
        listing = ", ".join(p.declaration() for p in params) or "none"
        return exception(
            errc.kernel_argument,
            f"kernel {self._name!r} takes {len(params)} argument(s) ({listing}), got {given}",
        )

    def _local_size_error(self, local_size: tuple[int, ...]) -> exception:
        assert self._reqd is not None
        wanted = tuple(reversed(self._reqd[:len(local_size)]))
        return exception(
            errc.nd_range,
            f"kernel {self._name!r} requires work-group size {wanted} (SYCL order; "
            f"reqd_work_group_size{self._reqd} in OpenCL C), but the nd_range's local range is "
            f"{tuple(reversed(local_size))}; launch it with that local range",
        )

    def _argument_error(self, args: Sequence[Any], error: BaseException) -> exception:
        params = self._params
        for index, value in enumerate(args):
            param = params[index] if params is not None and index < len(params) else None
            problem = _check_argument(param, value, self._bits)
            if problem:
                what = f"argument {index}" + (f" ({param.declaration()})" if param else "")
                return exception(
                    errc.kernel_argument,
                    f"kernel {self._name!r}, {what}: {problem}; got {value!r}",
                )
        return argument_exception(error, self._name)

    def __repr__(self) -> str:
        return f"<sycl.kernel {self._name!r}>"


# The alignment counted for each ``__local`` argument (``_check_local_memory``): the largest a
# driver pads one to (PoCL: its MAX_EXTENDED_ALIGNMENT, 128 bytes).
LOCAL_ALIGNMENT = 128


def _local_memory(arg: Any) -> cl.LocalMemory | None:
    """The local memory ``arg`` asks for: a ``pyopencl.LocalMemory``, or a ``local_accessor``'s
    (its ``_mem``); None for anything else."""
    mem = arg if isinstance(arg, cl.LocalMemory) else getattr(arg, "_mem", None)
    return mem if isinstance(mem, cl.LocalMemory) else None


def _local_bytes(arg: Any) -> int:
    """The bytes of local memory ``arg`` asks for (``_local_memory``); 0 for anything else."""
    mem = _local_memory(arg)
    return 0 if mem is None else int(mem.size)


_NUMPY_VALUES = (np.generic, np.ndarray)  # by-value data, not memory with an element type


def _numpy_name(dtype: np.dtype[Any] | None) -> str:
    """``float32``; a vector type (``pyopencl.cltypes.float4``) as ``float32 x 4``."""
    if dtype is None:
        return "any type"
    return dtype.name if dtype.names is None else f"{dtype[0].name} x {len(dtype.names)}"


def _python_scalar(value: Any) -> bool:
    return isinstance(value, (int, float, bool)) and not isinstance(value, np.generic)


def _check_argument(param: KernelParam | None, value: Any, bits: int) -> str:
    """Why ``value`` cannot be passed for ``param`` ("" if it can)."""
    if param is None:
        if _python_scalar(value):
            return ("this kernel's parameter types are unknown (its program has no argument information "
                    "and no source): pass a numpy scalar, or declare them with arg_types= "
                    "(sycl.make_kernel(k, ctx, arg_types=[...]), sycl.make_kernel_bundle(prg, ctx, "
                    "arg_types={name: [...]}))")
        return ""
    if param.kind in ("global", "constant"):
        if value is None or isinstance(value, (cl.MemoryObjectHolder, cl.SVMPointer)):
            return ""
        return "expects a buffer (an accessor or a pyopencl.Buffer)"
    if param.kind == "local":
        return "" if isinstance(value, cl.LocalMemory) else "expects local memory (a local_accessor)"
    dtype = param.dtype_for(bits)
    if dtype is None:
        if param.kind == "value" and _python_scalar(value):
            return (
                f"a Python {type(value).__name__} has no conversion to {param.type_name}; pass a "
                "numpy scalar (a SPIR-V kernel's integers have no sign: declare them in "
                "register_kernel_il's arg_types)"
            )
        return ""
    if isinstance(value, (cl.MemoryObjectHolder, cl.LocalMemory)):
        return f"expects a {dtype} value, not memory"
    if dtype.kind == "V":
        return _check_vector(param, dtype, value)
    try:
        struct.pack(dtype.char, value)
    except (struct.error, TypeError) as error:
        return f"expects a value of type {param.type_name} ({dtype}): {error}"
    return ""


def _check_vector(param: KernelParam, dtype: np.dtype[Any], value: Any) -> str:
    """Why ``value`` cannot be passed for the vector parameter ``param`` of numpy type
    ``dtype`` ("" if it can): its bytes, of its elements' type when it has one."""
    if isinstance(value, bytes | bytearray | memoryview):
        size = memoryview(value).nbytes
    elif isinstance(value, _NUMPY_VALUES):
        size, held = value.nbytes, value.dtype
        element = dtype[0] if dtype.names else dtype
        if held != dtype and (held.names is not None or held != element):
            return (f"expects {param.type_name} ({_numpy_name(dtype)}); a value of "
                    f"{_numpy_name(held)} would be taken bit for bit")
    else:
        return (f"expects a value of type {param.type_name}: a numpy value of "
                f"pyopencl.cltypes.{param.type_name} (pyopencl.cltypes.make_{param.type_name}(...))")
    if size != dtype.itemsize:
        return f"expects {param.type_name}, {dtype.itemsize} bytes; got {size} bytes"
    return ""


def _required_size(native: cl.Kernel, dev: cl.Device) -> tuple[int, ...] | None:
    """``reqd_work_group_size`` in OpenCL order, or None when the kernel has none."""
    try:
        sizes = tuple(int(s) for s in native.get_work_group_info(
            cl.kernel_work_group_info.COMPILE_WORK_GROUP_SIZE, dev))
    except cl.Error:
        return None
    return sizes if any(sizes) else None


def _params_from_arg_info(native: cl.Kernel) -> tuple[KernelParam, ...] | None:
    """Parameters from ``clGetKernelArgInfo``; None when the program has no argument info."""
    params = []
    try:
        for i in range(native.num_args):
            type_name = str(native.get_arg_info(i, cl.kernel_arg_info.TYPE_NAME)).strip()
            address = native.get_arg_info(i, cl.kernel_arg_info.ADDRESS_QUALIFIER)
            name = str(native.get_arg_info(i, cl.kernel_arg_info.NAME))
            kind = _ADDRESS.get(address, "value")  # type: ignore[call-overload]
            if kind == "value" and type_name.startswith("image"):
                kind = "image"
            elif kind == "value" and type_name == "sampler_t":
                kind = "sampler"
            params.append(KernelParam(name, type_name.rstrip("*").strip(), kind))
    except cl.Error:
        return None
    return tuple(params)


def _params_from_source(
    native: cl.Kernel, program: cl.Program, dev: cl.Device,
) -> tuple[KernelParam, ...] | None:
    """Parameters read from the program's OpenCL C source (``CL_PROGRAM_SOURCE``, with its
    build's ``-D`` definitions), as for registered units: for a program built without argument
    information (PyOpenCL builds without ``-cl-kernel-arg-info``, and PoCL then gives none).
    None without source (binaries, SPIR-V), or where the source declares the kernel otherwise
    than the driver counts its parameters."""
    try:
        source = str(program.get_info(cl.program_info.SOURCE) or "")
        options = str(program.get_build_info(dev, cl.program_build_info.OPTIONS) or "")
    except cl.Error:
        return None
    macros = definitions_from_options(tuple(options.split()))
    found = [d for d in parse_kernels(source, macros) if d.name == native.function_name]
    return found[0].params if len(found) == 1 and len(found[0].params) == native.num_args else None


def _set_dtypes(native: cl.Kernel, params: Sequence[KernelParam], bits: int) -> None:
    """Install the typed setter. A by-value parameter of no numpy type (a struct, a SPIR-V
    integer of unknown sign) gets None: PyOpenCL sets it untyped, which takes numpy scalars,
    while the other parameters still convert Python values."""
    native.set_scalar_arg_dtypes([p.dtype_for(bits) for p in params])
