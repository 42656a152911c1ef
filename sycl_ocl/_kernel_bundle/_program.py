"""OpenCL program operations behind the bundle states (SYCL 2020 §4.11.4, §4.11.11).

input = ``clCreateProgramWithSource``; object = ``clCompileProgram``; executable =
``clLinkProgram`` or ``clBuildProgram``. Failures raise ``errc.build`` with the driver's
build log in the message; a success keeps its log on the program (no ``CompilerWarning``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._exception import errc, exception
from .._native import cl, compiler_warnings_off, status_exception, translate
from . import _progress

if TYPE_CHECKING:
    from .._context import context
    from .._device import device

BUILD_NONE = -1  # CL_BUILD_NONE (PyOpenCL names no build-status constants)

# Always on: lets clGetKernelArgInfo name parameters in messages and info queries.
ARG_INFO = "-cl-kernel-arg-info"


def from_source(ctx: context, source: str) -> cl.Program:
    """A program created from source, not yet compiled (the input state)."""
    return _created(cl.Program(ctx._native, source), ctx)


def from_il(ctx: context, il: bytes, what: str) -> cl.Program:
    """A program created from a SPIR-V module with ``clCreateProgramWithIL``, not yet compiled
    (for devices that take SPIR-V: ``compat.accepts_il``)."""
    try:
        return cl.Program(ctx._native, il)
    except cl.Error as error:
        raise translate(error, f"creating a program from {what}", ctx) from error


def materialize(prg: cl.Program) -> cl.Program:
    """``prg`` with its ``cl_program`` created.

    A ``pyopencl.Program(ctx, source)`` creates it only when built or first queried, and a query
    first warns that this defeats PyOpenCL's build cache. sycl_ocl compiles such a program itself
    (with its own cache), so it creates the ``cl_program`` now, as ``from_source`` does.
    """
    return _created(prg, None)


def _created(prg: cl.Program, ctx: context | None) -> cl.Program:
    """``prg`` after its first native access, which creates a from-source program's cl_program
    (public PyOpenCL API only; ``compiler_warnings_off`` silences the caching warning)."""
    try:
        with compiler_warnings_off:
            _ = prg.int_ptr
    except cl.Error as error:
        raise translate(error, "creating a program from OpenCL C source", ctx) from error
    return prg


def build(
    prg: cl.Program, ctx: context, devices: Sequence[device], options: Sequence[str], what: str
) -> cl.Program:
    """``clBuildProgram`` (compile + link) for ``devices``."""
    _progress.building(what)
    try:
        # cache_dir=False: sycl_ocl's own cache decides (PyOpenCL's would hide builds from it).
        with compiler_warnings_off:
            # Called through the boundary's class: the seam of fault injection (_native.inject).
            cl.Program.build(prg, list(options), [d._native for d in devices], cache_dir=False)  # type: ignore[arg-type]
    except cl.Error as error:
        raise _failure(error, f"building {what}", prg, ctx, devices) from error
    return prg


def compile_program(
    prg: cl.Program, ctx: context, devices: Sequence[device], options: Sequence[str], what: str
) -> cl.Program:
    """``clCompileProgram`` for ``devices``: the object state."""
    _progress.building(what)
    try:
        with compiler_warnings_off:
            cl.Program.compile(prg, list(options), [d._native for d in devices])
    except cl.Error as error:
        raise _failure(error, f"compiling {what}", prg, ctx, devices) from error
    return prg


def link(
    programs: Sequence[cl.Program],
    ctx: context,
    devices: Sequence[device],
    options: Sequence[str],
    what: str,
) -> cl.Program:
    """``clLinkProgram`` of compiled objects for ``devices``: the executable state."""
    try:
        with compiler_warnings_off:
            return cl.link_program(ctx._native, list(programs), list(options), [d._native for d in devices])
    except cl.Error as error:
        raise _failure(error, f"linking {what}", None, ctx, devices) from error


def _failure(
    error: cl.Error, action: str, prg: cl.Program | None, ctx: context, devices: Sequence[device]
) -> exception:
    # PyOpenCL's message repeats "clBuildProgram failed: BUILD_PROGRAM_FAILURE" once per layer of
    # its own, then logs by PyOpenCL device and the options: say it once, log by sycl device.
    summary, _, pyopencl_detail = str(error).strip().partition("\n")
    logs = build_logs(prg, devices) if prg is not None else ""
    options = pyopencl_detail.strip().rpartition("\n")[2] if "(options: " in pyopencl_detail else ""
    detail = "\n".join(filter(None, (logs, options))) if logs else pyopencl_detail.strip()
    result = status_exception(error.code, action, ctx, summary.split(" - ")[0], detail)
    if result.code() is not errc.build and error.code in (
        cl.status_code.BUILD_PROGRAM_FAILURE,
        cl.status_code.COMPILE_PROGRAM_FAILURE,
        cl.status_code.LINK_PROGRAM_FAILURE,
    ):
        return exception(errc.build, result.what(), ctx, cl_code=error.code)
    return result


def build_logs(prg: cl.Program, devices: Sequence[device]) -> str:
    """The build log of each device, labelled, for error messages."""
    parts = []
    for dev in devices:
        try:
            log = str(prg.get_build_info(dev._native, cl.program_build_info.LOG)).strip()
        except cl.Error:
            continue
        if log:
            parts.append(f"build log on {dev!r}:\n{log}")
    return "\n".join(parts)


def binaries(prg: cl.Program, devices: Sequence[device]) -> list[bytes]:
    """``CL_PROGRAM_BINARIES`` of ``devices``, devices the program was built for (a program made
    from source holds an empty binary for each other device of its context). PoCL 3.1 lists only
    the binaries of the devices built for, in order; any other count cannot be matched: empty."""
    found: list[Any] = prg.get_info(cl.program_info.BINARIES)  # type: ignore[assignment]
    natives: list[cl.Device] = prg.get_info(cl.program_info.DEVICES)  # type: ignore[assignment]
    if len(found) != len(natives):
        return [bytes(b) for b in found] if len(found) == len(devices) else []
    by_device = {d.int_ptr: bytes(b) for d, b in zip(natives, found, strict=True)}
    return [by_device[d._handle] for d in devices]
