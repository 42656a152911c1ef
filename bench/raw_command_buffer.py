"""The chain as one raw ``cl_khr_command_buffer``: PyOpenCL objects and ctypes, no sycl_ocl.

The ``raw command buffer`` system of the ``chain`` benchmark: what the driver's command buffer
costs by itself, so that ``sycl_ocl graph replay`` can be split into the driver's share and
sycl_ocl's. Run as a program, it runs the chain alone, for profilers (docs/performance.md)::

    python -m bench.raw_command_buffer {loop,replay} REPLAYS [--device REGEX]

``loop`` is raw ``set_args`` + enqueue of each kernel, ``replay`` one command buffer of them;
the difference of two runs with different ``REPLAYS`` under ``perf stat`` or callgrind is the
cost of the replays alone. It binds only the four entry points it calls, whose C signatures are the same in
every revision (0.9.0 to 1.0.0), on purpose apart from ``sycl_ocl._command_buffer``: it must
not measure sycl_ocl.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pyopencl as cl
import pyopencl._cl as _cl_module

EXTENSION = "cl_khr_command_buffer"
_P, _U32, _SIZE, _INT = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_size_t, ctypes.c_int32
_U32_P = ctypes.POINTER(_U32)


class RawCommandBuffer:
    """Kernels recorded into one command buffer of ``queue``, each after the previous one."""

    def __init__(self, queue: cl.CommandQueue) -> None:
        if EXTENSION not in queue.device.extensions.split():
            raise LookupError(f"the device lacks {EXTENSION}")
        lib = ctypes.CDLL(_cl_module.__file__)
        lookup = lib.clGetExtensionFunctionAddressForPlatform
        lookup.restype, lookup.argtypes = _P, [_P, ctypes.c_char_p]

        def entry(name: str, restype: Any, *types: Any) -> Callable[..., Any]:
            address = lookup(queue.device.platform.int_ptr, name.encode())
            if not address:
                raise LookupError(f"{name} does not resolve")
            return ctypes.CFUNCTYPE(restype, *types)(address)

        create = entry("clCreateCommandBufferKHR", _P, _U32, ctypes.POINTER(_P), _P, ctypes.POINTER(_INT))
        self._ndrange = entry("clCommandNDRangeKernelKHR", _INT, _P, _P, _P, _P, _U32, _P,
                              ctypes.POINTER(_SIZE), _P, _U32, _U32_P, _U32_P, _P)
        self._finalize = entry("clFinalizeCommandBufferKHR", _INT, _P)
        self._enqueue = entry("clEnqueueCommandBufferKHR", _INT, _U32, _P, _P, _U32, _P, ctypes.POINTER(_P))
        self._release = entry("clReleaseCommandBufferKHR", _INT, _P)
        status = _INT(0)
        self._handle = create(1, (_P * 1)(queue.int_ptr), None, ctypes.byref(status))
        self._check(status.value, "clCreateCommandBufferKHR")
        self._point: int | None = None
        self._kernels: list[cl.Kernel] = []  # alive as long as the command buffer

    @staticmethod
    def _check(status: int, call: str) -> None:
        if status != 0:
            raise RuntimeError(f"{call} failed with status {status}")

    def record(self, kernel: cl.Kernel, global_size: int) -> None:
        """Record ``kernel`` (its arguments set) over ``global_size`` work-items, after the last one."""
        waits = (_U32 * 1)(self._point) if self._point is not None else None
        point = _U32(0)
        self._check(self._ndrange(self._handle, None, None, kernel.int_ptr, 1, None, (_SIZE * 1)(global_size),
                                  None, 0 if waits is None else 1, waits, ctypes.byref(point), None),
                    "clCommandNDRangeKernelKHR")
        self._point = point.value
        self._kernels.append(kernel)

    def finalize(self) -> None:
        self._check(self._finalize(self._handle), "clFinalizeCommandBufferKHR")

    def enqueue(self) -> cl.Event:
        """One replay on the recording queue; its event."""
        event = _P()
        self._check(self._enqueue(0, None, self._handle, 0, None, ctypes.byref(event)),
                    "clEnqueueCommandBufferKHR")
        return cl.Event.from_int_ptr(event.value or 0, retain=False)

    def __del__(self) -> None:
        if getattr(self, "_handle", None):
            self._release(self._handle)


KERNEL = """__kernel void halve_add(__global float* a, float s)
{ size_t i = get_global_id(0); a[i] = a[i] * 0.5f + s; }"""


def main() -> None:
    parser = argparse.ArgumentParser(description="The 1,000-kernel chain in raw PyOpenCL, for profilers.")
    parser.add_argument("way", choices=["loop", "replay"])
    parser.add_argument("replays", type=int)
    parser.add_argument("--device", default="Portable", help='regex over "platform / device"')
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--size", type=int, default=1 << 16)
    args = parser.parse_args()
    os.environ.setdefault("POCL_DEVICES", "pthread")
    device = next(d for p in cl.get_platforms() for d in p.get_devices()
                  if re.search(args.device, f"{p.name} / {d.name}", re.IGNORECASE))
    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx)
    kernel = cl.Kernel(cl.Program(ctx, KERNEL).build(), "halve_add")
    kernel.set_scalar_arg_dtypes([None, np.float32])
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                    hostbuf=np.ones(args.size, np.float32))
    step = np.float32(1)
    kernel.set_args(buf, step)
    commands = RawCommandBuffer(queue)
    for _ in range(args.count):
        commands.record(kernel, args.size)
    commands.finalize()
    for _ in range(args.replays):
        if args.way == "replay":
            commands.enqueue().wait()
        else:
            for _ in range(args.count):
                kernel.set_args(buf, step)
                cl.enqueue_nd_range_kernel(queue, kernel, (args.size,), None)
        queue.finish()


if __name__ == "__main__":
    main()
