"""Driver defect: a read through a sampler with CLK_ADDRESS_NONE and CLK_FILTER_LINEAR returns 0,
inside the image too.

OpenCL C 1.2 §8.2 defines the read inside the image: the bilinear mix of the four pixels around
the coordinate (CLK_ADDRESS_CLAMP_TO_EDGE reads the same there). Raw PyOpenCL, no sycl_ocl.
Exit status 1 while the defect is there.

    python repro_linear_address_none.py [PLATFORM_SUBSTRING]   (default: Oclgrind)
"""

import sys

import numpy as np
import pyopencl as cl

name = sys.argv[1] if len(sys.argv) > 1 else "Oclgrind"
platform = next(p for p in cl.get_platforms() if name in p.name)
ctx = cl.Context(platform.get_devices()[:1])
queue = cl.CommandQueue(ctx)
program = cl.Program(ctx, """
__kernel void read_at(read_only image2d_t img, sampler_t s, __global float4 *out) {
    out[0] = read_imagef(img, s, (float2)(2.25f, 1.25f));   /* well inside a 5x4 image */
}""").build()
kernel = cl.Kernel(program, "read_at")
pixels = np.random.default_rng(0).random((4, 5, 4), dtype=np.float32)
image = cl.create_image(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR,
                        cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT),
                        shape=(5, 4), hostbuf=pixels)
out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 16)
kernel(queue, (1,), None, image, cl.Sampler(ctx, False, cl.addressing_mode.NONE, cl.filter_mode.LINEAR), out)
got = np.zeros(4, np.float32)
cl.enqueue_copy(queue, got, out)
# The bilinear mix around (2.25, 1.25): weights 0.25 / 0.75 on each axis.
expected = (0.25 * 0.25 * pixels[0, 1] + 0.75 * 0.25 * pixels[0, 2]
            + 0.25 * 0.75 * pixels[1, 1] + 0.75 * 0.75 * pixels[1, 2])
print(f"{platform.name}: read {got}, expected {expected}")
sys.exit(0 if np.allclose(got, expected, atol=5e-3) else 1)
