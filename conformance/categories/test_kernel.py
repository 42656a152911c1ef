"""Category kernel (CTS tests/kernel): KN-01 .. KN-05."""

from __future__ import annotations

import pytest

import sycl_ocl as sycl

(PLAIN,) = sycl.register_kernel_source(
    "__kernel void cts_plain(__global int *d, int v) { d[get_global_id(0)] = v; }"
)


def _kernel(q: sycl.queue) -> sycl.kernel:
    bundle = sycl.get_kernel_bundle(sycl.bundle_state.executable, q.get_context(), kernel_ids=[PLAIN])
    return bundle.get_kernel(PLAIN)


def test_KN_01_context_and_backend(queue: sycl.queue) -> None:
    """A kernel knows its context, backend and bundle."""
    k = _kernel(queue)
    assert k.get_context() == queue.get_context()
    assert k.get_backend() is sycl.backend.opencl
    assert k.get_kernel_bundle().has_kernel(PLAIN)


def test_KN_02_reference_semantics(queue: sycl.queue) -> None:
    """Kernels from one bundle wrap one native kernel and compare equal."""
    kb = sycl.get_kernel_bundle(sycl.bundle_state.executable, queue.get_context(), kernel_ids=[PLAIN])
    a, b = kb.get_kernel(PLAIN), kb.get_kernel(PLAIN)
    assert a == b and hash(a) == hash(b)
    assert sycl.get_native(a).int_ptr == sycl.get_native(b).int_ptr


def test_KN_05_info(queue: sycl.queue) -> None:
    """num_args, attributes and the device-specific descriptors answer sensibly."""
    k, dev = _kernel(queue), queue.get_device()
    assert k.get_info(sycl.info.kernel.num_args) == 2
    assert isinstance(k.get_info(sycl.info.kernel.attributes), str)
    spec = sycl.info.kernel_device_specific
    wg = k.get_info(spec.work_group_size, dev)
    assert 1 <= wg <= dev.get_info(sycl.info.device.max_work_group_size)
    assert k.get_info(spec.preferred_work_group_size_multiple, dev) <= wg
    assert tuple(k.get_info(spec.compile_work_group_size, dev)) == (0, 0, 0)


def test_KN_06_kernel_object_launch(queue: sycl.queue) -> None:
    """A kernel object launched with set_args writes its argument."""
    import numpy as np

    k = _kernel(queue)
    data = np.zeros(4, np.int32)
    with sycl.buffer(data) as buf:
        queue.submit(lambda h: (h.set_args(sycl.accessor(buf, h, sycl.write_only), 9),
                                h.parallel_for(sycl.range(4), k))).wait()
    assert list(data) == [9] * 4


def test_KN_07_wrong_argument_count(queue: sycl.queue) -> None:
    """A launch with a missing argument raises errc.kernel_argument."""
    with pytest.raises(sycl.exception) as info:
        queue.parallel_for(sycl.range(1), PLAIN, 1).wait()
    assert info.value.code() is sycl.errc.kernel_argument
