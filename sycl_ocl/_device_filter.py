"""Device filter strings: ``backend:device_type:index`` terms (docs/device-selection.md).

The grammar of DPC++'s ``ONEAPI_DEVICE_SELECTOR`` and ``SYCL_DEVICE_FILTER`` (an extension,
not SYCL 2020 text): ``;``-separated terms, each ``[!]backend:device_type:index`` with any part
``*`` or left out, ``index`` one number or a ``,``-separated list. A device is accepted when it
matches a positive term (or there is none) and no ``!`` term. ``index`` counts the root devices
of the backend in enumeration order, as ``python -m sycl_ocl ls`` numbers them, so two identical
GPUs are told apart by it. Parsing is pure; matching takes the device's type and index.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._exception import errc, exception
from .info.enums import device_type

GRAMMAR = (
    "the grammar is [!]backend:device_type:index, each part optional or '*', terms separated "
    "by ';' (e.g. 'opencl:gpu', 'gpu', 'opencl:1', 'opencl:gpu:0,1', '!opencl:cpu', '*')"
)
# DPC++'s backend names: well formed here, though only "opencl" has devices in sycl_ocl.
_BACKENDS = frozenset({
    "opencl", "level_zero", "cuda", "hip", "native_cpu",
    "ext_oneapi_level_zero", "ext_oneapi_cuda", "ext_oneapi_hip",
})
_DEVICE_TYPES = {
    "cpu": device_type.cpu,
    "gpu": device_type.gpu,
    "acc": device_type.accelerator,
    "accelerator": device_type.accelerator,
    "fpga": device_type.accelerator,  # DPC++ spells OpenCL accelerators "fpga" too
    "custom": device_type.custom,
}
_BACKEND, _TYPE, _INDEX = 0, 1, 2


@dataclass(frozen=True)
class Term:
    """One term: ``None`` fields match anything."""

    backend: str | None
    kind: device_type | None
    indices: frozenset[int] | None
    exclude: bool

    def matches(self, kind: device_type, index: int) -> bool:
        """Whether an OpenCL root device of type ``kind`` at ``index`` matches the term."""
        return (
            self.backend in (None, "opencl")
            and self.kind in (None, kind)
            and (self.indices is None or index in self.indices)
        )


def parse(text: str, source: str) -> list[Term]:
    """The terms of ``text``; ``source`` names where it came from in error messages.

    Raises:
        sycl.exception: ``errc.invalid`` for a malformed string; the message names the part.
    """
    terms = [_term(t.strip(), text, source) for t in text.split(";")]
    if not terms or any(t is None for t in terms):
        raise exception(errc.invalid, f"{source} {text!r} has an empty term; {GRAMMAR}")
    return [t for t in terms if t is not None]


def accepts(terms: list[Term], kind: device_type, index: int) -> bool:
    """Whether the device passes: some positive term matches (or none exists), no ``!`` term does."""
    positive = [t for t in terms if not t.exclude]
    if any(t.exclude and t.matches(kind, index) for t in terms):
        return False
    return not positive or any(t.matches(kind, index) for t in positive)


def _term(body: str, text: str, source: str) -> Term | None:
    exclude = body.startswith("!")
    parts = [p.strip().lower() for p in body.removeprefix("!").split(":")]
    if parts == [""]:
        return None
    if len(parts) > 3:
        raise exception(errc.invalid, f"{source} {text!r}: {body!r} has more than three parts; {GRAMMAR}")
    values: list[str | None] = [None, None, None]
    last = -1
    for position, part in enumerate(parts):
        if not part:
            raise exception(errc.invalid, f"{source} {text!r}: {body!r} has an empty part; {GRAMMAR}")
        slot = position if len(parts) == 3 else _slot(part, last)
        if slot is None:
            raise exception(
                errc.invalid,
                f"{source} {text!r}: {part!r} is neither a backend, a device type "
                f"({', '.join(_DEVICE_TYPES)}) nor an index; {GRAMMAR}",
            )
        if slot <= last or slot > _INDEX:
            raise exception(
                errc.invalid, f"{source} {text!r}: {part!r} is out of place in {body!r}; {GRAMMAR}"
            )
        values[slot] = None if part == "*" else part
        last = slot
    return Term(
        _backend(values[_BACKEND], text, source),
        _device_type(values[_TYPE], text, source),
        _indices(values[_INDEX], text, source),
        exclude,
    )


def _slot(part: str, last: int) -> int | None:
    """Which part a token of a shortened term is: a name says it; ``*`` is the next one."""
    if part == "*":
        return last + 1
    if part in _BACKENDS:
        return _BACKEND
    if part in _DEVICE_TYPES:
        return _TYPE
    if part[0].isdigit():
        return _INDEX
    return None


def _backend(value: str | None, text: str, source: str) -> str | None:
    if value is not None and value not in _BACKENDS:
        raise exception(
            errc.invalid,
            f"{source} {text!r}: {value!r} is not a backend (sycl_ocl has 'opencl'); {GRAMMAR}",
        )
    return value


def _device_type(value: str | None, text: str, source: str) -> device_type | None:
    if value is None:
        return None
    if value not in _DEVICE_TYPES:
        raise exception(
            errc.invalid,
            f"{source} {text!r}: {value!r} is not a device type ({', '.join(_DEVICE_TYPES)}); {GRAMMAR}",
        )
    return _DEVICE_TYPES[value]


def _indices(value: str | None, text: str, source: str) -> frozenset[int] | None:
    if value is None:
        return None
    numbers = value.split(",")
    if not all(n.strip().isdecimal() for n in numbers):
        raise exception(
            errc.invalid,
            f"{source} {text!r}: {value!r} is not a device index or a ','-separated list of them "
            f"(sub-devices 'N.M' are not supported); {GRAMMAR}",
        )
    return frozenset(int(n) for n in numbers)
