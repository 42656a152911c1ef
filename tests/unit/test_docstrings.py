"""Every public name of sycl_ocl says what it does and where it comes from: a docstring naming
a section of the specification (``§4.6.5``), SYCL, or ``sycl_ocl extension`` for what the
specification does not have.

Public: the names in ``__all__`` of ``sycl_ocl`` and ``sycl_ocl.tools``, the functions of
``sycl_ocl.library``, and
the public methods and properties of those classes (inherited ones included, where sycl_ocl
defines them). Data attributes and enum members are left out; enums are checked as classes.
"""

from __future__ import annotations

import enum
import inspect
import re
import types
from collections.abc import Iterator
from typing import Any

import sycl_ocl
import sycl_ocl.library
import sycl_ocl.tools

SOURCE = re.compile(r"§|\bSYCL\b|sycl_ocl\s+extension")
MODULES = (sycl_ocl, sycl_ocl.library, sycl_ocl.tools)


def _members(cls: type) -> Iterator[tuple[str, Any]]:
    """The public methods and properties of ``cls`` that sycl_ocl defines."""
    for name in dir(cls):
        if name.startswith("_"):
            continue
        owner = next((k for k in cls.__mro__ if name in vars(k)), None)
        if owner is None or not owner.__module__.startswith("sycl_ocl"):
            continue
        raw = inspect.getattr_static(cls, name)
        if isinstance(raw, staticmethod | classmethod):
            raw = raw.__func__
        if isinstance(raw, property) or inspect.isfunction(raw) or hasattr(raw, "__func__"):
            yield name, raw


def _functions(module: types.ModuleType) -> list[str]:
    return [name for name, obj in vars(module).items()
            if not name.startswith("_") and inspect.isfunction(obj) and obj.__module__ == module.__name__]


def public_names() -> Iterator[tuple[str, Any]]:
    """(qualified name, object) of every public function, class, method and property."""
    for module in MODULES:
        for name in getattr(module, "__all__", None) or _functions(module):
            obj = getattr(module, name)
            # A type alias (``async_handler = Callable[...]``) is data; Python 3.10's
            # inspect.isclass takes a types.GenericAlias for a class.
            if isinstance(obj, types.ModuleType | types.GenericAlias) or not (
                    inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            qual = f"{module.__name__}.{name}"
            yield qual, obj
            if inspect.isclass(obj) and not issubclass(obj, enum.Enum):
                for member, raw in _members(obj):
                    yield f"{qual}.{member}", raw


def _doc(obj: Any) -> str:
    return (obj.__doc__ if isinstance(obj, property) else inspect.getdoc(obj)) or ""


def test_every_public_name_has_a_docstring_naming_its_source() -> None:
    names = list(public_names())
    assert len(names) > 200, "the walk found too few names: is it still walking?"
    undocumented = [qual for qual, obj in names if not _doc(obj).strip()]
    assert not undocumented, f"public names without a docstring: {undocumented}"
    unsourced = [qual for qual, obj in names if not SOURCE.search(_doc(obj))]
    assert not unsourced, (
        "docstrings that name no spec section (§x.y), SYCL, nor 'sycl_ocl extension': "
        + ", ".join(unsourced))
