"""The PyOpenCL boundary: the one place where PyOpenCL errors become ``sycl.exception``
(SYCL 2020 §4.13), and the seam where tests inject faults (docs/reliability.md).

Every call into PyOpenCL that can fail goes through :func:`cl_call` or catches
``pyopencl.Error`` and raises :func:`translate`'s result, so the OpenCL error name
always reaches the user and no PyOpenCL exception leaks out of the public API. Builds run in
:data:`compiler_warnings_off`: their logs reach the user through ``errc.build``, not warnings.

The scheduler, USM and kernel modules call PyOpenCL through :data:`cl`, this module's copy of
PyOpenCL's namespace (the same functions and classes: an attribute lookup costs what it costs on
``pyopencl``), start their threads through :data:`threads` and wait for one event through
:data:`events`. :func:`inject` (tests only)
puts counting wrappers in their place while it is active, so that the n-th call of a kind fails
with a real OpenCL status; nothing else ever changes them.
"""

from __future__ import annotations

import struct
import sys
import threading
import types
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import pyopencl

from ._exception import errc, exception

if TYPE_CHECKING:
    import pyopencl as cl

    from ._context import context
else:
    # PyOpenCL as sycl_ocl calls it (see the module docstring): a namespace of its own, so that
    # ``inject`` never changes ``pyopencl`` itself, which the user's code shares.
    cl = types.ModuleType("sycl_ocl._native.cl", "PyOpenCL's namespace, the seam of inject().")
    cl.__dict__.update({name: value for name, value in vars(pyopencl).items() if not name.startswith("__")})


def _wait(ev: cl.Event) -> None:
    ev.wait()


# The scheduler's thread starts and event waits (seams of ``inject`` too: kinds "thread", "wait").
threads = types.SimpleNamespace(start=threading.Thread.start)
events = types.SimpleNamespace(wait=_wait)

T = TypeVar("T")

_STATUS_NAMES: dict[int, str] = {
    value: name
    for name, value in vars(cl.status_code).items()
    if isinstance(value, int) and name.isupper()
}
# Status codes of extensions that PyOpenCL does not wrap (reached through ctypes).
_STATUS_NAMES.update({
    -1138: "INVALID_COMMAND_BUFFER_KHR",
    -1139: "INVALID_SYNC_POINT_WAIT_LIST_KHR",
    -1140: "INCOMPATIBLE_COMMAND_QUEUE_KHR",
    -1141: "INVALID_MUTABLE_COMMAND_KHR",
})

# OpenCL status -> the errc SYCL names for it; anything else CL_INVALID_* is errc.invalid.
_ERRC_BY_STATUS: dict[str, errc] = {
    "BUILD_PROGRAM_FAILURE": errc.build,
    "COMPILE_PROGRAM_FAILURE": errc.build,
    "LINK_PROGRAM_FAILURE": errc.build,
    "INVALID_BUILD_OPTIONS": errc.build,
    "INVALID_COMPILER_OPTIONS": errc.build,
    "INVALID_LINKER_OPTIONS": errc.build,
    "COMPILER_NOT_AVAILABLE": errc.feature_not_supported,
    "LINKER_NOT_AVAILABLE": errc.feature_not_supported,
    "INVALID_WORK_GROUP_SIZE": errc.nd_range,
    "INVALID_WORK_ITEM_SIZE": errc.nd_range,
    "INVALID_GLOBAL_WORK_SIZE": errc.nd_range,
    "INVALID_GLOBAL_OFFSET": errc.nd_range,
    "INVALID_WORK_DIMENSION": errc.nd_range,
    "INVALID_ARG_INDEX": errc.kernel_argument,
    "INVALID_ARG_VALUE": errc.kernel_argument,
    "INVALID_ARG_SIZE": errc.kernel_argument,
    "INVALID_KERNEL_ARGS": errc.kernel_argument,
    "MEM_OBJECT_ALLOCATION_FAILURE": errc.memory_allocation,
    "OUT_OF_RESOURCES": errc.memory_allocation,
    "OUT_OF_HOST_MEMORY": errc.memory_allocation,
    "INVALID_BUFFER_SIZE": errc.memory_allocation,
    "PROFILING_INFO_NOT_AVAILABLE": errc.profiling,
    "DEVICE_NOT_FOUND": errc.runtime,
    "PLATFORM_NOT_FOUND_KHR": errc.platform,
    "INVALID_PLATFORM": errc.platform,
    "EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST": errc.event,
    "INVALID_EVENT": errc.event,
    "INVALID_EVENT_WAIT_LIST": errc.event,
    "INVALID_KERNEL_NAME": errc.invalid,
    "INVALID_KERNEL_DEFINITION": errc.build,
    "INVALID_PROGRAM_EXECUTABLE": errc.build,
}


def status_name(code: int) -> str:
    """The ``CL_...`` name of an OpenCL status code."""
    name = _STATUS_NAMES.get(code)
    return f"CL_{name}" if name else f"OpenCL status {code}"


def errc_for_status(code: int) -> errc:
    """The SYCL error code that an OpenCL status code maps to."""
    name = _STATUS_NAMES.get(code, "")
    if name in _ERRC_BY_STATUS:
        return _ERRC_BY_STATUS[name]
    return errc.invalid if name.startswith("INVALID") else errc.runtime


def translate(
    error: cl.Error, action: str, ctx: context | None = None, detail: str = ""
) -> exception:
    """Turn a PyOpenCL error into a ``sycl.exception``, keeping the OpenCL error name.

    Args:
        error: the PyOpenCL error.
        action: what sycl_ocl was doing, for the message ("creating a context").
        ctx: the SYCL context the failure belongs to, if any.
        detail: extra text, such as a build log.
    """
    code = error.code if isinstance(error.code, int) else -9999
    return status_exception(code, action, ctx, str(error).strip(), detail)


def status_exception(
    code: int, action: str, ctx: context | None = None, reason: str = "", detail: str = ""
) -> exception:
    """The ``sycl.exception`` for an OpenCL status code returned by a call made through ctypes."""
    message = f"{action} failed: {status_name(code)}"
    if reason:
        message += f" ({reason})"
    if detail:
        message += f"\n{detail}"
    return exception(errc_for_status(code), message, ctx, cl_code=code)


# What PyOpenCL's ``Kernel.set_args`` raises for an argument that does not fit its parameter.
ARGUMENT_ERRORS = (cl.Error, struct.error, TypeError, ValueError, OverflowError, RuntimeError)


def argument_exception(error: BaseException, kernel_name: str) -> exception:
    """The ``sycl.exception`` for ``set_args`` of kernel ``kernel_name`` failing with ``error``
    (one of ``ARGUMENT_ERRORS``), where no parameter is known to be the culprit."""
    if isinstance(error, cl.Error):
        return translate(error, f"setting the arguments of kernel {kernel_name!r}")
    return exception(errc.kernel_argument, f"kernel {kernel_name!r}: bad arguments ({error})")


@contextmanager
def cl_errors(action: str, ctx: context | None = None) -> Iterator[None]:
    """Run a block of PyOpenCL calls, translating their errors (see :func:`translate`)."""
    try:
        yield
    except cl.Error as error:
        raise translate(error, action, ctx) from error


def cl_call(action: str, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
    """Call one PyOpenCL function, translating its errors (see :func:`translate`)."""
    try:
        return fn(*args, **kwargs)
    except cl.Error as error:
        raise translate(error, action) from error


class _CompilerWarningsOff:
    """A context manager around PyOpenCL builds, compiles and links: no ``CompilerWarning``.

    PyOpenCL warns whenever a build succeeds with a non-empty log, and Intel's CPU runtime
    writes one for every program. sycl_ocl puts the log of a failed build in its
    ``errc.build`` message and leaves every program's log readable (docs/kernels.md), so the
    warning is noise. ``warnings.catch_warnings`` changes the process-wide filters and is not
    thread-safe: the first of concurrent builds enters it and the last leaves it, so builds
    in several threads cannot leave the filter installed (while one runs, other threads'
    PyOpenCL builds do not warn either). It also silences PyOpenCL's warning that creating a
    from-source program before its build defeats PyOpenCL's build cache: sycl_ocl creates
    programs so, and caches builds itself (docs/kernels.md).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._builds = 0
        self._filters: warnings.catch_warnings[None] | None = None

    def __enter__(self) -> None:
        with self._lock:
            if self._builds == 0:
                self._filters = warnings.catch_warnings()
                self._filters.__enter__()
                warnings.simplefilter("ignore", cl.CompilerWarning)
                warnings.filterwarnings("ignore", "Pre-build attribute access defeats compiler caching")
            self._builds += 1

    def __exit__(self, *exc_info: object) -> None:
        with self._lock:
            self._builds -= 1
            if self._builds == 0 and self._filters is not None:
                self._filters.__exit__(None, None, None)
                self._filters = None


compiler_warnings_off = _CompilerWarningsOff()


def queued_time(native: cl.Event) -> int:
    """``CL_PROFILING_COMMAND_QUEUED`` of a profiled event. A driver that leaves it 0 gets
    ``CL_PROFILING_COMMAND_SUBMIT``, the next stamp (Intel's CPU runtime 2026.2 does for
    markers; docs/devices/README.md)."""
    times = native.profile
    return int(times.queued) or int(times.submit)


def backend_info(native: Any, info_enum: Any, name: object, what: str) -> Any:
    """``get_backend_info`` for the OpenCL backend: ``name`` is a ``pyopencl.<what>_info`` name.

    Anything else is a descriptor of another backend: ``errc.backend_mismatch`` (§4.6).
    """
    if not (isinstance(name, str) and name.isupper() and hasattr(info_enum, name)):
        raise exception(
            errc.backend_mismatch,
            f"get_backend_info takes an OpenCL {what} name (pyopencl.{what}_info), got {name!r}",
        )
    try:
        return native.get_info(getattr(info_enum, name))
    except cl.Error as error:
        raise translate(error, f"querying {what.upper()} {name}") from error


# --- fault injection (tests only; docs/reliability.md) ----------------------------------------

# Each kind of call, the attributes of ``cl`` that make it, and the status its fault returns.
FAULT_KINDS: dict[str, tuple[tuple[str, ...], int]] = {
    "allocation": (("Buffer", "SVMAllocation", "create_image", "Sampler"),
                   pyopencl.status_code.MEM_OBJECT_ALLOCATION_FAILURE),
    # An image's transfers (``scheduler.image_memory``) call clEnqueue{Write,Read}Image directly.
    # An explicit copy's replay (``scheduler.replay.copies``) calls clEnqueue{Write,Read}Buffer directly.
    "write": (("enqueue_copy", "_enqueue_write_image", "_enqueue_write_buffer"),
              pyopencl.status_code.OUT_OF_RESOURCES),
    "read": (("enqueue_copy", "_enqueue_read_image", "_enqueue_read_buffer"),
             pyopencl.status_code.OUT_OF_RESOURCES),
    "copy": (("enqueue_copy", "enqueue_fill_buffer", "enqueue_svm_memfill"),
             pyopencl.status_code.OUT_OF_RESOURCES),
    "kernel": (("enqueue_nd_range_kernel",), pyopencl.status_code.OUT_OF_RESOURCES),
    "marker": (("enqueue_marker",), pyopencl.status_code.OUT_OF_RESOURCES),
    "build": (("Program",), pyopencl.status_code.BUILD_PROGRAM_FAILURE),
    "link": (("link_program",), pyopencl.status_code.LINK_PROGRAM_FAILURE),
    # wait_for_events, and events.wait
    "wait": (("wait_for_events",), pyopencl.status_code.EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
    "thread": ((), 0),  # threads.start: RuntimeError("can't start new thread"), as the OS refuses
    "query": (("get_supported_image_formats",), pyopencl.status_code.OUT_OF_HOST_MEMORY),
}


class Faults:
    """The calls made at the boundary while :func:`inject` is active, by kind (``calls``), and
    the fault it injects: the ``nth`` call of ``kind`` fails (``nth`` 0: none, only counting)."""

    def __init__(self, kind: str, nth: int, code: int) -> None:
        self.kind, self.nth, self.code = kind, nth, code
        self.calls: Counter[str] = Counter()
        self.fired = False
        self.failed = ""  # the routine of the call that failed
        self.subject: object = None  # what it failed on: the thread started, the program built
        # Where the calls came from: each kind with the functions of sycl_ocl that made it,
        # innermost first (tests check that a sweep's programs reach the paths it means to).
        self.sites: Counter[tuple[str, tuple[str, ...]]] = Counter()
        self._lock = threading.Lock()

    def hit(self, kind: str, routine: str, subject: object = None) -> None:
        """Count a call of ``kind`` (on ``subject``); raise its fault if it is the chosen one."""
        site = (kind, _callers())
        with self._lock:
            self.sites[site] += 1
            self.calls[kind] += 1
            fire = kind == self.kind and self.calls[kind] == self.nth
            self.fired = self.fired or fire
        if not fire:
            return
        self.failed, self.subject = routine, subject
        if kind == "thread":
            raise RuntimeError("can't start new thread (injected)")
        message = f"{routine} failed: {status_name(self.code)[3:]} (injected)"
        raise InjectedError(message, self.code, routine)


def _callers() -> tuple[str, ...]:
    """The functions of sycl_ocl on the stack outside this module, innermost first, each as
    ``path:name`` (the path under the package)."""
    out = []
    frame = sys._getframe(2)
    while frame is not None:
        path = frame.f_code.co_filename
        if _PACKAGE in path and not path.endswith(_HERE):
            out.append(f"{path.rpartition(_PACKAGE)[2]}:{frame.f_code.co_name}")
        frame = frame.f_back  # type: ignore[assignment]
    return tuple(out)


_PACKAGE, _HERE = "/sycl_ocl/", "/sycl_ocl/_native.py"


class InjectedError(pyopencl.Error):
    """A PyOpenCL error carrying a real OpenCL status, made through PyOpenCL's public class
    (its error record is private): ``code`` and ``routine`` as PyOpenCL's have."""

    def __init__(self, message: str, code: int, routine: str) -> None:
        super().__init__(message)
        self._message, self._code, self._routine = message, code, routine

    @property  # read-only at run time too (PyOpenCL's own is a property)
    def code(self) -> int:  # type: ignore[override]
        return self._code

    @property
    def routine(self) -> str:  # type: ignore[override]
        return self._routine

    def __str__(self) -> str:
        return self._message


def _copy_kind(dest: object, src: object) -> str:
    """The kind of an ``enqueue_copy``: a read into host memory, a write from it, else a copy."""
    if isinstance(dest, np.ndarray):
        return "read"
    return "write" if isinstance(src, np.ndarray) else "copy"


def _wrapped(name: str, kinds: tuple[str, ...], faults: Faults) -> Any:
    real = getattr(pyopencl, name)
    if name == "Program":
        class Program(real):  # type: ignore[misc, valid-type]
            def build(self, *args: Any, **kwargs: Any) -> Any:
                faults.hit("build", "clBuildProgram", self)
                return real.build(self, *args, **kwargs)

            def compile(self, *args: Any, **kwargs: Any) -> Any:
                faults.hit("build", "clCompileProgram", self)
                return real.compile(self, *args, **kwargs)
        return Program
    if isinstance(real, type):
        class Allocated(real):  # type: ignore[misc, valid-type]
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                faults.hit("allocation", f"clCreate{name}")
                super().__init__(*args, **kwargs)
        return Allocated

    def call(*args: Any, **kwargs: Any) -> Any:
        kind = _copy_kind(args[1], args[2]) if name == "enqueue_copy" else kinds[0]
        faults.hit(kind, name)
        return real(*args, **kwargs)
    return call


@contextmanager
def inject(kind: str = "", nth: int = 0, code: int | None = None) -> Iterator[Faults]:
    """Tests only: while active, the ``nth`` call of ``kind`` (a key of ``FAULT_KINDS``) made
    through the boundary from now on fails with the real OpenCL status ``code`` (default: the
    kind's), raised by PyOpenCL's own error type; ``nth`` 0 only counts the calls. Not
    re-entrant, and for one test at a time: it changes what every thread calls."""
    if kind and kind not in FAULT_KINDS:
        raise ValueError(f"no fault kind {kind!r}; one of {sorted(FAULT_KINDS)}")
    faults = Faults(kind, nth, code if code is not None else FAULT_KINDS[kind][1] if kind else 0)
    names = {name: tuple(k for k, (names, _) in FAULT_KINDS.items() if name in names)
             for names, _ in FAULT_KINDS.values() for name in names}
    for name, kinds in names.items():
        setattr(cl, name, _wrapped(name, kinds, faults))
    real_start, real_wait = threads.start, events.wait

    def start(thread: threading.Thread) -> None:
        faults.hit("thread", "Thread.start", thread)
        real_start(thread)

    def wait(ev: cl.Event) -> None:
        faults.hit("wait", "clWaitForEvents")
        real_wait(ev)
    threads.start, events.wait = start, wait
    try:
        yield faults
    finally:
        for name in names:
            setattr(cl, name, getattr(pyopencl, name))
        threads.start, events.wait = real_start, real_wait
