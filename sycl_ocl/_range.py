"""``sycl::range``, ``sycl::id`` and ``sycl::nd_range`` (SYCL 2020 §4.9.1).

SYCL dimension ``d`` of an N-dimensional range is OpenCL dimension ``N-1-d``, so
``to_cl()`` reverses the order: ``get_global_id(0)`` walks the fastest-varying
(numpy C order, last) SYCL dimension.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Iterable, Iterator
from typing import Any, SupportsIndex

from ._exception import errc, exception

# Sizes and offsets are ``size_t`` (§4.9.1): one past the largest (OpenCL cannot take more).
SIZE_END = 1 << 64
_INTS = {(int,), (int, int), (int, int, int)}  # the types of 1 to 3 plain integers


def _dims(values: tuple[Any, ...], kind: str) -> tuple[int, ...]:
    if tuple(map(type, values)) in _INTS:
        return values  # the common case, checked cheaply (command groups build ranges and ids)
    if len(values) == 1 and isinstance(values[0], Iterable) and not isinstance(values[0], str):
        values = tuple(values[0])
    if not 1 <= len(values) <= 3:
        raise exception(errc.invalid, f"a {kind} has 1, 2 or 3 dimensions, got {len(values)}")
    try:
        return tuple(int(v.__index__()) for v in values)
    except (AttributeError, TypeError):
        raise exception(
            errc.invalid, f"the dimensions of a {kind} are integers, got {values!r}"
        ) from None


class _Extent:
    """An immutable tuple of 1 to 3 integers with value semantics (§4.5.3)."""

    __slots__ = ("_v",)
    _kind = "extent"
    _v: tuple[int, ...]

    def __init__(self, *values: SupportsIndex | Iterable[SupportsIndex]) -> None:
        self._v = _dims(values, self._kind)

    @property
    def dimensions(self) -> int:
        """The number of dimensions (§4.9.1)."""
        return len(self._v)

    def get(self, dimension: int) -> int:
        """The value of one dimension (§4.9.1)."""
        return self._v[dimension]

    def __getitem__(self, dimension: int) -> int:
        return self._v[dimension]

    def __len__(self) -> int:
        return len(self._v)

    def __iter__(self) -> Iterator[int]:
        return iter(self._v)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _Extent):
            return type(other) is type(self) and other._v == self._v
        if isinstance(other, tuple):
            return other == self._v
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self._kind, self._v))

    def __repr__(self) -> str:
        return f"sycl.{self._kind}{self._v!r}".replace(",)", ")")

    def to_tuple(self) -> tuple[int, ...]:
        """The values in SYCL order."""
        return self._v

    def to_cl(self) -> tuple[int, ...]:
        """The values in OpenCL dimension order, reversed (a sycl_ocl extension: SYCL dimension
        ``d`` of ``N`` is OpenCL dimension ``N-1-d``)."""
        return self._v[::-1]


class range(_Extent):
    """A 1-3 dimensional size (§4.9.1.1)."""

    __slots__ = ("_cl",)
    _kind = "range"

    _cl: tuple[int, ...]

    def __init__(self, *values: SupportsIndex | Iterable[SupportsIndex]) -> None:
        n = len(values)
        if n == 1:
            if type(values[0]) is int and 0 <= values[0] < SIZE_END:
                self._v = self._cl = values  # type: ignore[assignment]  # the common 1-D case, cheaply
                return
        elif n == 2:
            a, b = values
            if type(a) is int and type(b) is int and 0 <= a < SIZE_END and 0 <= b < SIZE_END:
                self._v = values  # type: ignore[assignment]  # 2-D, as cheaply: the submit path builds ranges
                self._cl = (b, a)
                return
        super().__init__(*values)
        if min(self._v) < 0:
            raise exception(errc.invalid, f"range sizes cannot be negative: {self._v}")
        if max(self._v) >= SIZE_END:
            raise exception(
                errc.invalid,
                f"range sizes are size_t, below 2**64: {self._v}; split the work into smaller ranges",
            )
        self._cl = self._v[::-1]  # what a launch passes to OpenCL (``to_cl``)

    def size(self) -> int:
        """The number of elements: the product of the dimensions (§4.9.1.1)."""
        return math.prod(self._v)


class id(_Extent):
    """A 1-3 dimensional index or offset (§4.9.1.3)."""

    __slots__ = ()
    _kind = "id"

    def __init__(self, *values: SupportsIndex | Iterable[SupportsIndex]) -> None:
        if tuple(map(type, values)) in _INTS:
            self._v = values  # type: ignore[assignment]  # plain integers, as cheaply as a range's
            return
        super().__init__(*values)


def as_range(value: Any) -> range:
    """Accept a ``range``, an integer or a sequence of integers."""
    if isinstance(value, range):
        return value
    if hasattr(value, "__index__"):
        return range(value)
    return range(*tuple(value))


def as_id(value: Any, dimensions: int) -> id:
    """Accept an ``id``, ``None`` (zero), an integer or a sequence of integers."""
    if value is None:
        return id(*([0] * dimensions))
    if isinstance(value, id):
        return value
    if hasattr(value, "__index__"):
        return id(value)
    return id(*tuple(value))


class nd_range:
    """A global range split into work-groups of a local range (§4.9.1.2).

    Args:
        global_range: the total number of work-items per dimension.
        local_range: the work-group size per dimension; it divides ``global_range``.
        offset: deprecated global offset (§4.9.1.2).
    """

    __slots__ = ("_global", "_local", "_offset")

    def __init__(self, global_range: Any, local_range: Any, offset: Any = None) -> None:
        self._global = as_range(global_range)
        self._local = as_range(local_range)
        self._offset = as_id(offset, self._global.dimensions)
        if not (self._global.dimensions == self._local.dimensions == self._offset.dimensions):
            raise exception(
                errc.nd_range,
                f"nd_range global {self._global}, local {self._local} and offset "
                f"{self._offset} must have the same number of dimensions",
            )
        if any(not 0 <= o < SIZE_END for o in self._offset):
            raise exception(errc.nd_range, f"nd_range offset {self._offset} is not a size_t (0 to 2**64 - 1)")
        for g, loc in zip(self._global, self._local, strict=True):
            if loc == 0 or g % loc:
                raise exception(
                    errc.nd_range,
                    f"local range {self._local} must be non-zero and divide the global "
                    f"range {self._global} in every dimension",
                )

    @property
    def dimensions(self) -> int:
        """The number of dimensions (§4.9.1.2)."""
        return self._global.dimensions

    def get_global_range(self) -> range:
        """The global range (§4.9.1.2)."""
        return self._global

    def get_local_range(self) -> range:
        """The work-group size (§4.9.1.2)."""
        return self._local

    def get_group_range(self) -> range:
        """The number of work-groups per dimension (§4.9.1.2)."""
        return range(*(g // loc for g, loc in zip(self._global, self._local, strict=True)))

    def get_offset(self) -> id:
        """The global offset (deprecated in SYCL 2020)."""
        return self._offset

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, nd_range):
            return NotImplemented
        return (self._global, self._local, self._offset) == (
            other._global,
            other._local,
            other._offset,
        )

    def __hash__(self) -> int:
        return hash((self._global, self._local, self._offset))

    def __repr__(self) -> str:
        return f"sycl.nd_range({self._global!r}, {self._local!r})"


def check_inside(index: Any, rng: Any, whole: range, what: str, outside: str) -> None:
    """``errc.invalid`` unless ``rng`` at ``index`` (``what``, in errors) has the dimensions of
    ``whole`` and lies inside it; ``outside`` is the error's template (``{index}``, ``{rng}``,
    ``{whole}``), formatted only then."""
    shape = whole.to_tuple()
    if len(index) != len(shape) or len(rng) != len(shape):
        raise exception(errc.invalid, f"{what} need {len(shape)} dimension(s)")
    if any(i < 0 for i in index):
        raise exception(errc.invalid, f"{what}: the offset {tuple(index)} is negative; ids count from 0")
    if any(i + r > s for i, r, s in zip(index, rng, shape, strict=False)):
        raise exception(errc.invalid, outside.format(index=index, rng=rng, whole=whole))


def linear(index: tuple[int, ...], shape: tuple[int, ...]) -> int:
    """The row-major linear position of ``index`` in ``shape`` (§3.11)."""
    pos = 0
    for i, s in zip(index, shape, strict=False):
        pos = pos * s + i
    return pos


def contiguous(rng: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    """Whether a window of ``rng`` in ``shape`` is one contiguous run of elements."""
    for d, r in enumerate(rng):
        if r > 1:
            return all(rng[j] == shape[j] for j in builtins.range(d + 1, len(rng)))
    return True
