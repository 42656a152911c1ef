"""Images (SYCL 2020 §4.7.3): ``unsampled_image``, ``sampled_image``, ``image_sampler``, the
image formats, and their OpenCL interop.

An image is a memory object like a buffer (``scheduler.ImageMemory``): the host copy holds its
pixels packed, row after row, each context an OpenCL image; the scheduler orders and moves it
as it does a buffer. A range is written as in SYCL, width first (``sycl.range(width,
height)``); host data is a numpy array shaped as numpy's image convention, ``(height, width,
channels)`` (``(width, channels)`` in 1-D, ``(depth, height, width, channels)`` in 3-D).
"""

from __future__ import annotations

import enum
import threading
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pyopencl as cl

from ._aspect import aspect
from ._exception import errc, exception
from ._memory_handle import MemoryHandle
from ._native import cl as native
from ._native import translate
from ._range import as_range, range
from .access import access_mode
from .property import image as image_props
from .property._base import is_property_list_like, make_property_list, property_list
from .scheduler import (
    ImageMemory,
    TransferCounters,
    add_handle,
    adopt,
    native_buffers,
    own,
    set_final_data,
    set_write_back,
    writeable_alias,
)

if TYPE_CHECKING:
    from ._context import context
    from ._device import device
    from ._handler import handler


class image_channel_order(enum.Enum):
    """The channel orders of an image (§4.7.3.1); those OpenCL images hold."""

    a = "a"
    r = "r"
    rg = "rg"
    ra = "ra"
    rgba = "rgba"
    argb = "argb"
    bgra = "bgra"
    intensity = "intensity"
    luminance = "luminance"
    abgr = "abgr"


class image_channel_type(enum.Enum):
    """The channel types of an image (§4.7.3.1); those with one numpy element per channel."""

    snorm_int8 = "snorm_int8"
    snorm_int16 = "snorm_int16"
    unorm_int8 = "unorm_int8"
    unorm_int16 = "unorm_int16"
    signed_int8 = "signed_int8"
    signed_int16 = "signed_int16"
    signed_int32 = "signed_int32"
    unsigned_int8 = "unsigned_int8"
    unsigned_int16 = "unsigned_int16"
    unsigned_int32 = "unsigned_int32"
    fp16 = "fp16"
    fp32 = "fp32"


class image_format(enum.Enum):
    """The image formats of SYCL 2020 (§4.7.3.1). The spec spells three of them with the
    channels out of order (``r32b32g32a32_sint``); both spellings name one member."""

    r8g8b8a8_unorm = (image_channel_order.rgba, image_channel_type.unorm_int8)
    r16g16b16a16_unorm = (image_channel_order.rgba, image_channel_type.unorm_int16)
    r8g8b8a8_sint = (image_channel_order.rgba, image_channel_type.signed_int8)
    r16g16b16a16_sint = (image_channel_order.rgba, image_channel_type.signed_int16)
    r32g32b32a32_sint = (image_channel_order.rgba, image_channel_type.signed_int32)
    r32b32g32a32_sint = (image_channel_order.rgba, image_channel_type.signed_int32)
    r8g8b8a8_uint = (image_channel_order.rgba, image_channel_type.unsigned_int8)
    r16g16b16a16_uint = (image_channel_order.rgba, image_channel_type.unsigned_int16)
    r32g32b32a32_uint = (image_channel_order.rgba, image_channel_type.unsigned_int32)
    r32b32g32a32_uint = (image_channel_order.rgba, image_channel_type.unsigned_int32)
    r16g16b16a16_sfloat = (image_channel_order.rgba, image_channel_type.fp16)
    r16b16g16a16_sfloat = (image_channel_order.rgba, image_channel_type.fp16)
    r32g32b32a32_sfloat = (image_channel_order.rgba, image_channel_type.fp32)
    b8g8r8a8_unorm = (image_channel_order.bgra, image_channel_type.unorm_int8)


class addressing_mode(enum.Enum):
    """What a sampler reads outside the image (§4.7.8)."""

    mirrored_repeat = "mirrored_repeat"
    repeat = "repeat"
    clamp_to_edge = "clamp_to_edge"
    clamp = "clamp"
    none = "none"


class filtering_mode(enum.Enum):
    """How a sampler combines pixels (§4.7.8)."""

    nearest = "nearest"
    linear = "linear"


class coordinate_normalization_mode(enum.Enum):
    """Whether coordinates run over [0, 1) or over pixels (§4.7.8)."""

    normalized = "normalized"
    unnormalized = "unnormalized"


_CL_ADDRESSING = {
    addressing_mode.mirrored_repeat: cl.addressing_mode.MIRRORED_REPEAT,
    addressing_mode.repeat: cl.addressing_mode.REPEAT,
    addressing_mode.clamp_to_edge: cl.addressing_mode.CLAMP_TO_EDGE,
    addressing_mode.clamp: cl.addressing_mode.CLAMP,
    addressing_mode.none: cl.addressing_mode.NONE,
}
_samplers: dict[tuple[int, image_sampler], cl.Sampler] = {}
_samplers_lock = threading.Lock()


@dataclass(frozen=True)
class image_sampler:
    """How a sampled image is read (§4.7.8): addressing, coordinate normalization, filtering.

    In a kernel it is a ``sampler_t`` parameter (docs/kernels.md): the runtime passes the
    ``cl_sampler`` of the image's sampler right after each sampled image accessor.

    Raises:
        sycl.exception: ``errc.invalid`` for an argument of another enum, or ``repeat`` /
            ``mirrored_repeat`` with unnormalized coordinates (OpenCL defines them only for
            normalized ones).
    """

    addressing: addressing_mode = addressing_mode.none
    coordinate: coordinate_normalization_mode = coordinate_normalization_mode.unnormalized
    filtering: filtering_mode = filtering_mode.nearest

    def __post_init__(self) -> None:
        for value, kind in ((self.addressing, addressing_mode),
                            (self.coordinate, coordinate_normalization_mode),
                            (self.filtering, filtering_mode)):
            if not isinstance(value, kind):
                raise exception(errc.invalid, f"image_sampler takes a sycl.{kind.__name__}, got {value!r}")
        if (self.addressing in (addressing_mode.repeat, addressing_mode.mirrored_repeat)
                and self.coordinate is coordinate_normalization_mode.unnormalized):
            raise exception(
                errc.invalid,
                f"addressing_mode.{self.addressing.name} needs normalized coordinates; use "
                "coordinate_normalization_mode.normalized or another addressing mode",
            )

    def _native(self, ctx: cl.Context) -> cl.Sampler:
        """The ``cl_sampler`` of this sampler in ``ctx``, made once per context."""
        key = (ctx.int_ptr, self)
        found = _samplers.get(key)
        if found is None:
            with _samplers_lock:
                found = _samplers.get(key)
                if found is None:
                    found = _samplers[key] = self._create(ctx)
        return found

    def _create(self, ctx: cl.Context) -> cl.Sampler:
        try:
            return native.Sampler(
                ctx, self.coordinate is coordinate_normalization_mode.normalized,
                _CL_ADDRESSING[self.addressing],
                cl.filter_mode.LINEAR if self.filtering is filtering_mode.linear else cl.filter_mode.NEAREST)
        except cl.Error as error:
            raise translate(error, f"creating the sampler {self!r}") from error


class Format(NamedTuple):
    """What the runtime knows of a format: the OpenCL format, the channels of a pixel, the
    numpy type of one channel, how a kernel reads it (``unorm``, ``snorm``, ``sint``, ``uint``
    or ``float``) and the channel order's name (``rgba``)."""

    cl_format: cl.ImageFormat
    channels: int
    dtype: np.dtype[Any]
    kind: str
    order: str

    @property
    def pixel(self) -> int:
        """The bytes of one pixel."""
        return self.channels * self.dtype.itemsize


_ORDERS = {
    image_channel_order.a: (cl.channel_order.A, 1), image_channel_order.r: (cl.channel_order.R, 1),
    image_channel_order.rg: (cl.channel_order.RG, 2), image_channel_order.ra: (cl.channel_order.RA, 2),
    image_channel_order.rgba: (cl.channel_order.RGBA, 4),
    image_channel_order.argb: (0x10B7, 4),  # CL_ARGB, which PyOpenCL does not name
    image_channel_order.bgra: (cl.channel_order.BGRA, 4),
    image_channel_order.intensity: (cl.channel_order.INTENSITY, 1),
    image_channel_order.luminance: (cl.channel_order.LUMINANCE, 1),
    image_channel_order.abgr: (0x10C3, 4),  # CL_ABGR (OpenCL 2.0), which PyOpenCL does not name
}
_TYPES = {
    image_channel_type.snorm_int8: (cl.channel_type.SNORM_INT8, np.int8, "snorm"),
    image_channel_type.snorm_int16: (cl.channel_type.SNORM_INT16, np.int16, "snorm"),
    image_channel_type.unorm_int8: (cl.channel_type.UNORM_INT8, np.uint8, "unorm"),
    image_channel_type.unorm_int16: (cl.channel_type.UNORM_INT16, np.uint16, "unorm"),
    image_channel_type.signed_int8: (cl.channel_type.SIGNED_INT8, np.int8, "sint"),
    image_channel_type.signed_int16: (cl.channel_type.SIGNED_INT16, np.int16, "sint"),
    image_channel_type.signed_int32: (cl.channel_type.SIGNED_INT32, np.int32, "sint"),
    image_channel_type.unsigned_int8: (cl.channel_type.UNSIGNED_INT8, np.uint8, "uint"),
    image_channel_type.unsigned_int16: (cl.channel_type.UNSIGNED_INT16, np.uint16, "uint"),
    image_channel_type.unsigned_int32: (cl.channel_type.UNSIGNED_INT32, np.uint32, "uint"),
    image_channel_type.fp16: (cl.channel_type.HALF_FLOAT, np.float16, "float"),
    image_channel_type.fp32: (cl.channel_type.FLOAT, np.float32, "float"),
}


def resolve_format(fmt: Any) -> Format:
    """An ``image_format``, or a pair ``(image_channel_order, image_channel_type)`` (any format
    the device reports, a sycl_ocl extension), as the runtime knows it.

    Raises:
        sycl.exception: ``errc.invalid`` for anything else.
    """
    pair = fmt.value if isinstance(fmt, image_format) else fmt
    try:
        order, type_ = pair
        cl_order, channels = _ORDERS[order]
        cl_type, dtype, kind = _TYPES[type_]
    except (TypeError, ValueError, KeyError):
        raise exception(
            errc.invalid,
            f"{fmt!r} is no image format: give a sycl.image_format (e.g. r8g8b8a8_unorm) or a pair "
            "(sycl.image_channel_order.X, sycl.image_channel_type.Y)",
        ) from None
    return Format(cl.ImageFormat(cl_order, cl_type), channels, np.dtype(dtype), kind, order.value)


def numpy_shape(rng: range, channels: int) -> tuple[int, ...]:
    """The numpy shape of an image of ``rng`` (width first): ``(..., height, width, channels)``."""
    return (*reversed(rng.to_tuple()), channels)


_IMAGE_TYPES = {1: cl.mem_object_type.IMAGE1D, 2: cl.mem_object_type.IMAGE2D, 3: cl.mem_object_type.IMAGE3D}
_supported: dict[tuple[int, int, int], frozenset[tuple[int, int]]] = {}
# The device's largest image per dimension, width first (clCreateImage's limits, OpenCL 1.2
# §5.3.1: a 1-D image is at most as wide as a 2-D one).
_LIMITS = {1: ("image2d_max_width",), 2: ("image2d_max_width", "image2d_max_height"),
           3: ("image3d_max_width", "image3d_max_height", "image3d_max_depth")}


def check_device(dev: device, native_ctx: cl.Context, fmt: Format, sizes: tuple[int, ...]) -> None:
    """``errc.feature_not_supported`` unless ``dev`` has images (``aspect.image``) and its
    context reads and writes images of ``fmt`` of ``sizes``' dimensions; ``errc.invalid`` for
    ``sizes`` (width first) beyond the device's largest image."""
    dims = len(sizes)
    if not dev.has(aspect.image):
        raise exception(
            errc.feature_not_supported,
            f"{dev!r} has no image support (aspect.image); choose a device with it, e.g. "
            "sycl.aspect_selector(sycl.aspect.image), or use buffers",
        )
    key = (native_ctx.int_ptr, dev._native.int_ptr, dims)
    known = _supported.get(key)
    if known is None:
        try:
            formats = native.get_supported_image_formats(native_ctx, cl.mem_flags.READ_WRITE,
                                                         _IMAGE_TYPES[dims])
        except cl.Error as error:
            raise translate(error, f"querying the image formats of {dev!r}") from error
        known = _supported[key] = frozenset((f.channel_order, f.channel_data_type) for f in formats)
    if (fmt.cl_format.channel_order, fmt.cl_format.channel_data_type) not in known:
        raise exception(
            errc.feature_not_supported,
            f"{dev!r} does not support {dims}-D images of {fmt.cl_format!r}; choose a format it "
            "reports (pyopencl.get_supported_image_formats)",
        )
    limits = tuple(int(getattr(dev._native, name)) for name in _LIMITS[dims])
    if any(n > most for n, most in zip(sizes, limits, strict=True)):
        raise exception(
            errc.invalid,
            f"an image of range {sizes} (width first) is larger than {dev!r} allows, "
            f"{limits} ({', '.join(_LIMITS[dims])}); split it into smaller images, or use a buffer",
        )


class _image(MemoryHandle):
    """What both image classes are (§4.7.3): a memory object of pixels, its range, format and
    pitch, and the destruction rules of buffers (§4.7.2.3)."""

    __slots__ = ("__weakref__", "_format", "_pitch", "_props", "_range")

    _owner = "unsampled_image"

    def _init(self, host: Any, fmt: Any, rng: Any, pitch: Any, prop_list: Any) -> None:
        self._props = make_property_list(prop_list, self._owner)
        self._format = resolve_format(fmt)
        self._range = as_range(rng)
        if not 1 <= self._range.dimensions <= 3:
            raise exception(errc.invalid, "an image has 1, 2 or 3 dimensions")
        if self._range.size() == 0:
            raise exception(errc.invalid, f"an image of range {self._range} has no pixels; give sides >= 1")
        self._windows: dict[Any, Any] = {}
        shape = numpy_shape(self._range, self._format.channels)
        if host is None:
            if pitch is not None:
                raise exception(errc.invalid, "a pitch describes host data; an image without any has none")
            self._pitch = self._packed_pitch()
            self._root = self._new_root(None, None)
        else:
            self._init_host(host, shape, pitch)
        self._alive = True
        self._token = add_handle(self._root)

    def _packed_pitch(self) -> tuple[int, ...]:
        """The row and slice pitch of the packed pixels (none in 1-D)."""
        sizes = self._range.to_tuple()
        row = sizes[0] * self._format.pixel
        if len(sizes) == 1:
            return ()
        return (row,) if len(sizes) == 2 else (row, row * sizes[1])

    def _init_host(self, host: Any, shape: tuple[int, ...], pitch: Any) -> None:
        data = writeable_alias(host)
        try:
            array = data if isinstance(data, np.ndarray) else np.asarray(memoryview(data))
        except TypeError:
            raise exception(errc.invalid, f"an image's host data is a numpy array, got {host!r}") from None
        if array.dtype != self._format.dtype and pitch is None:
            raise exception(
                errc.invalid,
                f"the host data holds {array.dtype}; an image of {self._format.cl_format!r} holds "
                f"{self._format.dtype} ({self._format.channels} per pixel)",
            )
        writable, sampled = bool(array.flags.writeable), isinstance(self, sampled_image)
        view = _pixels(array, shape, pitch, self._format)
        self._pitch = _pitch_of(view)
        if view.flags.c_contiguous and (writable or sampled):
            # The user's memory is the host copy; a sampled image's is only read (its accessors
            # read), so it needs no copy even read-only, and is never written back.
            self._root = self._new_root(view.reshape(-1).view(np.uint8), None if sampled else view)
            if writable:  # the user's array, not the alias of one another image or buffer owns
                own(self._root, host if isinstance(host, np.ndarray) else array)
        else:
            if self._props.has_property(image_props.use_host_ptr):
                raise exception(
                    errc.invalid,
                    "use_host_ptr needs writeable host data holding the pixels packed (no pitch), "
                    "which the image then uses as it is; drop the property or pass such an array",
                )
            private = np.array(view, order="C").reshape(-1).view(np.uint8)  # a copy: never the user's
            self._root = self._new_root(private, view if writable and not sampled else None)

    def _new_root(self, host: np.ndarray | None, user: Any) -> ImageMemory:
        fmt = self._format
        root = ImageMemory(host, user, fmt.cl_format, self._range.to_tuple(), fmt.pixel)
        root.dtype = fmt.dtype
        props = self._props
        if props.has_property(image_props.context_bound):
            root.bound_to = props.get_property(image_props.context_bound).get_context()._handle
        if props.has_property(image_props.use_mutex):
            root.mutex = props.get_property(image_props.use_mutex).get_mutex_ptr()
            root.mutex.acquire()  # held while the image lives: the host data is in use
        return root

    # --- destruction (§4.7.3, as §4.7.2.3) ---------------------------------------------------

    def __enter__(self) -> Any:
        return self

    # --- members (§4.7.3.2, §4.7.3.3) ------------------------------------------------------

    def get_range(self) -> range:
        """The image's range, width first (§4.7.3)."""
        return self._range

    def get_pitch(self) -> range:
        """The row pitch (and slice pitch in 3-D) in bytes of the host data (§4.7.3); packed
        without host data. ``errc.invalid`` for a 1-D image, which has none."""
        if not self._pitch:
            raise exception(errc.invalid, "a 1-D image has no pitch")
        return range(*self._pitch)

    def size(self) -> int:
        """The number of pixels (§4.7.3)."""
        return self._range.size()

    def byte_size(self) -> int:
        """The bytes of the image's storage, its pitch included (§4.7.3)."""
        if not self._pitch:
            return self._range.size() * self._format.pixel
        return self._pitch[-1] * self._range.to_tuple()[-1]

    @property
    def dtype(self) -> np.dtype[Any]:
        """The numpy type of one channel (a sycl_ocl extension)."""
        return self._format.dtype

    def get_format(self) -> Any:
        """The pair ``(image_channel_order, image_channel_type)``'s OpenCL format (a
        ``pyopencl.ImageFormat``; a sycl_ocl extension)."""
        return self._format.cl_format

    def transfer_counters(self) -> TransferCounters:
        """Bytes moved for this image so far (a sycl_ocl extension; see docs/scheduler.md)."""
        return self._root.counters.snapshot()

    def _get_native(self) -> list[Any]:
        """The ``pyopencl.Image`` of every context the image lives in (``interop.get_native``
        gives one)."""
        self._check_alive()
        return native_buffers(self._root)

    def __repr__(self) -> str:
        return f"<sycl.{type(self).__name__} {self._range} of {self._format.cl_format!r}>"


def _pixels(array: np.ndarray, shape: tuple[int, ...], pitch: Any, fmt: Format) -> np.ndarray:
    """The pixels of the host data as an array of ``shape`` (a view of ``array``'s memory).

    Without ``pitch``: ``array`` holds them packed in any shape of that many elements, or is a
    view of ``shape`` whose rows (and slices) may lie apart (its strides are the pitch). With
    ``pitch`` (a range of the row pitch, and the slice pitch in 3-D, in bytes): ``array`` is
    contiguous memory where row ``y`` begins ``y * pitch[0]`` bytes in.

    Raises:
        sycl.exception: ``errc.invalid`` for host data that does not hold the pixels.
    """
    count = int(np.prod(shape))
    if pitch is None:
        if array.flags.c_contiguous and array.size == count:
            return array.reshape(shape)
        squeezed = array.reshape((*array.shape, 1)) if array.shape == shape[:-1] else array
        if squeezed.shape == shape and squeezed.strides[-1] == fmt.dtype.itemsize \
                and squeezed.strides[-2] == fmt.pixel:
            return squeezed
        raise exception(
            errc.invalid,
            f"the host data of shape {array.shape} does not hold the {count} channels of an image "
            f"shaped {shape} (numpy order: height, width, channels), packed or with pixels "
            "contiguous in each row",
        )
    pitches = tuple(as_range(pitch).to_tuple()) if not isinstance(pitch, int) else (pitch,)
    dims = len(shape) - 1
    if len(pitches) != dims - 1:
        raise exception(errc.invalid, f"a {dims}-D image takes {dims - 1} pitch value(s), got {pitches}")
    row_bytes = shape[-2] * fmt.pixel
    if pitches[0] < row_bytes or (dims == 3 and pitches[1] < pitches[0] * shape[1]):
        raise exception(errc.invalid, f"the pitch {pitches} is smaller than the rows (slices) it spaces")
    if not array.flags.c_contiguous:
        raise exception(errc.invalid, "host data with a pitch must be contiguous memory")
    strides = (*reversed(pitches), fmt.pixel, fmt.dtype.itemsize)
    needed = sum((n - 1) * s for n, s in zip(shape, strides, strict=True)) + fmt.dtype.itemsize
    if array.nbytes < needed:
        raise exception(errc.invalid,
                        f"the host data has {array.nbytes} bytes; pitch {pitches} needs {needed}")
    raw = array.reshape(-1).view(np.uint8)
    return np.ndarray(shape, fmt.dtype, buffer=raw, strides=strides)


def _pitch_of(view: np.ndarray) -> tuple[int, ...]:
    """The row (and slice) pitch of a pixel array's rows in memory."""
    return tuple(reversed(view.strides[:-2]))


def _split(args: tuple[Any, ...], prop_list: Any) -> tuple[Any, Any]:
    """(pitch, prop_list) of the arguments after the range: a property list may stand in the
    pitch's place (C++ has the constructor with and the one without the pitch)."""
    pitch = args[0] if args else None
    if pitch is not None and is_property_list_like(pitch):
        if prop_list is not None:
            raise exception(errc.invalid, "a property list comes last and once; pass it as prop_list=[...]")
        return None, pitch
    return pitch, prop_list


class unsampled_image(_image):
    """An image read and written by pixel coordinates (§4.7.3.2).

    The forms of the constructor:

    - ``unsampled_image(fmt, rng[, pitch], prop_list=None)``: no host data.
    - ``unsampled_image(host_array, fmt, rng[, pitch], prop_list=None)``: over host data,
      written back at destruction when the array is writeable (as a buffer's, §4.7.2.3).

    ``fmt`` is a ``sycl.image_format`` (or a pair ``(image_channel_order,
    image_channel_type)``), ``rng`` a ``sycl.range`` of 1 to 3 dimensions, width first. The host
    array holds the channels as ``fmt``'s numpy type, shaped ``(height, width, channels)``
    (packed in any shape, or a strided view of that shape whose rows lie apart: its strides
    are the pitch); ``pitch`` (``sycl.range(row_pitch[, slice_pitch])``, bytes) reads rows
    that far apart in contiguous host memory. ``prop_list`` takes
    ``sycl.property.image.use_host_ptr()``, ``use_mutex(lock)`` and ``context_bound(ctx)``.

    Raises:
        sycl.exception: ``errc.invalid`` for an unknown format, a range of no pixels or of
            more than 3 dimensions, host data of another type or size, a pitch smaller than
            the rows, ``use_host_ptr`` over host data the image cannot use as it is. A device
            without image support (or the format) refuses its accessors with
            ``errc.feature_not_supported``.

    Example::

        pixels = numpy.zeros((480, 640, 4), numpy.uint8)
        with sycl.unsampled_image(pixels, sycl.image_format.r8g8b8a8_unorm, sycl.range(640, 480)) as img:
            q.submit(lambda h: h.parallel_for(sycl.range(640, 480), "fill",
                     sycl.unsampled_image_accessor(img, h, sycl.write_only)))
    """

    __slots__ = ()

    def __init__(self, *args: Any, prop_list: property_list | Any = None) -> None:
        if not args:
            raise exception(errc.invalid, "unsampled_image(fmt, range) or unsampled_image(host, fmt, range)")
        if _is_format(args[0]):
            host, fmt, rest = None, args[0], args[1:]
        elif len(args) > 1 and _is_format(args[1]):
            host, fmt, rest = args[0], args[1], args[2:]
        else:
            raise exception(
                errc.invalid,
                f"unsampled_image(fmt, range) or unsampled_image(host, fmt, range): no image format in "
                f"{args[:2]!r}; give a sycl.image_format (e.g. r8g8b8a8_unorm) or a pair "
                "(sycl.image_channel_order.X, sycl.image_channel_type.Y)",
            )
        if not rest or len(rest) > 3:
            raise exception(errc.invalid, "unsampled_image takes a range after the format")
        pitch, prop_list = _split(rest[1:], prop_list if len(rest) < 3 else _only(prop_list, rest[2]))
        self._init(host, fmt, rest[0], pitch, prop_list)

    def get_access(self, h: handler, mode: Any, prop_list: Any = None) -> Any:
        """``unsampled_image_accessor(self, h, mode, prop_list)`` (§4.7.3.2)."""
        return _image_accessor.unsampled_image_accessor(self, h, mode, prop_list)

    def get_host_access(self, mode: Any = access_mode.read_write, prop_list: Any = None) -> Any:
        """``host_unsampled_image_accessor(self, mode, prop_list)`` (§4.7.3.2)."""
        return _image_accessor.host_unsampled_image_accessor(self, mode, prop_list)

    def set_final_data(self, final_data: Any = None) -> None:
        """Where the pixels go at destruction: a writable array of the image's numpy shape, a
        ``weakref.ref`` to one, or ``None`` for nowhere (§4.7.3.2)."""
        target = final_data() if isinstance(final_data, weakref.ref) else final_data
        if target is not None:
            wanted = numpy_shape(self._range, self._format.channels)
            small = not isinstance(target, np.ndarray) or target.size < np.prod(wanted)
            if small or not target.flags.writeable:
                raise exception(
                    errc.invalid,
                    f"set_final_data needs a writeable numpy array of at least {int(np.prod(wanted))} "
                    f"elements (shape {wanted}), or None",
                )
        set_final_data(self._root, final_data)

    def set_write_back(self, flag: bool = True) -> None:
        """Switch the write-back at destruction on or off (§4.7.3.2)."""
        set_write_back(self._root, bool(flag))


class sampled_image(_image):
    """An image read through its sampler (§4.7.3.3): read-only, its host data never written.

    ``sampled_image(host_array, fmt, sampler, rng[, pitch], prop_list=None)``: ``sampler`` is a
    ``sycl.image_sampler``; the rest as for :class:`unsampled_image`.

    Raises:
        sycl.exception: as for :class:`unsampled_image`, and ``errc.invalid`` for a sampler
            that is no ``image_sampler``.
    """

    __slots__ = ("_sampler",)

    _owner = "sampled_image"

    def __init__(self, host: Any, fmt: Any, sampler: image_sampler, rng: Any, pitch: Any = None,
                 prop_list: Any = None) -> None:
        if not isinstance(sampler, image_sampler):
            raise exception(errc.invalid, f"sampled_image takes a sycl.image_sampler, got {sampler!r}")
        if host is None:
            raise exception(errc.invalid, "a sampled_image is made over host data (it is read-only)")
        self._sampler = sampler
        pitch, prop_list = _split((pitch,), prop_list)
        self._init(host, fmt, rng, pitch, prop_list)

    def get_access(self, h: handler, prop_list: Any = None) -> Any:
        """``sampled_image_accessor(self, h, prop_list)`` (§4.7.3.3)."""
        return _image_accessor.sampled_image_accessor(self, h, prop_list)

    def get_host_access(self, prop_list: Any = None) -> Any:
        """``host_sampled_image_accessor(self, prop_list)`` (§4.7.3.3)."""
        return _image_accessor.host_sampled_image_accessor(self, prop_list)

    def get_sampler(self) -> image_sampler:
        """The sampler it is read with (a sycl_ocl extension)."""
        return self._sampler


def _is_format(value: Any) -> bool:
    return isinstance(value, image_format) or (
        isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], image_channel_order))


def _only(prop_list: Any, positional: Any) -> Any:
    if prop_list is not None:
        raise exception(errc.invalid, "a property list comes last and once; pass it as prop_list=[...]")
    return positional


def make_image(native: cl.Image, ctx: context) -> unsampled_image:
    """Wrap a ``pyopencl.Image`` of ``ctx`` (§4.5.1.3): its pixels are the image's data.

    The image has no host memory; the ``cl_mem`` stays the caller's, and holds the image's
    pixels once the image is destroyed (as ``make_buffer``'s, docs/scheduler.md rule S23).

    Raises:
        sycl.exception: ``errc.invalid`` for anything but a ``pyopencl.Image`` of ``ctx``, or one
            of a format SYCL has no name for.
    """
    if not isinstance(native, cl.Image):
        raise exception(errc.invalid, f"make_image takes a pyopencl.Image, got {native!r}")
    if native.context != ctx._native:
        raise exception(errc.invalid, "make_image: the image belongs to another context", ctx)
    fmt = native.format
    found = [(order, type_) for order, (o, _) in _ORDERS.items() for type_, (t, _, _) in _TYPES.items()
             if o == fmt.channel_order and t == fmt.channel_data_type]
    if not found:
        raise exception(errc.invalid, f"make_image: sycl_ocl has no name for the format {fmt!r}")
    dims = next((n for n, kind in _IMAGE_TYPES.items() if kind == native.type), None)
    if dims is None:
        raise exception(errc.invalid, "make_image takes a 1-, 2- or 3-D image (no arrays or buffer images)")
    sizes = (native.width, native.height, native.depth)[:dims]
    img = unsampled_image(found[0], range(*sizes))
    adopt(img._root, native, ctx._native, ctx)  # type: ignore[arg-type]  # an image's cl_mem
    return img


# An image makes accessors of itself (§4.7.3.2), and _image_accessor.py imports this module:
# bound once here, after the image classes exist (as _buffer.py binds _accessor).
from . import _image_accessor  # noqa: E402
