"""Shared fixtures: the devices under test are chosen by ``SYCL_OCL_TEST``.

``SYCL_OCL_TEST`` is a regular expression over "platform / device" (like PyOpenCL's
``PYOPENCL_TEST``); unset, every platform's first device is tested. PoCL is started with
two CPU devices (``POCL_DEVICES="pthread pthread"``) so that multi-device tests have a
context with two devices.
"""

from __future__ import annotations

import os
import re

os.environ.setdefault("POCL_DEVICES", "pthread pthread")

import pytest

import sycl_ocl as sycl


def _label(dev: sycl.device) -> str:
    platform_name = dev.get_platform().get_info(sycl.info.platform.name)
    return f"{platform_name} / {dev.get_info(sycl.info.device.name)}"


def devices_under_test() -> list[sycl.device]:
    """The first device of each platform whose label matches ``SYCL_OCL_TEST``."""
    pattern = re.compile(os.environ.get("SYCL_OCL_TEST", ""), re.IGNORECASE)
    chosen = []
    for plat in sycl.platform.get_platforms():
        devs = [d for d in plat.get_devices() if pattern.search(_label(d))]
        if devs:
            chosen.append(devs[0])
    return chosen


DEVICES = devices_under_test()


def preferred_device() -> sycl.device | None:
    """The one device under test that single-device whole-program tests (children, the
    conformance runner) use: PoCL's where it is under test (CI's device), else the first."""
    pocl = [d for d in DEVICES if "Portable Computing Language" in _label(d)]
    return (pocl or DEVICES or [None])[0]


def pocl_devices() -> list[sycl.device]:
    """The PoCL devices (two with the POCL_DEVICES setting above)."""
    for plat in sycl.platform.get_platforms():
        if "Portable Computing Language" in plat.get_info(sycl.info.platform.name):
            return plat.get_devices()
    return []


@pytest.fixture(params=DEVICES, ids=[_label(d) for d in DEVICES])
def device(request: pytest.FixtureRequest) -> sycl.device:
    """Each device under test in turn."""
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def queue(device: sycl.device) -> sycl.queue:
    """A queue on the device under test, in that device's own context."""
    return sycl.queue(sycl.context(device), device)


def device_pairs() -> list[list[sycl.device]]:
    """The first two devices of each platform under test that has two (PoCL's two with the
    POCL_DEVICES setting above; two GPUs of one driver)."""
    pattern = re.compile(os.environ.get("SYCL_OCL_TEST", ""), re.IGNORECASE)
    pairs = []
    for plat in sycl.platform.get_platforms():
        devs = [d for d in plat.get_devices() if pattern.search(_label(d))]
        if len(devs) >= 2:
            pairs.append(devs[:2])
    return pairs


PAIRS = device_pairs()


@pytest.fixture(params=PAIRS or [None], ids=[_label(p[0]) for p in PAIRS] or ["no pair"])
def device_pair(request: pytest.FixtureRequest) -> list[sycl.device]:
    """Two devices of one platform, for multi-device tests: each platform under test that has two."""
    if request.param is None:
        pytest.skip("needs two devices of one platform (PoCL with POCL_DEVICES='pthread pthread', "
                    "or two GPUs of one driver)")
    return request.param  # type: ignore[no-any-return]


def pytest_report_header(config: pytest.Config) -> str:
    return "sycl_ocl devices under test: " + "; ".join(_label(d) for d in DEVICES)
