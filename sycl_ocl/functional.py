"""SYCL's function objects used as reduction combiners (SYCL 2020 §4.17.2) and their known
identities (§4.9.2.2).

A combiner is a Python object that also knows its OpenCL C form: a reduction's generated code
(docs/reductions.md) combines with the expression of ``_expression(a, b)``. Calling one on host
values applies the operation with numpy's rules (``sycl.plus()(2, 3) == 5``).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from ._exception import errc, exception

# The element types reductions take: numpy name -> OpenCL C type.
C_TYPES = {
    "int32": "int", "uint32": "uint", "int64": "long", "uint64": "ulong",
    "float32": "float", "float64": "double",
}


class combiner:
    """Base of the SYCL function objects that reductions combine with (§4.17.2)."""

    __slots__ = ()
    _integers_only: ClassVar[bool] = False

    def __call__(self, a: Any, b: Any) -> Any:
        return self._apply(a, b)

    def _apply(self, a: Any, b: Any) -> Any:
        raise NotImplementedError

    def _expression(self) -> str:
        """The OpenCL C expression combining ``a`` and ``b`` (both of the reduction's type)."""
        raise NotImplementedError

    def _identity(self, dtype: np.dtype[Any]) -> Any:
        """The known identity for ``dtype`` (None: none is known)."""
        raise NotImplementedError

    def _takes(self, dtype: np.dtype[Any]) -> bool:
        return dtype.name in C_TYPES and (dtype.kind in "iu" or not self._integers_only)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)

    def __hash__(self) -> int:
        return hash(type(self))

    def __repr__(self) -> str:
        return f"sycl.{type(self).__name__}()"


class plus(combiner):
    """``sycl::plus``: ``a + b``; identity 0 (§4.17.2)."""

    __slots__ = ()

    def _apply(self, a: Any, b: Any) -> Any:
        return a + b

    def _expression(self) -> str:
        return "(a + b)"

    def _identity(self, dtype: np.dtype[Any]) -> Any:
        return dtype.type(0)


class multiplies(combiner):
    """``sycl::multiplies``: ``a * b``; identity 1 (§4.17.2)."""

    __slots__ = ()

    def _apply(self, a: Any, b: Any) -> Any:
        return a * b

    def _expression(self) -> str:
        return "(a * b)"

    def _identity(self, dtype: np.dtype[Any]) -> Any:
        return dtype.type(1)


class minimum(combiner):
    """``sycl::minimum``: ``b < a ? b : a``; identity the type's largest value (+inf for floating
    point) (§4.17.2)."""

    __slots__ = ()

    def _apply(self, a: Any, b: Any) -> Any:
        return b if b < a else a

    def _expression(self) -> str:
        return "(b < a ? b : a)"

    def _identity(self, dtype: np.dtype[Any]) -> Any:
        return dtype.type(math.inf) if dtype.kind == "f" else np.iinfo(dtype).max


class maximum(combiner):
    """``sycl::maximum``: ``a < b ? b : a``; identity the type's lowest value (-inf for floating
    point) (§4.17.2)."""

    __slots__ = ()

    def _apply(self, a: Any, b: Any) -> Any:
        return b if a < b else a

    def _expression(self) -> str:
        return "(a < b ? b : a)"

    def _identity(self, dtype: np.dtype[Any]) -> Any:
        return dtype.type(-math.inf) if dtype.kind == "f" else np.iinfo(dtype).min


class bit_and(combiner):
    """``sycl::bit_and``: ``a & b`` on integers; identity all bits set (§4.17.2)."""

    __slots__ = ()
    _integers_only = True

    def _apply(self, a: Any, b: Any) -> Any:
        return a & b

    def _expression(self) -> str:
        return "(a & b)"

    def _identity(self, dtype: np.dtype[Any]) -> Any:
        return dtype.type(-1) if dtype.kind == "i" else np.iinfo(dtype).max


class bit_or(combiner):
    """``sycl::bit_or``: ``a | b`` on integers; identity 0 (§4.17.2)."""

    __slots__ = ()
    _integers_only = True

    def _apply(self, a: Any, b: Any) -> Any:
        return a | b

    def _expression(self) -> str:
        return "(a | b)"

    def _identity(self, dtype: np.dtype[Any]) -> Any:
        return dtype.type(0)


class bit_xor(combiner):
    """``sycl::bit_xor``: ``a ^ b`` on integers; identity 0 (§4.17.2)."""

    __slots__ = ()
    _integers_only = True

    def _apply(self, a: Any, b: Any) -> Any:
        return a ^ b

    def _expression(self) -> str:
        return "(a ^ b)"

    def _identity(self, dtype: np.dtype[Any]) -> Any:
        return dtype.type(0)


class logical_and(combiner):
    """``sycl::logical_and``: ``a && b`` (1 or 0) on integers; identity 1 (§4.17.2; the
    specification knows it for ``bool``, which kernels hold as integers: docs/deviations.md)."""

    __slots__ = ()
    _integers_only = True

    def _apply(self, a: Any, b: Any) -> Any:
        return type(a)(bool(a) and bool(b))

    def _expression(self) -> str:
        return "(a && b)"

    def _identity(self, dtype: np.dtype[Any]) -> Any:
        return dtype.type(1)


class logical_or(combiner):
    """``sycl::logical_or``: ``a || b`` (1 or 0) on integers; identity 0 (§4.17.2, as
    ``logical_and``)."""

    __slots__ = ()
    _integers_only = True

    def _apply(self, a: Any, b: Any) -> Any:
        return type(a)(bool(a) or bool(b))

    def _expression(self) -> str:
        return "(a || b)"

    def _identity(self, dtype: np.dtype[Any]) -> Any:
        return dtype.type(0)


class expression_combiner(combiner):
    """A user's combiner in OpenCL C: an expression in ``a`` and ``b`` (``"fmax(a, b)"``), or the
    name of a function of the kernel's unit taking two values (``"my_op"``). It has no known
    identity: the reduction may give one (§4.9.2)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text.strip()

    def _apply(self, a: Any, b: Any) -> Any:
        raise exception(errc.invalid, f"the combiner {self.text!r} is OpenCL C: it runs on devices only")

    def _expression(self) -> str:
        if self.text.isidentifier():
            return f"{self.text}(a, b)"
        return f"({self.text})"

    def _identity(self, dtype: np.dtype[Any]) -> Any:
        return None

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"<sycl reduction combiner {self.text!r}>"


def as_combiner(value: Any) -> combiner:
    """``value`` as a combiner: a SYCL function object, or a string of OpenCL C.

    Raises:
        sycl.exception: ``errc.invalid`` for anything else.
    """
    if isinstance(value, combiner):
        return value
    if isinstance(value, type) and issubclass(value, combiner) and value is not expression_combiner:
        return value()
    if isinstance(value, str) and value.strip():
        return expression_combiner(value)
    raise exception(
        errc.invalid,
        f"a reduction combines with a SYCL function object (sycl.plus(), sycl.maximum(), ...) or "
        f"an OpenCL C expression in a and b (\"fmax(a, b)\"), got {value!r}",
    )


def has_known_identity(combiner_: Any, dtype: Any) -> bool:
    """``sycl::has_known_identity_v<BinaryOperation, AccumulatorT>`` (§4.9.2.2)."""
    try:
        return known_identity(combiner_, dtype) is not None
    except exception:
        return False


def known_identity(combiner_: Any, dtype: Any) -> Any:
    """``sycl::known_identity_v<BinaryOperation, AccumulatorT>`` (§4.9.2.2): the identity of
    the combiner for the numpy element type, as a numpy scalar.

    Raises:
        sycl.exception: ``errc.invalid`` when the combiner has no known identity for the type
            (give an identity to ``sycl.reduction``) or cannot take the type.
    """
    op = as_combiner(combiner_)
    dt = np.dtype(dtype)
    check_takes(op, dt)
    found = op._identity(dt)
    if found is None:
        raise exception(
            errc.invalid,
            f"{op!r} has no known identity for {dt.name}; give one: sycl.reduction(var, identity, combiner)",
        )
    return dt.type(found)


def check_takes(op: combiner, dtype: np.dtype[Any]) -> None:
    """``errc.invalid`` unless reductions with ``op`` take elements of ``dtype``."""
    if not op._takes(dtype):
        kinds = "integer types" if op._integers_only else "numeric types"
        raise exception(
            errc.invalid,
            f"{op!r} cannot combine {dtype.name}: reductions with it take {kinds} of "
            f"{', '.join(n for n in C_TYPES if op._takes(np.dtype(n)))}",
        )


def c_literal(value: Any, dtype: np.dtype[Any]) -> str:
    """``value`` of ``dtype`` as an OpenCL C literal (exact: hexadecimal for floating point)."""
    v = dtype.type(value)
    if dtype.kind == "f":
        x = float(v)
        suffix = "f" if dtype.itemsize == 4 else ""
        cast = f"({C_TYPES[dtype.name]})"
        if math.isnan(x):
            return f"{cast}NAN"
        if math.isinf(x):
            return f"{cast}({'-' if x < 0 else ''}INFINITY)"
        return f"{x.hex()}{suffix}"
    x = int(v)
    if dtype.kind == "u":
        return f"{x}u" if dtype.itemsize == 4 else f"{x}ul"
    if dtype.itemsize == 4:
        return f"({x + 1}-1)" if x == np.iinfo(dtype).min else str(x)
    return f"({x + 1}l-1l)" if x == np.iinfo(dtype).min else f"{x}l"
