"""The property interface (SYCL 2020 §4.5.4): ``property_list``, ``has_property``, ``get_property``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, ClassVar, TypeVar

from .._exception import errc, exception

P = TypeVar("P", bound="Property")


class Property:
    """Base of every SYCL property class.

    ``applies_to`` names the SYCL classes (by spec name) whose constructors accept it.
    """

    __slots__ = ()
    applies_to: ClassVar[frozenset[str]] = frozenset()

    def __repr__(self) -> str:
        return f"sycl.{type(self).__module__.split('.', 1)[-1]}.{type(self).__name__}()"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)

    def __hash__(self) -> int:
        return hash(type(self))


def is_property(cls: Any) -> bool:
    """``is_property_v`` (§4.5.4.1)."""
    return isinstance(cls, type) and issubclass(cls, Property) and cls is not Property


def is_property_of(prop_cls: Any, sycl_cls: type | str) -> bool:
    """``is_property_of_v`` (§4.5.4.1)."""
    name = sycl_cls if isinstance(sycl_cls, str) else sycl_cls.__name__
    return is_property(prop_cls) and name in prop_cls.applies_to


class property_list:
    """An unordered set of properties, at most one of each class (§4.5.4.2):
    ``sycl.property_list(p1, p2)``, or ``sycl.property_list([p1, p2])`` as C++'s
    ``property_list{p1, p2}`` reads.

    Raises:
        sycl.exception: ``errc.invalid`` for anything but property instances.
    """

    __slots__ = ("_props",)

    def __init__(self, *props: Property | list[Property] | tuple[Property, ...]) -> None:
        self._props: dict[type[Property], Property] = {}
        if len(props) == 1 and isinstance(props[0], list | tuple):
            props = tuple(props[0])
        for prop in props:
            if not isinstance(prop, Property):
                raise exception(
                    errc.invalid,
                    f"property_list takes property instances such as "
                    f"sycl.property.queue.in_order(), got {prop!r}",
                )
            self._props[type(prop)] = prop

    def __iter__(self) -> Iterator[Property]:
        return iter(self._props.values())

    def __len__(self) -> int:
        return len(self._props)

    def has_property(self, cls: type[Property]) -> bool:
        """Whether a property of this class is in the list; never raises (§4.5.4.1)."""
        try:
            return cls in self._props
        except TypeError:  # an unhashable argument is no property class
            return False

    def get_property(self, cls: type[P]) -> P:
        """The property of this class (§4.5.4.1).

        Raises:
            sycl.exception: ``errc.invalid`` if the list has none (check ``has_property`` first).
        """
        try:
            return self._props[cls]  # type: ignore[return-value]
        except (KeyError, TypeError):
            raise exception(
                errc.invalid,
                f"the object was not constructed with {getattr(cls, '__name__', cls)}; "
                "check has_property() first",
            ) from None

    def __repr__(self) -> str:
        return f"sycl.property_list({', '.join(map(repr, self))})"


def is_property_list_like(value: Any) -> bool:
    """Whether ``value`` is a property, a ``property_list`` or a non-empty list or tuple of
    properties: what C++ passes as ``propList``, accepted positionally where C++ takes it."""
    return isinstance(value, (Property, property_list)) or (
        isinstance(value, (list, tuple)) and bool(value) and all(isinstance(p, Property) for p in value))


def trailing_property_list(args: tuple[Any, ...], prop_list: Any, call: str) -> tuple[tuple[Any, ...], Any]:
    """``args`` (optional positional arguments) and ``prop_list``, with a property list given
    in the first of ``args`` that holds one (the C++ order, where the property list follows
    the optional arguments given) moved to ``prop_list``; ``call`` names the call in errors.

    Raises:
        sycl.exception: ``errc.invalid`` for a property list given twice, or followed by more
            positional arguments.
    """
    for i, arg in enumerate(args):
        if is_property_list_like(arg):
            rest = args[i + 1:]
            if prop_list is not None or any(a is not None for a in rest):
                raise exception(
                    errc.invalid,
                    f"{call}: a property list comes last and once; pass it as prop_list=[...]",
                )
            return (*args[:i], *(None,) * (len(args) - i)), arg
    return args, prop_list


def make_property_list(
    prop_list: property_list | Iterable[Property] | Property | None, owner: str
) -> property_list:
    """Accept ``prop_list=`` in any documented form; reject properties ``owner`` does not take."""
    if prop_list is None:
        props = property_list()
    elif isinstance(prop_list, property_list):
        props = prop_list
    elif isinstance(prop_list, Property):
        props = property_list(prop_list)
    elif isinstance(prop_list, Iterable):
        props = property_list(*prop_list)
    else:
        raise exception(
            errc.invalid,
            f"prop_list takes a sycl.property_list or a list of properties, got {prop_list!r}",
        )
    for prop in props:
        if owner not in prop.applies_to:
            raise exception(
                errc.invalid,
                f"{prop!r} is not a property of sycl.{owner}; it applies to "
                f"{', '.join(sorted(prop.applies_to))}",
            )
    return props


class PropertyHolder:
    """Mixin giving ``has_property`` / ``get_property`` over ``self._props`` (§4.5.4.1)."""

    __slots__ = ()
    _props: property_list

    def has_property(self, cls: type[Property]) -> bool:
        """Whether the object was constructed with a property of this class (§4.5.4.1)."""
        return self._props.has_property(cls)

    def get_property(self, cls: type[P]) -> P:
        """The property of this class; ``errc.invalid`` if absent (§4.5.4.1)."""
        return self._props.get_property(cls)
