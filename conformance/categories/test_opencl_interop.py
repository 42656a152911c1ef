"""Category opencl_interop (CTS tests/opencl_interop): OI-01 .. OI-10."""

from __future__ import annotations

import numpy as np
import pyopencl as cl

import sycl_ocl as sycl
from conformance.support import needs

RAW = """
typedef struct { int a; float b; } pair_t;
__kernel void oi_single(__global int *out, int i, float f, pair_t p) { out[0] = i + (int)f + p.a + (int)p.b; }
__kernel void oi_nd(__global int *out, int v) { out[get_global_id(0)] = v + (int)get_local_id(0); }
"""
(IMAGE_WRITE, IMAGE_READ) = sycl.register_kernel_source(
    """
    __kernel void cts_oi_image_write(__write_only image2d_t img) {
        int2 p = (int2)(get_global_id(0), get_global_id(1));
        write_imagef(img, p, (float4)(p.x, p.y, p.x + p.y, 1.0f));
    }
    __kernel void cts_oi_image_read(__read_only image2d_t img, __global float *out, int width) {
        const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
        int2 p = (int2)(get_global_id(0), get_global_id(1));
        float4 texel = read_imagef(img, s, p);
        out[p.y * width + p.x] = texel.x + 10.0f * texel.y + 100.0f * texel.z;
    }
    """,
    device_has=[sycl.aspect.image],
)


def test_OI_01_round_trips(queue: sycl.queue) -> None:
    """make_* of a native object wraps it; a buffer from a cl_mem has its size and contents."""
    dev, ctx = queue.get_device(), queue.get_context()
    nd, nc, nq = sycl.get_native(dev), sycl.get_native(ctx), sycl.get_native(queue)
    assert sycl.get_native(sycl.make_device(nd)) is nd and sycl.make_device(nd) == dev
    assert sycl.get_native(sycl.make_platform(nd.platform)) is nd.platform
    assert sycl.get_native(sycl.make_context(nc)) is nc and sycl.make_context(nc) == ctx
    assert sycl.get_native(sycl.make_queue(nq, ctx)) is nq
    marker = cl.enqueue_marker(nq)
    assert sycl.get_native(sycl.make_event(marker, ctx)) is marker
    host = np.arange(6, dtype=np.int32)
    mem = cl.Buffer(nc, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    buf = sycl.make_buffer(mem, ctx, np.int32)
    assert not buf.is_sub_buffer() and buf.get_range() == sycl.range(6) and buf.byte_size() == 24
    with sycl.host_accessor(buf, sycl.read_only) as acc:
        assert list(np.asarray(acc)) == list(range(6))


def test_OI_02_native_objects_are_valid(queue: sycl.queue) -> None:
    """get_native of each object gives a working PyOpenCL object; a PyOpenCL context hosts sycl work."""
    ctx = queue.get_context()
    assert isinstance(sycl.get_native(queue.get_device().get_platform()), cl.Platform)
    assert isinstance(sycl.get_native(ctx), cl.Context)
    assert isinstance(sycl.get_native(queue), cl.CommandQueue)
    kb = sycl.get_kernel_bundle(sycl.bundle_state.executable, ctx)
    programs = sycl.get_native(kb)
    assert isinstance(programs, list) and all(isinstance(p, cl.Program) for p in programs)
    cl.enqueue_marker(sycl.get_native(queue)).wait()
    native_ctx = cl.Context([sycl.get_native(queue.get_device())])
    q = sycl.make_queue(cl.CommandQueue(native_ctx), sycl.make_context(native_ctx))
    q.submit(lambda h: h.host_task(lambda: None)).wait_and_throw()
    k = (
        sycl.get_kernel_bundle(sycl.bundle_state.executable, ctx, kernel_ids=["cts_oi_image_write"])
        if queue.get_device().has(sycl.aspect.image)
        else None
    )
    if k is not None:
        native = sycl.get_native(k.get_kernel("cts_oi_image_write"))
        assert isinstance(native, cl.Kernel) and native.function_name == "cts_oi_image_write"


def test_OI_03_raw_program_kernels(queue: sycl.queue) -> None:
    """Kernels of a raw program: set_arg (accessor, int, float, struct) + single_task; set_args + nd_range."""
    ctx = queue.get_context()
    program = cl.Program(sycl.get_native(ctx), RAW).build()
    kb = sycl.make_kernel_bundle(program, ctx)
    single = next(kb.get_kernel(k) for k in kb.get_kernel_ids() if k.get_name() == "oi_single")
    nd = sycl.make_kernel(cl.Kernel(program, "oi_nd"), ctx)
    pair = np.array((3, 4.0), dtype=[("a", np.int32), ("b", np.float32)])[()]
    out = np.zeros(8, np.int32)
    with sycl.buffer(out) as buf:

        def single_cgf(h: sycl.handler) -> None:
            h.set_arg(0, sycl.accessor(buf, h))
            h.set_arg(1, np.int32(1))
            h.set_arg(2, np.float32(2.0))
            h.set_arg(3, pair)
            h.single_task(single)

        queue.submit(single_cgf).wait_and_throw()
        with sycl.host_accessor(buf, sycl.read_only) as acc:
            assert acc[0] == 1 + 2 + 3 + 4
        queue.submit(
            lambda h: (
                h.set_args(sycl.accessor(buf, h), np.int32(10)),
                h.parallel_for(sycl.nd_range(sycl.range(8), sycl.range(4)), nd),
            )
        )
    assert list(out) == [10, 11, 12, 13] * 2


def test_OI_10_images(queue: sycl.queue) -> None:
    """A 2-D image written by one kernel and read back through a sampler by another."""
    needs(queue.get_device(), sycl.aspect.image)
    width, height = 8, 4
    fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT)
    image = cl.Image(
        sycl.get_native(queue.get_context()), cl.mem_flags.READ_WRITE, fmt, shape=(width, height)
    )
    out = np.zeros((height, width), np.float32)
    in_order = sycl.queue(queue.get_context(), queue.get_device(), prop_list=[sycl.property.queue.in_order()])
    with sycl.buffer(out) as buf:
        wrote = in_order.parallel_for(sycl.range(height, width), IMAGE_WRITE, image)
        in_order.submit(
            lambda h: (
                h.depends_on(wrote),
                h.parallel_for(
                    sycl.range(height, width),
                    IMAGE_READ,
                    image,
                    sycl.accessor(buf, h, sycl.write_only),
                    width,
                ),
            )
        )
    y, x = np.mgrid[0:height, 0:width]
    assert (out == x + 10 * y + 100 * (x + y)).all()
