"""Unified shared memory: pointers instead of buffers and accessors.

Teaches: typed allocations (``sycl.malloc_device(count=n, dtype=numpy.float32, q=q)``),
``queue.memcpy`` between numpy arrays and USM, kernels taking ``sycl.usm_ptr`` arguments as
``__global T*`` parameters, ordering by events (``depends_on=``) since USM commands have no
accessors to order them, host and shared memory that numpy reads and writes in place
(``numpy.asarray(p)``), and ``sycl.free``.

USM is built on OpenCL shared virtual memory (docs/usm.md): PoCL has every kind, NVIDIA device
allocations only, Oclgrind (OpenCL 1.2) none; the example says what the device lacks and
shows the rest.
"""

from __future__ import annotations

import numpy as np

import sycl_ocl as sycl

N = 4096

sycl.register_kernel_source("""
__kernel void usm_axpy(__global float *y, __global const float *x, float a) {
    size_t i = get_global_id(0);
    y[i] += a * x[i];
}
""")


def device_memory(q: sycl.queue, x: np.ndarray) -> None:
    """Device memory: the host reaches it only through copies."""
    y = np.ones(N, dtype=np.float32)
    d_x = sycl.malloc_device(count=N, dtype=np.float32, q=q)
    d_y = sycl.malloc_device(count=N, dtype=np.float32, q=q)
    copied = [q.memcpy(d_x, x, x.nbytes), q.memcpy(d_y, y, y.nbytes)]
    done = q.parallel_for(N, "usm_axpy", d_y, d_x, 2.0, depends_on=copied)  # y += 2 x
    q.memcpy(y, d_y, y.nbytes, depends_on=done).wait()
    assert np.allclose(y, 1 + 2 * x)
    sycl.free(d_x, q)
    sycl.free(d_y, q)
    print("device memory: memcpy in, usm_axpy, memcpy out: ok")


def shared_memory(q: sycl.queue, x: np.ndarray) -> None:
    """Shared memory: the host writes it in place, the kernel updates it, the host reads it."""
    s = sycl.malloc_shared(count=N, dtype=np.float32, q=q)
    view = np.asarray(s)  # a numpy view of the allocation, no copy
    view[:] = x
    q.parallel_for(N, "usm_axpy", s, s, 1.0).wait()  # s += s
    assert np.allclose(view, 2 * x)
    sycl.free(s, q)
    print("shared memory: written and read in place by numpy: ok")


def host_memory(q: sycl.queue, x: np.ndarray) -> None:
    """Host memory: the device reads it directly (the SYCL counterpart of pinned memory)."""
    h_x = sycl.malloc_host(count=N, dtype=np.float32, q=q)
    np.asarray(h_x)[:] = x
    d_y = sycl.malloc_device(count=N, dtype=np.float32, q=q)
    zeroed = q.memset(d_y, 0, N * 4)
    done = q.parallel_for(N, "usm_axpy", d_y, h_x, 3.0, depends_on=zeroed)  # y = 3 x
    y = np.empty(N, dtype=np.float32)
    q.copy(d_y, y, N, depends_on=done).wait()
    assert np.allclose(y, 3 * x)
    sycl.free(h_x, q)
    sycl.free(d_y, q)
    print("host memory: read by a kernel without a copy: ok")


def main() -> None:
    q = sycl.queue()
    dev = q.get_device()
    name = dev.get_info(sycl.info.device.name)
    if not dev.has(sycl.aspect.usm_device_allocations):
        print(f"{name} has no USM (no OpenCL 2.0 shared virtual memory): nothing to show")
        return
    x = np.arange(N, dtype=np.float32)
    device_memory(q, x)
    for aspect, show in ((sycl.aspect.usm_shared_allocations, shared_memory),
                         (sycl.aspect.usm_host_allocations, host_memory)):
        if dev.has(aspect):
            show(q, x)
        else:
            print(f"{name} has no {aspect.name} (coarse-grain SVM only): skipped")
    print(f"USM on {name}: ok")


if __name__ == "__main__":
    main()
