"""PyOpenCL and SYCL on the same data, both ways, in one program.

Teaches:

1. PyOpenCL work on a SYCL buffer: a host task whose function takes one parameter receives a
   ``sycl.interop_handle``. ``ih.get_native_mem(acc)`` is the buffer's ``pyopencl.Buffer`` in
   the queue's context, holding its current data, and ``ih.get_native_queue()`` the queue's
   ``pyopencl.CommandQueue``: here ``pyopencl.array`` centres the data on its mean. That work is
   part of the host task, so the SYCL kernel and the host accessor after it see its result,
   with no wait written anywhere (SYCL 2020 §4.10.2).
2. A SYCL kernel on a PyOpenCL buffer: ``sycl.make_buffer(mem, ctx, dtype)`` wraps a
   ``pyopencl.Buffer`` of the queue's context; accessors on it order SYCL kernels like any
   buffer's, the kernels write straight into that memory, and PyOpenCL reads it back once the
   queue is done (§4.5.1.3).

Runs on any OpenCL device.
"""

from __future__ import annotations

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array

import sycl_ocl as sycl

sycl.register_kernel_source("""
__kernel void square(__global float *x) {
    size_t i = get_global_id(0);
    x[i] = x[i] * x[i];
}
__kernel void affine(__global float *x, float scale, float shift) {
    size_t i = get_global_id(0);
    x[i] = scale * x[i] + shift;
}
""")
N = 1024


def pyopencl_on_a_sycl_buffer(q: sycl.queue) -> None:
    """SYCL kernel -> pyopencl.array in a host task -> SYCL kernel -> host accessor."""
    data = np.linspace(0.0, 1.0, N, dtype=np.float32)
    expected = ((3 * data + 1) - (3 * data + 1).mean()) ** 2
    with sycl.buffer(data) as buf:
        q.submit(lambda h: h.parallel_for(N, "affine", sycl.accessor(buf, h), 3.0, 1.0))

        def centre(h: sycl.handler) -> None:
            acc = sycl.accessor(buf, h, sycl.read_write)

            def body(ih: sycl.interop_handle) -> None:
                (mem,) = ih.get_native_mem(acc)
                x = cl_array.Array(ih.get_native_queue(), (N,), np.float32, data=mem)
                x -= cl_array.sum(x).get() / N  # native work on the SYCL buffer's memory

            h.host_task(body)

        q.submit(centre)
        q.submit(lambda h: h.parallel_for(N, "square", sycl.accessor(buf, h)))
        with sycl.host_accessor(buf, sycl.read_only) as result:
            assert np.allclose(np.asarray(result), expected, atol=1e-5)
    print(f"pyopencl.array on a SYCL buffer: {N} values centred by PyOpenCL, squared by SYCL; "
          f"the host accessor saw them (sum {expected.sum():.2f})")


def sycl_on_a_pyopencl_buffer(q: sycl.queue) -> None:
    """pyopencl.Buffer -> two SYCL kernels through make_buffer -> pyopencl reads it."""
    ctx, native_q = sycl.get_native(q.get_context()), sycl.get_native(q)
    values = np.arange(N, dtype=np.float32)
    mem = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=values)
    buf = sycl.make_buffer(mem, q.get_context(), np.float32)
    q.submit(lambda h: h.parallel_for(N, "affine", sycl.accessor(buf, h), 0.5, -1.0))
    q.submit(lambda h: h.parallel_for(N, "square", sycl.accessor(buf, h)))
    q.wait()
    out = np.empty_like(values)
    cl.enqueue_copy(native_q, out, mem)
    assert np.allclose(out, (0.5 * values - 1.0) ** 2)
    print(f"SYCL kernels on a pyopencl.Buffer: {N} values, PyOpenCL read back {out[:3].tolist()}...")


def main() -> None:
    q = sycl.queue()
    print(f"device: {q.get_device().get_info(sycl.info.device.name)}")
    pyopencl_on_a_sycl_buffer(q)
    sycl_on_a_pyopencl_buffer(q)


if __name__ == "__main__":
    main()
