"""Interop with PyOpenCL programs and kernels (SYCL 2020 §4.5.1, OpenCL backend).

``make_kernel_bundle(program, ctx, state)`` wraps an existing ``pyopencl.Program`` as a
one-image bundle in the state its binary type says; ``make_kernel(k, ctx)`` wraps a
``pyopencl.Kernel``. ``get_native`` returns the program list / the kernel itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import pyopencl as cl

from .._exception import errc, exception
from .._native import translate
from . import _program, cache
from ._device_image import device_image
from ._kernel import kernel
from ._kernel_id import kernel_id
from ._signature import declared_params
from .bundle import kernel_bundle
from .registry import read_unit
from .state import bundle_state

if TYPE_CHECKING:
    from .._context import context
    from .._device import device

_BINARY_TYPE = {
    bundle_state.input: cl.program_binary_type.NONE,
    bundle_state.object: cl.program_binary_type.COMPILED_OBJECT,
    bundle_state.executable: cl.program_binary_type.EXECUTABLE,
}

_BINARY_NAMES: dict[int, str] = {
    cl.program_binary_type.NONE: "source only",
    cl.program_binary_type.COMPILED_OBJECT: "a compiled object",
    cl.program_binary_type.LIBRARY: "a library",
    cl.program_binary_type.EXECUTABLE: "an executable",
}


def make_kernel_bundle(
    program: cl.Program, ctx: context, state: bundle_state = bundle_state.executable,
    arg_types: Mapping[str, str | Sequence[str]] | None = None,
) -> kernel_bundle:
    """Wrap a ``pyopencl.Program`` of ``ctx`` as a bundle in ``state`` (§4.5.1.3).

    ``arg_types`` (an extension) declares the parameters of kernels whose program gives no
    argument information (a program made from binaries), as OpenCL C declarations per kernel
    name, so that Python numbers convert to them: ``{"add": ["global int *a", "int k"]}``.

    Raises:
        sycl.exception: ``errc.invalid`` if the program is not a ``pyopencl.Program``, belongs
            to another context, or is not in ``state`` on its devices (build it first), or for
            ``arg_types`` naming no kernel of it or declaring another number of parameters.
    """
    state = bundle_state(state)
    if not isinstance(program, cl.Program):
        raise exception(errc.invalid, f"make_kernel_bundle takes a pyopencl.Program, got {program!r}")
    try:
        if _program.materialize(program).get_info(cl.program_info.CONTEXT) != ctx._native:
            raise exception(errc.invalid, "make_kernel_bundle: the program belongs to another context", ctx)
        devices = _devices_in_state(program, _devices_of(program, ctx), state)
        key = ("interop", program.int_ptr, state)
        image = cache.cached(ctx, key, lambda: _image(program, devices, state))
        for name, given in (arg_types or {}).items():
            _declare(image, name, given)
    except cl.Error as error:
        raise translate(error, "wrapping a pyopencl.Program", ctx) from error
    return kernel_bundle._make(ctx, image._devices, state, [image])


def _declare(image: device_image, name: str, given: str | Sequence[str]) -> None:
    """Make kernel ``name`` of ``image`` with the declared parameters (once: a kernel made
    already keeps its parameters, and another declaration is refused)."""
    kid = next((k for k in image._ids if k.get_name() == name), None)
    if kid is None or image._state is not bundle_state.executable:
        raise exception(errc.invalid, f"arg_types names {name!r}, which is no kernel of this executable "
                                      f"program; its kernels: {sorted(k.get_name() for k in image._ids)}")
    params = declared_params(name, given)
    with image._lock:
        made = image._kernels.get(name)
        if made is None:
            native = cl.Kernel(image._program, name)
            if native.num_args != len(params):
                raise exception(errc.invalid, f"arg_types[{name!r}] declares {len(params)} parameter(s); "
                                              f"the kernel takes {native.num_args}")
            image._kernels[name] = kernel._make(native, image._program, image, params)
        elif made._params != params:
            raise exception(errc.invalid, f"kernel {name!r} of this program was wrapped already with "
                                          f"parameters {made._params}; declare them once")


def make_kernel(native: cl.Kernel, ctx: context, arg_types: str | Sequence[str] | None = None) -> kernel:
    """Wrap a ``pyopencl.Kernel`` of ``ctx`` (§4.5.1.3); ``get_native`` returns it unchanged.

    ``arg_types`` (an extension) declares its parameters as OpenCL C declarations where its
    program gives no argument information (a program made from binaries).

    Raises:
        sycl.exception: ``errc.invalid`` if it is not a ``pyopencl.Kernel`` of ``ctx``, or if
            the driver cannot give back the kernel's program (see docs/devices/README.md).
    """
    if not isinstance(native, cl.Kernel):
        raise exception(errc.invalid, f"make_kernel takes a pyopencl.Kernel, got {native!r}")
    try:
        program: cl.Program = native.get_info(cl.kernel_info.PROGRAM)  # type: ignore[assignment]
    except cl.Error as error:  # Intel's CPU runtime cannot retain a program whose handle was released
        raise translate(error, "make_kernel: reading the kernel's program", ctx,
                        "keep the pyopencl.Program alive while its kernels are wrapped") from error
    bundle = make_kernel_bundle(program, ctx)
    image = next(iter(bundle))
    params = None if arg_types is None else declared_params(native.function_name, arg_types)
    if params is not None and native.num_args != len(params):
        raise exception(errc.invalid, f"arg_types declares {len(params)} parameter(s); kernel "
                                      f"{native.function_name!r} takes {native.num_args}")
    return kernel._make(native, image._program, image, params)


def _devices_of(program: cl.Program, ctx: context) -> tuple[device, ...]:
    natives: list[cl.Device] = program.get_info(cl.program_info.DEVICES)  # type: ignore[assignment]
    by_handle = {d._handle: d for d in ctx.get_devices()}
    return tuple(by_handle[n.int_ptr] for n in natives if n.int_ptr in by_handle)


def _devices_in_state(
    program: cl.Program, devices: tuple[device, ...], state: bundle_state
) -> tuple[device, ...]:
    """The devices on which the program's binary is in ``state``: the bundle's devices (a
    program built for some devices of its context is a bundle of those)."""
    found = {dev: _state_of(program, dev) for dev in devices}
    matching = tuple(dev for dev, kind in found.items() if kind == _BINARY_TYPE[state])
    if not matching:
        described = "; ".join(f"on {dev!r}: {_BINARY_NAMES.get(kind, kind)}" for dev, kind in found.items())
        raise exception(
            errc.invalid,
            f"make_kernel_bundle({state.name}): the program's binary is in that state on none of its "
            f"devices ({described}); compile/build it to match the state",
        )
    return matching


def _state_of(program: cl.Program, dev: device) -> int:
    """The program's binary type on ``dev``; a program never built has none (Oclgrind 21.10
    reports an uninitialised binary type then, so the build status decides)."""
    status = program.get_build_info(dev._native, cl.program_build_info.STATUS)
    if status == _program.BUILD_NONE:
        return int(cl.program_binary_type.NONE)
    return int(program.get_build_info(dev._native, cl.program_build_info.BINARY_TYPE))


def _image(program: cl.Program, devices: tuple[device, ...], state: bundle_state) -> device_image:
    source = str(program.get_info(cl.program_info.SOURCE) or "")
    src = read_unit(source, (), frozenset(), "<pyopencl.Program>")
    if state is bundle_state.executable:
        ids = tuple(kernel_id._make(n, None) for n in _kernel_names(program, list(src.kernels)))
        return device_image._make(state, devices, program, (), ids, {}, ("interop", program.int_ptr))
    src.ids = tuple(kernel_id._make(name, src) for name in src.kernels)
    return device_image._make(state, devices, program, (src,), src.ids, {}, ("interop", program.int_ptr))


def _kernel_names(program: cl.Program, declared: list[str]) -> list[str]:
    """The program's kernel names; those its source declares where the driver gives none
    (NVIDIA refuses ``CL_PROGRAM_KERNEL_NAMES`` unless the program is built for every device of
    its context)."""
    try:
        return [n for n in str(program.get_info(cl.program_info.KERNEL_NAMES)).split(";") if n]
    except cl.Error:
        if not declared:
            raise
        return declared
