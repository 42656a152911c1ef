"""Device selection (SYCL 2020 §4.6.1) and the ``SYCL_OCL_DEVICE`` filter.

The standard selectors are checked against what the machine has: on a machine without a GPU,
``gpu_selector_v`` must raise ``errc.runtime``; with one, it must select it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import sycl_ocl as sycl

ROOTS = sycl.device.get_devices()


def _raises_runtime(make: Callable[[], Any]) -> sycl.exception:
    with pytest.raises(sycl.exception) as info:
        make()
    assert info.value.code() is sycl.errc.runtime
    return info.value


def test_selector_sees_every_root_device_and_nothing_else() -> None:
    seen: list[sycl.device] = []
    sycl.device(lambda d: seen.append(d) or 0)
    assert seen == ROOTS


def test_highest_score_wins_and_zero_is_selectable() -> None:
    scores = {d: i for i, d in enumerate(ROOTS)}
    assert sycl.device(lambda d: scores[d]) == ROOTS[-1]
    assert sycl.device(lambda d: 0) in ROOTS
    assert sycl.device(lambda d: 5) == ROOTS[0]  # ties: one of the tied devices


def test_negative_scores_everywhere_raise_runtime() -> None:
    for make in (
        lambda: sycl.device(lambda d: -1),
        lambda: sycl.queue(lambda d: -1),
        lambda: sycl.platform(lambda d: -1),
    ):
        error = _raises_runtime(make)
        assert "accepted none of the devices" in error.what()


def test_scores_may_be_bool_or_numpy_integers() -> None:
    cpu = sycl.device(sycl.cpu_selector_v)
    assert sycl.device(lambda d: d == cpu) == cpu
    assert sycl.device(lambda d: np.int64(7) if d == cpu else np.int64(-3)) == cpu


def test_bad_selectors_are_invalid() -> None:
    for bad in (42, lambda d: "high"):
        with pytest.raises(sycl.exception) as info:
            sycl.device(bad)  # type: ignore[arg-type]
        assert info.value.code() is sycl.errc.invalid


def test_default_selector_prefers_real_devices_over_the_simulator() -> None:
    chosen = sycl.device(sycl.default_selector_v)
    if any(not d.has(sycl.aspect.emulated) for d in ROOTS):
        assert not chosen.has(sycl.aspect.emulated)
    gpus = [d for d in ROOTS if d.is_gpu() and not d.has(sycl.aspect.emulated)]
    if gpus:
        assert chosen.is_gpu()


@pytest.mark.parametrize(
    ("selector", "legacy", "is_kind"),
    [
        (sycl.gpu_selector_v, sycl.gpu_selector, sycl.device.is_gpu),
        (sycl.cpu_selector_v, sycl.cpu_selector, sycl.device.is_cpu),
        (sycl.accelerator_selector_v, sycl.accelerator_selector, sycl.device.is_accelerator),
    ],
)
def test_type_selectors_select_that_type_or_raise(selector: Any, legacy: type, is_kind: Any) -> None:
    if any(is_kind(d) for d in ROOTS):
        chosen = sycl.device(selector)
        assert is_kind(chosen)
        assert sycl.device(legacy()) == chosen
        assert sycl.queue(legacy()).get_device() == chosen
    else:
        _raises_runtime(lambda: sycl.device(selector))
        _raises_runtime(lambda: sycl.device(legacy()))


def test_legacy_default_selector_matches() -> None:
    assert sycl.device(sycl.default_selector()) == sycl.device()


def test_aspect_selector_forms() -> None:
    assert sycl.device(sycl.aspect_selector()) == sycl.device()
    fp64 = sycl.device(sycl.aspect_selector([sycl.aspect.fp64]))
    assert fp64.has(sycl.aspect.fp64)
    assert sycl.device(sycl.aspect_selector(sycl.aspect.cpu, sycl.aspect.fp64)) == sycl.device(
        sycl.aspect_selector([sycl.aspect.cpu, sycl.aspect.fp64])
    )
    real = sycl.device(sycl.aspect_selector([], deny_list=[sycl.aspect.emulated]))
    assert not real.has(sycl.aspect.emulated)


def test_aspect_selector_matching_nothing_raises_runtime() -> None:
    if any(d.has(sycl.aspect.custom) for d in ROOTS):
        pytest.skip("a custom device is present, so aspect_selector(custom) matches")
    _raises_runtime(lambda: sycl.device(sycl.aspect_selector([sycl.aspect.custom])))
    deny_all = [sycl.aspect.cpu, sycl.aspect.gpu, sycl.aspect.accelerator, sycl.aspect.custom]
    _raises_runtime(lambda: sycl.device(sycl.aspect_selector(deny_list=deny_all)))


def test_aspect_selector_rejects_non_aspects() -> None:
    with pytest.raises(sycl.exception) as info:
        sycl.aspect_selector(["fp64"])  # type: ignore[list-item]
    assert info.value.code() is sycl.errc.invalid


def _label(dev: sycl.device) -> str:
    return f"{dev.get_platform().get_info(sycl.info.platform.name)} / {dev.get_info(sycl.info.device.name)}"


@pytest.mark.parametrize("dev", ROOTS, ids=_label)
def test_device_filter_restricts_the_default_selector(
    dev: sycl.device, monkeypatch: pytest.MonkeyPatch
) -> None:
    platform_name = dev.get_platform().get_info(sycl.info.platform.name)
    monkeypatch.setenv("SYCL_OCL_DEVICE", f"^{re.escape(platform_name)} / ")
    assert sycl.device().get_platform() == dev.get_platform()
    assert sycl.queue().get_device().get_platform() == dev.get_platform()
    assert sycl.device.get_devices() == ROOTS  # explicit enumeration still sees everything


def test_device_filter_matching_nothing_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SYCL_OCL_DEVICE", "no such device anywhere")
    error = _raises_runtime(sycl.device)
    assert "SYCL_OCL_DEVICE" in error.what()


def test_device_filter_with_a_bad_regex_is_a_runtime_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SYCL_OCL_DEVICE", "([unclosed")
    error = _raises_runtime(sycl.device)
    assert "not a valid regular expression" in error.what()


def test_selectors_never_see_sub_devices() -> None:
    partitionable = [
        d
        for d in ROOTS
        if sycl.info.partition_property.partition_equally in d.get_info(sycl.info.device.partition_properties)
    ]
    if not partitionable:
        pytest.skip("no device under test can be partitioned (PoCL with 2+ compute units can)")
    subs = partitionable[0].create_sub_devices(sycl.info.partition_property.partition_equally, 1)
    seen: list[sycl.device] = []
    sycl.device(lambda d: seen.append(d) or 0)
    assert seen == ROOTS and not set(subs) & set(seen)
