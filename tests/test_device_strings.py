"""Device filter strings (docs/device-selection.md): the grammar, its errors, strings where a
selector is taken, and the ``SYCL_OCL_DEVICE_SELECTOR`` restriction.

The index of a string counts every root device in enumeration order, as
``python -m sycl_ocl ls`` numbers them, so the tests compute what to expect from
``sycl.device.get_devices()``.
"""

from __future__ import annotations

import io
import re

import pytest
from conftest import pocl_devices

import sycl_ocl as sycl
from sycl_ocl import _device_filter
from sycl_ocl.__main__ import main as ls_main
from sycl_ocl.info import device_type

ROOTS = sycl.device.get_devices()
ENV = "SYCL_OCL_DEVICE_SELECTOR"


def _name(dev: sycl.device) -> str:
    return f"opencl:{dev.get_info(sycl.info.device.device_type).name}:{ROOTS.index(dev)}"


def _code(make: object) -> sycl.errc:
    with pytest.raises(sycl.exception) as info:
        make()  # type: ignore[operator]
    return info.value.code()


# --- the grammar, without devices -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "backend", "kind", "indices", "exclude"),
    [
        ("opencl:gpu", "opencl", device_type.gpu, None, False),
        ("gpu", None, device_type.gpu, None, False),
        ("opencl:1", "opencl", None, {1}, False),
        ("opencl:gpu:0,1", "opencl", device_type.gpu, {0, 1}, False),
        ("!opencl:cpu", "opencl", device_type.cpu, None, True),
        ("*", None, None, None, False),
        ("*:*:*", None, None, None, False),
        ("opencl:*", "opencl", None, None, False),
        ("*:acc", None, device_type.accelerator, None, False),
        ("fpga", None, device_type.accelerator, None, False),
        ("gpu:*", None, device_type.gpu, None, False),
        ("2", None, None, {2}, False),
        ("cpu:3", None, device_type.cpu, {3}, False),
        (" OpenCL : GPU : 1 ", "opencl", device_type.gpu, {1}, False),
        ("cuda:gpu", "cuda", device_type.gpu, None, False),
    ],
)
def test_well_formed_terms(
    text: str, backend: str | None, kind: device_type | None, indices: set[int] | None, exclude: bool
) -> None:
    (term,) = _device_filter.parse(text, "test")
    assert term == _device_filter.Term(
        backend, kind, None if indices is None else frozenset(indices), exclude
    )


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty term"),
        ("opencl;", "empty term"),
        ("!", "empty term"),
        ("opencl::1", "empty part"),
        ("opencl:gpu:0:1", "more than three parts"),
        ("1:gpu", "'gpu' is out of place"),
        ("gpu:opencl", "'opencl' is out of place"),
        ("*:*:*:*", "more than three parts"),
        ("gpu:*:*", "'gpu' is not a backend"),
        ("vulkan", "'vulkan' is neither a backend"),
        ("opencl:tpu", "'tpu' is neither a backend"),
        ("opencl:gpu:x", "'x' is not a device index"),
        ("opencl:gpu:0.1", "sub-devices 'N.M' are not supported"),
        ("opencl:-1", "'-1' is neither"),
        ("opencl:0,,1", "'0,,1' is not a device index"),
    ],
)
def test_malformed_strings_are_invalid_and_say_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(sycl.exception) as info:
        _device_filter.parse(text, "test")
    assert info.value.code() is sycl.errc.invalid
    assert says in info.value.what()
    assert "backend:device_type:index" in info.value.what()  # the grammar, to fix it


def test_exclusion_wins_and_only_exclusions_accept_the_rest() -> None:
    terms = _device_filter.parse("opencl:cpu;!opencl:1", "test")
    assert _device_filter.accepts(terms, device_type.cpu, 0)
    assert not _device_filter.accepts(terms, device_type.cpu, 1)
    assert not _device_filter.accepts(terms, device_type.gpu, 2)
    only_excluding = _device_filter.parse("!gpu", "test")
    assert _device_filter.accepts(only_excluding, device_type.cpu, 0)
    assert not _device_filter.accepts(only_excluding, device_type.gpu, 0)


def test_other_backends_are_well_formed_but_match_no_opencl_device() -> None:
    (term,) = _device_filter.parse("level_zero:gpu", "test")
    assert not term.matches(device_type.gpu, 0)


# --- strings where a selector is taken ---------------------------------------------------------


@pytest.mark.parametrize("index", range(len(ROOTS)))
def test_the_full_string_selects_exactly_that_device(index: int) -> None:
    dev = ROOTS[index]
    assert sycl.device(_name(dev)) == dev
    assert sycl.device(f"opencl:{index}") == dev
    assert sycl.queue(_name(dev)).get_device() == dev
    assert sycl.platform(f"opencl:{index}") == dev.get_platform()


@pytest.mark.skipif(len(pocl_devices()) < 2, reason="needs PoCL started with two devices (conftest.py)")
def test_two_identical_devices_are_told_apart_by_index() -> None:
    first, second = pocl_devices()[:2]
    assert sycl.device(_name(first)) == first
    assert sycl.device(_name(second)) == second
    assert first != second


def test_a_queue_from_a_string_takes_its_other_arguments() -> None:
    dev = ROOTS[-1]
    q = sycl.queue(_name(dev), prop_list=[sycl.property.queue.in_order()])
    assert q.get_device() == dev and q.is_in_order()
    ctx = sycl.context(dev)
    assert sycl.queue(ctx, _name(dev)).get_device() == dev


def test_a_list_of_indices_lets_the_default_selector_choose() -> None:
    both = ",".join(str(i) for i in range(len(ROOTS)))
    assert sycl.device(f"opencl:*:{both}") == sycl.device(sycl.default_selector_v)
    assert sycl.device("*") == sycl.device(sycl.default_selector_v)


@pytest.mark.skipif(len(ROOTS) < 2, reason="needs two root devices (PoCL starts with two, conftest.py)")
def test_a_string_may_hold_several_terms_and_exclusions() -> None:
    last = len(ROOTS) - 1
    assert sycl.device(f"opencl:0;opencl:{last}") in (ROOTS[0], ROOTS[last])
    assert sycl.device(f"!opencl:{last}") != ROOTS[last]
    assert sycl.device(f"!opencl:0;opencl:0,{last}") == ROOTS[last]
    assert _code(lambda: sycl.device("opencl:0;!opencl:0")) is sycl.errc.runtime


@pytest.mark.parametrize("make", [sycl.device, sycl.queue, sycl.platform])
def test_no_matching_device_is_a_runtime_error_listing_the_devices(make: object) -> None:
    kinds = {dev.get_info(sycl.info.device.device_type).name for dev in ROOTS}
    missing_kind = next(k for k in ("gpu", "cpu", "accelerator") if k not in kinds)
    for text in (f"opencl:{len(ROOTS)}", "cuda", f"opencl:{missing_kind}"):
        with pytest.raises(sycl.exception) as info:
            make(text)  # type: ignore[operator]
        assert info.value.code() is sycl.errc.runtime
        assert f"[{_name(ROOTS[0])}]" in info.value.what()  # names the devices as `ls` does


def test_malformed_strings_are_invalid_everywhere() -> None:
    for make in (lambda: sycl.device("opencl:gpu:x"), lambda: sycl.queue("gpu:gpu"),
                 lambda: sycl.platform("")):
        assert _code(make) is sycl.errc.invalid


def test_the_ls_label_of_each_device_selects_it() -> None:
    out = io.StringIO()
    assert ls_main(["ls"], out=out) == 0
    for line, dev in zip(out.getvalue().splitlines(), ROOTS, strict=True):
        label = line[1:line.index("]")]
        assert sycl.device(label) == dev


# --- SYCL_OCL_DEVICE_SELECTOR ------------------------------------------------------------------


def test_the_environment_restricts_every_selector(monkeypatch: pytest.MonkeyPatch) -> None:
    dev = ROOTS[-1]
    monkeypatch.setenv(ENV, f"opencl:{len(ROOTS) - 1}")
    assert sycl.device() == dev
    assert sycl.queue().get_device() == dev
    assert sycl.device(lambda d: 1) == dev
    assert sycl.device.get_devices() == ROOTS  # explicit enumeration still sees everything


def test_an_excluded_device_is_never_selected(monkeypatch: pytest.MonkeyPatch) -> None:
    dev = ROOTS[0]
    monkeypatch.setenv(ENV, f"!opencl:0;{_name(dev)}")
    assert _code(lambda: sycl.device(lambda d: 1 if d == dev else -1)) is sycl.errc.runtime
    assert _code(lambda: sycl.device(_name(dev))) is sycl.errc.runtime
    monkeypatch.setenv(ENV, "!opencl:0")
    if len(ROOTS) > 1:
        assert sycl.device() != dev


def test_a_device_the_environment_hides_is_named_with_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The no-device error of a selector that would accept a hidden device says which variable
    hid it, and no such note where the selector accepts none of the hidden devices either."""
    if len(ROOTS) < 2:
        pytest.skip("needs two root devices: one to hide, one left")
    dev = ROOTS[-1]
    monkeypatch.setenv(ENV, f"!opencl:{len(ROOTS) - 1}")
    with pytest.raises(sycl.exception) as info:
        sycl.device(_name(dev))
    assert info.value.code() is sycl.errc.runtime
    said = info.value.what()
    assert f"[{_name(dev)}]" in said and f"hidden by {ENV}='!opencl:{len(ROOTS) - 1}'" in said
    monkeypatch.delenv(ENV)
    label = f"{dev.get_platform().get_info(sycl.info.platform.name)} / {dev.get_info(sycl.info.device.name)}"
    monkeypatch.setenv("SYCL_OCL_DEVICE", f"^(?!{re.escape(label)}$)")
    with pytest.raises(sycl.exception) as info:
        sycl.device(lambda d: 1 if d == dev else -1)
    assert "hidden by SYCL_OCL_DEVICE=" in info.value.what()
    with pytest.raises(sycl.exception) as info:
        sycl.device(lambda d: -1)
    assert "hidden by" not in info.value.what()


def test_a_string_selector_sees_only_what_the_environment_lets_through(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV, "opencl:0")
    assert sycl.device("opencl:0") == ROOTS[0]
    with pytest.raises(sycl.exception) as info:
        sycl.device(f"opencl:{len(ROOTS)}")
    assert info.value.code() is sycl.errc.runtime


def test_the_environment_and_the_regex_filter_both_apply(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "opencl:0")
    monkeypatch.setenv("SYCL_OCL_DEVICE", "no such device anywhere")
    with pytest.raises(sycl.exception) as info:
        sycl.device()
    assert info.value.code() is sycl.errc.runtime
    assert ENV in info.value.what() and "SYCL_OCL_DEVICE " in info.value.what()


def test_a_malformed_environment_is_invalid_and_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "opencl:gpu:zero")
    with pytest.raises(sycl.exception) as info:
        sycl.device()
    assert info.value.code() is sycl.errc.invalid
    assert f"{ENV} 'opencl:gpu:zero'" in info.value.what()


def test_an_empty_environment_restricts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "  ")
    assert sycl.device() == sycl.device(sycl.default_selector_v)
