"""Category platform (CTS tests/platform): PL-01 .. PL-06."""

from __future__ import annotations

import sycl_ocl as sycl

T = sycl.info.device_type


def test_PL_01_get_devices_by_type(device: sycl.device) -> None:
    """get_devices() is unique; each typed list is exactly the platform's devices of that type."""
    plat = device.get_platform()
    all_devs = plat.get_devices()
    assert len(set(all_devs)) == len(all_devs) and device in all_devs
    assert plat.get_devices(T.all) == all_devs
    assert set(plat.get_devices(T.automatic)) <= set(all_devs)
    for dtype in (T.cpu, T.gpu, T.accelerator, T.custom):
        typed = plat.get_devices(dtype)
        assert all(d.get_info(sycl.info.device.device_type) is dtype for d in typed)
        assert len(typed) == sum(d.get_info(sycl.info.device.device_type) is dtype for d in all_devs)


def test_PL_02_has_extension_info_get_platforms(device: sycl.device) -> None:
    """has(aspect) is a bool, has_extension answers, get_platforms lists the platform."""
    plat = device.get_platform()
    assert all(isinstance(plat.has(a), bool) for a in sycl.aspect)
    assert not plat.has_extension("cl_nonexistent_extension")
    everywhere = [
        e
        for e in plat.get_info(sycl.info.platform.extensions)
        if all(d.has_extension(e) for d in plat.get_devices())
    ]
    assert all(plat.has_extension(e) for e in everywhere)
    assert plat.get_info(sycl.info.platform.name)
    assert plat in sycl.platform.get_platforms()
    assert plat.get_backend() is sycl.backend.opencl


def test_PL_03_constructors(device: sycl.device) -> None:
    """platform() holds device(); platform(selector) holds device(selector); one native handle."""
    assert sycl.device() in sycl.platform().get_devices()
    assert sycl.device(sycl.default_selector_v) in sycl.platform(sycl.default_selector_v).get_devices()
    assert sycl.get_native(sycl.platform()) is sycl.get_native(device.get_platform())


def test_PL_04_info(device: sycl.device) -> None:
    """version, name, vendor are non-empty strings; extensions a list of strings."""
    plat = device.get_platform()
    for desc in (sycl.info.platform.version, sycl.info.platform.name, sycl.info.platform.vendor):
        assert isinstance(plat.get_info(desc), str) and plat.get_info(desc)
    assert all(isinstance(e, str) for e in plat.get_info(sycl.info.platform.extensions))
    assert plat.get_info(sycl.info.platform.version).startswith("OpenCL ")


def test_PL_05_reference_semantics(device: sycl.device) -> None:
    """Two handles of one platform are equal, hash equal, and see the same devices and aspects."""
    a, b = device.get_platform(), sycl.platform(sycl.default_selector_v)
    assert a == b and hash(a) == hash(b)
    assert a.get_devices() == b.get_devices()
    assert [a.has(x) for x in sycl.aspect] == [b.has(x) for x in sycl.aspect]
    assert sycl.make_platform(sycl.get_native(a)) == a


def test_PL_06_platform_aspect_is_all_devices(device: sycl.device) -> None:
    """A platform has an aspect iff all its devices do."""
    plat = device.get_platform()
    for asp in sycl.aspect:
        assert plat.has(asp) == all(d.has(asp) for d in plat.get_devices()), asp
