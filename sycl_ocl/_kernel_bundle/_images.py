"""Making device images in each state, each build cached (SYCL 2020 §4.11.11).

Every factory keys its result by what the build depends on: the unit, the devices, the
options and the specialization-constant values, so equal requests share one program.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pyopencl as cl

from .._exception import errc, exception
from . import _program, cache
from ._device_image import device_image
from .spec_constants import live_constants
from .state import bundle_state

if TYPE_CHECKING:
    from .._context import context
    from .._device import device
    from .registry import ImageSource
    from .spec_constants import specialization_id

SpecValues = dict[str, tuple["specialization_id", Any]]


def spec_values_for(
    sources: Sequence[ImageSource], values: dict[specialization_id, Any]
) -> SpecValues:
    """The specialization constants the sources mention, each with its set or default value."""
    chosen: SpecValues = {}
    for spec, value in values.items():
        if any(src.uses(spec.name) for src in sources):
            chosen[spec.name] = (spec, value)
    for src in sources:
        for spec in live_constants(src.identifiers):
            chosen.setdefault(spec.name, (spec, spec.default))
    return chosen


def _defines(spec_values: SpecValues) -> tuple[str, ...]:
    return tuple(sorted(spec.define(value) for spec, value in spec_values.values()))


def image_options(src: ImageSource, spec_values: SpecValues) -> tuple[str, ...]:
    """The build options of ``src``'s object or executable image with ``spec_values``."""
    return (*src.options, *_defines(spec_values), _program.ARG_INFO)


def _handles(devices: Sequence[device]) -> tuple[int, ...]:
    return tuple(d._handle for d in devices)


def input_image(ctx: context, src: ImageSource, devices: tuple[device, ...]) -> device_image:
    """The unit as a program created from source, not compiled (§4.11.4)."""
    key = ("input", src.digest, _handles(devices))
    return cache.cached(ctx, key, lambda: device_image._make(
        bundle_state.input, devices, _unbuilt(ctx, src), (src,), src.ids, {}, key
    ))


def object_image(
    ctx: context, src: ImageSource, devices: tuple[device, ...], values: dict[specialization_id, Any]
) -> device_image:
    """The unit compiled with ``clCompileProgram`` (§4.11.11). It records (and defines) the
    constants of the library units it will be linked with too, so ``link`` compiles them alike."""
    spec_values = spec_values_for((src, *src.libraries()), values)
    options = image_options(src, spec_values)
    key = ("object", src.digest, _handles(devices), options)

    def make() -> device_image:
        prg = _unbuilt(ctx, src)
        _program.compile_program(prg, ctx, devices, options, f"{src.origin}")
        return device_image._make(bundle_state.object, devices, prg, (src,), src.ids, spec_values, key)

    return cache.cached(ctx, key, make)


def executable_image(
    ctx: context, src: ImageSource, devices: tuple[device, ...], values: dict[specialization_id, Any]
) -> device_image:
    """The unit built with ``clBuildProgram``; a unit that calls library units is compiled and
    linked with them (``clCompileProgram`` + ``clLinkProgram``). Reloaded from the disk cache
    when it can be (§4.11.11)."""
    units = (src, *src.libraries())
    spec_values = spec_values_for(units, values)
    options = image_options(src, spec_values)
    key = ("executable", tuple(u.digest for u in units), _handles(devices), options)

    def build() -> cl.Program:
        if len(units) == 1:
            return _program.build(_unbuilt(ctx, src), ctx, devices, options, src.origin)
        objects = [object_image(ctx, u, devices, values)._program for u in units]
        return _program.link(objects, ctx, devices, (), " + ".join(u.origin for u in units))

    def make() -> device_image:
        # The disk cache keys OpenCL C text; a SPIR-V module builds without a front end anyway.
        prg = build() if src.il else cache.load_or_make(ctx, devices, units, options, build)
        return device_image._make(bundle_state.executable, devices, prg, units, src.ids, spec_values, key)

    return cache.cached(ctx, key, make)


def _unbuilt(ctx: context, src: ImageSource) -> cl.Program:
    """The unit's program, created from its SPIR-V module or from its source."""
    if src.il:
        return _program.from_il(ctx, src.il, src.origin)
    return _program.from_source(ctx, src.source)


def with_libraries(
    ctx: context, objects: Sequence[device_image], devices: tuple[device, ...]
) -> list[device_image]:
    """``objects`` and the object images of the library units their units are linked with,
    compiled with the objects' specialization constant values (for ``link``). A library unit
    whose functions the objects define already (a program compiled through PyOpenCL from its
    source) is not added.

    Raises:
        sycl.exception: ``errc.invalid`` for a library unit that defines some of the functions
            the objects define, and others: linked, they would be defined twice.
    """
    present = {src for obj in objects for src in obj._sources}
    defined = {name: src for src in present for name in src.exports}
    needed = dict.fromkeys(
        lib for obj in objects for src in obj._sources for lib in src.libraries()
        if lib not in present and not _defined_already(lib, defined)
    )
    values = {spec: value for obj in objects for spec, value in obj._spec_values.values()}
    return [*objects, *(object_image(ctx, lib, devices, values) for lib in needed)]


def _defined_already(lib: ImageSource, defined: dict[str, ImageSource]) -> bool:
    """Whether the objects to link define every function ``lib`` exports (``defined``: the
    unit defining each); ``errc.invalid`` where they define some of them only."""
    twice = sorted(lib.exports & defined.keys())
    if twice and len(twice) < len(lib.exports):
        where = "; ".join(f"{name}() in {defined[name].origin}" for name in twice)
        raise exception(errc.invalid, f"link: the library unit {lib.origin} defines {', '.join(twice)}, "
                                      f"which the linked objects define as well ({where}), besides other "
                                      "functions they need: linked together those would be defined twice; "
                                      "link the whole library from one place, or define each function once")
    return bool(twice)


def linked_image(
    ctx: context, objects: Sequence[device_image], devices: tuple[device, ...]
) -> device_image:
    """Object images linked together with ``clLinkProgram`` (§4.11.11)."""
    key = ("linked", tuple(sorted(map(repr, (o._key for o in objects)))), _handles(devices))

    def make() -> device_image:
        what = " + ".join(src.origin for o in objects for src in o._sources)
        prg = _program.link([o._program for o in objects], ctx, devices, (), what)
        spec_values: SpecValues = {}
        for o in objects:
            spec_values.update(o._spec_values)
        sources = tuple(src for o in objects for src in o._sources)
        ids = tuple(k for o in objects for k in o._ids)
        return device_image._make(bundle_state.executable, devices, prg, sources, ids, spec_values, key)

    return cache.cached(ctx, key, make)

