"""The free functions of SYCL 2020 §4.11.6-§4.11.11: ids, bundles, compile, link, build, join."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..device import device
from ..exception import errc, exception
from ..property._base import make_property_list
from . import builtin, registry
from ._images import executable_image, input_image, linked_image, object_image
from .bundle import _as_kernel_id, kernel_bundle
from .compat import (
    check_state_aspect,
    has_state_aspect,
    image_compatible,
    kernel_compatible,
)
from .device_image import device_image
from .kernel_id import kernel_id
from .state import bundle_state

if TYPE_CHECKING:
    from ..context import context
    from ..property._base import property_list
    from .registry import ImageSource

Selector = Callable[[device_image], Any]


def get_kernel_id(name: str) -> kernel_id:
    """The id of the application kernel ``name`` (§4.11.6).

    Raises:
        sycl.exception: ``errc.invalid`` if no registered unit defines ``name``.
    """
    return registry.lookup(name)


def get_kernel_ids() -> list[kernel_id]:
    """Every application kernel's id; never built-in kernels (§4.11.6)."""
    return registry.all_ids()


def is_compatible(kernel_ids: Iterable[kernel_id | str] | kernel_id | str, dev: device) -> bool:
    """Whether every listed kernel can run on ``dev`` (§4.11.9)."""
    ids = [kernel_ids] if isinstance(kernel_ids, (kernel_id, str)) else list(kernel_ids)
    return all(kernel_compatible(_as_kernel_id(k), dev) for k in ids)


# --- devices ----------------------------------------------------------------------------------


def _in_context(ctx: context, dev: device) -> bool:
    native = dev._native
    members = {d._native.int_ptr for d in ctx.get_devices()}
    while native is not None:
        if native.int_ptr in members:
            return True
        try:
            native = native.parent_device
        except Exception:  # a root device (or a driver without CL 1.2 sub-devices)
            return False
    return False


def _devices(ctx: context, devs: Iterable[device] | device | None) -> list[device]:
    """``devs`` de-duplicated and checked against ``ctx`` (§4.11.7); defaults to ctx's devices."""
    if devs is None:
        return ctx.get_devices()
    listed = [devs] if isinstance(devs, device) else list(dict.fromkeys(devs))
    if not listed:
        raise exception(
            errc.invalid, "the device list is empty; pass at least one device of the context", ctx
        )
    for dev in listed:
        if not isinstance(dev, device) or not _in_context(ctx, dev):
            raise exception(
                errc.invalid,
                f"{dev!r} is not a device (or sub-device of a device) of the context; "
                f"use one of {ctx.get_devices()}",
                ctx,
            )
    return listed


def _subset(devs: Iterable[device] | device | None, allowed: Sequence[device], what: str) -> list[device]:
    if devs is None:
        return list(allowed)
    listed = [devs] if isinstance(devs, device) else list(dict.fromkeys(devs))
    if not listed:
        raise exception(errc.invalid, f"the device list is empty; pass devices of the {what}")
    outside = [d for d in listed if d not in allowed]
    if outside:
        raise exception(
            errc.invalid,
            f"{', '.join(map(repr, outside))} not associated with the {what}; "
            f"use devices among {list(allowed)}",
        )
    return listed


# --- get_kernel_bundle / has_kernel_bundle (§4.11.7, §4.11.8) --------------------------------


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
    for kid in map(_as_kernel_id, kernel_ids):
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
    devices = _devices(ctx, devs)
    check_state_aspect(state, devices)
    if kernel_ids is not None and selector is not None:
        raise exception(errc.invalid, "pass kernel_ids or selector, not both")
    if kernel_ids is not None:
        sources, builtins = _requested(state, devices, kernel_ids)
    else:
        sources, builtins = registry.all_images(), []
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

    The selector sees the image's kernels and devices; its program is the unbuilt input one.
    """
    compatible = tuple(d for d in devices if image_compatible(src, d))
    if not compatible:
        return False
    unbuilt = input_image(ctx, src, compatible)
    candidate = device_image._make(
        state, compatible, unbuilt._program, (src,), src.ids, {}, ("candidate", *unbuilt._key)
    )
    return bool(selector(candidate))


def _images(
    state: bundle_state, ctx: context, devices: list[device], sources: Sequence[ImageSource]
) -> list[device_image]:
    images = []
    for src in sources:
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
    devices = _devices(ctx, devs)
    if not has_state_aspect(state, devices):
        return False
    if kernel_ids is None:
        return any(image_compatible(src, d) for src in registry.all_images() for d in devices)
    for kid in map(_as_kernel_id, kernel_ids):
        if kid._builtin_device is not None and state is not bundle_state.executable:
            return False
        if kid._builtin_device is None and kid._image is None:
            return False
        if not any(kernel_compatible(kid, d) for d in devices):
            return False
    return True


# --- join, compile, link, build (§4.11.10, §4.11.11) ----------------------------------------


def join(bundles: Iterable[kernel_bundle]) -> kernel_bundle:
    """One bundle with every image of ``bundles``, duplicates removed (§4.11.10).

    Raises:
        sycl.exception: ``errc.invalid`` if the bundles differ in context, device set or state.
    """
    items = list(bundles)
    if not items:
        raise exception(errc.invalid, "join needs at least one kernel bundle")
    first = items[0]
    for b in items[1:]:
        if b._context != first._context:
            raise exception(errc.invalid, "join: the bundles belong to different contexts")
        if set(b._devices) != set(first._devices):
            raise exception(errc.invalid, "join: the bundles have different device sets")
        if b.state is not first.state:
            raise exception(errc.invalid, f"join: bundles in states {first.state.name} and {b.state.name}")
    values: dict[Any, Any] = {}
    for b in items:
        values.update(b._spec_values)
    images = [img for b in items for img in b._images]
    return kernel_bundle._make(first._context, first._devices, first.state, images, values)


def _expect_state(bundle: kernel_bundle, state: bundle_state, op: str) -> None:
    if not isinstance(bundle, kernel_bundle) or bundle.state is not state:
        got = bundle.state.name if isinstance(bundle, kernel_bundle) else repr(bundle)
        raise exception(errc.invalid, f"{op} takes a bundle in state {state.name}, got {got}")


def compile(
    input_bundle: kernel_bundle,
    devs: Iterable[device] | device | None = None,
    prop_list: property_list | Iterable[Any] | None = None,
) -> kernel_bundle:
    """Compile an input bundle into an object bundle with ``clCompileProgram`` (§4.11.11).

    Raises:
        sycl.exception: ``errc.invalid`` for devices outside the bundle or an empty list;
            ``errc.build`` if compiling fails (the message holds the build log).
    """
    return _from_input(input_bundle, devs, prop_list, "compile", bundle_state.object)


def _from_input(
    input_bundle: kernel_bundle,
    devs: Iterable[device] | device | None,
    prop_list: property_list | Iterable[Any] | None,
    op: str,
    state: bundle_state,
) -> kernel_bundle:
    """``compile`` / ``build``: each unit of the input images, for the compatible ``devs``."""
    _expect_state(input_bundle, bundle_state.input, op)
    make_property_list(prop_list, "kernel_bundle")
    ctx, values = input_bundle._context, input_bundle._spec_values
    devices = _subset(devs, input_bundle._devices, "input bundle")
    factory = object_image if state is bundle_state.object else executable_image
    images = []
    for img in input_bundle._images:
        for src in img._sources:
            compatible = tuple(d for d in devices if d in img._devices and image_compatible(src, d))
            if compatible:
                images.append(factory(ctx, src, compatible, values))
    return kernel_bundle._make(ctx, devices, state, images)


def link(
    object_bundle_or_list: kernel_bundle | Iterable[kernel_bundle],
    devs: Iterable[device] | device | None = None,
    prop_list: property_list | Iterable[Any] | None = None,
) -> kernel_bundle:
    """Link object bundles into one executable bundle with ``clLinkProgram`` (§4.11.11).

    A kernel in one bundle may call a function defined in another. Without ``devs`` the
    devices are the intersection of the bundles' devices.

    Raises:
        sycl.exception: ``errc.invalid`` for bundles of different contexts, devices not
            associated with every bundle, or an empty list; ``errc.build`` if linking fails.
    """
    bundles = (
        [object_bundle_or_list] if isinstance(object_bundle_or_list, kernel_bundle)
        else list(object_bundle_or_list)
    )
    if not bundles:
        raise exception(errc.invalid, "link needs at least one object bundle")
    for b in bundles:
        _expect_state(b, bundle_state.object, "link")
    make_property_list(prop_list, "kernel_bundle")
    ctx = bundles[0]._context
    if any(b._context != ctx for b in bundles):
        raise exception(errc.invalid, "link: the object bundles belong to different contexts")
    common = [d for d in bundles[0]._devices if all(d in b._devices for b in bundles)]
    devices = _subset(devs, common, "every object bundle") if devs is not None else common
    objects = list(dict.fromkeys(img for b in bundles for img in b._images))
    return kernel_bundle._make(ctx, devices, bundle_state.executable, _link_groups(ctx, objects, devices))


def _link_groups(ctx: context, objects: list[device_image], devices: list[device]) -> list[device_image]:
    """One linked image per set of devices that share the same object images."""
    groups: dict[tuple[device_image, ...], list[device]] = {}
    for dev in devices:
        mine = tuple(o for o in objects if dev in o._devices)
        if mine:
            groups.setdefault(mine, []).append(dev)
    return [
        linked_image(ctx, [_for_devices(ctx, o, tuple(devs)) for o in objs], tuple(devs))
        for objs, devs in groups.items()
    ]


def _for_devices(ctx: context, obj: device_image, devices: tuple[device, ...]) -> device_image:
    """``obj`` compiled for exactly ``devices``: PoCL 3.1 aborts (an assertion) when linking
    for a subset of an object's devices that is not a prefix of them."""
    if obj._devices == devices or len(obj._sources) != 1 or obj._key[0] != "object":
        return obj
    values = dict(obj._spec_values.values())
    return object_image(ctx, obj._sources[0], devices, values)


def build(
    input_bundle: kernel_bundle,
    devs: Iterable[device] | device | None = None,
    prop_list: property_list | Iterable[Any] | None = None,
) -> kernel_bundle:
    """Compile and link an input bundle (``clBuildProgram``) into an executable one (§4.11.11).

    Raises:
        sycl.exception: ``errc.invalid`` for devices outside the bundle or an empty list;
            ``errc.build`` if the build fails (the message holds the build log).
    """
    return _from_input(input_bundle, devs, prop_list, "build", bundle_state.executable)
