"""Native command buffers: the ``cl_khr_command_buffer`` extension, through ctypes.

PyOpenCL does not wrap the extension. Its entry points come from
``clGetExtensionFunctionAddressForPlatform`` of the OpenCL library PyOpenCL itself is linked
against, and take PyOpenCL's ``int_ptr`` handles. Failures become ``sycl.exception`` through
:func:`sycl_ocl._native.status_exception`.

Revisions. The extension's C signatures changed while it was provisional (0.9.x); the revision
comes from ``CL_DEVICE_EXTENSIONS_WITH_VERSION`` (OpenCL 3.0), and a device that does not
report one of the revisions below counts as unsupported:

* 0.9.0 to 0.9.4: ``clCommandNDRangeKernelKHR`` takes a properties list, the other recording
  calls do not. PoCL 3.1 implements 0.9.0.
* 0.9.5 to 0.9.8: every recording call takes a ``cl_command_properties_khr`` list after the
  queue. 0.9.6 adds ``CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR`` (and drops the
  out-of-order capability bit); 0.9.8 drops the Pending state, so an executable command buffer
  may be enqueued again while earlier runs are in flight. Before 0.9.8 that needs the
  simultaneous-use flag, which is requested where the device offers it; elsewhere a replay
  first waits for the previous one.
* 1.0.0, the final revision, keeps the signatures and rules of 0.9.8 (Intel's CPU runtime
  2026.2 implements it: its entry points take the properties list after the queue, then the
  sync point wait list, the sync point and the mutable handle, as in 0.9.8).

Driver defects handled here (PoCL 3.1): recording a kernel that fails validation (an unset
argument, a bad work-group size, an unknown sync point, an empty range) dereferences a null
pointer in the driver, so those are checked before the call; and the driver reads a kernel's
arguments when the command buffer is enqueued rather than when the kernel was recorded, so each
recorded kernel is one of its own that nothing else touches (the caller makes it).
"""

from __future__ import annotations

import ctypes
import functools
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyopencl as cl
import pyopencl._cl as _cl_module

from ._exception import errc, exception
from ._native import ARGUMENT_ERRORS, argument_exception, status_exception

EXTENSION = "cl_khr_command_buffer"
KNOWN_REVISIONS = (*((0, 9, patch) for patch in range(9)), (1, 0, 0))
KNOWN_REVISIONS_TEXT = "0.9.0 to 0.9.8 and 1.0.0"
_PROPERTIES_EVERYWHERE = (0, 9, 5)  # every recording call takes a properties list
_SUPPORTED_QUEUE_QUERY = (0, 9, 6)
_NO_PENDING_STATE = (0, 9, 8)

# Enumerants of cl_khr_command_buffer (all revisions above).
_DEVICE_CAPABILITIES = 0x12A9
_DEVICE_REQUIRED_QUEUE_PROPERTIES = 0x12AA
_DEVICE_SUPPORTED_QUEUE_PROPERTIES = 0x129A
_CAPABILITY_SIMULTANEOUS_USE = 1 << 2
_CAPABILITY_OUT_OF_ORDER = 1 << 3
_FLAGS = 0x1293
_BUILD_SUCCESS = 0  # CL_BUILD_SUCCESS
_FLAG_SIMULTANEOUS_USE = 1 << 0
_INFO_STATE = 0x1297
STATE_RECORDING, STATE_EXECUTABLE, STATE_PENDING = 0, 1, 2
_SUCCESS = 0

_P, _U32, _SIZE, _INT = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_size_t, ctypes.c_int32
_U32_P, _SIZE_P, _U64_P = ctypes.POINTER(_U32), ctypes.POINTER(_SIZE), ctypes.POINTER(ctypes.c_uint64)
_SYNC_TAIL = (_U32, _U32_P, _U32_P, _P)  # wait-list length, wait list, sync point out, mutable handle


@functools.cache
def _library() -> ctypes.CDLL | None:
    """The OpenCL library PyOpenCL uses: symbols of its extension module's dependencies.

    Opened on the first question about command buffers, not at import (docs/performance.md,
    "Import time").
    """
    for path in _library_paths():
        try:
            lib = ctypes.CDLL(path)
            lib.clGetExtensionFunctionAddressForPlatform.restype = _P
        except (OSError, AttributeError):
            continue
        lib.clGetExtensionFunctionAddressForPlatform.argtypes = [_P, ctypes.c_char_p]
        lib.clGetDeviceInfo.restype = _INT
        lib.clGetDeviceInfo.argtypes = [_P, _U32, _SIZE, _P, _SIZE_P]
        return lib
    return None


def _library_paths() -> Iterator[str]:
    yield _cl_module.__file__
    import ctypes.util  # only here: it loads subprocess, and PyOpenCL's module nearly always serves

    found = ctypes.util.find_library("OpenCL")
    if found:
        yield found


@dataclass(frozen=True)
class Support:
    """What one device's ``cl_khr_command_buffer`` offers."""

    revision: tuple[int, int, int]
    capabilities: int
    required_queue_properties: int
    supported_queue_properties: int | None  # None before revision 0.9.6

    @property
    def simultaneous_use(self) -> bool:
        """Whether a command buffer may be enqueued again while an earlier run is in flight."""
        return self.revision >= _NO_PENDING_STATE or bool(self.capabilities & _CAPABILITY_SIMULTANEOUS_USE)

    def queue_problem(self, properties: int) -> str:
        """Why a queue with these ``cl_command_queue_properties`` cannot record; "" if it can."""
        missing = self.required_queue_properties & ~properties
        if missing:
            return f"the device needs command queues with properties {missing:#x} to record"
        if self.supported_queue_properties is not None:
            extra = properties & ~(self.supported_queue_properties | self.required_queue_properties)
            if extra:
                return f"the device cannot record on command queues with properties {extra:#x}"
        elif properties & cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE and not (
            self.capabilities & _CAPABILITY_OUT_OF_ORDER
        ):
            return "the device cannot record on out-of-order command queues"
        return ""


_support_cache: dict[int, Support | None] = {}


def support(device: cl.Device) -> Support | None:
    """What ``device`` offers, or None when sycl_ocl cannot use its command buffers."""
    key = device.int_ptr
    if key not in _support_cache:
        _support_cache[key] = _query_support(device)
    return _support_cache[key]


def supported(device: cl.Device) -> bool:
    """Whether sycl_ocl can record native command buffers on ``device`` (conservative).

    True only for a revision listed in :data:`KNOWN_REVISIONS` whose entry points resolve, on
    a device whose required queue properties an in-order or out-of-order queue can meet.
    """
    return support(device) is not None


def _query_support(device: cl.Device) -> Support | None:
    if _library() is None or EXTENSION not in device.extensions.split():
        return None
    try:
        listed = device.get_info(cl.device_info.EXTENSIONS_WITH_VERSION)
    except cl.Error:  # OpenCL 1.2 drivers cannot say which revision they implement
        return None
    versions = [v.version for v in listed if v.name == EXTENSION]  # type: ignore[attr-defined]
    if not versions:
        return None
    revision = (versions[0] >> 22, (versions[0] >> 12) & 0x3FF, versions[0] & 0xFFF)
    capabilities = _device_bits(device, _DEVICE_CAPABILITIES)
    required = _device_bits(device, _DEVICE_REQUIRED_QUEUE_PROPERTIES)
    if revision not in KNOWN_REVISIONS or capabilities is None or required is None:
        return None
    props = cl.command_queue_properties
    if required & ~(props.OUT_OF_ORDER_EXEC_MODE_ENABLE | props.PROFILING_ENABLE):
        return None
    supported_props = None
    if revision >= _SUPPORTED_QUEUE_QUERY:
        supported_props = _device_bits(device, _DEVICE_SUPPORTED_QUEUE_PROPERTIES)
    found = Support(revision, capabilities, required, supported_props)
    return found if _entry_points(device.platform, revision) is not None else None


def _device_bits(device: cl.Device, param: int) -> int | None:
    lib = _library()
    assert lib is not None
    value = ctypes.c_uint64(0)
    status = lib.clGetDeviceInfo(device.int_ptr, param, ctypes.sizeof(value), ctypes.byref(value), None)
    return value.value if status == _SUCCESS else None


class _EntryPoints:
    """The extension's functions for one platform, typed for one revision family."""

    def __init__(self, platform: cl.Platform, properties_everywhere: bool) -> None:
        props = (_U64_P,) if properties_everywhere else ()
        head = (_P, _P, *props)  # command buffer, queue (always NULL here), [properties]
        self.create = self._get(platform, "clCreateCommandBufferKHR", _P, _U32, ctypes.POINTER(_P), _U64_P,
                                ctypes.POINTER(_INT))
        self.finalize = self._get(platform, "clFinalizeCommandBufferKHR", _INT, _P)
        self.release = self._get(platform, "clReleaseCommandBufferKHR", _INT, _P)
        self.enqueue = self._get(platform, "clEnqueueCommandBufferKHR", _INT, _U32, ctypes.POINTER(_P), _P,
                                 _U32, ctypes.POINTER(_P), ctypes.POINTER(_P))
        self.info = self._get(platform, "clGetCommandBufferInfoKHR", _INT, _P, _U32, _SIZE, _P, _SIZE_P)
        self.barrier = self._get(platform, "clCommandBarrierWithWaitListKHR", _INT, *head, *_SYNC_TAIL)
        self.copy = self._get(platform, "clCommandCopyBufferKHR", _INT, *head, _P, _P, _SIZE, _SIZE, _SIZE,
                              *_SYNC_TAIL)
        self.fill = self._get(platform, "clCommandFillBufferKHR", _INT, *head, _P, _P, _SIZE, _SIZE, _SIZE,
                              *_SYNC_TAIL)
        self.ndrange = self._get(platform, "clCommandNDRangeKernelKHR", _INT, _P, _P, _U64_P, _P, _U32,
                                 _SIZE_P, _SIZE_P, _SIZE_P, *_SYNC_TAIL)

    @staticmethod
    def _get(platform: cl.Platform, name: str, restype: Any, *argtypes: Any) -> Callable[..., Any]:
        lib = _library()
        assert lib is not None
        address = lib.clGetExtensionFunctionAddressForPlatform(platform.int_ptr, name.encode())
        if not address:
            raise LookupError(name)
        return ctypes.CFUNCTYPE(restype, *argtypes)(address)


_entry_cache: dict[tuple[int, bool], _EntryPoints | None] = {}


def _entry_points(platform: cl.Platform, revision: tuple[int, int, int]) -> _EntryPoints | None:
    key = (platform.int_ptr, revision >= _PROPERTIES_EVERYWHERE)
    if key not in _entry_cache:
        try:
            _entry_cache[key] = _EntryPoints(platform, key[1])
        except LookupError:
            _entry_cache[key] = None
    return _entry_cache[key]


def _check(status: int, action: str) -> None:
    if status != _SUCCESS:
        raise status_exception(status, action)


class _Owned:
    """What a command buffer owns: its handle, and the objects its commands use."""

    def __init__(self, handle: int, release: Callable[[int], int], queue: cl.CommandQueue) -> None:
        self.handle, self.release_fn = handle, release
        self.keep: list[Any] = [queue]  # kernels, memory objects, arguments of recorded commands
        self.runs: list[cl.Event] = []  # replays that may still be running

    def release(self) -> None:
        """Release the handle; keep the recorded objects until the last replay completes."""
        self.release_fn(self.handle)
        for run in self.runs:
            if run.command_execution_status != cl.command_execution_status.COMPLETE:
                run.set_callback(cl.command_execution_status.COMPLETE, functools.partial(_drop, self.keep))
        self.keep, self.runs = [], []


def _drop(keep: list[Any], status: int) -> None:
    """A completion callback whose only job is to hold ``keep`` until the driver calls it."""


class CommandBuffer:
    """One native command buffer, recorded for one PyOpenCL queue (``cl_khr_command_buffer``).

    Record commands (each returns a sync point that later commands can wait for), then
    :meth:`finalize`, then :meth:`enqueue` as often as needed. The recorded kernels, memory
    objects and arguments stay alive as long as the command buffer and its runs. Every
    method may be called from any thread.

    Raises:
        sycl.exception: ``errc.feature_not_supported`` when the queue's device has no usable
            command buffers (see :func:`supported`) or the queue's properties do not suit it.
    """

    def __init__(self, queue: cl.CommandQueue) -> None:
        device = queue.device
        found = support(device)
        if found is None:
            raise exception(errc.feature_not_supported,
                            f"{device.name!r} has no usable {EXTENSION} (sycl_ocl knows revisions "
                            f"{KNOWN_REVISIONS_TEXT}); check _command_buffer.supported(device) first")
        problem = found.queue_problem(queue.properties)
        if problem:
            raise exception(errc.feature_not_supported, f"cannot record a command buffer: {problem}")
        api = _entry_points(device.platform, found.revision)
        assert api is not None
        flags = None
        if found.revision < _NO_PENDING_STATE and found.simultaneous_use:
            flags = (ctypes.c_uint64 * 3)(_FLAGS, _FLAG_SIMULTANEOUS_USE, 0)
        status = _INT(0)
        handle = api.create(1, (_P * 1)(queue.int_ptr), flags, ctypes.byref(status))
        _check(status.value, "creating a command buffer")
        self._api, self._support, self._queue = api, found, queue
        self._device = device
        self._lock = threading.Lock()
        self._sync_points: set[int] = set()
        self._kernels: set[int] = set()  # the recorded cl_kernels' handles
        self._finalized = False
        self._owned = _Owned(handle, api.release, queue)
        self._release = weakref.finalize(self, _Owned.release, self._owned)
        self._release.atexit = False  # the driver may be gone at exit

    # --- recording ---------------------------------------------------------------------

    def record_kernel(
        self,
        kernel: cl.Kernel,
        args: Sequence[Any],
        global_size: Sequence[int],
        local_size: Sequence[int] | None = None,
        offset: Sequence[int] | None = None,
        after: Sequence[int] = (),
    ) -> int:
        """Record ``kernel`` over ``global_size`` with ``args`` (OpenCL dimension order).

        ``kernel`` becomes the command buffer's: ``args`` are set on it (so its scalar types, if
        set, apply) and nothing may set its arguments afterwards, since PoCL 3.1 reads them when
        the command buffer runs. Record a ``cl_kernel`` of its own each time (command graphs
        record ``sycl.kernel._private``'s); recording one twice is ``errc.invalid``. An empty
        range records a barrier.

        Returns:
            The sync point of the command.
        """
        with self._lock:
            waits = self._recording(after)
            if 0 in global_size:
                return self._record(self._api.barrier, (), waits, "recording an empty kernel range")
            dims = self._check_range(kernel, global_size, local_size, offset)
            self._own(kernel, args)
            return self._record(
                self._api.ndrange, (None, kernel.int_ptr, dims, _sizes(offset), _sizes(global_size),
                                    _sizes(local_size)), waits, f"recording kernel {kernel.function_name!r}",
                properties_first=False)

    def record_copy(
        self, src: cl.Buffer, dst: cl.Buffer, size: int, src_offset: int = 0, dst_offset: int = 0,
        after: Sequence[int] = (),
    ) -> int:
        """Record a copy of ``size`` bytes from ``src`` to ``dst``; returns its sync point."""
        with self._lock:
            waits = self._recording(after)
            self._owned.keep.extend((src, dst))
            return self._record(self._api.copy, (src.int_ptr, dst.int_ptr, src_offset, dst_offset, size),
                                waits, "recording a buffer copy")

    def record_fill(
        self, buffer: cl.Buffer, pattern: Any, size: int, offset: int = 0, after: Sequence[int] = (),
    ) -> int:
        """Record filling ``size`` bytes of ``buffer`` with ``pattern`` (a numpy scalar or bytes)."""
        raw = pattern if isinstance(pattern, bytes) else np.asarray(pattern).tobytes()
        with self._lock:
            waits = self._recording(after)
            self._owned.keep.append(buffer)
            return self._record(self._api.fill, (buffer.int_ptr, raw, len(raw), offset, size), waits,
                                "recording a buffer fill")

    def record_barrier(self, after: Sequence[int] = ()) -> int:
        """Record a barrier: it waits for ``after``, or for every earlier command if empty."""
        with self._lock:
            return self._record(self._api.barrier, (), self._recording(after), "recording a barrier")

    def finalize(self) -> None:
        """End recording; the command buffer can then be enqueued (and no longer recorded into)."""
        with self._lock:
            self._recording(())
            _check(self._api.finalize(self._handle()), "finalizing a command buffer")
            self._finalized = True

    # --- replay --------------------------------------------------------------------------

    def enqueue(self, wait_for: Sequence[cl.Event] = (), queue: cl.CommandQueue | None = None) -> cl.Event:
        """Run the recorded commands after ``wait_for``, on the recording queue or on ``queue``
        (of the same device, context and properties: the extension's compatible queue).

        Returns:
            The event of the whole run: other commands can wait for it and depend on it.
        """
        events = (_P * len(wait_for))(*(e.int_ptr for e in wait_for)) if wait_for else None
        queues = (1, (_P * 1)(queue.int_ptr)) if queue is not None else (0, None)
        with self._lock:
            handle = self._handle()
            if not self._finalized:
                raise exception(errc.invalid, "the command buffer is not finalized: call finalize() first")
            runs = self._pending()
            if runs and not self._support.simultaneous_use:
                self._wait_executable(runs)
            out = _P()
            _check(self._api.enqueue(*queues, handle, len(wait_for), events, ctypes.byref(out)),
                   "enqueueing a command buffer")
            run = cl.Event.from_int_ptr(out.value or 0, retain=False)
            runs.append(run)
            return run

    def busy(self) -> bool:
        """Whether :meth:`enqueue` would first wait for an earlier run (a device without
        simultaneous use, before revision 0.9.8), so that a caller can do otherwise."""
        with self._lock:
            return not self._support.simultaneous_use and bool(self._pending())

    def _pending(self) -> list[cl.Event]:
        runs = self._owned.runs
        runs[:] = [r for r in runs if r.command_execution_status != cl.command_execution_status.COMPLETE]
        return runs

    def state(self) -> int:
        """``CL_COMMAND_BUFFER_STATE_KHR``: :data:`STATE_RECORDING`, ``_EXECUTABLE`` or ``_PENDING``."""
        with self._lock:
            return self._state(self._handle())

    def _state(self, handle: int) -> int:
        value = _U32(STATE_PENDING)
        size = ctypes.sizeof(value)
        _check(self._api.info(handle, _INFO_STATE, size, ctypes.byref(value), None),
               "querying a command buffer's state")
        return value.value

    def release(self) -> None:
        """Release the native command buffer now (it is also released when garbage collected)."""
        with self._lock:
            self._release()

    # --- helpers ------------------------------------------------------------------------

    def _handle(self) -> int:
        if not self._release.alive:
            raise exception(errc.invalid, "the command buffer was released; record a new one")
        return self._owned.handle

    def _recording(self, after: Sequence[int]) -> Sequence[int]:
        self._handle()
        if self._finalized:
            raise exception(errc.invalid, "the command buffer is finalized: no more commands can be "
                                          "recorded into it; record into a new command buffer")
        unknown = [p for p in after if p not in self._sync_points]
        if unknown:
            raise exception(errc.invalid, f"sync points {unknown} were not returned by this command buffer")
        return after

    def _record(self, fn: Callable[..., int], middle: tuple[Any, ...], waits: Sequence[int], action: str,
                properties_first: bool = True) -> int:
        head: tuple[Any, ...] = (self._owned.handle, None)
        if properties_first and self._support.revision >= _PROPERTIES_EVERYWHERE:
            head += (None,)
        point = _U32(0)
        wait_list = (_U32 * len(waits))(*waits) if waits else None
        _check(fn(*head, *middle, len(waits), wait_list, ctypes.byref(point), None), action)
        self._sync_points.add(point.value)
        return point.value

    def _check_range(self, kernel: cl.Kernel, global_size: Sequence[int], local_size: Sequence[int] | None,
                     offset: Sequence[int] | None) -> int:
        """What the driver checks, checked first (PoCL 3.1 crashes on a failed recording)."""
        dims, device = len(global_size), self._device
        if not 1 <= dims <= device.max_work_item_dimensions or any(
            s is not None and len(s) != dims for s in (local_size, offset)
        ):
            raise exception(errc.nd_range, f"a kernel range has 1 to {device.max_work_item_dimensions} "
                                           f"dimensions, the same for global, local and offset: got "
                                           f"{tuple(global_size)}, {local_size}, {offset}")
        if kernel.context.int_ptr != self._queue.context.int_ptr or not _built_for(kernel, device):
            raise exception(errc.invalid, f"kernel {kernel.function_name!r} was not built for the command "
                                          "buffer's queue (another context or device)")
        info = cl.kernel_work_group_info
        required = tuple(kernel.get_work_group_info(info.COMPILE_WORK_GROUP_SIZE, device))
        if all(required) and tuple(local_size or ()) + (1,) * (3 - dims) != required:
            raise exception(errc.nd_range, f"kernel {kernel.function_name!r} requires local size {required}, "
                                           f"got {local_size}")
        if local_size is not None:
            _check_local(kernel, device, tuple(global_size), tuple(local_size))
        return dims

    def _own(self, kernel: cl.Kernel, args: Sequence[Any]) -> None:
        """Set ``args`` on ``kernel``, which the command buffer keeps (with ``args``) from now on."""
        if kernel.int_ptr in self._kernels:
            raise exception(errc.invalid, f"kernel {kernel.function_name!r} is recorded already; "
                                          "record a cl_kernel of its own each time")
        try:
            kernel.set_args(*args)
        except ARGUMENT_ERRORS as error:
            raise argument_exception(error, kernel.function_name) from error
        self._kernels.add(kernel.int_ptr)
        self._owned.keep.extend((kernel, tuple(args)))

    def _wait_executable(self, runs: list[cl.Event]) -> None:
        """Before 0.9.8 without simultaneous use, a pending command buffer cannot be enqueued."""
        cl.wait_for_events(runs)
        deadline = time.monotonic() + 10.0  # the state changes in a driver callback after completion
        while self._state(self._owned.handle) == STATE_PENDING and time.monotonic() < deadline:
            time.sleep(0.0005)


def _built_for(kernel: cl.Kernel, device: cl.Device) -> bool:
    """Whether the kernel's program was built for ``device``: per-device queries of a kernel are
    made only then (NVIDIA's driver crashes otherwise, docs/devices/repro/two_gpu_query.py)."""
    try:
        status = kernel.program.get_build_info(device, cl.program_build_info.STATUS)
    except cl.Error:  # not a device of the program
        return False
    return bool(status == _BUILD_SUCCESS)


def _check_local(kernel: cl.Kernel, device: cl.Device, global_size: tuple[int, ...],
                 local_size: tuple[int, ...]) -> None:
    limit = min(device.max_work_group_size,
                kernel.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, device))
    problem = ""
    if any(loc <= 0 or glob % loc for glob, loc in zip(global_size, local_size, strict=True)):
        problem = "each local size must divide its global size"
    elif int(np.prod(local_size)) > limit:
        problem = f"the work-group size exceeds {limit}"
    elif any(loc > most for loc, most in zip(local_size, device.max_work_item_sizes, strict=False)):
        problem = f"a local size exceeds the device's maximum {tuple(device.max_work_item_sizes)}"
    if problem:
        raise exception(errc.nd_range, f"kernel {kernel.function_name!r}: global {global_size}, "
                                       f"local {local_size}: {problem}")


def _sizes(values: Sequence[int] | None) -> Any:
    return (_SIZE * len(values))(*values) if values is not None else None
