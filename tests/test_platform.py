"""Platforms (SYCL 2020 §4.6.2): enumeration, devices, descriptors, aspects."""

from __future__ import annotations

import pyopencl as cl
import pytest

import sycl_ocl as sycl


def test_get_platforms_matches_opencl_in_a_stable_order() -> None:
    plats = sycl.platform.get_platforms()
    assert [sycl.get_native(p) for p in plats] == cl.get_platforms()
    assert sycl.platform.get_platforms() == plats


def test_default_platform_is_that_of_the_default_device() -> None:
    assert sycl.platform() == sycl.device().get_platform()
    assert sycl.platform() in sycl.platform.get_platforms()
    assert sycl.platform(sycl.cpu_selector_v) == sycl.device(sycl.cpu_selector_v).get_platform()


def test_platform_of_a_selector_that_selects_nothing_is_a_runtime_error() -> None:
    with pytest.raises(sycl.exception) as info:
        sycl.platform(lambda d: -1)
    assert info.value.code() is sycl.errc.runtime


def test_get_devices_returns_root_devices_of_the_platform(device: sycl.device) -> None:
    plat = device.get_platform()
    devs = plat.get_devices()
    assert [sycl.get_native(d) for d in devs] == sycl.get_native(plat).get_devices()
    assert all(d.get_platform() == plat for d in devs)
    assert plat.get_backend() is sycl.backend.opencl


def test_get_devices_filters_by_the_one_device_type(device: sycl.device) -> None:
    plat = device.get_platform()
    for kind in (sycl.info.device_type.cpu, sycl.info.device_type.gpu, sycl.info.device_type.accelerator):
        expected = [d for d in plat.get_devices() if d.get_info(sycl.info.device.device_type) is kind]
        assert plat.get_devices(kind) == expected
    assert plat.get_devices(sycl.info.device_type.custom) == []  # no custom device here: [] not an error


def test_platform_descriptors(device: sycl.device) -> None:
    plat = device.get_platform()
    native = sycl.get_native(plat)
    assert plat.get_info(sycl.info.platform.name) == native.name.strip()
    assert plat.get_info(sycl.info.platform.vendor) == native.vendor.strip()
    assert plat.get_info(sycl.info.platform.version) == native.version.strip()
    extensions = plat.get_info(sycl.info.platform.extensions)
    assert extensions == native.extensions.split()
    assert all(isinstance(e, str) and " " not in e for e in extensions)


def test_platform_get_info_rejects_other_descriptors(device: sycl.device) -> None:
    with pytest.raises(sycl.exception) as info:
        device.get_platform().get_info(sycl.info.device.name)
    assert info.value.code() is sycl.errc.invalid


def test_platform_has_aspect_iff_every_device_has_it(device: sycl.device) -> None:
    plat = device.get_platform()
    for asp in sycl.aspect:
        assert plat.has(asp) == all(d.has(asp) for d in plat.get_devices())


def test_platform_has_extension_needs_platform_and_devices(device: sycl.device) -> None:
    plat = device.get_platform()
    for ext in plat.get_info(sycl.info.platform.extensions):
        expected = all(d.has_extension(ext) for d in plat.get_devices())
        assert plat.has_extension(ext) == expected
    assert not plat.has_extension("cl_no_such_extension")


def test_get_devices_rejects_a_non_device_type(device: sycl.device) -> None:
    for call in (lambda: device.get_platform().get_devices("gpu"), lambda: sycl.device.get_devices(4)):
        with pytest.raises(sycl.exception) as info:
            call()
        assert info.value.code() is sycl.errc.invalid


def test_backend_info_takes_opencl_platform_names(device: sycl.device) -> None:
    plat = device.get_platform()
    assert plat.get_backend_info("PROFILE") in ("FULL_PROFILE", "EMBEDDED_PROFILE")
    for foreign in (sycl.info.platform.name, "profile", "NO_SUCH_QUERY"):
        with pytest.raises(sycl.exception) as info:
            plat.get_backend_info(foreign)
        assert info.value.code() is sycl.errc.backend_mismatch
