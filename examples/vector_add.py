"""Vector add with your own kernel: the smallest complete sycl_ocl program.

Teaches: registering an OpenCL C kernel with ``sycl.register_kernel_source``, wrapping numpy
arrays in buffers, passing accessors and a scalar to ``parallel_for``, and getting the
result back when the buffers' ``with`` block ends (the output array is written back).
"""

from __future__ import annotations

import numpy as np

import sycl_ocl as sycl

sycl.register_kernel_source("""
__kernel void vector_add(__global const float *a, __global const float *b,
                         __global float *c, float scale) {
    size_t i = get_global_id(0);
    c[i] = scale * (a[i] + b[i]);
}
""")


def main() -> None:
    q = sycl.queue()
    n = 100_000
    a = np.random.default_rng(0).random(n, dtype=np.float32)
    b = np.arange(n, dtype=np.float32)
    c = np.empty(n, dtype=np.float32)
    with sycl.buffer(a) as ba, sycl.buffer(b) as bb, sycl.buffer(c) as bc:
        q.submit(lambda h: h.parallel_for(
            sycl.range(n), "vector_add",
            sycl.accessor(ba, h, sycl.read_only), sycl.accessor(bb, h, sycl.read_only),
            sycl.accessor(bc, h, sycl.write_only, prop_list=[sycl.property.no_init()]),
            0.5,  # a Python float becomes the kernel's `float scale`
        ))
    # Leaving the block waited for the kernel and copied c back into the numpy array.
    np.testing.assert_allclose(c, 0.5 * (a + b), rtol=1e-6)
    print(f"vector_add of {n} floats on {q.get_device().get_info(sycl.info.device.name)}: ok")


if __name__ == "__main__":
    main()
