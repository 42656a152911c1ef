"""Print the identity of the devices matching ``SYCL_OCL_DEVICE`` as JSON (run by run.py)."""

from __future__ import annotations

import json
import platform as host_platform
import sys

import numpy
import pyopencl as cl

import sycl_ocl as sycl
from sycl_ocl import _discovery


def identity(dev: sycl.device) -> dict[str, object]:
    """What a report says about the device, its driver and the host."""
    info = sycl.info.device
    plat = dev.get_platform()
    return {
        "label": _discovery.device_label(dev),
        "platform_name": plat.get_info(sycl.info.platform.name),
        "platform_vendor": plat.get_info(sycl.info.platform.vendor),
        "platform_version": plat.get_info(sycl.info.platform.version),
        "device_name": dev.get_info(info.name),
        "device_vendor": dev.get_info(info.vendor),
        "device_version": dev.get_info(info.version),
        "driver_version": dev.get_info(info.driver_version),
        "device_type": dev.get_info(info.device_type).name,
        "aspects": [a.name for a in sycl.aspect if dev.has(a)],
        "extensions": sorted(dev._extensions()),
        "python": sys.version.split()[0],
        "pyopencl": cl.VERSION_TEXT,
        "numpy": numpy.__version__,
        "host": f"{host_platform.system()} {host_platform.release()} {host_platform.machine()}",
    }


def main() -> None:
    """Print one JSON list with the identity of every selectable device."""
    print(json.dumps([identity(d) for d in _discovery.selectable_devices()]))


if __name__ == "__main__":
    main()
