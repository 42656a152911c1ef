"""Category device_selector (CTS tests/device_selector): DS-01 .. DS-03."""

from __future__ import annotations

import pytest

import sycl_ocl as sycl


def test_DS_01_aspect_selector(device: sycl.device) -> None:
    """aspect_selector accepts a device with the aspects and rejects one with a denied aspect."""
    have = [a for a in sycl.aspect if device.has(a)]
    assert sycl.aspect_selector(*have)(device) >= 0
    assert sycl.aspect_selector(have, deny_list=have[:1])(device) < 0
    missing = [a for a in sycl.aspect if not device.has(a)]
    if missing:
        with pytest.raises(sycl.exception) as info:
            sycl.device(sycl.aspect_selector(missing[0]))
        assert info.value.code() is sycl.errc.runtime


def test_DS_03_custom_selector(device: sycl.device) -> None:
    """A custom selector is called for device, platform and queue; negative never wins."""
    calls: list[sycl.device] = []

    def choose(d: sycl.device) -> int:
        calls.append(d)
        return 1 if d == device else -1

    assert sycl.device(choose) == device
    assert sycl.platform(choose) == device.get_platform()
    assert sycl.queue(choose).get_device() == device
    assert len(calls) >= 3
    with pytest.raises(sycl.exception) as info:
        sycl.device(lambda d: -1)
    assert info.value.code() is sycl.errc.runtime


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
            with pytest.raises(sycl.exception) as info:
                sycl.device(selector)
            assert info.value.code() is sycl.errc.runtime
    assert sycl.device(sycl.default_selector_v) == device
