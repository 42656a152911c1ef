"""Lazy, stable enumeration of OpenCL platforms and root devices.

Platforms and their root devices are enumerated once, in the ICD loader's order, on first
use. ``SYCL_OCL_DEVICE`` (a regular expression over "platform / device") and
``SYCL_OCL_DEVICE_SELECTOR`` (filter terms, docs/device-selection.md) restrict what every
selector sees; explicit enumeration (``get_platforms``) sees everything.
"""

from __future__ import annotations

import os
import re
import threading
from typing import TYPE_CHECKING

import pyopencl as cl

from . import _device_filter
from ._exception import errc, exception
from ._native import translate
from ._process import opened
from .info import enums

if TYPE_CHECKING:
    from ._device import device
    from ._platform import platform

DEVICE_FILTER_ENV = "SYCL_OCL_DEVICE"
DEVICE_SELECTOR_ENV = "SYCL_OCL_DEVICE_SELECTOR"

_lock = threading.Lock()
_platforms: list[platform] | None = None


def _enumerate() -> list[platform]:
    from ._platform import platform  # discovery makes the platforms that list devices through it

    opened()  # from now on a child made by fork() refuses sycl_ocl
    try:
        natives = cl.get_platforms()
    except cl.Error as error:
        if error.code == -1001:  # CL_PLATFORM_NOT_FOUND_KHR: no ICD at all
            return []
        raise translate(error, "enumerating OpenCL platforms") from error
    return [platform._from_native(p) for p in natives]


def all_platforms() -> list[platform]:
    """Every OpenCL platform, in a stable order."""
    global _platforms
    if _platforms is None:
        with _lock:
            if _platforms is None:
                _platforms = _enumerate()
    return list(_platforms)


def all_devices() -> list[device]:
    """Every root device of every platform, in a stable order."""
    return [d for p in all_platforms() for d in p.get_devices()]


def device_label(dev: device) -> str:
    """The "platform / device" string that ``SYCL_OCL_DEVICE`` is matched against."""
    return f"{dev._native.platform.name.strip()} / {dev._native.name.strip()}"


def filter_name(dev: device) -> str:
    """``opencl:type:index``: the filter string that selects exactly this root device.

    The index counts the root devices of the backend (every device: sycl_ocl has one backend)
    in enumeration order, before any environment filtering, as DPC++'s device filters do.
    """
    kind, index = _type_and_index(dev)
    return f"opencl:{kind.name}:{index}"


def filter_accepts(terms: list[_device_filter.Term], dev: device) -> bool:
    """Whether a root device passes the filter ``terms``."""
    return _device_filter.accepts(terms, *_type_and_index(dev))


def _type_and_index(dev: device) -> tuple[enums.device_type, int]:
    return enums.primary_device_type(dev._native.type), all_devices().index(dev)


def selectable_devices() -> list[device]:
    """The root devices a selector may choose from, after the environment's filters."""
    devices = _regex_filtered(all_devices())
    selector = os.environ.get(DEVICE_SELECTOR_ENV, "").strip()
    if not selector:
        return devices
    terms = _device_filter.parse(selector, DEVICE_SELECTOR_ENV)
    return [d for d in devices if filter_accepts(terms, d)]


def hidden_by(dev: device) -> str:
    """The environment setting that hides root device ``dev`` from selectors, as
    ``NAME='value'`` ("" when none does)."""
    if not _regex_filtered([dev]):
        return f"{DEVICE_FILTER_ENV}={os.environ.get(DEVICE_FILTER_ENV)!r}"
    if dev not in selectable_devices():
        return f"{DEVICE_SELECTOR_ENV}={os.environ.get(DEVICE_SELECTOR_ENV, '').strip()!r}"
    return ""


def _regex_filtered(devices: list[device]) -> list[device]:
    pattern = os.environ.get(DEVICE_FILTER_ENV)
    if not pattern:
        return devices
    try:
        regex = re.compile(pattern, re.IGNORECASE)
    except re.error as error:
        raise exception(
            errc.runtime, f"{DEVICE_FILTER_ENV}={pattern!r} is not a valid regular expression: {error}"
        ) from None
    return [d for d in devices if regex.search(device_label(d))]
