"""Public names of a package that load on first access (PEP 562), so that ``import sycl_ocl``
loads only the object model (docs/performance.md, "Import time")."""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any


class _Package(types.ModuleType):
    """A package whose public class keeps its name when the submodule of that name loads.

    The import system binds every submodule it loads on its package (``sycl_ocl.queue`` = the
    module); where the package exports a class of the same name from it, the class wins, as it
    does when ``__init__`` imports the class eagerly.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, types.ModuleType) and self.__dict__["_LAZY"].get(name) == f".{name}":
            value = getattr(value, name)
        super().__setattr__(name, value)


def load_on_first_access(
    package: str, lazy: Mapping[str, str], public: Sequence[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The package's ``__getattr__`` and ``__dir__`` for the names in ``lazy``.

    Args:
        package: the package's ``__name__``.
        lazy: public name -> the module that holds it, relative to the package; ``"."`` for a
            subpackage exported under its own name.
        public: the package's ``__all__``.
    """
    module = sys.modules[package]
    namespace = module.__dict__

    def __getattr__(name: str) -> Any:
        where = lazy.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        if where == ".":
            return importlib.import_module(f".{name}", package)  # the import binds it
        namespace[name] = value = getattr(importlib.import_module(where, package), name)
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *public})

    namespace["_LAZY"] = lazy
    module.__class__ = _Package
    return __getattr__, __dir__
