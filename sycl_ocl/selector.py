"""Device selectors (SYCL 2020 §4.6.1): callables ``device -> int``; negative rejects.

Where a selector is taken, a device filter string (``"opencl:gpu:1"``, docs/device-selection.md)
is accepted too, as an extension.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable
from typing import Any

from . import _device_filter, _discovery
from ._aspect import aspect
from ._device import device
from ._exception import errc, exception

Selector = Callable[[device], Any]


def select_device(selector: Selector | device | str) -> device:
    """The root device with the highest non-negative score; ties go to the first (§4.6.1.1).

    A string is a device filter (``filter_selector``).
    """
    if isinstance(selector, device):
        return selector
    if isinstance(selector, str):
        selector = filter_selector(selector)
    if not callable(selector):
        raise exception(errc.invalid, f"a device selector is a callable device -> int, got {selector!r}")
    best: device | None = None
    best_score = -1
    candidates = _discovery.selectable_devices()
    for dev in candidates:
        score = _score(selector, dev)
        if score >= 0 and score > best_score:
            best, best_score = dev, score
    if best is None:
        raise exception(errc.runtime, _no_device_message(selector, candidates))
    return best


def _score(selector: Selector, dev: device) -> int:
    """The selector's score as an ``int``; ``bool`` and numpy integers convert (§4.6.1.1)."""
    value = selector(dev)
    if isinstance(value, numbers.Real):
        return int(value)  # type: ignore[call-overload]
    raise exception(
        errc.invalid, f"a device selector returns an integer score, {selector!r} returned {value!r}"
    )


def _no_device_message(selector: Selector, candidates: list[device]) -> str:
    name = getattr(selector, "__name__", None) or repr(selector)
    if not candidates:
        if _discovery.all_devices():
            return (
                f"no device passes {_discovery.DEVICE_FILTER_ENV} and {_discovery.DEVICE_SELECTOR_ENV}; "
                "unset them or run `python -m sycl_ocl ls` to see the devices"
            )
        return "no OpenCL device found; run `python -m sycl_ocl ls` to see why"
    seen = ", ".join(f"[{_discovery.filter_name(d)}] {_discovery.device_label(d)}" for d in candidates)
    return f"the selector {name} accepted none of the devices ({seen}){_hidden_note(selector, candidates)}"


def _hidden_note(selector: Selector, candidates: list[device]) -> str:
    """What the selector would accept among the devices the environment hides, and which
    setting hides each ("" when it accepts none of them)."""
    hidden = [d for d in _discovery.all_devices() if d not in candidates and _score(selector, d) >= 0]
    if not hidden:
        return ""
    found = "; ".join(f"[{_discovery.filter_name(d)}] {_discovery.device_label(d)}, hidden by "
                      f"{_discovery.hidden_by(d)}" for d in hidden)
    return f"; it accepts {found}: change or unset that variable to select it"


def filter_selector(text: str) -> Selector:
    """A selector for the devices a filter string accepts (an extension, like DPC++'s).

    ``"opencl:gpu:1"``, ``"gpu"``, ``"opencl:0,1"``: the grammar of docs/device-selection.md.
    Among the accepted devices the default selector decides (§4.6.1.2).

    Raises:
        sycl.exception: ``errc.invalid`` for a malformed string.
    """
    terms = _device_filter.parse(text, "the device string")

    def select(dev: device) -> int:
        return default_selector_v(dev) if _discovery.filter_accepts(terms, dev) else -1

    select.__name__ = repr(text)
    return select


def default_selector_v(dev: device) -> int:
    """Prefer a GPU, then an accelerator, then a CPU; available devices only (§4.6.1.2)."""
    if not dev._int_info("AVAILABLE", 1):
        return -1
    if dev.has(aspect.emulated):
        return 10
    if dev.is_gpu():
        return 500
    if dev.is_accelerator():
        return 400
    return 300 if dev.is_cpu() else 100


def gpu_selector_v(dev: device) -> int:
    """Select a GPU, or fail with ``errc.runtime`` (§4.6.1.2)."""
    return 1 if dev.is_gpu() else -1


def cpu_selector_v(dev: device) -> int:
    """Select a CPU, or fail with ``errc.runtime`` (§4.6.1.2)."""
    return 1 if dev.is_cpu() else -1


def accelerator_selector_v(dev: device) -> int:
    """Select an accelerator, or fail with ``errc.runtime`` (§4.6.1.2)."""
    return 1 if dev.is_accelerator() else -1


def aspect_selector(*aspects: aspect | Iterable[aspect], deny_list: Iterable[aspect] = ()) -> Selector:
    """A selector for devices with every aspect of ``aspects`` and none of ``deny_list`` (§4.6.1.2).

    ``aspect_selector([a, b], deny_list=[c])`` (the spec's vector form) and
    ``aspect_selector(a, b)`` (the variadic form) both work. Among the accepted devices the
    default selector decides.
    """
    flat: list[aspect] = []
    for item in aspects:
        flat.extend([item] if isinstance(item, aspect) else item)
    deny = list(deny_list)
    for a in (*flat, *deny):
        if not isinstance(a, aspect):
            raise exception(errc.invalid, f"aspect_selector takes sycl.aspect members, got {a!r}")

    def select(dev: device) -> int:
        if all(dev.has(a) for a in flat) and not any(dev.has(a) for a in deny):
            return default_selector_v(dev)
        return -1

    select.__name__ = f"aspect_selector({', '.join(a.name for a in flat)})"
    return select


class _SelectorType:
    """SYCL 1.2.1 selector classes: instances behave like the ``*_selector_v`` callables."""

    _fn: Selector

    def __call__(self, dev: device) -> int:
        return int(type(self)._fn(dev))


class default_selector(_SelectorType):
    """SYCL 1.2.1 ``default_selector`` (deprecated)."""

    _fn = staticmethod(default_selector_v)


class gpu_selector(_SelectorType):
    """SYCL 1.2.1 ``gpu_selector`` (deprecated)."""

    _fn = staticmethod(gpu_selector_v)


class cpu_selector(_SelectorType):
    """SYCL 1.2.1 ``cpu_selector`` (deprecated)."""

    _fn = staticmethod(cpu_selector_v)


class accelerator_selector(_SelectorType):
    """SYCL 1.2.1 ``accelerator_selector`` (deprecated)."""

    _fn = staticmethod(accelerator_selector_v)
