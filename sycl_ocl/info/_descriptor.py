"""Information descriptors: ``get_info(sycl.info.X.name)`` (SYCL 2020 §4.6)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..exception import errc, exception


class descriptor:
    """One ``info::<namespace>::<name>`` descriptor.

    Args:
        namespace: the ``info`` namespace it belongs to ("device", "platform", ...).
        name: the spec name.
        return_type: the Python type ``get_info`` returns; ``list[T]`` for the spec's
            ``std::vector<T>``.
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

    def __repr__(self) -> str:
        return f"sycl.info.{self.namespace}.{self.name}"


def check_namespace(desc: object, namespace: str, owner: str) -> descriptor:
    """Return ``desc`` if it is a descriptor of ``namespace``, else raise ``errc.invalid``."""
    if isinstance(desc, descriptor) and desc.namespace == namespace:
        return desc
    raise exception(
        errc.invalid,
        f"{owner}.get_info() takes a sycl.info.{namespace}.* descriptor, got {desc!r}",
    )


def descriptors_of(module_globals: dict[str, Any]) -> list[descriptor]:
    """Every descriptor defined in an ``info`` module, for completeness checks."""
    return [v for v in module_globals.values() if isinstance(v, descriptor)]


def cached_query(cache: dict[str, Any], desc: descriptor, obj: Any) -> Any:
    """``desc``'s value for ``obj``, computed once; lists come back as copies the caller may change."""
    try:
        value = cache[desc.name]
    except KeyError:
        value = cache[desc.name] = desc.query(obj)
    return list(value) if isinstance(value, list) else value
