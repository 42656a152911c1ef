"""Category device_selector (CTS tests/device_selector): DS-01 .. DS-04."""

from __future__ import annotations

import sycl_ocl as sycl
from conformance.support import raises


def test_DS_01_aspect_selector(device: sycl.device) -> None:
    """aspect_selector accepts a device with the aspects and rejects one with a denied aspect."""
    have = [a for a in sycl.aspect if device.has(a)]
    assert sycl.aspect_selector(*have)(device) >= 0
    assert sycl.aspect_selector(have)(device) >= 0
    assert sycl.aspect_selector(have, deny_list=have[:1])(device) < 0
    assert sycl.device(sycl.aspect_selector(*have)) == device
    missing = [a for a in sycl.aspect if not device.has(a)]
    if missing:
        assert sycl.aspect_selector(missing[0])(device) < 0
        with raises(sycl.errc.runtime):
            sycl.device(sycl.aspect_selector(*have, missing[0]))


def test_DS_03_custom_selector(device: sycl.device) -> None:
    """A custom selector is called for device, platform and queue; negative never wins."""
    calls: list[sycl.device] = []

    def choose(d: sycl.device) -> int:
        calls.append(d)
        return 1 if d == device else -1

    assert sycl.device(choose) == device
    assert sycl.platform(choose) == device.get_platform()
    assert sycl.queue(choose).get_device() == device
    assert sycl.queue(sycl.context(device), choose).get_device() == device
    assert len(calls) >= 4 and device in calls
    with raises(sycl.errc.runtime):
        sycl.device(lambda d: -1)
    with raises(sycl.errc.runtime):
        sycl.queue(lambda d: -1)


def test_DS_04_predefined_selectors(device: sycl.device) -> None:
    """The predefined selectors pick a device of their type or raise errc.runtime."""
    for selector, aspect in (
        (sycl.cpu_selector_v, sycl.aspect.cpu),
        (sycl.gpu_selector_v, sycl.aspect.gpu),
        (sycl.accelerator_selector_v, sycl.aspect.accelerator),
    ):
        if device.has(aspect):
            assert sycl.device(selector) == device
        else:
            with raises(sycl.errc.runtime):
                sycl.device(selector)
    assert sycl.device(sycl.default_selector_v) == device
