"""Device lists of the bundle functions: checked against the context (SYCL 2020 §4.11.7)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .._device import device
from .._exception import errc, exception

if TYPE_CHECKING:
    from .._context import context


def checked_devices(ctx: context, devs: Iterable[device] | device | None) -> list[device]:
    """``devs`` de-duplicated and checked against ``ctx`` (§4.11.7); defaults to ctx's devices."""
    if devs is None:
        return ctx.get_devices()
    listed = [devs] if isinstance(devs, device) else list(dict.fromkeys(devs))
    if not listed:
        raise exception(
            errc.invalid, "the device list is empty; pass at least one device of the context", ctx
        )
    for dev in listed:
        if not isinstance(dev, device) or not ctx._has_device(dev):
            raise exception(
                errc.invalid,
                f"{dev!r} is not a device (or sub-device of a device) of the context; "
                f"use one of {ctx.get_devices()}",
                ctx,
            )
    return listed


def subset_of(devs: Iterable[device] | device | None, allowed: Sequence[device], what: str) -> list[device]:
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
