"""Category image (SYCL 2020 §4.7.3, §4.7.6.13-§4.7.6.15, §4.7.8): IM-01 .. IM-10.

Images, image accessors and samplers on the driver's OpenCL images: every format it reports
round-trips, each dimension and host layout, the write-back rules, host accessors, sampling in
each addressing, coordinate and filtering mode against OpenCL C §8.2's model
(``sycl_ocl._sampling``), the scheduler's ordering and transfers, and PyOpenCL interop.
"""

from __future__ import annotations

import itertools

import numpy as np
import pyopencl as cl
import pytest

import sycl_ocl as sycl
from conformance.support import known_defect, needs, raises
from sycl_ocl._image import resolve_format

sycl.register_kernel_source(
    """
    __kernel void cts_im_copy_f(read_only image2d_t src, write_only image2d_t dst) {
        int2 p = (int2)(get_global_id(0), get_global_id(1));
        write_imagef(dst, p, read_imagef(src, p));
    }
    __kernel void cts_im_copy_i(read_only image2d_t src, write_only image2d_t dst) {
        int2 p = (int2)(get_global_id(0), get_global_id(1));
        write_imagei(dst, p, read_imagei(src, p));
    }
    __kernel void cts_im_copy_ui(read_only image2d_t src, write_only image2d_t dst) {
        int2 p = (int2)(get_global_id(0), get_global_id(1));
        write_imageui(dst, p, read_imageui(src, p));
    }
    __kernel void cts_im_inc1(read_only image1d_t src, write_only image1d_t dst) {
        int x = get_global_id(0);
        write_imageui(dst, x, read_imageui(src, x) + (uint4)(1));
    }
    __kernel void cts_im_inc2(read_only image2d_t src, write_only image2d_t dst) {
        int2 p = (int2)(get_global_id(0), get_global_id(1));
        write_imageui(dst, p, read_imageui(src, p) + (uint4)(1));
    }
    __kernel void cts_im_inc3(read_only image3d_t src, write_only image3d_t dst) {
        int4 p = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0);
        write_imageui(dst, p, read_imageui(src, p) + (uint4)(1));
    }
    __kernel void cts_im_sample(read_only image2d_t img, sampler_t s, __global const float* at,
                                __global float* out) {
        size_t i = get_global_id(0);
        vstore4(read_imagef(img, s, vload2(i, at)), i, out);
    }
    """,
    device_has=[sycl.aspect.image],
)

RGBA8 = sycl.image_format.r8g8b8a8_uint
FLOAT4 = sycl.image_format.r32g32b32a32_sfloat
_COPY = {"unorm": "cts_im_copy_f", "snorm": "cts_im_copy_f", "float": "cts_im_copy_f",
         "sint": "cts_im_copy_i", "uint": "cts_im_copy_ui"}
_IMAGE2D = cl.mem_object_type.IMAGE2D
PAIRS = [(o, t) for o in sycl.image_channel_order for t in sycl.image_channel_type]


@pytest.fixture(autouse=True)
def _images(device: sycl.device) -> None:
    needs(device, sycl.aspect.image)


def _pixels(fmt: object, shape: tuple[int, ...]) -> np.ndarray:
    """Channels every read and write keeps (no snorm minimum, which reads as -1.0)."""
    f = resolve_format(fmt)
    rng = np.random.default_rng(0)
    if f.dtype.kind == "f":
        return rng.uniform(-100, 100, (*shape, f.channels)).astype(f.dtype)
    info = np.iinfo(f.dtype)
    return rng.integers(info.min + (f.kind == "snorm"), info.max, (*shape, f.channels), dtype=f.dtype,
                        endpoint=True)


def _launch(q: sycl.queue, kernel: str, rng: sycl.range, *images: tuple[object, object]) -> None:
    def cgf(h: sycl.handler) -> None:
        args = [sycl.unsampled_image_accessor(img, h, mode) for img, mode in images]
        h.parallel_for(sycl.range(*reversed(rng.to_tuple())), kernel, *args)

    q.submit(cgf).wait()


def _supported(q: sycl.queue) -> set[tuple[int, int]]:
    native = sycl.get_native(q.get_context())
    formats = cl.get_supported_image_formats(native, cl.mem_flags.READ_WRITE, _IMAGE2D)
    return {(f.channel_order, f.channel_data_type) for f in formats}


def _round_trip(q: sycl.queue, fmt: object) -> bool:
    """Whether pixels of ``fmt`` come back exactly from a kernel copying them."""
    src = _pixels(fmt, (3, 5))
    dst = np.zeros_like(src)
    rng = sycl.range(5, 3)
    with sycl.unsampled_image(src, fmt, rng) as a, sycl.unsampled_image(dst, fmt, rng) as b:
        _launch(q, _COPY[resolve_format(fmt).kind], rng, (a, sycl.read_only), (b, sycl.write_only))
    return bool(np.array_equal(dst, src))


def _reported(q: sycl.queue, fmt: object) -> bool:
    cl_format = resolve_format(fmt).cl_format
    return (cl_format.channel_order, cl_format.channel_data_type) in _supported(q)


@pytest.mark.parametrize("fmt", list(sycl.image_format), ids=lambda f: f.name)
def test_IM_01_formats_round_trip(queue: sycl.queue, fmt: sycl.image_format) -> None:
    """Each image_format the device reports for 2-D images round-trips exactly through a kernel;
    one it does not report is refused with errc.feature_not_supported at the accessor."""
    if not _reported(queue, fmt):
        img = sycl.unsampled_image(fmt, sycl.range(2, 2))
        with raises(sycl.errc.feature_not_supported):
            queue.submit(lambda h: sycl.unsampled_image_accessor(img, h, sycl.write_only))
        return
    assert _round_trip(queue, fmt)


ONE_CHANNEL_HALF = [(sycl.image_channel_order.r, sycl.image_channel_type.fp16),
                    (sycl.image_channel_order.a, sycl.image_channel_type.fp16)]


def test_IM_01_reported_pairs_round_trip(queue: sycl.queue) -> None:
    """Each (channel order, channel type) pair the device reports beyond image_format (one-channel
    half floats apart: the next test) round-trips exactly; the others are refused with
    errc.feature_not_supported."""
    named = {resolve_format(f).cl_format for f in sycl.image_format}
    failed = []
    for pair in PAIRS:
        if resolve_format(pair).cl_format in named or pair in ONE_CHANNEL_HALF:
            continue
        if not _reported(queue, pair):
            img = sycl.unsampled_image(pair, sycl.range(2, 2))
            with raises(sycl.errc.feature_not_supported):
                queue.submit(lambda h, img=img: sycl.unsampled_image_accessor(img, h, sycl.write_only))
        elif not _round_trip(queue, pair):
            failed.append(pair)
    assert not failed


def test_IM_01_one_channel_half_images(queue: sycl.queue, request: pytest.FixtureRequest) -> None:
    """(driver) One-channel half-float images (R and A of fp16) round-trip exactly where reported."""
    dev = queue.get_device()
    if "Portable" in dev.get_platform().get_info(sycl.info.platform.name) \
            and dev.get_info(sycl.info.device.driver_version).startswith("3.1"):
        known_defect(request, dev, "Portable Computing Language",
                     "PoCL 3.1 reads and writes one-channel HALF_FLOAT images wrongly "
                     "(results/pocl-3.1/repro_one_channel_half_image.py)")
    reported = [pair for pair in ONE_CHANNEL_HALF if _reported(queue, pair)]
    if not reported:
        pytest.skip("the device reports no one-channel half-float image format")
    assert all(_round_trip(queue, pair) for pair in reported)


@pytest.mark.parametrize("sizes", [(13,), (6, 4), (5, 3, 2)], ids=["1d", "2d", "3d"])
def test_IM_02_dimensions(queue: sycl.queue, sizes: tuple[int, ...]) -> None:
    """1-, 2- and 3-D images: get_range (width first), size, byte_size, get_pitch, and a kernel
    reading one image and writing another."""
    src = _pixels(RGBA8, tuple(reversed(sizes)))
    src[src == 255] = 0
    dst = np.zeros_like(src)
    rng = sycl.range(*sizes)
    with sycl.unsampled_image(src, RGBA8, rng) as a, sycl.unsampled_image(dst, RGBA8, rng) as b:
        assert a.get_range() == rng and a.size() == int(np.prod(sizes)) and a.byte_size() == src.nbytes
        if len(sizes) > 1:
            pitches = [sizes[0] * 4 * int(np.prod(sizes[1:d])) for d in range(1, len(sizes))]
            assert a.get_pitch() == sycl.range(*pitches)
        _launch(queue, f"cts_im_inc{len(sizes)}", rng, (a, sycl.read_only), (b, sycl.write_only))
    np.testing.assert_array_equal(dst, src + 1)


def test_IM_03_pitched_host_data(queue: sycl.queue) -> None:
    """Host data with an explicit row pitch, and a strided numpy view, are read and written back
    row by row; the padding between rows is untouched."""
    w, h, pitch = 5, 3, 5 * 4 + 12
    raw = np.full(pitch * h, 200, np.uint8)
    for y in range(h):
        raw[y * pitch:y * pitch + w * 4] = np.arange(w * 4, dtype=np.uint8) + y
    with sycl.unsampled_image(raw, RGBA8, sycl.range(w, h), sycl.range(pitch)) as img:
        assert img.get_pitch() == sycl.range(pitch)
        _launch(queue, "cts_im_inc2", sycl.range(w, h), (img, sycl.read_only), (img, sycl.write_only))
    for y in range(h):
        np.testing.assert_array_equal(raw[y * pitch:y * pitch + w * 4], np.arange(w * 4) + y + 1)
        assert (raw[y * pitch + w * 4:(y + 1) * pitch] == 200).all()
    whole = np.full((h, w + 2, 4), 9, np.uint8)
    with sycl.unsampled_image(whole[:, :w], RGBA8, sycl.range(w, h)) as img:
        _launch(queue, "cts_im_inc2", sycl.range(w, h), (img, sycl.read_only), (img, sycl.write_only))
    assert (whole[:, :w] == 10).all() and (whole[:, w:] == 9).all()


def test_IM_04_write_back(queue: sycl.queue) -> None:
    """An unsampled image writes back at destruction, into set_final_data's array when given,
    nowhere after set_write_back(False); a sampled image never writes its host data."""
    data = np.zeros((2, 3, 4), np.uint8)
    final = np.zeros_like(data)
    with sycl.unsampled_image(data, RGBA8, sycl.range(3, 2)) as img:
        _launch(queue, "cts_im_inc2", sycl.range(3, 2), (img, sycl.read_only), (img, sycl.write_only))
    assert (data == 1).all()
    with sycl.unsampled_image(data, RGBA8, sycl.range(3, 2)) as img:
        img.set_final_data(final)
        _launch(queue, "cts_im_inc2", sycl.range(3, 2), (img, sycl.read_only), (img, sycl.write_only))
    assert (final == 2).all()
    data[...] = 0
    with sycl.unsampled_image(data, RGBA8, sycl.range(3, 2)) as img:
        img.set_write_back(False)
        _launch(queue, "cts_im_inc2", sycl.range(3, 2), (img, sycl.read_only), (img, sycl.write_only))
    assert not data.any()


def test_IM_05_host_accessors(queue: sycl.queue) -> None:
    """host_unsampled_image_accessor writes (no_init), a kernel reads what it wrote, a read-only
    one sees the kernel's result as (height, width, channels); read and write convert as a
    kernel does; host_sampled_image_accessor reads its image."""
    img = sycl.unsampled_image(RGBA8, sycl.range(4, 2))
    out = sycl.unsampled_image(RGBA8, sycl.range(4, 2))
    with sycl.host_unsampled_image_accessor(img, sycl.write_only, sycl.property.no_init()) as acc:
        np.asarray(acc)[...] = 3
        acc.write((3, 1), np.array([1, 2, 3, 4]))
    _launch(queue, "cts_im_inc2", sycl.range(4, 2), (img, sycl.read_only), (out, sycl.write_only))
    with sycl.host_unsampled_image_accessor(out, sycl.read_only) as acc:
        assert np.asarray(acc).shape == (2, 4, 4) and (np.asarray(acc)[0] == 4).all()
        assert acc.read((3, 1)).tolist() == [2, 3, 4, 5]
    bgra = sycl.unsampled_image(sycl.image_format.b8g8r8a8_unorm, sycl.range(1, 1))
    with sycl.host_unsampled_image_accessor(bgra) as acc:
        acc.write((0, 0), np.array([1.0, 0.0, 0.0, 1.0]))  # red, stored blue first
        assert np.asarray(acc)[0, 0].tolist() == [0, 0, 255, 255]
    pixels = np.arange(8 * 4, dtype=np.uint8).reshape(2, 4, 4)
    with sycl.sampled_image(pixels, RGBA8, sycl.image_sampler(), sycl.range(4, 2)) as simg, \
            sycl.host_sampled_image_accessor(simg) as acc:
        np.testing.assert_array_equal(np.asarray(acc), pixels)
        assert acc.read((2.5, 1.5)).tolist() == pixels[1, 2].tolist()


MODES = [m for m in itertools.product(sycl.addressing_mode, sycl.coordinate_normalization_mode,
                                      sycl.filtering_mode)
         if m[1] is sycl.coordinate_normalization_mode.normalized
         or m[0] not in (sycl.addressing_mode.repeat, sycl.addressing_mode.mirrored_repeat)]


@pytest.mark.parametrize("mode", MODES, ids=lambda m: "-".join(x.name for x in m))
def test_IM_06_sampling(queue: sycl.queue, mode: tuple, request: pytest.FixtureRequest) -> None:
    """A sampled_image_accessor (the image, then its sampler_t) reads as OpenCL C §8.2 says, in
    each addressing, coordinate normalization and filtering mode: nearest exactly (away from
    pixel edges), linear within 1/256 (8-bit weights are allowed)."""
    addressing, coordinate, filtering = mode
    if addressing is sycl.addressing_mode.none and filtering is sycl.filtering_mode.linear:
        known_defect(request, queue.get_device(), "Oclgrind",
                     "Oclgrind reads 0 through a linear sampler with CLK_ADDRESS_NONE, inside the image too "
                     "(results/oclgrind-21.10/repro_linear_address_none.py)")
    sampler = sycl.image_sampler(addressing, coordinate, filtering)
    sizes = (7, 5)
    pixels = np.random.default_rng(3).random((5, 7, 4), dtype=np.float32)
    rng = np.random.default_rng(1)
    none = addressing is sycl.addressing_mode.none
    low, high = (0, 1) if none else (-2, 3)  # none: undefined outside (OpenCL C §8.2)
    edge = int(none and filtering is sycl.filtering_mode.linear)  # and for a linear read's 2x2 pixels there
    at = np.stack([rng.integers(low * s * 2 + edge, high * s * 2 - edge, 64) / 2 + 0.25 for s in sizes], -1)
    if coordinate is sycl.coordinate_normalization_mode.normalized:
        at = at / np.array(sizes)
    out = np.zeros((len(at), 4), np.float32)
    with sycl.sampled_image(pixels, FLOAT4, sampler, sycl.range(*sizes)) as img:
        flat = np.ascontiguousarray(at, np.float32).reshape(-1)
        with sycl.buffer(flat) as coords, sycl.buffer(out) as result:
            queue.submit(lambda h: h.parallel_for(
                len(at), "cts_im_sample", sycl.sampled_image_accessor(img, h),
                sycl.accessor(coords, h, sycl.read_only), sycl.accessor(result, h, sycl.write_only)))
        with sycl.host_sampled_image_accessor(img) as acc:
            want = np.stack([acc.read(c) for c in at])
    np.testing.assert_allclose(out, want, atol=5e-3 if filtering is sycl.filtering_mode.linear else 0)


def test_IM_07_scheduling(queue: sycl.queue) -> None:
    """Image accessors order kernels as buffer accessors do; an image moves to the device once
    and back once across a chain of kernels; a host task with an interop_handle gets the
    pyopencl.Image from get_native_mem and what it enqueues is seen afterwards."""
    data = np.zeros((4, 8, 4), np.uint8)
    other = sycl.unsampled_image(RGBA8, sycl.range(8, 4))
    with sycl.unsampled_image(data, RGBA8, sycl.range(8, 4)) as img:
        for _ in range(3):
            _launch(queue, "cts_im_inc2", sycl.range(8, 4), (img, sycl.read_only), (other, sycl.write_only))
            _launch(queue, "cts_im_inc2", sycl.range(8, 4), (other, sycl.read_only), (img, sycl.write_only))

        def cgf(h: sycl.handler) -> None:
            acc = sycl.unsampled_image_accessor(img, h, sycl.write_only)

            def body(ih: sycl.interop_handle) -> None:
                native = ih.get_native_mem(acc)
                assert isinstance(native, cl.Image)
                cl.enqueue_fill_image(ih.get_native_queue(), native, np.array([50] * 4, np.uint32),
                                      (0, 0), (1, 1))
            h.host_task(body)

        queue.submit(cgf).wait()
        assert img.transfer_counters().h2d_copies == 1
    assert data[0, 0].tolist() == [50] * 4 and (data.reshape(-1, 4)[1:] == 6).all()


def test_IM_08_interop(queue: sycl.queue) -> None:
    """make_image wraps a pyopencl.Image (its pixels, written back into it at the end);
    get_native of an image gives its pyopencl.Image holding the current pixels."""
    ctx = queue.get_context()
    start = np.arange(2 * 4 * 4, dtype=np.uint8).reshape(2, 4, 4)
    native = cl.create_image(sycl.get_native(ctx), cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                             cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.UNSIGNED_INT8),
                             shape=(4, 2), hostbuf=start)
    with sycl.make_image(native, ctx) as img:
        assert sycl.get_native(img) is native
        _launch(queue, "cts_im_inc2", sycl.range(4, 2), (img, sycl.read_only), (img, sycl.write_only))
    got = np.zeros_like(start)
    cl.enqueue_copy(cl.CommandQueue(sycl.get_native(ctx)), got, native, origin=(0, 0), region=(4, 2))
    np.testing.assert_array_equal(got, start + 1)


def test_IM_09_misuse(queue: sycl.queue) -> None:
    """errc.invalid for a read_write unsampled accessor, repeat with unnormalized coordinates and
    host data of another type; errc.kernel_argument for an image of other dimensions than the
    parameter and a sampled accessor without its sampler_t parameter."""
    img = sycl.unsampled_image(RGBA8, sycl.range(4, 4))
    with raises(sycl.errc.invalid):
        queue.submit(lambda h: sycl.unsampled_image_accessor(img, h, sycl.read_write))
    with raises(sycl.errc.invalid):
        sycl.image_sampler(sycl.addressing_mode.repeat, sycl.coordinate_normalization_mode.unnormalized)
    with raises(sycl.errc.invalid):
        sycl.unsampled_image(np.zeros((4, 4, 4), np.float32), RGBA8, sycl.range(4, 4))
    with raises(sycl.errc.kernel_argument):
        _launch(queue, "cts_im_inc1", sycl.range(4), (img, sycl.read_only), (img, sycl.write_only))
    sampled = sycl.sampled_image(np.zeros((4, 4, 4), np.uint8), RGBA8, sycl.image_sampler(), sycl.range(4, 4))
    with raises(sycl.errc.kernel_argument):
        queue.submit(lambda h: h.parallel_for(
            sycl.range(4, 4), "cts_im_copy_ui", sycl.sampled_image_accessor(sampled, h),
            sycl.unsampled_image_accessor(img, h, sycl.write_only)))


def test_IM_10_two_contexts(device: sycl.device) -> None:
    """(driver) One image used in turn on queues of two contexts (the device's own and a second
    one) moves through the host and keeps every kernel's result."""
    q1, q2 = sycl.queue(sycl.context(device), device), sycl.queue(sycl.context(device), device)
    data = np.zeros((3, 4, 4), np.uint8)
    scratch = sycl.unsampled_image(RGBA8, sycl.range(4, 3))
    with sycl.unsampled_image(data, RGBA8, sycl.range(4, 3)) as img:
        for q in (q1, q2, q1):
            _launch(q, "cts_im_inc2", sycl.range(4, 3), (img, sycl.read_only), (scratch, sycl.write_only))
            _launch(q, "cts_im_inc2", sycl.range(4, 3), (scratch, sycl.read_only), (img, sycl.write_only))
    assert (data == 6).all()
