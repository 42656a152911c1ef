"""join, compile, link and build (SYCL 2020 §4.11.10, §4.11.11)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .._context import context
from .._device import device
from .._exception import errc, exception
from ..property._base import make_property_list
from . import _progress
from ._device_image import device_image
from ._images import executable_image, linked_image, object_image, with_libraries
from .bundle import kernel_bundle
from .compat import image_compatible
from .device_lists import subset_of
from .state import bundle_state

if TYPE_CHECKING:
    from ..property._base import property_list


def join(bundles: Iterable[kernel_bundle], state: bundle_state | None = None) -> kernel_bundle:
    """One bundle with every image of ``bundles``, duplicates removed (§4.11.10).

    Args:
        bundles: bundles of one context, one device set and one state.
        state: the state of the bundles (C++'s template argument ``join<State>``); optional,
            except that it names the state of the empty bundle ``join([])`` returns (default
            ``executable``), whose context is the default context of the default device.

    Raises:
        sycl.exception: ``errc.invalid`` if the bundles differ in context, device set or state,
            or are not in ``state``.
    """
    items = list(bundles)
    wanted = bundle_state(state) if state is not None else None
    if not items:
        ctx = context._default_for(device().get_platform())
        return kernel_bundle._make(ctx, ctx.get_devices(), wanted or bundle_state.executable, [])
    first = items[0]
    if wanted is not None and first.state is not wanted:
        raise exception(errc.invalid, f"join: the bundles are {first.state.name}, not {wanted.name}")
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

    Args:
        input_bundle: a bundle in ``bundle_state.input``; its specialization constants are
            fixed now.
        devs: devices of the bundle to compile for (default: all of them).
        prop_list: kernel bundle properties (SYCL 2020 defines none).

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
    devices = subset_of(devs, input_bundle._devices, "input bundle")
    factory = object_image if state is bundle_state.object else executable_image
    images = []
    for img in _progress.units(input_bundle._images):
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

    Args:
        object_bundle_or_list: a bundle in ``bundle_state.object``, or a list of them.
        devs: the devices to link for.
        prop_list: kernel bundle properties (SYCL 2020 defines none).

    Example::

        src = sycl.get_kernel_bundle(sycl.bundle_state.input, ctx)
        exe = sycl.link(sycl.compile(src))            # = sycl.build(src)
        k = exe.get_kernel(sycl.get_kernel_id("my_kernel"))

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
    devices = subset_of(devs, common, "every object bundle") if devs is not None else common
    objects = list(dict.fromkeys(img for b in bundles for img in b._images))
    return kernel_bundle._make(ctx, devices, bundle_state.executable, _link_groups(ctx, objects, devices))


def _link_groups(ctx: context, objects: list[device_image], devices: list[device]) -> list[device_image]:
    """One linked image per set of devices that share the same object images.

    Images of one unit compiled for different device sets (and the same specialization
    constant values) are duplicates: each becomes the unit compiled for the group's devices,
    which is one cached image, linked once (§4.11.11).
    """
    groups: dict[tuple[device_image, ...], list[device]] = {}
    for dev in devices:
        mine = tuple(o for o in objects if dev in o._devices)
        if mine:
            groups.setdefault(mine, []).append(dev)
    linked = []
    for objs, devs in groups.items():
        group = tuple(devs)
        unique = list(dict.fromkeys(_for_devices(ctx, o, group) for o in objs))
        linked.append(linked_image(ctx, with_libraries(ctx, unique, group), group))
    return linked


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

    Args:
        input_bundle: a bundle in ``bundle_state.input``; its specialization constants are
            fixed now.
        devs: devices of the bundle to build for (default: all of them).
        prop_list: kernel bundle properties (SYCL 2020 defines none).

    Raises:
        sycl.exception: ``errc.invalid`` for devices outside the bundle or an empty list;
            ``errc.build`` if the build fails (the message holds the build log).
    """
    return _from_input(input_bundle, devs, prop_list, "build", bundle_state.executable)
