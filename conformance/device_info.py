"""The identity of every OpenCL device, as JSON (``python -m conformance.device_info``).

The runner reads it from a child process, so that a driver that crashes while being enumerated
ends that child, not the run. Devices with one label ("platform / device") are listed once, with
how many there are: the suite tests the first.
"""

from __future__ import annotations

import json
import platform as host_platform
import sys
from typing import Any

import numpy
import pyopencl as cl

import sycl_ocl as sycl
from sycl_ocl import _discovery

from .report import installed_version


def _cl(dev: sycl.device, name: str) -> Any:
    try:
        value = getattr(sycl.get_native(dev), name)
    except (cl.Error, AttributeError) as error:
        return f"unavailable ({error})"
    return value.strip() if isinstance(value, str) else value


def identity(dev: sycl.device, count: int) -> dict[str, Any]:
    """What a report says about a device, its driver, the host and sycl_ocl."""
    info = sycl.info.device
    plat = dev.get_platform()
    has = {a: dev.has(a) for a in (sycl.aspect.fp16, sycl.aspect.fp64, sycl.aspect.atomic64)}
    return {
        "label": _discovery.device_label(dev),
        "filter": _discovery.filter_name(dev),  # the string that selects this device, of those with the label
        "devices_with_this_label": count,
        "platform_name": plat.get_info(sycl.info.platform.name),
        "platform_vendor": plat.get_info(sycl.info.platform.vendor),
        "platform_version": plat.get_info(sycl.info.platform.version),
        "device_name": dev.get_info(info.name),
        "device_vendor": dev.get_info(info.vendor),
        "device_type": dev.get_info(info.device_type).name,
        "device_version": dev.get_info(info.version),
        "driver_version": dev.get_info(info.driver_version),
        "opencl_c_version": _cl(dev, "opencl_c_version"),
        "max_compute_units": dev.get_info(info.max_compute_units),
        "global_mem_size": dev.get_info(info.global_mem_size),
        "max_mem_alloc_size": dev.get_info(info.max_mem_alloc_size),
        "local_mem_size": dev.get_info(info.local_mem_size),
        "max_work_group_size": dev.get_info(info.max_work_group_size),
        "mem_base_addr_align_bits": dev.get_info(info.mem_base_addr_align),
        "built_in_kernels": dev.get_info(info.built_in_kernels),
        "cts_info_dump": {
            "device-name": dev.get_info(info.name),
            "device-vendor": dev.get_info(info.vendor),
            "device-type": f"device_type::{dev.get_info(info.device_type).name}",
            "device-version": dev.get_info(info.version),
            "device-fp16": "Supported" if has[sycl.aspect.fp16] else "Not Supported",
            "device-fp64": "Supported" if has[sycl.aspect.fp64] else "Not Supported",
            "device-atomic64": "Supported" if has[sycl.aspect.atomic64] else "Not Supported",
            "platform-name": plat.get_info(sycl.info.platform.name),
            "platform-vendor": plat.get_info(sycl.info.platform.vendor),
            "platform-version": plat.get_info(sycl.info.platform.version),
        },
        "aspects": [a.name for a in sycl.aspect if dev.has(a)],
        "extensions": sorted(dev.get_info(info.extensions)),
        "sycl_ocl_version": installed_version(),
        "sycl_ocl_path": sycl.__file__,
        "python": sys.version.split()[0],
        "pyopencl": cl.VERSION_TEXT,
        "numpy": numpy.__version__,
        "host": f"{host_platform.system()} {host_platform.release()} {host_platform.machine()}",
    }


def devices() -> list[dict[str, Any]]:
    """The identity of each distinct device label, in enumeration order."""
    by_label: dict[str, list[sycl.device]] = {}
    for dev in _discovery.all_devices():
        by_label.setdefault(_discovery.device_label(dev), []).append(dev)
    return [identity(devs[0], len(devs)) for devs in by_label.values()]


if __name__ == "__main__":
    print(json.dumps(devices()))
