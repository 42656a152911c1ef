"""Driver defect: a kernel copying a one-channel HALF_FLOAT image (CL_R or CL_A) pixel by pixel
with read_imagef / write_imagef does not give back its pixels (RGBA of HALF_FLOAT, and R or A of
FLOAT, do).

OpenCL C 1.2 §8.3.1.1: a half-float channel converts to float and back exactly. Raw PyOpenCL, no
sycl_ocl. Exit status 1 while the defect is there.

    python repro_one_channel_half_image.py [PLATFORM_SUBSTRING]   (default: Portable)
"""

import sys

import numpy as np
import pyopencl as cl

name = sys.argv[1] if len(sys.argv) > 1 else "Portable"
platform = next(p for p in cl.get_platforms() if name in p.name)
ctx = cl.Context(platform.get_devices()[:1])
queue = cl.CommandQueue(ctx)
program = cl.Program(ctx, """
__kernel void copy(read_only image2d_t src, write_only image2d_t dst) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    write_imagef(dst, p, read_imagef(src, p));
}""").build()
kernel = cl.Kernel(program, "copy")
pixels = (np.arange(15) + 1).astype(np.float16).reshape(3, 5, 1)
wrong = 0
for order in (cl.channel_order.R, cl.channel_order.A):
    fmt = cl.ImageFormat(order, cl.channel_type.HALF_FLOAT)
    src = cl.create_image(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, fmt, shape=(5, 3),
                          hostbuf=pixels)
    dst = cl.create_image(ctx, cl.mem_flags.READ_WRITE, fmt, shape=(5, 3))
    kernel(queue, (5, 3), None, src, dst)
    got = np.zeros_like(pixels)
    cl.enqueue_copy(queue, got, dst, origin=(0, 0), region=(5, 3))
    print(f"{platform.name}: {cl.channel_order.to_string(order)} HALF_FLOAT came back as {got.ravel()}")
    wrong += not np.array_equal(got, pixels)
sys.exit(1 if wrong else 0)
