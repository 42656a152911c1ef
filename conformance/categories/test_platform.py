"""Category platform (CTS tests/platform): PL-01 .. PL-06."""

from __future__ import annotations

import sycl_ocl as sycl


def test_PL_01_get_devices_by_type(device: sycl.device) -> None:
    """get_devices() is unique; typed lists hold only devices of that type."""
    plat = device.get_platform()
    all_devs = plat.get_devices()
    assert len(set(all_devs)) == len(all_devs) and device in all_devs
    assert set(plat.get_devices(sycl.info.device_type.automatic)) <= set(all_devs)
    for dtype in (
        sycl.info.device_type.cpu,
        sycl.info.device_type.gpu,
        sycl.info.device_type.accelerator,
        sycl.info.device_type.custom,
    ):
        typed = plat.get_devices(dtype)
        assert all(
            d.get_info(sycl.info.device.device_type) is dtype or dtype.value & d._native.type for d in typed
        )


def test_PL_02_has_extension_info_get_platforms(device: sycl.device) -> None:
    """has(aspect) is a bool, has_extension answers, get_platforms lists the platform."""
    plat = device.get_platform()
    assert isinstance(plat.has(sycl.aspect.cpu), bool)
    assert not plat.has_extension("cl_nonexistent_extension")
    assert plat in sycl.platform.get_platforms()


def test_PL_03_constructors(device: sycl.device) -> None:
    """platform() contains device(); platform(selector) contains device(selector)."""
    assert sycl.device() in sycl.platform().get_devices()
    assert device in sycl.platform(sycl.default_selector_v).get_devices()
    assert sycl.get_native(sycl.platform()) is sycl.get_native(sycl.platform())


def test_PL_04_info(device: sycl.device) -> None:
    """version, name, vendor are strings; extensions a list of strings."""
    plat = device.get_platform()
    for desc in (sycl.info.platform.version, sycl.info.platform.name, sycl.info.platform.vendor):
        assert isinstance(plat.get_info(desc), str) and plat.get_info(desc)
    assert all(isinstance(e, str) for e in plat.get_info(sycl.info.platform.extensions))
    assert plat.get_info(sycl.info.platform.version).startswith("OpenCL ")


def test_PL_05_reference_semantics(device: sycl.device) -> None:
    """Two handles of one platform are equal and hash equal."""
    a, b = device.get_platform(), sycl.platform(sycl.default_selector_v)
    assert a == b and hash(a) == hash(b)


def test_PL_06_platform_aspect_is_all_devices(device: sycl.device) -> None:
    """A platform has an aspect iff all its devices do."""
    plat = device.get_platform()
    for asp in sycl.aspect:
        assert plat.has(asp) == all(d.has(asp) for d in plat.get_devices())
