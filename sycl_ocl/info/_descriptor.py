"""Information descriptors: ``get_info(sycl.info.X.name)`` (SYCL 2020 §4.6)."""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterator
from typing import Any

from .._exception import errc, exception


class descriptor:
    """One ``info::<namespace>::<name>`` descriptor.

    Args:
        namespace: the ``info`` namespace it belongs to ("device", "platform", ...).
        name: the spec name.
        return_type: the Python type ``get_info`` returns; ``list[T]`` for the spec's
            ``std::vector<T>``; a class name as a string where importing it would be circular.
            :meth:`accepts` checks a value against it.
        query: computes the value from the SYCL object (and the device, for
            ``kernel_device_specific``).
    """

    __slots__ = ("name", "namespace", "query", "return_type")

    def __init__(
        self, namespace: str, name: str, return_type: Any, query: Callable[..., Any]
    ) -> None:
        self.namespace = namespace
        self.name = name
        self.return_type = return_type
        self.query = query

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` has this descriptor's return type (list elements included)."""
        return _has_type(value, self.return_type)

    def __repr__(self) -> str:
        return f"sycl.info.{self.namespace}.{self.name}"


def _has_type(value: Any, expected: Any) -> bool:
    if typing.get_origin(expected) is list:
        (element,) = typing.get_args(expected)
        return isinstance(value, list) and all(_has_type(v, element) for v in value)
    if isinstance(expected, typing.ForwardRef):
        expected = expected.__forward_arg__
    if isinstance(expected, str):
        return type(value).__name__ == expected
    if expected is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, expected)


class sized_descriptor:
    """A descriptor with a dimension template argument, ``X<N>``, written ``X[N]`` (N = 1, 2, 3).

    Args:
        namespace: the ``info`` namespace.
        name: the spec name without ``<N>``.
        return_type: the type of every ``X[N]``.
        make_query: builds the query of ``X[N]`` from ``N``.
    """

    __slots__ = ("_by_dims", "name", "namespace")

    def __init__(
        self, namespace: str, name: str, return_type: Any, make_query: Callable[[int], Callable[..., Any]]
    ) -> None:
        self.namespace = namespace
        self.name = name
        self._by_dims = {
            n: descriptor(namespace, f"{name}<{n}>", return_type, make_query(n)) for n in (1, 2, 3)
        }

    def __getitem__(self, dims: int) -> descriptor:
        try:
            return self._by_dims[dims]
        except (KeyError, TypeError):
            raise exception(
                errc.invalid, f"sycl.info.{self.namespace}.{self.name}[N] takes N = 1, 2 or 3, got {dims!r}"
            ) from None

    def __iter__(self) -> Iterator[descriptor]:
        return iter(self._by_dims.values())

    def __repr__(self) -> str:
        return f"sycl.info.{self.namespace}.{self.name}[N]"


def check_namespace(desc: object, namespace: str, owner: str) -> descriptor:
    """Return ``desc`` if it is a descriptor of ``namespace``, else raise ``errc.invalid``."""
    if isinstance(desc, descriptor) and desc.namespace == namespace:
        return desc
    raise exception(
        errc.invalid,
        f"{owner}.get_info() takes a sycl.info.{namespace}.* descriptor, got {desc!r}",
    )


def descriptors_of(module_globals: dict[str, Any]) -> list[descriptor]:
    """Every descriptor defined in an ``info`` module (each ``X[N]`` too), for completeness checks."""
    found: list[descriptor] = []
    for value in module_globals.values():
        if isinstance(value, descriptor):
            found.append(value)
        elif isinstance(value, sized_descriptor):
            found.extend(value)
    return found


def cached_query(cache: dict[str, Any], desc: descriptor, obj: Any) -> Any:
    """``desc``'s value for ``obj``, computed once; lists come back as copies the caller may change."""
    try:
        value = cache[desc.name]
    except KeyError:
        value = cache[desc.name] = desc.query(obj)
    return list(value) if isinstance(value, list) else value
