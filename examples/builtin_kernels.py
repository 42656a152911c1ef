"""Run a device built-in kernel by its id (SYCL 2020 §4.11.6): PoCL's ``pocl.add.i8``.

A bundle built from built-in kernel ids uses ``clCreateProgramWithBuiltInKernels``; the
kernel is launched with ``set_args`` + ``parallel_for``. Prints what it ran and checks the
result; exits 0 with a note when no device advertises ``pocl.add.i8`` or it cannot be built.

PoCL 3.1 crashes when a built-in kernel is enqueued (PoCL 5.0 runs it), so the tests run
this script in a child process.
"""

from __future__ import annotations

import sys

import numpy as np
import pyopencl as cl

import sycl_ocl as sycl

NAME = "pocl.add.i8"


def run_on(dev: sycl.device) -> bool:
    """Add two int8 arrays with the built-in kernel on ``dev``; True if the sum is right."""
    kid = next(k for k in dev.get_info(sycl.info.device.built_in_kernel_ids) if k.get_name() == NAME)
    ctx = sycl.context(dev)
    q = sycl.queue(ctx, dev)
    bundle = sycl.get_kernel_bundle(sycl.bundle_state.executable, ctx, [dev], [kid])
    n = 64
    a = np.arange(n, dtype=np.int8)
    b = np.full(n, 3, dtype=np.int8)
    out = np.zeros(n, dtype=np.int8)
    native_ctx = sycl.get_native(ctx)  # PyOpenCL buffers through interop (§4.5.1.2)
    flags = cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
    a_buf = cl.Buffer(native_ctx, flags, hostbuf=a)
    b_buf = cl.Buffer(native_ctx, flags, hostbuf=b)
    out_buf = cl.Buffer(native_ctx, cl.mem_flags.WRITE_ONLY, out.nbytes)

    def cgf(h: sycl.handler) -> None:
        h.use_kernel_bundle(bundle)
        h.set_args(a_buf, b_buf, out_buf)
        h.parallel_for(sycl.range(n), kid)

    print(f"running {NAME} on {dev.get_info(sycl.info.device.name)} over {n} elements", flush=True)
    q.submit(cgf).wait()
    cl.enqueue_copy(sycl.get_native(q), out, out_buf)
    ok = bool(np.array_equal(out, a + b))
    print(f"{NAME}: out[:8] = {out[:8].tolist()} -> {'verified' if ok else 'WRONG'}", flush=True)
    return ok


def main() -> int:
    devices = [
        d for d in sycl.device.get_devices()
        if any(k.get_name() == NAME for k in d.get_info(sycl.info.device.built_in_kernel_ids))
    ]
    if not devices:
        print(f"no device advertises {NAME}; nothing to run")
        return 0
    try:
        return 0 if run_on(devices[0]) else 1
    except sycl.exception as error:
        if error.code() is not sycl.errc.build:
            raise
        # Debian/Ubuntu PoCL packages lack the source PoCL builds its built-in kernels from.
        print(f"{NAME} could not be built ({error.what().splitlines()[0]}); nothing to run. Install "
              "common_builtin_kernels.cl into PoCL's share directory (tools/install_opencl.sh does it)")
        return 0


if __name__ == "__main__":
    sys.exit(main())
