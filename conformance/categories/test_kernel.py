"""Category kernel (CTS tests/kernel): KN-01 .. KN-07."""

from __future__ import annotations

import copy

import numpy as np
import pyopencl.cltypes as cltypes
import pytest

import sycl_ocl as sycl
from conformance.support import raises

(PLAIN,) = sycl.register_kernel_source(
    "__kernel void cts_plain(__global int *d, int v) { d[get_global_id(0)] = v; }"
)
(REQD,) = sycl.register_kernel_source(
    "__kernel __attribute__((reqd_work_group_size(4, 2, 1))) void cts_kn_reqd(__global int *d) { d[0] = 1; }"
)
(HINTED,) = sycl.register_kernel_source(
    """
    __kernel __attribute__((vec_type_hint(float4))) __attribute__((work_group_size_hint(8, 1, 1)))
    void cts_kn_hinted(__global float4 *d) { d[get_global_id(0)] = d[get_global_id(0)] * 2.0f; }
    """
)


def _kernel(q: sycl.queue, kid: sycl.kernel_id = PLAIN) -> sycl.kernel:
    bundle = sycl.get_kernel_bundle(sycl.bundle_state.executable, q.get_context(), kernel_ids=[kid])
    return bundle.get_kernel(kid)


def test_KN_01_context_and_backend(queue: sycl.queue) -> None:
    """A kernel knows its context, backend and bundle."""
    k = _kernel(queue)
    assert k.get_context() == queue.get_context()
    assert k.get_backend() is sycl.backend.opencl
    assert k.get_kernel_bundle().has_kernel(PLAIN)
    assert k.get_kernel_bundle().get_context() == queue.get_context()


def test_KN_02_construction_and_native_kernel(queue: sycl.queue) -> None:
    """Not constructible; kernels from one bundle wrap one native kernel and compare equal."""
    with pytest.raises(TypeError):
        sycl.kernel()
    kb = sycl.get_kernel_bundle(sycl.bundle_state.executable, queue.get_context(), kernel_ids=[PLAIN])
    a, b = kb.get_kernel(PLAIN), kb.get_kernel(PLAIN)
    assert a == b and hash(a) == hash(b)
    assert sycl.get_native(a).int_ptr == sycl.get_native(b).int_ptr
    assert sycl.get_native(a).program.int_ptr == sycl.get_native(b).program.int_ptr


def test_KN_03_reference_semantics(queue: sycl.queue) -> None:
    """Copies of a kernel are equal, hash equal and share the context."""
    k = _kernel(queue)
    for twin in (k, copy.copy(k)):
        assert twin == k and hash(twin) == hash(k) and twin.get_context() == k.get_context()
    assert _kernel(queue, REQD) != k


def test_KN_05_info(queue: sycl.queue) -> None:
    """Kernel descriptors answer within the device's limits; compile sizes follow the attribute."""
    k, dev = _kernel(queue), queue.get_device()
    assert k.get_info(sycl.info.kernel.num_args) == 2
    assert isinstance(k.get_info(sycl.info.kernel.attributes), str)
    spec = sycl.info.kernel_device_specific
    wg = k.get_info(spec.work_group_size, dev)
    assert 1 <= wg <= dev.get_info(sycl.info.device.max_work_group_size)
    assert 1 <= k.get_info(spec.preferred_work_group_size_multiple, dev) <= wg
    assert tuple(k.get_info(spec.compile_work_group_size, dev)) == (0, 0, 0)
    assert k.get_info(spec.compile_num_sub_groups, dev) == 0
    assert k.get_info(spec.compile_sub_group_size, dev) == 0
    assert 1 <= k.get_info(spec.max_num_sub_groups, dev) <= dev.get_info(sycl.info.device.max_num_sub_groups)
    assert k.get_info(spec.max_sub_group_size, dev) <= max(dev.get_info(sycl.info.device.sub_group_sizes))
    assert tuple(_kernel(queue, REQD).get_info(spec.compile_work_group_size, dev)) == (1, 2, 4)  # SYCL order
    with raises(sycl.errc.invalid):
        k.get_info(spec.work_group_size)  # device-specific: needs the device


def test_KN_06_hint_attributes(queue: sycl.queue) -> None:
    """Kernels with vec_type_hint and work_group_size_hint compile and run."""
    data = np.arange(32, dtype=np.float32)
    with sycl.buffer(data) as buf, buf.reinterpret(cltypes.float4, sycl.range(8)) as vectors:
        queue.submit(lambda h: h.parallel_for(sycl.range(8), HINTED, sycl.accessor(vectors, h)))
    assert (data == 2 * np.arange(32)).all()


def test_KN_07_wrong_argument_count(queue: sycl.queue) -> None:
    """A launch with a missing argument raises errc.kernel_argument."""
    with raises(sycl.errc.kernel_argument):
        queue.parallel_for(sycl.range(1), PLAIN, 1).wait()
