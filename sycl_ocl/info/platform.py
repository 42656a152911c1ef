"""``sycl::info::platform`` descriptors (SYCL 2020 §4.6.2.2, Table 18)."""

from __future__ import annotations

from ._descriptor import descriptor


def _text(attr: str) -> descriptor:
    return descriptor("platform", attr, str, lambda p: getattr(p._native, attr).strip())


version = _text("version")
name = _text("name")
vendor = _text("vendor")
extensions = descriptor("platform", "extensions", list[str], lambda p: p._native.extensions.split())
