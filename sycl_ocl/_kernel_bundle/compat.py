"""Kernel and image compatibility with devices (SYCL 2020 §4.11.9, §5.7)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .._aspect import aspect
from .._exception import errc, exception
from ..info.device import sub_group_sizes
from .state import bundle_state

if TYPE_CHECKING:
    from .._device import device
    from ._kernel_id import kernel_id
    from ._signature import KernelDecl
    from .registry import ImageSource

# The aspect a device needs for a bundle of each state (§4.11.7).
STATE_ASPECT = {bundle_state.input: aspect.online_compiler, bundle_state.object: aspect.online_linker}


def accepts_il(dev: device) -> bool:
    """Whether ``dev`` takes SPIR-V programs: its ``CL_DEVICE_IL_VERSION`` (OpenCL 2.1) names
    SPIR-V, or it has ``cl_khr_il_program``."""
    if "cl_khr_il_program" in dev._extensions():
        return True
    try:
        return "SPIR-V" in str(dev._cl_info("IL_VERSION"))
    except (exception, AttributeError):  # before OpenCL 2.1
        return False


def _il_refused(src: ImageSource, dev: device) -> bool:
    return bool(src.il) and not accepts_il(dev)


def image_compatible(src: ImageSource, dev: device) -> bool:
    """Whether the unit is compiled for ``dev``: the device has every aspect the unit (and the
    library units it links) declares or uses, takes SPIR-V if the unit is a SPIR-V module, and
    can run one of its kernels. A unit whose kernels all need larger work-groups or other
    sub-group sizes is never compiled for it (§4.11.7: kernels not compatible with the devices
    are not compiled), so a driver cannot fail, or crash, compiling it."""
    if _missing_aspects(src, dev) or _il_refused(src, dev):
        return False
    return not src.kernels or any(_sizes_fit(decl, dev) for decl in src.kernels.values())


def _missing_aspects(src: ImageSource, dev: device) -> list[str]:
    return sorted({a.name for unit in (src, *src.libraries()) for a in unit.device_has if not dev.has(a)})


def work_group_fits(reqd: tuple[int, ...] | None, dev: device) -> bool:
    """Whether a required work-group size (OpenCL order) fits the device's limits."""
    if not reqd:
        return True
    max_items = dev._cl_info("MAX_WORK_ITEM_SIZES")
    if any(size > limit for size, limit in zip(reqd, max_items, strict=False)):
        return False
    return math.prod(reqd) <= int(dev._cl_info("MAX_WORK_GROUP_SIZE"))


def sub_group_fits(reqd: int | None, dev: device) -> bool:
    """Whether a required sub-group size is one of the device's ``sub_group_sizes`` (§5.7); a
    device that cannot tell its sizes promises none."""
    if reqd is None:
        return True
    try:
        return reqd in dev.get_info(sub_group_sizes)
    except exception:
        return False


def _sizes_fit(decl: KernelDecl, dev: device) -> bool:
    return work_group_fits(decl.reqd_work_group_size, dev) and sub_group_fits(decl.reqd_sub_group_size, dev)


def kernel_compatible(kid: kernel_id, dev: device) -> bool:
    """§4.11.9: a built-in kernel only on its device; an application kernel when the device
    has its aspects and fits its required work-group and sub-group sizes."""
    if kid._builtin_device is not None:
        return bool(kid._builtin_device == dev)
    src = kid._image
    if src is None:  # a kernel of an interop program: compatible with the program's devices
        return True
    decl = src.kernels[kid.get_name()]
    return not _missing_aspects(src, dev) and not _il_refused(src, dev) and _sizes_fit(decl, dev)


def incompatibility(kid: kernel_id, dev: device) -> str:
    """Why ``kid`` cannot run on ``dev`` (for ``errc.kernel_not_supported`` messages)."""
    if kid._builtin_device is not None:
        return f"built-in kernel {kid.get_name()!r} belongs to {kid._builtin_device!r}"
    src = kid._image
    assert src is not None
    missing = _missing_aspects(src, dev)
    if missing:
        return f"kernel {kid.get_name()!r} needs aspect(s) {missing} that {dev!r} lacks"
    if _il_refused(src, dev):
        return (
            f"kernel {kid.get_name()!r} comes from {src.origin}, and {dev!r} takes no SPIR-V (its "
            "CL_DEVICE_IL_VERSION names none and it lacks cl_khr_il_program)"
        )
    decl = src.kernels[kid.get_name()]
    if not work_group_fits(decl.reqd_work_group_size, dev):
        return (
            f"kernel {kid.get_name()!r} requires work-group size {decl.reqd_work_group_size}, "
            f"beyond {dev!r}'s limits"
        )
    return (
        f"kernel {kid.get_name()!r} requires sub-group size {decl.reqd_sub_group_size} "
        f"(intel_reqd_sub_group_size), which is not among {dev!r}'s sub_group_sizes"
    )


def check_state_aspect(state: bundle_state, devices: list[device]) -> None:
    """``errc.invalid`` if a device lacks the online compiler/linker ``state`` needs (§4.11.7)."""
    needed = STATE_ASPECT.get(state)
    if needed is None:
        return
    lacking = [d for d in devices if not d.has(needed)]
    if lacking:
        raise exception(
            errc.invalid,
            f"a bundle in state {state.name} needs aspect.{needed.name}, which "
            f"{', '.join(map(repr, lacking))} lack(s); ask for bundle_state.executable instead",
        )


def has_state_aspect(state: bundle_state, devices: list[device]) -> bool:
    """Whether every device has the aspect ``state`` needs."""
    needed = STATE_ASPECT.get(state)
    return needed is None or all(d.has(needed) for d in devices)
