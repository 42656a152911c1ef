"""The image filter of ``examples/image_filter.py`` (a 2x downscale through a linear sampler, then
a binomial blur) against raw PyOpenCL on the same device: upload, two kernels, read-back.

raw: ``cl.create_image(COPY_HOST_PTR)`` of the picture, the two kernels (the intermediate image
made once), a blocking ``enqueue_copy`` of the result. sycl_ocl: ``with sycl.sampled_image(...),
sycl.unsampled_image(result)``, the two kernels (the intermediate image, without host data, made
once), the write-back at the end of the block. 4096x4096 RGBA8 on a GPU, 1024x1024 on a CPU.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyopencl as cl

import sycl_ocl as sycl

from .harness import Benchmark, Env, elapsed_ms

BENCHMARKS: list[Benchmark] = []  # this module's, in running order

SOURCE = """
__kernel void bench_downscale(read_only image2d_t src, sampler_t s, write_only image2d_t dst) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    float2 centre = ((float2)(p.x, p.y) + 0.5f) / (float2)(get_image_width(dst), get_image_height(dst));
    write_imagef(dst, p, read_imagef(src, s, centre));
}
__kernel void bench_blur(read_only image2d_t src, write_only image2d_t dst) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    int2 last = (int2)(get_image_width(src) - 1, get_image_height(src) - 1);
    float4 sum = 0.0f;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            float w = (dx ? 1.0f : 2.0f) * (dy ? 1.0f : 2.0f) / 16.0f;
            sum += w * read_imagef(src, clamp(p + (int2)(dx, dy), (int2)(0), last));
        }
    write_imagef(dst, p, sum);
}
"""
sycl.register_kernel_source(SOURCE)
RGBA8 = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.UNORM_INT8)
FLOAT4 = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT)


def _picture(env: Env) -> np.ndarray:
    side = env.size(gpu=4096, cpu=1024, quick=64)
    return np.random.default_rng(0).integers(0, 256, (side, side, 4), dtype=np.uint8)


def _raw(env: Env) -> Callable[[], float]:
    ctx, picture = env.raw_context(), _picture(env)
    side, half_side = picture.shape[0], picture.shape[0] // 2
    queue = cl.CommandQueue(ctx)
    program = cl.Program(ctx, SOURCE).build()
    downscale, blur = cl.Kernel(program, "bench_downscale"), cl.Kernel(program, "bench_blur")
    sampler = cl.Sampler(ctx, True, cl.addressing_mode.CLAMP_TO_EDGE, cl.filter_mode.LINEAR)
    half = cl.create_image(ctx, cl.mem_flags.READ_WRITE, FLOAT4, shape=(half_side, half_side))
    result = np.zeros((half_side, half_side, 4), np.uint8)

    def one() -> None:
        src = cl.create_image(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, RGBA8,
                              shape=(side, side), hostbuf=picture)
        dst = cl.create_image(ctx, cl.mem_flags.WRITE_ONLY, RGBA8, shape=(half_side, half_side))
        downscale.set_args(src, sampler, half)
        cl.enqueue_nd_range_kernel(queue, downscale, (half_side, half_side), None)
        blur.set_args(half, dst)
        cl.enqueue_nd_range_kernel(queue, blur, (half_side, half_side), None)
        cl.enqueue_copy(queue, result, dst, origin=(0, 0), region=(half_side, half_side))
    return elapsed_ms(one)


def _sycl(env: Env) -> Callable[[], float]:
    queue, picture = env.queue(), _picture(env)
    side, half_side = picture.shape[0], picture.shape[0] // 2
    rgba8, float4 = sycl.image_format.r8g8b8a8_unorm, sycl.image_format.r32g32b32a32_sfloat
    linear = sycl.image_sampler(sycl.addressing_mode.clamp_to_edge,
                                sycl.coordinate_normalization_mode.normalized, sycl.filtering_mode.linear)
    no_init = [sycl.property.no_init()]  # the kernels write every pixel: nothing to upload first
    half = sycl.unsampled_image(float4, sycl.range(half_side, half_side))
    result = np.zeros((half_side, half_side, 4), np.uint8)
    rng = sycl.range(half_side, half_side)

    def one() -> None:
        with sycl.sampled_image(picture, rgba8, linear, sycl.range(side, side)) as src, \
                sycl.unsampled_image(result, rgba8, rng) as dst:
            queue.submit(lambda h: h.parallel_for(
                rng, "bench_downscale", sycl.sampled_image_accessor(src, h),
                sycl.unsampled_image_accessor(half, h, sycl.write_only, no_init)))
            queue.submit(lambda h: h.parallel_for(
                rng, "bench_blur", sycl.unsampled_image_accessor(half, h, sycl.read_only),
                sycl.unsampled_image_accessor(dst, h, sycl.write_only, no_init)))
    return elapsed_ms(one)


BENCHMARKS.append(Benchmark(
    "image", "the image filter (upload, a linear-sampler downscale and a blur, read-back; 4096^2 RGBA8 on a "
             "GPU, 1024^2 on a CPU)", "ms per filter", "raw pyopencl",
    {"raw pyopencl": _raw, "sycl_ocl": _sycl},
    target="sycl_ocl <= 1.05x raw on the H100 (issue 34)",
))
