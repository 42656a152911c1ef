"""Public names of a package that load on first access (PEP 562), so that ``import sycl_ocl``
loads only the object model (docs/performance.md, "Import time")."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any


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
    namespace = sys.modules[package].__dict__

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

    return __getattr__, __dir__
