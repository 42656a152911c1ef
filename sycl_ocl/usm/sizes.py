"""The sizes and counts USM calls take (SYCL 2020 §4.8.3, §4.9.4.3): ints, never negative."""

from __future__ import annotations

import operator
from typing import Any

from .._exception import errc, exception


def as_int(what: str, value: Any) -> int:
    """``value`` as an int, else ``errc.invalid``."""
    try:
        return operator.index(value)
    except TypeError:
        raise exception(errc.invalid, f"{what} takes an int, got {value!r}") from None


def non_negative(what: str, value: Any) -> int:
    """``value`` as a size: an int >= 0, else ``errc.invalid``."""
    n = as_int(what, value)
    if n < 0:
        raise exception(errc.invalid, f"{what}: the size must be >= 0, got {value!r}")
    return n
