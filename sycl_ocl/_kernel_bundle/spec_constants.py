"""``sycl::specialization_id`` (SYCL 2020 §4.9.5), emulated with compile-time definitions.

OpenCL C programs have no specialization constants, so a constant named ``N`` is the
preprocessor symbol ``N``: its value is passed as ``-D N=value`` when an image that mentions
``N`` is compiled. Each distinct set of values is a distinct (cached) build.
"""

from __future__ import annotations

import math
import threading
import weakref
from typing import Any

import numpy as np

from .._exception import errc, exception

_C_TYPES = {
    "bool": "bool", "int8": "char", "uint8": "uchar", "int16": "short", "uint16": "ushort",
    "int32": "int", "uint32": "uint", "int64": "long", "uint64": "ulong",
    "float16": "half", "float32": "float", "float64": "double",
}
_lock = threading.Lock()
_live: weakref.WeakValueDictionary[str, specialization_id] = weakref.WeakValueDictionary()


class specialization_id:
    """A specialization constant: its name in OpenCL C, its type and default (§4.9.5).

    Args:
        name: the identifier the OpenCL C source uses for the constant.
        dtype: a numpy scalar type (bool, integers, float16/32/64).
        default: the value kernels see when none was set.

    Two ``specialization_id`` objects are distinct even with one name (identity semantics,
    like the C++ class, which is neither copyable nor movable).

    Raises:
        sycl.exception: ``errc.invalid`` for a type that is no OpenCL C scalar type or a
            default it cannot hold.

    Example::

        coeff = sycl.specialization_id("COEFF", numpy.float32, 1.0)   # COEFF in the OpenCL C source
        q.submit(lambda h: (h.set_specialization_constant(coeff, 2.5),
                            h.parallel_for(n, "scale_by_coeff", sycl.accessor(buf, h))))
    """

    __slots__ = ("__weakref__", "default", "dtype", "name")

    def __init__(self, name: str, dtype: Any, default: Any = 0) -> None:
        if not isinstance(name, str) or not name.isidentifier():
            raise exception(errc.invalid, f"a specialization_id name must be a C identifier, got {name!r}")
        self.name = name
        try:
            self.dtype = np.dtype(dtype)
        except TypeError:
            self.dtype = np.dtype(object)  # no numpy type: refused below, naming the type given
        if self.dtype.name not in _C_TYPES:
            raise exception(
                errc.invalid,
                f"specialization_id {name!r}: type {dtype!r} is not an OpenCL C scalar type; "
                f"use one of {sorted(_C_TYPES)}",
            )
        self.default = self.convert(default)
        with _lock:
            _live[name] = self

    def convert(self, value: Any) -> Any:
        """``value`` as this constant's numpy type (a sycl_ocl extension).

        Raises:
            sycl.exception: ``errc.invalid`` if the value does not fit the type.
        """
        try:
            if self.dtype.kind in "iu" and not _in_range(value, np.iinfo(self.dtype)):
                raise OverflowError  # numpy 1.x wraps around (warning) where 2.x raises
            converted = self.dtype.type(value)
        except (TypeError, ValueError, OverflowError) as error:
            raise exception(
                errc.invalid, f"specialization constant {self.name!r} ({self.dtype}) cannot hold {value!r}"
            ) from error
        if self.dtype.kind in "iub" and converted != value:
            raise exception(
                errc.invalid, f"specialization constant {self.name!r} ({self.dtype}) cannot hold {value!r}"
            )
        return converted

    def define(self, value: Any) -> str:
        """The ``-D`` option that gives the constant ``value`` in OpenCL C (a sycl_ocl extension:
        how specialization constants reach OpenCL C, docs/kernels.md)."""
        return f"-D{self.name}={c_literal(self.dtype, value)}"

    def __repr__(self) -> str:
        return f"<sycl.specialization_id {self.name!r} {self.dtype} default={self.default!r}>"


def checked_spec_id(spec: Any, call: str) -> specialization_id:
    """``spec``, checked to be a ``specialization_id`` (``call``, in the error).

    Raises:
        sycl.exception: ``errc.invalid`` for anything else (a name, say).
    """
    if not isinstance(spec, specialization_id):
        raise exception(errc.invalid, f"{call} takes a sycl.specialization_id, got {spec!r}")
    return spec


def _in_range(value: Any, limits: np.iinfo) -> bool:
    return bool(limits.min <= value <= limits.max)


def c_literal(dtype: np.dtype, value: Any) -> str:
    """An OpenCL C expression of type ``dtype`` with exactly ``value`` (floats in hex)."""
    ctype = _C_TYPES[dtype.name]
    if dtype.kind == "b":
        return f"(({ctype}){int(bool(value))})"
    if dtype.kind in "iu":
        return f"(({ctype}){int(value)}{'UL' if dtype.kind == 'u' else 'L'})"
    number = float(value)
    if math.isnan(number):
        return f"(({ctype})NAN)"
    if math.isinf(number):
        return f"(({ctype})({'-' if number < 0 else ''}INFINITY))"
    return f"(({ctype}){number.hex()})"


def live_constants(names: frozenset[str]) -> list[specialization_id]:
    """The live specialization ids whose names occur in ``names`` (an image's identifiers)."""
    with _lock:
        return [spec for name, spec in _live.items() if name in names]
