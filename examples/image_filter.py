"""An image filter on OpenCL images: a 2x downscale by the hardware's linear filtering, then a
3x3 blur, checked against numpy.

Teaches: ``sycl.sampled_image`` / ``sycl.unsampled_image`` over numpy arrays shaped
``(height, width, channels)`` with ranges written width first; ``image_sampler``; a sampled
accessor's kernel parameters (the image, then its ``sampler_t``, which the runtime passes);
chaining two kernels through an image without host data (the runtime moves nothing between
them); the write-back of the result when its ``with`` block ends (docs/images.md).

The downscale reads one linear tap at the centre of each destination pixel, which averages a
2x2 block; the blur is the binomial filter [1 2 1] x [1 2 1] / 16 with its edges clamped, read
pixel by pixel from an unsampled image.
"""

from __future__ import annotations

import numpy as np

import sycl_ocl as sycl

sycl.register_kernel_source("""
__kernel void downscale(read_only image2d_t src, sampler_t s, write_only image2d_t dst) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    float2 centre = ((float2)(p.x, p.y) + 0.5f) / (float2)(get_image_width(dst), get_image_height(dst));
    write_imagef(dst, p, read_imagef(src, s, centre));
}
__kernel void blur_binomial(read_only image2d_t src, write_only image2d_t dst) {
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
""")

RGBA8 = sycl.image_format.r8g8b8a8_unorm
FLOAT4 = sycl.image_format.r32g32b32a32_sfloat
NO_INIT = [sycl.property.no_init()]  # the kernels write every pixel: the old ones need not be uploaded
LINEAR = sycl.image_sampler(sycl.addressing_mode.clamp_to_edge, sycl.coordinate_normalization_mode.normalized,
                            sycl.filtering_mode.linear)


def photo(height: int, width: int) -> np.ndarray:
    """A test picture: colour gradients and noise, RGBA of uint8."""
    y, x = np.mgrid[0:height, 0:width]
    noise = np.random.default_rng(7).integers(0, 64, (height, width))
    channels = [x * 255 // width, y * 255 // height, (x + y + noise) % 256, np.full_like(x, 255)]
    return np.stack(channels, axis=-1).astype(np.uint8)


def filter_image(q: sycl.queue, picture: np.ndarray) -> np.ndarray:
    """Halve each side, then blur; returns the result as RGBA of uint8."""
    height, width = picture.shape[0] // 2, picture.shape[1] // 2
    result = np.zeros((height, width, 4), np.uint8)
    half = sycl.unsampled_image(FLOAT4, sycl.range(width, height))  # device data: never on the host
    with sycl.sampled_image(picture, RGBA8, LINEAR, sycl.range(picture.shape[1], picture.shape[0])) as src, \
            sycl.unsampled_image(result, RGBA8, sycl.range(width, height)) as dst:
        q.submit(lambda h: h.parallel_for(
            sycl.range(height, width), "downscale", sycl.sampled_image_accessor(src, h),
            sycl.unsampled_image_accessor(half, h, sycl.write_only, NO_INIT)))
        q.submit(lambda h: h.parallel_for(
            sycl.range(height, width), "blur_binomial",
            sycl.unsampled_image_accessor(half, h, sycl.read_only),
            sycl.unsampled_image_accessor(dst, h, sycl.write_only, NO_INIT)))
    return result  # written back when dst's with block ended


def numpy_filter(picture: np.ndarray) -> np.ndarray:
    """The same filter in numpy, in float64."""
    values = picture / 255.0
    h, w, c = values.shape
    halved = values.reshape(h // 2, 2, w // 2, 2, c).mean(axis=(1, 3))
    padded = np.pad(halved, ((1, 1), (1, 1), (0, 0)), mode="edge")
    weights = np.array([1.0, 2.0, 1.0]) / 4
    rows = sum(wt * padded[:, i:i + w // 2] for i, wt in enumerate(weights))
    blurred = sum(wt * rows[i:i + h // 2] for i, wt in enumerate(weights))
    return np.clip(np.rint(blurred * 255), 0, 255).astype(np.uint8)


def main() -> None:
    q = sycl.queue(sycl.aspect_selector(sycl.aspect.image))
    picture = photo(96, 128)
    got = filter_image(q, picture)
    want = numpy_filter(picture)
    # A device may weight linear reads with 8 fractional bits: one step of 255 at most.
    worst = int(np.abs(got.astype(int) - want).max())
    assert worst <= 1, f"the filtered image differs from numpy's by {worst} steps"
    print(f"{q.get_device().get_info(sycl.info.device.name)}: halved and blurred a "
          f"{picture.shape[1]}x{picture.shape[0]} image to {got.shape[1]}x{got.shape[0]}; "
          f"within {worst} step of numpy")


if __name__ == "__main__":
    main()
