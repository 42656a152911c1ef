"""Category opencl_interop (CTS tests/opencl_interop): OI-01 .. OI-02."""

from __future__ import annotations

import pyopencl as cl

import sycl_ocl as sycl


def test_OI_01_round_trips(queue: sycl.queue) -> None:
    """make_* of a native object gives a wrapper whose get_native is that object."""
    dev, ctx = queue.get_device(), queue.get_context()
    nd, nc, nq = sycl.get_native(dev), sycl.get_native(ctx), sycl.get_native(queue)
    assert sycl.get_native(sycl.make_device(nd)) is nd
    assert sycl.get_native(sycl.make_platform(nd.platform)) is nd.platform
    assert sycl.get_native(sycl.make_context(nc)) is nc
    assert sycl.get_native(sycl.make_queue(nq, ctx)) is nq
    marker = cl.enqueue_marker(nq)
    assert sycl.get_native(sycl.make_event(marker, ctx)) is marker


def test_OI_02_native_objects_are_valid(queue: sycl.queue) -> None:
    """The native objects work with raw PyOpenCL, and a PyOpenCL context can host sycl work."""
    native_ctx = cl.Context([sycl.get_native(queue.get_device())])
    native_queue = cl.CommandQueue(native_ctx)
    ctx = sycl.make_context(native_ctx)
    q = sycl.make_queue(native_queue, ctx)
    q.submit(lambda h: None).wait()
    assert isinstance(sycl.get_native(queue), cl.CommandQueue)
    cl.enqueue_marker(sycl.get_native(queue)).wait()
