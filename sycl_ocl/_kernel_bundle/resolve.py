"""Finding the executable kernel of a launch (SYCL 2020 §4.9.4.2, §4.9.4.4).

This is on the submit hot path: after the first launch, a name costs two dict lookups.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._exception import errc, exception
from . import builtin, cache
from ._images import executable_image
from ._kernel import kernel
from .compat import incompatibility, kernel_compatible
from .registry import LAUNCHABLE, as_kernel_id, not_a_kernel

if TYPE_CHECKING:
    from .._context import context
    from .._device import device
    from ._kernel_id import kernel_id
    from .bundle import kernel_bundle


def resolve_kernel(
    spec: str | kernel_id | kernel,
    ctx: context,
    dev: device,
    bundle: kernel_bundle | None,
    spec_constants: Mapping[Any, Any],
) -> kernel:
    """The executable kernel that runs ``spec`` on ``dev`` of ``ctx`` (a command group's queue).

    Args:
        spec: an application kernel's name, a ``kernel_id`` or a ``kernel``.
        ctx, dev: the context and device of the command group's queue.
        bundle: the bundle given to ``handler.use_kernel_bundle``, if any.
        spec_constants: the command group's specialization constant values.

    Raises:
        sycl.exception: ``errc.invalid`` for an unknown name, a foreign kernel or bundle,
            anything else than a name, a ``kernel_id`` or a ``kernel`` (hashable or not);
            ``errc.kernel_not_supported`` when the kernel cannot run on the device;
            ``errc.build`` when building it fails.
    """
    if bundle is not None:  # the handler keeps spec_constants empty then (§4.9.4.5)
        return bundle._kernel_for_launch(spec, ctx, dev)
    tab = cache.table(ctx)
    key = (spec, dev._handle, _frozen(spec_constants)) if spec_constants else (spec, dev._handle)
    try:
        found = tab.fast.get(key)
    except TypeError:  # an unhashable spec (no cost to the common case, unlike a check)
        raise not_a_kernel(spec, LAUNCHABLE) from None
    if found is not None:
        return found
    resolved = _resolve(spec, ctx, dev, spec_constants)
    tab.fast[key] = resolved
    return resolved


def _frozen(spec_constants: Mapping[Any, Any]) -> frozenset[tuple[Any, Any]]:
    """The command group's constants as a key (values converted, so 3 and 3.0 agree)."""
    return frozenset((spec, spec.convert(value)) for spec, value in spec_constants.items())


def _resolve(spec: Any, ctx: context, dev: device, spec_constants: Mapping[Any, Any]) -> kernel:
    if isinstance(spec, kernel):
        check_kernel(spec, ctx, dev)
        if not spec_constants or spec._image is None or not spec._image._sources:
            return spec
        spec = spec._name
    kid = as_kernel_id(spec, LAUNCHABLE)
    if not kernel_compatible(kid, dev):
        raise exception(errc.kernel_not_supported, incompatibility(kid, dev) + "; run it on another device")
    if kid._builtin_device is not None:
        return builtin.builtin_image(ctx, dev, (kid,))._kernel(kid)
    src = kid._image
    if src is None:
        raise exception(
            errc.invalid,
            f"kernel {kid.get_name()!r} comes from an interop program; launch it through its bundle "
            "(use_kernel_bundle) or its sycl.kernel",
        )
    values = {s: s.convert(v) for s, v in spec_constants.items()}
    return executable_image(ctx, src, (dev,), values)._kernel(kid)


def check_kernel(k: kernel, ctx: context, dev: device) -> None:
    """``errc.invalid`` unless ``k`` belongs to ``ctx`` and was built for ``dev``."""
    if k._ctx_native.int_ptr != ctx._handle:
        raise exception(
            errc.invalid,
            f"{k!r} belongs to another context than the queue's; get the kernel from a bundle "
            "of the queue's context",
        )
    k._check_device(dev)
