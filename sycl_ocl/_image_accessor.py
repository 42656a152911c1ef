"""Image accessors (SYCL 2020 §4.7.6.13-§4.7.6.14): ``unsampled_image_accessor``,
``sampled_image_accessor``, ``host_unsampled_image_accessor``, ``host_sampled_image_accessor``.

An image accessor is a requirement on the whole image's memory object, as a buffer accessor is
on its window. A device accessor becomes an OpenCL C ``read_only``/``write_only``
``image{1,2,3}d_t`` kernel parameter; a sampled one also passes its image's sampler, as the
``sampler_t`` parameter right after it (docs/kernels.md). A host accessor blocks until the
pixels are on the host, and ``numpy.asarray(acc)`` is their ``(height, width, channels)`` view.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import pyopencl as cl

from ._accessor import _Access, _Name, _own_base, _references, _Window, host_accessor
from ._exception import errc, exception
from ._image import Format, _image, check_device, numpy_shape, sampled_image, unsampled_image
from ._range import id
from ._sampling import from_kernel, sample, to_kernel
from .access import access_mode, as_mode, resolve_no_init, target
from .property._base import make_property_list, property_list
from .property.accessor import no_init
from .scheduler import Requirement, acquire_hold, release_hold, watch

if TYPE_CHECKING:
    from ._handler import handler
    from ._kernel_bundle._kernel import kernel

_DEVICE = (target.device, False)  # a device accessor made with a handler (``accessor._kind``)


def _window(img: _image, mode: access_mode, props: property_list) -> _Window:
    """The window of an image accessor: the whole image. The image keeps one per mode and
    ``no_init`` (without other properties), so that accessors of one kind share their
    requirement (docs/scheduler.md rule S17)."""
    img._check_alive()
    mode, init = resolve_no_init(mode, props.has_property(no_init))
    kept = len(props) == int(init)
    found = img._windows.get((mode, init)) if kept else None
    if found is not None:
        return found
    root = img._root
    win = _Window()
    win._props = props
    win.mode, win.no_init, win.writes = mode, init, mode.writes
    win.shared, win.shapes, win.sub_base, win.base, win.contiguous = False, {}, 0, 0, True
    win.dtype = img._format.dtype
    win.range, win.offset = img._range, id(*([0] * img._range.dimensions))
    win.shape = numpy_shape(img._range, img._format.channels)
    win.req = Requirement(root, 0, root.size, win.writes, mode.reads or not init, 0, root.size)
    if kept:
        img._windows[(mode, init)] = win
    return win


class _ImageAccess(_Access):
    """What the image accessors share: the whole image's window, its pixels' numpy view."""

    __slots__ = ()

    def _view(self) -> np.ndarray:
        """The pixels in the image's host copy, ``(height, width, channels)``."""
        win = self._win
        view = win.req.memory.host_copy().view(win.dtype).reshape(win.shape)
        if not win.writes:
            view = view.view()
            view.flags.writeable = False
        return view

    def byte_size(self) -> int:
        """The bytes of the pixels reached (a sycl_ocl extension)."""
        return self._win.req.hi

    @staticmethod
    def _describe(kind: str, win: _Window) -> str:
        return f"<sycl.{kind} {win.mode.name} {win.range}>"


class _DeviceImage(_ImageAccess):
    """What the device image accessors share: a kernel argument, not a host view."""

    __slots__ = ("_kind",)

    _kind: tuple[target, bool]  # as ``accessor._kind``: the handler's checks read it

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise exception(
            errc.accessor,
            f"{self!r} is a device accessor, a kernel argument: on the host use "
            "sycl.host_unsampled_image_accessor(img) (or host_sampled_image_accessor), and in a host "
            "task with an interop_handle ih.get_native_mem(acc), the pyopencl.Image",
        )


def _device_accessor(acc: _ImageAccess, img: Any, cls: type[_image], h: handler, mode: Any,
                     prop_list: Any) -> None:
    """Make ``acc`` a device accessor of ``img`` (an instance of ``cls``) joined to ``h``."""
    name = type(acc).__name__
    if not isinstance(img, cls):
        raise exception(errc.invalid, f"{name} is made over a sycl.{cls.__name__}, got {img!r}")
    if not hasattr(h, "_accessors"):
        raise exception(errc.invalid, f"{name} takes the command group's handler, got {h!r}")
    props = make_property_list(prop_list, "accessor")
    check_device(h._device, h._context._native, img._format, img._range.to_tuple())
    acc._win = _window(img, as_mode(mode), props)
    # Joins like a buffer accessor (its _win and _kind), and the command group holds the image
    # as it holds a buffer: one only its accessors hold ends when its command completes (rule S29).
    h._register(acc, img)  # type: ignore[arg-type]


class unsampled_image_accessor(_DeviceImage):
    """A kernel's access to an ``unsampled_image`` (§4.7.6.13): a ``read_only`` or
    ``write_only`` ``image{1,2,3}d_t`` parameter, read with ``read_image{f,i,ui}`` and written
    with ``write_image{f,i,ui}`` at integer coordinates.

    Args:
        img: the image.
        h: the command group's handler.
        mode: ``sycl.read_only`` or ``sycl.write_only`` (OpenCL images are read or written in a
            kernel, not both).
        prop_list: ``sycl.property.no_init()`` (write_only: the pixels the kernel does not
            write need not be current on the device).

    Raises:
        sycl.exception: ``errc.invalid`` for another mode or something else than an
            ``unsampled_image``; ``errc.feature_not_supported`` on a device without image
            support or without the image's format.
    """

    __slots__ = ()

    def __init__(self, img: unsampled_image, h: handler, mode: Any, prop_list: Any = None) -> None:
        if as_mode(mode) not in (access_mode.read, access_mode.write):
            raise exception(
                errc.invalid,
                "an unsampled_image_accessor is sycl.read_only or sycl.write_only (an OpenCL kernel "
                "reads or writes an image, not both); use two command groups to read and write",
            )
        self._kind = _DEVICE
        _device_accessor(self, img, unsampled_image, h, mode, prop_list)


class sampled_image_accessor(_DeviceImage):
    """A kernel's read of a ``sampled_image`` through its sampler (§4.7.6.14): a ``read_only
    image{1,2,3}d_t`` parameter followed by a ``sampler_t`` parameter, which the runtime passes
    (the image's ``image_sampler``): ``read_imagef(img, smp, coord)``.

    Raises:
        sycl.exception: ``errc.invalid`` for something else than a ``sampled_image``;
            ``errc.feature_not_supported`` on a device without image support or the format.
    """

    __slots__ = ("_sampler",)

    def __init__(self, img: sampled_image, h: handler, prop_list: Any = None) -> None:
        self._kind = _DEVICE
        _device_accessor(self, img, sampled_image, h, access_mode.read, prop_list)
        self._sampler = img._sampler


IMAGE_ACCESSORS = (unsampled_image_accessor, sampled_image_accessor)


def with_samplers(args: tuple[Any, ...], native_ctx: cl.Context) -> tuple[Any, ...]:
    """The launch's arguments with the ``cl_sampler`` of each sampled image accessor after it
    (the kernel's ``sampler_t`` parameter, docs/kernels.md)."""
    if not any(type(arg) is sampled_image_accessor for arg in args):
        return args
    out: list[Any] = []
    for arg in args:
        out.append(arg)
        if type(arg) is sampled_image_accessor:
            out.append(arg._sampler._native(native_ctx))
    return tuple(out)


def check_image_arguments(kern: kernel, args: tuple[Any, ...]) -> None:
    """``errc.kernel_argument`` where an image accessor meets no image parameter of its
    dimensions, or an image parameter or a sampler no image accessor or sampler (the
    parameters known from the kernel's source)."""
    params = kern._params
    if params is None:
        return
    if len(params) != len(args) and any(type(arg) is sampled_image_accessor for arg in args):
        raise exception(
            errc.kernel_argument,
            f"kernel {kern._name!r} takes {len(params)} parameters and gets {len(args)}: a "
            "sampled_image_accessor passes two, the image and then its sampler_t (docs/kernels.md)",
        )
    for index, (param, arg) in enumerate(zip(params, args, strict=False)):
        if type(arg) in IMAGE_ACCESSORS:
            dims = arg._win.range.dimensions
            if param.kind != "image" or param.type_name != f"image{dims}d_t":
                raise exception(
                    errc.kernel_argument,
                    f"kernel {kern._name!r}, argument {index} ({param.declaration()}): a {dims}-D image "
                    f"accessor is an image{dims}d_t parameter",
                )
        elif param.kind == "image" and not isinstance(arg, cl.Image):
            raise exception(
                errc.kernel_argument,
                f"kernel {kern._name!r}, argument {index} ({param.declaration()}) takes an image "
                f"accessor, got {arg!r}",
            )
        elif param.kind == "sampler" and not isinstance(arg, cl.Sampler):
            raise exception(
                errc.kernel_argument,
                f"kernel {kern._name!r}, argument {index} ({param.declaration()}) is a sampler_t: it "
                "follows a sampled_image_accessor, which passes its sampler there",
            )


# --- host accessors --------------------------------------------------------------------------


class _HostImage(_ImageAccess, host_accessor):
    """A host accessor's life (hold, release, views; ``host_accessor``) over a whole image."""

    __slots__ = ("_format",)

    _format: Format

    def _hold_image(self, img: Any, cls: type[_image], mode: Any, prop_list: Any) -> None:
        name = type(self).__name__
        if not isinstance(img, cls):
            raise exception(errc.invalid, f"{name} is made over a sycl.{cls.__name__}, got {img!r}")
        self._hold = self._array = None
        self._refs = 0  # interrupted before its view was counted: any view counts as kept
        self._format = img._format
        self._win = win = _window(img, as_mode(mode), make_property_list(prop_list, "host_accessor"))
        self._buf = img  # type: ignore[assignment]  # shares ownership of the image, as a host_accessor does of its buffer
        self._hold = hold = acquire_hold(win.req, _Name(type(self), win))
        watch(self, partial(release_hold, win.req.memory, hold))  # rule S26
        self._array = _own_base(self._view())
        self._refs = _references(self)  # a view kept past the release: rule S30

    def _pixel(self, coords: Any) -> tuple[int, ...]:
        """The numpy index of the pixel at ``coords`` (width first, as in a kernel)."""
        given = (int(coords),) if isinstance(coords, (int, np.integer)) else tuple(int(c) for c in coords)
        coord = given[:self._coordinates(len(given), coords)]
        if any(not 0 <= c < n for c, n in zip(coord, self._win.range.to_tuple(), strict=True)):
            raise exception(errc.invalid, f"pixel {coords} is outside the image of range {self._win.range}")
        return tuple(reversed(coord))

    def _coordinates(self, count: int, coords: Any) -> int:
        """The image's dimensions, which ``count`` coordinates must match (a 3-D image also
        takes 4, as OpenCL C's ``int4``/``float4`` coordinate, whose last is ignored);
        ``errc.invalid`` otherwise (the kernel's ``read_image`` would not compile)."""
        dims = self._win.range.dimensions
        if count != dims and (dims, count) != (3, 4):
            raise exception(errc.invalid, f"coordinates {coords} of {count} value(s) for an image of {dims} "
                                          f"dimension(s), range {self._win.range}: give {dims}, x first")
        return dims




class host_unsampled_image_accessor(_HostImage):
    """Host access to an ``unsampled_image`` (§4.7.6.15): blocks until the pixels are on the
    host; ``numpy.asarray(acc)`` is their ``(height, width, channels)`` view (``acc[y, x]``).
    A context manager, as ``host_accessor``: later commands on the image wait for its end.

    Args:
        img: the image.
        mode: ``sycl.read_only``, ``sycl.write_only`` or ``sycl.read_write`` (the default).
        prop_list: ``sycl.property.no_init()``.
    """

    __slots__ = ()

    def __init__(self, img: unsampled_image, mode: Any = access_mode.read_write,
                 prop_list: Any = None) -> None:
        self._hold_image(img, unsampled_image, mode, prop_list)

    def read(self, coords: Any) -> np.ndarray:
        """The pixel at integer ``coords`` (x first) as a kernel's ``read_image`` returns it
        (§4.7.6.15): (r, g, b, a), float32 for unorm, snorm and float formats."""
        return to_kernel(self._live()[self._pixel(coords)], self._format)

    def write(self, coords: Any, color: Any) -> None:
        """Write the pixel at ``coords`` (x first) as a kernel's ``write_image`` does
        (§4.7.6.15): ``color``'s (r, g, b, a) in the kernel's type (float for unorm, snorm and
        float formats)."""
        if not self._win.writes:
            raise exception(errc.accessor, f"{self!r} is read_only: it cannot be written")
        self._live()[self._pixel(coords)] = from_kernel(np.asarray(color), self._format)


class host_sampled_image_accessor(_HostImage):
    """Host read access to a ``sampled_image`` (§4.7.6.15): ``numpy.asarray(acc)`` is its
    pixels' ``(height, width, channels)`` view, read-only."""

    __slots__ = ("_sampler",)

    def __init__(self, img: sampled_image, prop_list: Any = None) -> None:
        self._hold_image(img, sampled_image, access_mode.read, prop_list)
        self._sampler = img._sampler

    def read(self, coords: Any) -> np.ndarray:
        """The image read at ``coords`` (x first, float) through its sampler, as a kernel's
        ``read_image`` returns it (§4.7.6.15): (r, g, b, a)."""
        at = np.asarray(coords, np.float64).reshape(1, -1)
        dims = self._coordinates(at.shape[1], coords)
        return sample(self._live(), self._format, self._sampler, at[:, :dims])[0]


def join_whole(img: _image, h: handler) -> None:
    """Make ``img`` current for ``h``'s command group (``get_native`` of an image not used yet:
    its pixels in the queue's context), read-write, a sampled image read-only."""
    mode = access_mode.read if isinstance(img, sampled_image) else access_mode.read_write
    win = _window(img, mode, property_list())
    acc = object.__new__(unsampled_image_accessor)
    acc._win, acc._kind = win, _DEVICE
    h._register(acc, None)  # type: ignore[arg-type]
