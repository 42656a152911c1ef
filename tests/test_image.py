"""Images (SYCL 2020 §4.7.3) and image accessors (§4.7.6.13-§4.7.6.15) on every device under
test: formats, dimensions, host data with and without pitch, the write-back rules, sampling
with each addressing and filtering mode against the host model (``sycl_ocl._sampling``), the
scheduler's transfers, several contexts, host tasks, command graphs and PyOpenCL interop."""

from __future__ import annotations

import itertools
import threading

import numpy as np
import pyopencl as cl
import pytest
from conftest import PAIRS, _label

import sycl_ocl as sycl
from sycl_ocl import _native
from sycl_ocl._image import check_device, resolve_format

exp = sycl.ext.oneapi.experimental

sycl.register_kernel_source(
    """
    __kernel void ti_copy_f(read_only image2d_t src, write_only image2d_t dst) {
        int2 p = (int2)(get_global_id(0), get_global_id(1));
        write_imagef(dst, p, read_imagef(src, p));
    }
    __kernel void ti_copy_i(read_only image2d_t src, write_only image2d_t dst) {
        int2 p = (int2)(get_global_id(0), get_global_id(1));
        write_imagei(dst, p, read_imagei(src, p));
    }
    __kernel void ti_copy_ui(read_only image2d_t src, write_only image2d_t dst) {
        int2 p = (int2)(get_global_id(0), get_global_id(1));
        write_imageui(dst, p, read_imageui(src, p));
    }
    __kernel void ti_inc1(read_only image1d_t src, write_only image1d_t dst) {
        int x = get_global_id(0);
        write_imageui(dst, x, read_imageui(src, x) + (uint4)(1));
    }
    __kernel void ti_inc2(read_only image2d_t src, write_only image2d_t dst) {
        int2 p = (int2)(get_global_id(0), get_global_id(1));
        write_imageui(dst, p, read_imageui(src, p) + (uint4)(1));
    }
    __kernel void ti_inc3(read_only image3d_t src, write_only image3d_t dst) {
        int4 p = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0);
        write_imageui(dst, p, read_imageui(src, p) + (uint4)(1));
    }
    __kernel void ti_coords(write_only image2d_t dst) {
        int2 p = (int2)(get_global_id(0), get_global_id(1));
        write_imageui(dst, p, (uint4)(p.x, p.y, p.x + p.y, 7));
    }
    __kernel void ti_sample1(read_only image1d_t img, sampler_t s, __global const float* at,
                             __global float* out) {
        size_t i = get_global_id(0);
        vstore4(read_imagef(img, s, at[i]), i, out);
    }
    __kernel void ti_sample2(read_only image2d_t img, sampler_t s, __global const float* at,
                             __global float* out) {
        size_t i = get_global_id(0);
        vstore4(read_imagef(img, s, vload2(i, at)), i, out);
    }
    __kernel void ti_sample3(read_only image3d_t img, sampler_t s, __global const float* at,
                             __global float* out) {
        size_t i = get_global_id(0);
        float4 c = (float4)(at[3 * i], at[3 * i + 1], at[3 * i + 2], 0.0f);
        vstore4(read_imagef(img, s, c), i, out);
    }
    """
)

RGBA8 = sycl.image_format.r8g8b8a8_uint
FLOAT4 = sycl.image_format.r32g32b32a32_sfloat
_COPY = {"unorm": "ti_copy_f", "snorm": "ti_copy_f", "float": "ti_copy_f", "sint": "ti_copy_i",
         "uint": "ti_copy_ui"}


def _random_pixels(fmt: object, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """Pixels of ``fmt`` that every read and write keeps exactly (no snorm minimum, which a
    read clamps to -1.0; finite floats)."""
    f = resolve_format(fmt)
    rng = np.random.default_rng(seed)
    if f.dtype.kind == "f":
        return rng.uniform(-100, 100, (*shape, f.channels)).astype(f.dtype)
    info = np.iinfo(f.dtype)
    low = info.min + 1 if f.kind == "snorm" else info.min
    return rng.integers(low, info.max, (*shape, f.channels), dtype=f.dtype, endpoint=True)


def _run(q: sycl.queue, kernel: str, rng: sycl.range, *images: tuple[object, object]) -> sycl.event:
    """Launch ``kernel`` over ``rng`` (width first) with one accessor per (image, mode)."""
    def cgf(h: sycl.handler) -> None:
        args = [sycl.unsampled_image_accessor(img, h, mode) for img, mode in images]
        h.parallel_for(sycl.range(*reversed(rng.to_tuple())), kernel, *args)

    return q.submit(cgf)


# --- formats, dimensions, host data -----------------------------------------------------------


@pytest.mark.parametrize("fmt", list(sycl.image_format), ids=lambda f: f.name)
def test_each_format_the_device_has_round_trips_exactly_through_a_kernel(
        queue: sycl.queue, fmt: sycl.image_format) -> None:
    w, h = 9, 4
    src = _random_pixels(fmt, (h, w))
    dst = np.zeros_like(src)
    rng = sycl.range(w, h)
    with sycl.unsampled_image(src, fmt, rng) as a, sycl.unsampled_image(dst, fmt, rng) as b:
        _run(queue, _COPY[resolve_format(fmt).kind], rng, (a, sycl.read_only), (b, sycl.write_only))
    np.testing.assert_array_equal(dst, src)


@pytest.mark.parametrize("sizes", [(11,), (7, 5), (5, 4, 3)], ids=["1d", "2d", "3d"])
def test_images_of_one_two_and_three_dimensions(queue: sycl.queue, sizes: tuple[int, ...]) -> None:
    src = _random_pixels(RGBA8, tuple(reversed(sizes)))
    src[src == 255] = 0
    dst = np.zeros_like(src)
    rng = sycl.range(*sizes)
    with sycl.unsampled_image(src, RGBA8, rng) as a, sycl.unsampled_image(dst, RGBA8, rng) as b:
        assert a.get_range() == rng and a.size() == int(np.prod(sizes))
        _run(queue, f"ti_inc{len(sizes)}", rng, (a, sycl.read_only), (b, sycl.write_only))
    np.testing.assert_array_equal(dst, src + 1)


def test_an_image_without_host_data_is_read_by_a_host_accessor(queue: sycl.queue) -> None:
    w, h = 6, 3
    img = sycl.unsampled_image(RGBA8, sycl.range(w, h))
    assert img.get_pitch() == sycl.range(w * 4) and img.byte_size() == w * h * 4
    _run(queue, "ti_coords", sycl.range(w, h), (img, sycl.write_only))
    with sycl.host_unsampled_image_accessor(img, sycl.read_only) as acc:
        pixels = np.asarray(acc)
        assert pixels.shape == (h, w, 4) and not pixels.flags.writeable
        y, x = np.mgrid[0:h, 0:w]
        np.testing.assert_array_equal(pixels, np.stack([x, y, x + y, np.full_like(x, 7)], -1))
        np.testing.assert_array_equal(acc.read((4, 2)), [4, 2, 6, 7])


@pytest.mark.parametrize("sizes", [(8,), (8, 3), (8, 3, 2)], ids=["1d", "2d", "3d"])
def test_an_image_without_host_data_has_the_packed_pitch(sizes: tuple[int, ...]) -> None:
    img = sycl.unsampled_image(RGBA8, sycl.range(*sizes))
    assert img.byte_size() == int(np.prod(sizes)) * 4 and img.size() == int(np.prod(sizes))
    if len(sizes) == 1:
        assert _code(img.get_pitch) is sycl.errc.invalid  # a 1-D image has no pitch
    else:
        assert img.get_pitch() == sycl.range(*[32 * int(np.prod(sizes[1:d])) for d in range(1, len(sizes))])


def test_host_data_with_an_explicit_pitch_is_read_and_written_back_row_by_row(queue: sycl.queue) -> None:
    w, h, pitch = 5, 3, 5 * 4 + 12
    raw = np.full(pitch * h, 200, np.uint8)
    for y in range(h):
        raw[y * pitch:y * pitch + w * 4] = np.arange(w * 4, dtype=np.uint8) + y
    rng = sycl.range(w, h)
    with sycl.unsampled_image(raw, RGBA8, rng, sycl.range(pitch)) as img:
        assert img.get_pitch() == sycl.range(pitch) and img.byte_size() == pitch * h
        _run(queue, "ti_inc2", rng, (img, sycl.read_only), (img, sycl.write_only))
    for y in range(h):
        np.testing.assert_array_equal(raw[y * pitch:y * pitch + w * 4], np.arange(w * 4) + y + 1)
        assert (raw[y * pitch + w * 4:(y + 1) * pitch] == 200).all()  # the padding is not the image's


def test_a_strided_numpy_view_is_host_data_whose_strides_are_the_pitch(queue: sycl.queue) -> None:
    w, h = 4, 3
    whole = np.full((h, w + 3, 4), 9, np.uint8)
    view = whole[:, :w]
    view[...] = np.arange(h * w * 4, dtype=np.uint8).reshape(h, w, 4)
    expected = view + 1
    with sycl.unsampled_image(view, RGBA8, sycl.range(w, h)) as img:
        assert img.get_pitch() == sycl.range((w + 3) * 4)
        _run(queue, "ti_inc2", sycl.range(w, h), (img, sycl.read_only), (img, sycl.write_only))
    np.testing.assert_array_equal(view, expected)
    assert (whole[:, w:] == 9).all()


def test_write_back_goes_to_the_final_data_or_nowhere(queue: sycl.queue) -> None:
    w, h = 4, 2
    data = np.zeros((h, w, 4), np.uint8)
    final = np.zeros_like(data)
    with sycl.unsampled_image(data, RGBA8, sycl.range(w, h)) as img:
        img.set_final_data(final)
        _run(queue, "ti_coords", sycl.range(w, h), (img, sycl.write_only))
    assert final[1, 3].tolist() == [3, 1, 4, 7]
    data[...] = 0
    with sycl.unsampled_image(data, RGBA8, sycl.range(w, h)) as img:
        img.set_write_back(False)
        _run(queue, "ti_coords", sycl.range(w, h), (img, sycl.write_only))
    assert not data.any()


def test_the_host_array_is_read_only_while_the_image_owns_it(queue: sycl.queue) -> None:
    data = np.zeros((2, 2, 4), np.uint8)
    img = sycl.unsampled_image(data, RGBA8, sycl.range(2, 2))
    assert not data.flags.writeable
    del img
    assert data.flags.writeable


def test_a_read_only_host_array_is_never_written(queue: sycl.queue) -> None:
    data = np.zeros((2, 3, 4), np.uint8)
    data.flags.writeable = False
    with sycl.unsampled_image(data, RGBA8, sycl.range(3, 2)) as img:
        _run(queue, "ti_coords", sycl.range(3, 2), (img, sycl.write_only))
        with sycl.host_unsampled_image_accessor(img, sycl.read_only) as acc:
            assert np.asarray(acc)[1, 2].tolist() == [2, 1, 3, 7]
    assert not data.any()


def test_a_sampled_image_reads_the_users_array_in_place(queue: sycl.queue) -> None:
    data = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    img = sycl.sampled_image(data, RGBA8, sycl.image_sampler(), sycl.range(3, 2))
    with sycl.host_sampled_image_accessor(img) as acc:
        assert np.shares_memory(np.asarray(acc), data) and not np.asarray(acc).flags.writeable
    assert not data.flags.writeable  # owned while the image lives
    del img
    assert data.flags.writeable
    frozen = data.copy()
    frozen.flags.writeable = False  # read-only host data is taken too: a sampled image only reads it
    with sycl.sampled_image(frozen, RGBA8, sycl.image_sampler(), sycl.range(3, 2)) as img:
        assert img.transfer_counters().h2d_bytes == 0


def test_the_image_properties_use_the_host_array_and_hold_the_mutex(queue: sycl.queue) -> None:
    data = np.zeros((2, 3, 4), np.uint8)
    lock = threading.Lock()
    props = [sycl.property.image.use_host_ptr(), sycl.property.image.use_mutex(lock)]
    with sycl.unsampled_image(data, RGBA8, sycl.range(3, 2), prop_list=props) as img:
        assert img.has_property(sycl.property.image.use_host_ptr) and lock.locked()
        _run(queue, "ti_coords", sycl.range(3, 2), (img, sycl.write_only))
        with img.get_host_access(sycl.read_only) as acc:
            assert np.shares_memory(np.asarray(acc), data) and np.asarray(acc)[1, 2].tolist() == [2, 1, 3, 7]
    assert not lock.locked() and data[1, 2].tolist() == [2, 1, 3, 7]
    with pytest.raises(sycl.exception):  # a buffer's property is not an image's
        sycl.unsampled_image(data, RGBA8, sycl.range(3, 2), prop_list=[sycl.property.buffer.use_host_ptr()])


def test_get_access_makes_the_image_accessors(queue: sycl.queue) -> None:
    data = np.zeros((2, 2, 4), np.uint8)
    with sycl.unsampled_image(data, RGBA8, sycl.range(2, 2)) as img:
        queue.submit(lambda h: h.parallel_for(sycl.range(2, 2), "ti_coords",
                                              img.get_access(h, sycl.write_only)))
    assert data[1, 1].tolist() == [1, 1, 2, 7]
    with sycl.sampled_image(data, RGBA8, sycl.image_sampler(), sycl.range(2, 2)) as simg, \
            simg.get_host_access() as acc:
        assert isinstance(acc, sycl.host_sampled_image_accessor)
        assert acc.read((1.5, 0.5)).tolist() == [1, 0, 1, 7]


def test_a_host_accessor_writes_what_the_next_kernel_reads(queue: sycl.queue) -> None:
    w, h = 3, 2
    src = sycl.unsampled_image(RGBA8, sycl.range(w, h))
    out = np.zeros((h, w, 4), np.uint8)
    with sycl.host_unsampled_image_accessor(src, sycl.write_only, sycl.property.no_init()) as acc:
        np.asarray(acc)[...] = 5
        acc.write((2, 1), np.array([1, 2, 3, 4]))
    with sycl.unsampled_image(out, RGBA8, sycl.range(w, h)) as dst:
        _run(queue, "ti_inc2", sycl.range(w, h), (src, sycl.read_only), (dst, sycl.write_only))
    assert (out[0] == 6).all() and out[1, 2].tolist() == [2, 3, 4, 5]


def test_the_host_accessor_converts_normalized_formats_as_a_kernel(queue: sycl.queue) -> None:
    img = sycl.unsampled_image(sycl.image_format.b8g8r8a8_unorm, sycl.range(2, 1))
    with sycl.host_unsampled_image_accessor(img) as acc:
        acc.write((0, 0), np.array([1.0, 0.5, 0.0, 1.0]))  # (r, g, b, a), stored b, g, r, a
        assert np.asarray(acc)[0, 0].tolist() == [0, 128, 255, 255]
        np.testing.assert_allclose(acc.read((0, 0)), [1.0, 128 / 255, 0.0, 1.0])


# --- sampling --------------------------------------------------------------------------------

MODES = list(itertools.product(sycl.addressing_mode, sycl.coordinate_normalization_mode, sycl.filtering_mode))


def _valid(addressing: sycl.addressing_mode, coordinate: sycl.coordinate_normalization_mode) -> bool:
    return coordinate is sycl.coordinate_normalization_mode.normalized or addressing not in (
        sycl.addressing_mode.repeat, sycl.addressing_mode.mirrored_repeat)


def _coords(sizes: tuple[int, ...], normalized: bool, inside: bool, n: int = 64,
            footprint: bool = False) -> np.ndarray:
    """Coordinates a quarter pixel off the pixel edges and centres (a nearest read there does
    not depend on rounding), within the image or up to two sizes around it; ``footprint``:
    half a pixel inside the edges, where a linear read's 2x2 pixels are all in the image."""
    rng = np.random.default_rng(len(sizes))
    low, high = (0, 1) if inside else (-2, 3)
    cells = [rng.integers(low * s * 2 + footprint, high * s * 2 - footprint, n) for s in sizes]  # half pixels
    pixels = np.stack([c / 2 + 0.25 for c in cells], -1)
    return pixels / np.array(sizes) if normalized else pixels


def _sample_on(queue: sycl.queue, img: sycl.sampled_image, at: np.ndarray) -> np.ndarray:
    dims = img.get_range().dimensions
    flat = np.ascontiguousarray(at, np.float32).reshape(-1)
    out = np.zeros((len(at), 4), np.float32)
    with sycl.buffer(flat) as coords, sycl.buffer(out) as result:
        queue.submit(lambda h: h.parallel_for(
            len(at), f"ti_sample{dims}", sycl.sampled_image_accessor(img, h),
            sycl.accessor(coords, h, sycl.read_only), sycl.accessor(result, h, sycl.write_only)))
    return out


@pytest.mark.parametrize("mode", [m for m in MODES if _valid(m[0], m[1])],
                         ids=lambda m: "-".join(x.name for x in m))
def test_sampling_matches_the_model_for_each_mode(queue: sycl.queue, mode: tuple,
                                                  request: pytest.FixtureRequest) -> None:
    addressing, coordinate, filtering = mode
    if (addressing is sycl.addressing_mode.none and filtering is sycl.filtering_mode.linear
            and "Oclgrind" in _label(queue.get_device())):
        request.applymarker(pytest.mark.xfail(strict=True, reason=(
            "Oclgrind reads 0 through a linear sampler with CLK_ADDRESS_NONE, inside the image too "
            "(raw PyOpenCL as well); docs/images.md")))
    sampler = sycl.image_sampler(addressing, coordinate, filtering)
    sizes = (7, 5)
    pixels = np.random.default_rng(3).random((5, 7, 4), dtype=np.float32)
    # Outside the image, addressing_mode.none is undefined (OpenCL C §8.2), also for the pixels
    # a linear read mixes near the edges (NVIDIA gives other values there than the model).
    none = addressing is sycl.addressing_mode.none
    at = _coords(sizes, coordinate.name == "normalized", none, footprint=none and filtering.name == "linear")
    with sycl.sampled_image(pixels, FLOAT4, sampler, sycl.range(*sizes)) as img:
        got = _sample_on(queue, img, at)
        with sycl.host_sampled_image_accessor(img) as acc:
            want = np.stack([acc.read(c) for c in at])
    # Linear filtering may weight with 8 fractional bits (OpenCL C §8.2's precision).
    np.testing.assert_allclose(got, want, atol=5e-3 if filtering.name == "linear" else 0)


@pytest.mark.parametrize("sizes", [(9,), (4, 3, 5)], ids=["1d", "3d"])
def test_linear_sampling_of_one_and_three_dimensional_images(queue: sycl.queue,
                                                             sizes: tuple[int, ...]) -> None:
    sampler = sycl.image_sampler(sycl.addressing_mode.clamp_to_edge,
                                 sycl.coordinate_normalization_mode.normalized, sycl.filtering_mode.linear)
    pixels = np.random.default_rng(4).random((*reversed(sizes), 4), dtype=np.float32)
    at = _coords(sizes, True, False, 32)
    with sycl.sampled_image(pixels, FLOAT4, sampler, sycl.range(*sizes)) as img:
        got = _sample_on(queue, img, at)
        with sycl.host_sampled_image_accessor(img) as acc:
            want = np.stack([acc.read(c) for c in at])
    np.testing.assert_allclose(got, want, atol=5e-3)


def test_the_sampling_model_by_hand() -> None:
    from sycl_ocl._sampling import sample

    fmt = resolve_format((sycl.image_channel_order.r, sycl.image_channel_type.fp32))
    row = np.array([[[10.0], [20.0], [30.0], [40.0]]], np.float32)  # one row of 4, one channel
    un, norm = sycl.coordinate_normalization_mode.unnormalized, sycl.coordinate_normalization_mode.normalized
    lin, near = sycl.filtering_mode.linear, sycl.filtering_mode.nearest

    def at(addr: sycl.addressing_mode, coord: sycl.coordinate_normalization_mode, f: sycl.filtering_mode,
           x: float) -> float:
        return float(sample(row, fmt, sycl.image_sampler(addr, coord, f), [[x, 0.5]])[0, 0])

    assert at(sycl.addressing_mode.clamp_to_edge, un, lin, 0.5) == 10.0  # a pixel's centre
    assert at(sycl.addressing_mode.clamp_to_edge, un, lin, 1.0) == 15.0  # between two centres
    assert at(sycl.addressing_mode.clamp_to_edge, un, lin, -3.0) == 10.0
    assert at(sycl.addressing_mode.clamp, un, near, -0.5) == 0.0  # the border colour
    assert at(sycl.addressing_mode.clamp, un, lin, 0.0) == 5.0  # half border, half the pixel
    assert at(sycl.addressing_mode.repeat, norm, near, 1.3) == 20.0  # 0.3 * 4 = 1.2
    assert at(sycl.addressing_mode.repeat, norm, lin, 1.0) == 25.0  # wraps: (40 + 10) / 2
    assert at(sycl.addressing_mode.mirrored_repeat, norm, near, 1.3) == 30.0  # 0.7 * 4 = 2.8
    rgba = sample(row, fmt, sycl.image_sampler(), [[2.5, 0.5]])[0]
    assert rgba.tolist() == [30.0, 0.0, 0.0, 1.0]  # a one-channel read fills g, b and alpha


# --- the scheduler -------------------------------------------------------------------------------


def test_a_chain_of_kernels_uploads_once_and_reads_back_once(queue: sycl.queue) -> None:
    w, h = 8, 4
    data = np.zeros((h, w, 4), np.uint8)
    other = sycl.unsampled_image(RGBA8, sycl.range(w, h))
    with sycl.unsampled_image(data, RGBA8, sycl.range(w, h)) as img:
        for _ in range(3):
            _run(queue, "ti_inc2", sycl.range(w, h), (img, sycl.read_only), (other, sycl.write_only))
            _run(queue, "ti_inc2", sycl.range(w, h), (other, sycl.read_only), (img, sycl.write_only))
        counters = img.transfer_counters()
    assert (data == 6).all()
    assert (counters.h2d_copies, counters.h2d_bytes) == (1, data.nbytes)
    after = img.transfer_counters()
    assert (after.d2h_copies, after.d2h_bytes) == (1, data.nbytes)


def test_a_host_task_sees_the_pixels_through_its_native_image(queue: sycl.queue) -> None:
    w, h = 4, 3
    data = np.zeros((h, w, 4), np.uint8)
    seen = []
    with sycl.unsampled_image(data, RGBA8, sycl.range(w, h)) as img:
        _run(queue, "ti_coords", sycl.range(w, h), (img, sycl.write_only))

        def cgf(hd: sycl.handler) -> None:
            acc = sycl.unsampled_image_accessor(img, hd, sycl.write_only)

            def body(ih: sycl.interop_handle) -> None:
                native = ih.get_native_mem(acc)
                seen.append(native)
                got = np.zeros((h, w, 4), np.uint8)
                cl.enqueue_copy(ih.get_native_queue(), got, native, origin=(0, 0), region=(w, h))
                seen.append(got[2, 3].tolist())
                cl.enqueue_fill_image(ih.get_native_queue(), native, np.array([9, 9, 9, 9], np.uint32),
                                      (0, 0), (2, 1))

            hd.host_task(body)

        queue.submit(cgf)
    assert isinstance(seen[0], cl.Image) and seen[1] == [3, 2, 5, 7]
    assert data[0, :2].tolist() == [[9] * 4] * 2 and data[0, 2].tolist() == [2, 0, 2, 7]


@pytest.mark.skipif(not PAIRS, reason="needs a platform with two devices (PoCL runs two)")
@pytest.mark.parametrize("pair", PAIRS, ids=[_label(p[0]) for p in PAIRS])
def test_an_image_moves_between_contexts_through_the_host(pair: list[sycl.device]) -> None:
    q1 = sycl.queue(sycl.context(pair[0]), pair[0])
    q2 = sycl.queue(sycl.context(pair[1]), pair[1])
    data = np.zeros((3, 4, 4), np.uint8)
    scratch = sycl.unsampled_image(RGBA8, sycl.range(4, 3))
    with sycl.unsampled_image(data, RGBA8, sycl.range(4, 3)) as img:
        for q in (q1, q2, q1):
            _run(q, "ti_inc2", sycl.range(4, 3), (img, sycl.read_only), (scratch, sycl.write_only))
            _run(q, "ti_inc2", sycl.range(4, 3), (scratch, sycl.read_only), (img, sycl.write_only))
    assert (data == 6).all()
    assert img.transfer_counters().staged_bytes > 0


@pytest.mark.skipif(not PAIRS, reason="needs a platform with two devices (PoCL runs two)")
@pytest.mark.parametrize("pair", PAIRS, ids=[_label(p[0]) for p in PAIRS])
def test_two_devices_of_one_context_share_an_image(pair: list[sycl.device]) -> None:
    ctx = sycl.context(pair)
    queues = [sycl.queue(ctx, dev) for dev in pair]
    data = np.zeros((2, 5, 4), np.uint8)
    scratch = sycl.unsampled_image(RGBA8, sycl.range(5, 2))
    img = sycl.unsampled_image(data, RGBA8, sycl.range(5, 2))
    for q in (*queues, *queues):
        _run(q, "ti_inc2", sycl.range(5, 2), (img, sycl.read_only), (scratch, sycl.write_only))
        _run(q, "ti_inc2", sycl.range(5, 2), (scratch, sycl.read_only), (img, sycl.write_only))
    counters = img.transfer_counters()
    del img  # the last handle: the pixels are written back before the next statement
    assert (data == 8).all()
    assert counters.staged_bytes == 0  # one context: nothing goes through the host on the way


def test_get_native_of_an_unused_sampled_image_holds_its_pixels() -> None:
    data = np.arange(3 * 4, dtype=np.float32).reshape(1, 3, 4)
    with sycl.sampled_image(data, FLOAT4, sycl.image_sampler(), sycl.range(3)) as img:
        native = sycl.get_native(img)
        assert isinstance(native, cl.Image) and native.type == cl.mem_object_type.IMAGE1D
        assert data.flags.writeable is False  # in use: the image reads it in place


def test_a_command_graph_replays_image_kernels(queue: sycl.queue) -> None:
    w, h = 5, 2
    data = np.zeros((h, w, 4), np.uint8)
    scratch = sycl.unsampled_image(RGBA8, sycl.range(w, h))
    with sycl.unsampled_image(data, RGBA8, sycl.range(w, h)) as img:
        g = exp.command_graph(queue)
        g.begin_recording(queue)
        _run(queue, "ti_inc2", sycl.range(w, h), (img, sycl.read_only), (scratch, sycl.write_only))
        _run(queue, "ti_inc2", sycl.range(w, h), (scratch, sycl.read_only), (img, sycl.write_only))
        g.end_recording()
        exe = g.finalize()
        for _ in range(3):
            queue.ext_oneapi_graph(exe)
    assert (data == 6).all()


def test_a_command_graph_replays_a_sampled_read(queue: sycl.queue) -> None:
    pixels = np.random.default_rng(5).random((3, 4, 4), dtype=np.float32)
    at = np.array([[0.5, 0.5], [1.0, 0.5], [3.75, 2.25]], np.float32)
    out = np.zeros((3, 4), np.float32)
    sampler = sycl.image_sampler(sycl.addressing_mode.clamp_to_edge,
                                 sycl.coordinate_normalization_mode.unnormalized, sycl.filtering_mode.linear)
    with sycl.sampled_image(pixels, FLOAT4, sampler, sycl.range(4, 3)) as img, \
            sycl.buffer(at.reshape(-1)) as coords, sycl.buffer(out) as result:
        g = exp.command_graph(queue)
        g.begin_recording(queue)
        queue.submit(lambda h: h.parallel_for(
            3, "ti_sample2", sycl.sampled_image_accessor(img, h), sycl.accessor(coords, h, sycl.read_only),
            sycl.accessor(result, h, sycl.write_only)))
        g.end_recording()
        exe = g.finalize()
        queue.ext_oneapi_graph(exe)
        queue.ext_oneapi_graph(exe)
        with sycl.host_sampled_image_accessor(img) as acc:
            want = np.stack([acc.read(c) for c in at])
    np.testing.assert_allclose(out, want, atol=5e-3)


# --- interop ----------------------------------------------------------------------------------------


def test_make_image_and_get_native_share_the_pyopencl_image(queue: sycl.queue) -> None:
    ctx = queue.get_context()
    w, h = 4, 2
    start = np.arange(h * w * 4, dtype=np.uint8).reshape(h, w, 4)
    native = cl.create_image(sycl.get_native(ctx), cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                      cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.UNSIGNED_INT8),
                      shape=(w, h), hostbuf=start)
    with sycl.make_image(native, ctx) as img:
        assert sycl.get_native(img) is native and img.get_range() == sycl.range(w, h)
        _run(queue, "ti_inc2", sycl.range(w, h), (img, sycl.read_only), (img, sycl.write_only))
    got = np.zeros_like(start)
    cl.enqueue_copy(cl.CommandQueue(sycl.get_native(ctx)), got, native, origin=(0, 0), region=(w, h))
    np.testing.assert_array_equal(got, start + 1)


def test_get_native_of_an_unused_image_holds_its_pixels(queue: sycl.queue) -> None:
    data = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    ctx = sycl.context(queue.get_device())
    with sycl.unsampled_image(data, RGBA8, sycl.range(3, 2),
                              prop_list=[sycl.property.image.context_bound(ctx)]) as img:
        native = sycl.get_native(img)
        got = np.zeros_like(data)
        cl.enqueue_copy(cl.CommandQueue(sycl.get_native(ctx)), got, native, origin=(0, 0), region=(3, 2))
    np.testing.assert_array_equal(got, data)


# --- misuse -------------------------------------------------------------------------------------------


def _code(fn: object) -> sycl.errc:
    with pytest.raises(sycl.exception) as info:
        fn()  # type: ignore[operator]
    return info.value.code()


def test_misuse_raises_the_spec_errc(queue: sycl.queue) -> None:
    img = sycl.unsampled_image(RGBA8, sycl.range(4, 4))
    assert _code(lambda: sycl.unsampled_image(np.zeros((4, 4, 4), np.float32), RGBA8, sycl.range(4, 4))) \
        is sycl.errc.invalid  # another element type
    assert _code(lambda: sycl.unsampled_image(np.zeros((3, 4, 4), np.uint8), RGBA8, sycl.range(4, 4))) \
        is sycl.errc.invalid  # fewer pixels
    assert _code(lambda: sycl.unsampled_image("rgba", sycl.range(4))) is sycl.errc.invalid
    assert _code(lambda: sycl.image_sampler(sycl.addressing_mode.repeat)) is sycl.errc.invalid
    assert _code(lambda: queue.submit(lambda h: sycl.unsampled_image_accessor(img, h, sycl.read_write))) \
        is sycl.errc.invalid
    small_pitch = sycl.range(8)  # smaller than a row
    assert _code(lambda: sycl.unsampled_image(np.zeros(64, np.uint8), RGBA8, sycl.range(4, 4), small_pitch)) \
        is sycl.errc.invalid
    # A 2-D image for an image1d_t parameter; a sampled accessor where its sampler_t is missing.
    both = ((img, sycl.read_only), (img, sycl.write_only))
    assert _code(lambda: _run(queue, "ti_inc1", sycl.range(4), *both)) is sycl.errc.kernel_argument
    sampled = sycl.sampled_image(np.zeros((4, 4, 4), np.uint8), RGBA8, sycl.image_sampler(), sycl.range(4, 4))
    assert _code(lambda: queue.submit(lambda h: h.parallel_for(
        sycl.range(4, 4), "ti_copy_ui", sycl.sampled_image_accessor(sampled, h),
        sycl.unsampled_image_accessor(img, h, sycl.write_only)))) is sycl.errc.kernel_argument


def test_a_device_image_accessor_is_no_host_view(queue: sycl.queue) -> None:
    img = sycl.unsampled_image(RGBA8, sycl.range(2, 2))
    seen: list[sycl.errc] = []

    def cgf(h: sycl.handler) -> None:
        acc = sycl.unsampled_image_accessor(img, h, sycl.read_only)
        seen.append(_code(lambda: np.asarray(acc)))

    queue.submit(cgf)
    assert seen == [sycl.errc.accessor]


def test_a_format_the_device_lacks_is_refused_as_unsupported(queue: sycl.queue) -> None:
    native = sycl.get_native(queue.get_context())
    listed = cl.get_supported_image_formats(native, cl.mem_flags.READ_WRITE, cl.mem_object_type.IMAGE2D)
    formats = {(f.channel_order, f.channel_data_type) for f in listed}
    candidates = [(o, t) for o in sycl.image_channel_order for t in sycl.image_channel_type
                  if (resolve_format((o, t)).cl_format.channel_order,
                      resolve_format((o, t)).cl_format.channel_data_type) not in formats]
    if not candidates:
        pytest.skip("the device supports every format sycl_ocl names")
    img = sycl.unsampled_image(candidates[0], sycl.range(2, 2))
    assert _code(lambda: queue.submit(lambda h: sycl.unsampled_image_accessor(img, h, sycl.write_only))) \
        is sycl.errc.feature_not_supported


@pytest.mark.parametrize("where", ["temporary", "command_group"])
def test_an_image_only_its_accessors_hold_is_written_back_when_its_command_completes(
        queue: sycl.queue, where: str) -> None:
    """Rule S29 for images: a temporary image, one local to the command-group function, lives
    until its command completes, and its end writes the kernel's pixels back (failed: the image
    ended before the kernel ran, and the pixels never reached the array)."""
    w, h = 5, 3
    data = np.zeros((h, w, 4), np.uint8)

    def cgf(hd: sycl.handler) -> None:
        img = sycl.unsampled_image(data, RGBA8, sycl.range(w, h))
        hd.parallel_for(sycl.range(h, w), "ti_coords",
                        sycl.unsampled_image_accessor(img, hd, sycl.write_only))

    if where == "temporary":
        queue.submit(lambda hd: hd.parallel_for(sycl.range(h, w), "ti_coords", sycl.unsampled_image_accessor(
            sycl.unsampled_image(data, RGBA8, sycl.range(w, h)), hd, sycl.write_only)))
    else:
        queue.submit(cgf)
    queue.wait()
    assert data.flags.writeable
    assert data[2, 4].tolist() == [4, 2, 6, 7] and data[0, 0].tolist() == [0, 0, 0, 7]


def test_an_image_larger_than_the_device_allows_is_refused_with_errc_invalid(queue: sycl.queue) -> None:
    """A side beyond the device's image2d_max_width / image3d_max_* (clCreateImage's limits):
    errc.invalid naming the limit (failed: PoCL's CL_INVALID_OPERATION from the allocation, with
    no reason; Oclgrind made it)."""
    dev = queue.get_device()
    wide = dev.get_info(sycl.info.device.image2d_max_width) + 1
    for rng, name in ((sycl.range(wide, 1), "image2d_max_width"), (sycl.range(wide), "image2d_max_width"),
                      (sycl.range(1, 1, dev.get_info(sycl.info.device.image3d_max_depth) + 1),
                       "image3d_max_depth")):
        img = sycl.unsampled_image(sycl.image_format.r8g8b8a8_uint, rng)
        with pytest.raises(sycl.exception, match=name) as info:
            queue.submit(lambda h, img=img: sycl.unsampled_image_accessor(img, h, sycl.write_only))
        assert info.value.code() is sycl.errc.invalid


def test_an_allocation_the_driver_has_no_host_memory_for_is_errc_memory_allocation(queue: sycl.queue) -> None:
    """128 TiB, beyond any host's address space (failed on Oclgrind: PyOpenCL's MemoryError for
    the driver's std::bad_alloc escaped as no sycl.exception)."""
    sycl.register_kernel_source("__kernel void ti_touch(__global uchar* p) { p[0] = 1; }")
    with sycl.buffer(sycl.range(1 << 47), dtype=np.uint8) as buf, pytest.raises(sycl.exception) as info:
        queue.submit(lambda h: h.single_task("ti_touch", sycl.accessor(buf, h, sycl.write_only)))
        queue.wait_and_throw()
    assert info.value.code() is sycl.errc.memory_allocation
    queue.submit(lambda h: h.single_task("ti_touch", sycl.accessor(sycl.buffer(np.zeros(4, np.uint8)), h)))
    queue.wait_and_throw()


def test_images_and_a_buffer_over_one_array_share_it(queue: sycl.queue) -> None:
    """An image over an array another image or a buffer owns shares the ownership, as buffers
    do (docs/data-movement.md): read-only until the last ends, each end gives back nothing
    early, raises nothing and releases its mutex (failed: the image took the other's writeable
    alias as the array, and its end raised numpy's ValueError before releasing the mutex)."""
    data = np.zeros((2, 3, 4), np.uint8)
    lock = threading.Lock()
    first = sycl.unsampled_image(data, RGBA8, sycl.range(3, 2))
    with sycl.host_unsampled_image_accessor(first) as acc:
        np.asarray(acc)[...] = 1
    with sycl.unsampled_image(data, RGBA8, sycl.range(3, 2),
                              prop_list=[sycl.property.image.use_mutex(lock)]) as second:
        _run(queue, "ti_coords", sycl.range(3, 2), (second, sycl.write_only))
    assert lock.acquire(blocking=False)
    assert not data.flags.writeable  # the first image owns it still
    with sycl.buffer(data), sycl.unsampled_image(data, RGBA8, sycl.range(3, 2)):
        pass
    first.__exit__(None, None, None)
    assert data.flags.writeable
    assert data[1, 2].tolist() == [2, 1, 3, 7]


def test_host_accessor_coordinates_match_the_images_dimensions(queue: sycl.queue) -> None:
    """A host accessor's ``read``/``write`` take one coordinate per dimension (a 3-D image also
    OpenCL C's four); others raise errc.invalid (failed: extra ones were dropped, reading or
    writing another pixel than meant, and too few raised IndexError through a sampler)."""
    data = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    fmt = sycl.image_format.r32g32b32a32_sfloat
    with sycl.sampled_image(data, fmt, sycl.image_sampler(), sycl.range(3, 2)) as img, \
            sycl.host_sampled_image_accessor(img) as acc:
        assert acc.read((1.5, 0.5)).tolist() == [4, 5, 6, 7]
        for coords in ((1.5,), (1.5, 0.5, 7.0)):
            assert _code(lambda coords=coords: acc.read(coords)) is sycl.errc.invalid
    with sycl.unsampled_image(np.zeros_like(data), fmt, sycl.range(3, 2)) as img, \
            sycl.host_unsampled_image_accessor(img) as acc:
        assert _code(lambda: acc.write((1, 1, 1), (1, 2, 3, 4))) is sycl.errc.invalid
        assert _code(lambda: acc.read(1)) is sycl.errc.invalid
        assert not np.asarray(acc).any()
    cube = np.zeros((2, 2, 2, 4), np.float32)
    with sycl.unsampled_image(cube, fmt, sycl.range(2, 2, 2)) as img, \
            sycl.host_unsampled_image_accessor(img) as acc:
        acc.write((1, 0, 1, 0), (1, 2, 3, 4))  # x, y, z and OpenCL C's unused w
        assert acc.read((1, 0, 1)).tolist() == [1, 2, 3, 4]


def test_driver_failures_making_a_sampler_or_listing_formats_are_sycl_exceptions(device: sycl.device) -> None:
    """clCreateSampler and clGetSupportedImageFormats go through the PyOpenCL boundary (fault
    injection reaches them): a driver's failure is errc.memory_allocation naming what was being
    done, not a pyopencl.Error, and nothing failed is kept (the next call works)."""
    if not device.has(sycl.aspect.image):
        pytest.skip(f"{device!r} has no images (aspect.image)")
    ctx = cl.Context([sycl.get_native(device)])  # new: neither its formats nor its samplers are known
    sampler = sycl.image_sampler(sycl.addressing_mode.clamp_to_edge,
                                 sycl.coordinate_normalization_mode.normalized, sycl.filtering_mode.nearest)
    fmt = resolve_format(FLOAT4)
    for kind, call in (("query", lambda: check_device(device, ctx, fmt, (4, 4))),
                       ("allocation", lambda: sampler._native(ctx))):
        with _native.inject(kind, 1) as faults, pytest.raises(sycl.exception) as info:
            call()
        assert faults.fired and info.value.code() == sycl.errc.memory_allocation, kind
        assert "image formats" in str(info.value) or "sampler" in str(info.value)
        call()  # not cached as failed
