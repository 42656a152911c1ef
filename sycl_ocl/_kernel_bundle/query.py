"""Kernel ids, compatibility and getting bundles (SYCL 2020 §4.11.6-§4.11.9)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .._device import device
from .._exception import errc, exception
from . import _progress, builtin
from ._device_image import device_image
from ._images import executable_image, input_image, object_image
from ._kernel_id import kernel_id
from .bundle import kernel_bundle
from .compat import (
    check_state_aspect,
    has_state_aspect,
    image_compatible,
    kernel_compatible,
)
from .device_lists import checked_devices
from .registry import APPLICATION, NAME, as_kernel_id, not_a_kernel
from .state import bundle_state

if TYPE_CHECKING:
    from .._context import context
    from .registry import ImageSource

Selector = Callable[[device_image], Any]


def get_kernel_id(name: str) -> kernel_id:
    """The id of the application kernel ``name`` (§4.11.6).

    Raises:
        sycl.exception: ``errc.invalid`` if no registered unit defines ``name``.
    """
    if not isinstance(name, str):
        raise not_a_kernel(name, NAME)
    return APPLICATION.lookup(name)


def get_kernel_ids() -> list[kernel_id]:
    """Every application kernel's id; never built-in kernels (§4.11.6)."""
    return APPLICATION.ids()


def is_compatible(kernel_ids: Iterable[kernel_id | str] | kernel_id | str, dev: device) -> bool:
    """Whether every listed kernel can run on ``dev`` (§4.11.9)."""
    ids = [kernel_ids] if isinstance(kernel_ids, (kernel_id, str)) else list(kernel_ids)
    return all(kernel_compatible(as_kernel_id(k), dev) for k in ids)


def _image_of(state: bundle_state, ctx: context, src: ImageSource, devs: tuple[device, ...]) -> device_image:
    if state is bundle_state.input:
        return input_image(ctx, src, devs)
    if state is bundle_state.object:
        return object_image(ctx, src, devs, {})
    return executable_image(ctx, src, devs, {})


def _requested(
    state: bundle_state, devs: list[device], kernel_ids: Iterable[kernel_id | str]
) -> tuple[list[ImageSource], list[kernel_id]]:
    sources: dict[int, ImageSource] = {}
    builtins = []
    for kid in map(as_kernel_id, kernel_ids):
        if not any(kernel_compatible(kid, d) for d in devs):
            raise exception(
                errc.invalid,
                f"kernel {kid.get_name()!r} is compatible with none of {devs}; check is_compatible first",
            )
        if kid._builtin_device is not None:
            if state is not bundle_state.executable:
                raise exception(
                    errc.invalid,
                    f"built-in kernel {kid.get_name()!r} exists only in bundle_state.executable",
                )
            builtins.append(kid)
        elif kid._image is not None:
            sources[id(kid._image)] = kid._image
        else:
            raise exception(errc.invalid, f"kernel {kid.get_name()!r} comes from an interop program")
    return list(sources.values()), builtins


def get_kernel_bundle(
    state: bundle_state,
    ctx: context,
    devs: Iterable[device] | device | None = None,
    kernel_ids: Iterable[kernel_id | str] | None = None,
    selector: Selector | None = None,
) -> kernel_bundle:
    """A bundle of the application's kernels (and requested built-ins) in ``state`` (§4.11.7).

    Args:
        state: the bundle state wanted.
        ctx: the context.
        devs: devices of ``ctx`` (or sub-devices); defaults to ``ctx.get_devices()``.
        kernel_ids: only images holding these kernels (built-in kernel ids allowed).
        selector: keeps the images for which ``selector(image)`` is true.

    Raises:
        sycl.exception: ``errc.invalid`` for an empty or foreign device list, a device lacking
            the online compiler (input) or linker (object), or a requested kernel no device
            supports; ``errc.build`` if compiling or building fails, with the build log.
    """
    state = bundle_state(state)
    devices = checked_devices(ctx, devs)
    check_state_aspect(state, devices)
    if kernel_ids is not None and selector is not None:
        raise exception(errc.invalid, "pass kernel_ids or selector, not both")
    if kernel_ids is not None:
        sources, builtins = _requested(state, devices, kernel_ids)
    else:
        sources, builtins = APPLICATION.kernel_units(), []
    if selector is not None:
        sources = [src for src in sources if _selected(selector, state, ctx, devices, src)]
    images = _images(state, ctx, devices, sources)
    for dev in {k._builtin_device for k in builtins if k._builtin_device in devices}:
        mine = [k for k in builtins if k._builtin_device == dev]
        images.append(builtin.builtin_image(ctx, dev, mine))
    return kernel_bundle._make(ctx, devices, state, images)


def _selected(
    selector: Selector, state: bundle_state, ctx: context, devices: list[device], src: ImageSource
) -> bool:
    """Ask the selector about ``src`` before building it: only the images kept get compiled.

    In the input state the selector sees the very image the bundle then holds (§4.11.7);
    otherwise an image with the kernels and devices of the one to build, whose program is the
    unbuilt input one.
    """
    compatible = tuple(d for d in devices if image_compatible(src, d))
    if not compatible:
        return False
    unbuilt = input_image(ctx, src, compatible)
    candidate = unbuilt if state is bundle_state.input else device_image._make(
        state, compatible, unbuilt._program, (src,), src.ids, {}, ("candidate", *unbuilt._key)
    )
    return bool(selector(candidate))


def _images(
    state: bundle_state, ctx: context, devices: list[device], sources: Sequence[ImageSource]
) -> list[device_image]:
    images = []
    for src in _progress.units(sources):
        compatible = tuple(d for d in devices if image_compatible(src, d))
        if compatible:
            images.append(_image_of(state, ctx, src, compatible))
    return images


def has_kernel_bundle(
    state: bundle_state,
    ctx: context,
    devs: Iterable[device] | device | None = None,
    kernel_ids: Iterable[kernel_id | str] | None = None,
) -> bool:
    """Whether ``get_kernel_bundle`` with these arguments would succeed (§4.11.8).

    Raises:
        sycl.exception: ``errc.invalid`` for an empty or foreign device list.
    """
    state = bundle_state(state)
    devices = checked_devices(ctx, devs)
    if not has_state_aspect(state, devices):
        return False
    if kernel_ids is None:
        return any(image_compatible(src, d) for src in APPLICATION.kernel_units() for d in devices)
    for kid in map(as_kernel_id, kernel_ids):
        if kid._builtin_device is not None and state is not bundle_state.executable:
            return False
        if kid._builtin_device is None and kid._image is None:
            return False
        if not any(kernel_compatible(kid, d) for d in devices):
            return False
    return True
