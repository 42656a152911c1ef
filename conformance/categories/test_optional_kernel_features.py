"""Category optional_kernel_features (CTS tests/optional_kernel_features): OKF-01 .. OKF-11.

A kernel that needs an aspect the device lacks raises ``errc.kernel_not_supported`` when it is
submitted, before anything runs. Also the driver's 64-bit integer and fp64 arithmetic.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import sycl_ocl as sycl
from conformance.support import child, needs, raises

A = sycl.aspect
BODY = "(__global int *d) { d[get_global_id(0)] += 1; }"
USES = {
    A.fp64: sycl.register_kernel_source(
        "__kernel void cts_okf_uses_fp64(__global int *d) { double x = d[0]; d[0] = (int)(x * 2.0); }"
    )[0],
    A.fp16: sycl.register_kernel_source(
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
        "__kernel void cts_okf_uses_fp16(__global int *d) { half x = (half)d[0]; d[0] = (int)(x * (half)2); }"
    )[0],
    A.atomic64: sycl.register_kernel_source(
        "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
        "__kernel void cts_okf_uses_atomic64(__global long *d) { atom_add(d, 2L); }"
    )[0],
}
DECLARED = (
    A.gpu,
    A.accelerator,
    A.custom,
    A.fp16,
    A.fp64,
    A.atomic64,
    A.image,
    A.queue_profiling,
    A.usm_device_allocations,
    A.usm_host_allocations,
    A.usm_shared_allocations,
)
DECLARES = {
    asp: sycl.register_kernel_source(f"__kernel void cts_okf_declares_{asp.name}{BODY}", device_has=[asp])[0]
    for asp in DECLARED
}
# Uses fp64 and declares gpu; uses atomic64 and declares fp16.
(FP64_DECLARES_GPU,) = sycl.register_kernel_source(
    "__kernel void cts_okf_fp64_on_gpu(__global int *d) { double x = d[0]; d[0] = (int)(x + 1.0); }",
    device_has=[A.gpu],
)
(ATOMIC64_DECLARES_FP16,) = sycl.register_kernel_source(
    "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
    "__kernel void cts_okf_atomic64_fp16(__global long *d) { atom_add(d, 1L); }",
    device_has=[A.fp16],
)
REQD = {
    shape: sycl.register_kernel_source(
        f"__kernel __attribute__((reqd_work_group_size({', '.join(map(str, shape))}))) "
        f"void cts_okf_wg_{'_'.join(map(str, shape))}{BODY}"
    )[0]
    for shape in ((4, 1, 1), (4, 4, 1), (4, 4, 4), (4294967295, 1, 1))
}
INT64, FP64 = sycl.register_kernel_source(
    """
    __kernel void cts_okf_int64(__global const long *a, __global const long *b, __global long *out) {
        size_t i = get_global_id(0);
        long x = a[i], y = b[i];
        out[6 * i + 0] = (long)((ulong)x * (ulong)y);
        out[6 * i + 1] = x / y;
        out[6 * i + 2] = x % y;
        out[6 * i + 3] = x >> 7;
        out[6 * i + 4] = (long)((ulong)x << 9);
        out[6 * i + 5] = (long)((ulong)x >> 61) + (x < y ? 1 : 0);
    }
    __kernel void cts_okf_fp64(__global const double *a, __global const double *b,
                               __global const double *c, __global double *out) {
        size_t i = get_global_id(0);
        double x = a[i], y = b[i];
        out[5 * i + 0] = x + y;
        out[5 * i + 1] = x * y;
        out[5 * i + 2] = x / y;
        out[5 * i + 3] = sqrt(fabs(x));
        out[5 * i + 4] = fma(x, y, c[i]);
    }
    """
)


def _submit(
    q: sycl.queue, kernel: sycl.kernel_id, dtype: type = np.int32, nd: sycl.nd_range | None = None
) -> None:
    data = np.zeros(nd.get_global_range().size() if nd else 4, dtype)
    with sycl.buffer(data) as buf:
        q.submit(
            lambda h: h.parallel_for(nd or sycl.range(data.size), kernel, sycl.accessor(buf, h))
        ).wait_and_throw()


def test_OKF_01_uses_a_missing_feature(queue: sycl.queue) -> None:
    """A kernel using fp64, fp16 or 64-bit atomics raises kernel_not_supported where the aspect is missing."""
    dev = queue.get_device()
    missing = [a for a in USES if not dev.has(a)]
    for asp, kid in USES.items():
        dtype = np.int64 if asp is A.atomic64 else np.int32
        if dev.has(asp):
            _submit(queue, kid, dtype)
        else:
            with raises(sycl.errc.kernel_not_supported):
                _submit(queue, kid, dtype)
            with raises(sycl.errc.kernel_not_supported):
                one = sycl.buffer(sycl.range(1), dtype)
                queue.submit(lambda h, kid=kid, one=one: h.single_task(kid, sycl.accessor(one, h)))
    if not missing:
        pytest.skip("the device has fp64, fp16 and atomic64 (checked: those kernels run)")


def test_OKF_02_declares_without_using(queue: sycl.queue) -> None:
    """device_has(X) without using X: kernel_not_supported exactly when the device lacks X."""
    dev = queue.get_device()
    for asp, kid in DECLARES.items():
        if dev.has(asp):
            _submit(queue, kid)
        else:
            with raises(sycl.errc.kernel_not_supported):
                _submit(queue, kid)


def test_OKF_03_uses_one_declares_another(queue: sycl.queue) -> None:
    """A kernel using X and declaring Y runs only where the device has both."""
    dev = queue.get_device()
    for kid, aspects, dtype in (
        (FP64_DECLARES_GPU, (A.fp64, A.gpu), np.int32),
        (ATOMIC64_DECLARES_FP16, (A.atomic64, A.fp16), np.int64),
    ):
        if all(dev.has(a) for a in aspects):
            _submit(queue, kid, dtype)
        else:
            with raises(sycl.errc.kernel_not_supported):
                _submit(queue, kid, dtype)


def test_OKF_04_required_work_group_size(queue: sycl.queue) -> None:
    """A required size beyond the device: kernel_not_supported; else it runs; another local size: nd_range."""
    dev = queue.get_device()
    max_group = dev.get_info(sycl.info.device.max_work_group_size)
    for shape, kid in REQD.items():
        dims = 1 if shape[1] == 1 else 2 if shape[2] == 1 else 3
        local = tuple(reversed(shape[:dims]))  # SYCL order
        limits = dev.get_info(sycl.info.device.max_work_item_sizes[dims])
        fits = math.prod(local) <= max_group and all(s <= m for s, m in zip(local, limits, strict=True))
        nd = (
            sycl.nd_range(sycl.range(*(2 * s for s in local)), sycl.range(*local))
            if fits
            else sycl.nd_range(sycl.range(*([1] * dims)), sycl.range(*([1] * dims)))
        )
        if fits:
            _submit(queue, kid, nd=nd)
            wrong = sycl.nd_range(sycl.range(*(2 * s for s in local)), sycl.range(*([2] + [1] * (dims - 1))))
            with raises(sycl.errc.nd_range):
                _submit(queue, kid, nd=wrong)
        else:
            with raises(sycl.errc.kernel_not_supported):
                _submit(queue, kid, nd=nd)


def test_OKF_07_no_speculative_compilation() -> None:
    """A unit for an aspect the device lacks is never compiled: the others build and run."""
    found = child(
        """
        import json, numpy as np, sycl_ocl as sycl
        dev = sycl.device()
        kinds = (sycl.aspect.gpu, sycl.aspect.accelerator, sycl.aspect.custom)
        lacking = next(a for a in kinds if not dev.has(a))
        (bad,) = sycl.register_kernel_source(
            "#error this unit must never be compiled on this device\\n"
            "__kernel void okf7_never(__global int *d) { d[0] = 1; }", device_has=[lacking])
        (good,) = sycl.register_kernel_source("__kernel void okf7_plain(__global int *d) { d[0] = 7; }")
        kb = sycl.get_kernel_bundle(sycl.bundle_state.executable, sycl.context(dev))
        out = np.zeros(1, np.int32)
        with sycl.buffer(out) as buf:
            sycl.queue(dev).submit(lambda h: h.single_task("okf7_plain", sycl.accessor(buf, h)))
        print(json.dumps([kb.has_kernel(good), kb.has_kernel(bad), int(out[0])]))
        """
    )
    assert found == [True, False, 7]


def _elementwise(
    queue: sycl.queue, kernel: sycl.kernel_id, inputs: list[np.ndarray], out: np.ndarray
) -> np.ndarray:
    """Run ``kernel(inputs..., out)`` over the inputs' elements; returns ``out``."""
    buffers = [sycl.buffer(a) for a in inputs]
    with sycl.buffer(out) as ob:
        queue.submit(
            lambda h: h.parallel_for(
                sycl.range(inputs[0].size),
                kernel,
                *(sycl.accessor(b, h, sycl.read_only) for b in buffers),
                sycl.accessor(ob, h),
            )
        )
    return out


def test_OKF_10_int64_arithmetic(queue: sycl.queue) -> None:
    """64-bit multiply (wrapping), divide, remainder and shifts give C's exact results."""
    rng = np.random.default_rng(14)
    a = rng.integers(-(2**62), 2**62, 64, dtype=np.int64)
    b = rng.integers(-(2**40), 2**40, 64, dtype=np.int64)
    b[b == 0] = 3
    a[:4] = [2**62, -(2**62), 12345678901234, -1]
    b[:4] = [-7, 3, -(2**33), 5]
    out = _elementwise(queue, INT64, [a, b], np.zeros(6 * 64, np.int64))

    def wrap(v: int) -> int:
        return (v + 2**63) % 2**64 - 2**63

    for i, (x, y) in enumerate(zip(a.tolist(), b.tolist(), strict=True)):
        q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)  # C division truncates
        expected = [wrap(x * y), q, x - q * y, x >> 7, wrap(x << 9), ((x % 2**64) >> 61) + (x < y)]
        assert out[6 * i : 6 * i + 6].tolist() == expected, (x, y)


def test_OKF_11_fp64_arithmetic(queue: sycl.queue) -> None:
    """fp64 add, multiply, divide, sqrt and fma are correctly rounded (where the device has fp64)."""
    needs(queue.get_device(), A.fp64)
    rng = np.random.default_rng(11)
    a, b, c = (rng.standard_normal(64) * 10.0 ** rng.integers(-30, 30, 64) for _ in range(3))
    a[0], b[0], c[0] = 1.0 + 2**-52, 1.0 - 2**-53, -1.0  # fma keeps what a*b+c would round away
    out = _elementwise(queue, FP64, [a, b, c], np.zeros(5 * 64))
    for i, (x, y, z) in enumerate(zip(a.tolist(), b.tolist(), c.tolist(), strict=True)):
        exact_fma = float(Fraction(x) * Fraction(y) + Fraction(z))
        expected = [x + y, x * y, x / y, math.sqrt(abs(x)), exact_fma]
        assert out[5 * i : 5 * i + 5].tolist() == expected, (i, x, y, z)
