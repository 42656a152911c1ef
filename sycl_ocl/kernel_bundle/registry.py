"""The application's kernels: registered OpenCL C translation units (SYCL 2020 §4.11.1, §4.11.6).

Each registered unit is one device image. Its kernels, their parameters and required
work-group sizes are read from the source at registration, before any compile.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..aspect import aspect
from ..exception import errc, exception
from ._preprocess import definitions_from_options, strip_comments
from ._signature import KernelDecl, parse_kernels
from .kernel_id import kernel_id

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")

# Optional features an image uses without declaring them (§5.7): the aspect it then needs.
# A type counts when it declares something (followed by a name, '*' or a cast's ')').
_IMPLICIT_ASPECTS = (
    (re.compile(r"\bdouble(?:2|3|4|8|16)?\s*[A-Za-z_*)]|\bcl_khr_fp64\b"), aspect.fp64),
    (re.compile(r"\bhalf(?:2|3|4|8|16)?\s*[A-Za-z_*)]|\bcl_khr_fp16\b"), aspect.fp16),
    (re.compile(r"\bcl_khr_int64_(?:base|extended)_atomics\b"), aspect.atomic64),
)


@dataclass(eq=False)
class ImageSource:
    """One registered translation unit: the source of one application device image."""

    source: str
    options: tuple[str, ...]
    device_has: frozenset[aspect]
    kernels: dict[str, KernelDecl]
    identifiers: frozenset[str]
    origin: str
    digest: str = field(init=False)
    ids: tuple[kernel_id, ...] = ()

    def __post_init__(self) -> None:
        self.digest = hashlib.sha256(
            "\0".join((self.source, *self.options)).encode()
        ).hexdigest()

    def uses(self, identifier: str) -> bool:
        """Whether the source mentions ``identifier`` (a specialization constant's name)."""
        return identifier in self.identifiers


_lock = threading.Lock()
_images: list[ImageSource] = []
_ids: dict[str, kernel_id] = {}


def register_kernel_source(
    source: str,
    *,
    options: Iterable[str] = (),
    device_has: Iterable[aspect] = (),
    origin: str = "<source>",
) -> list[kernel_id]:
    """Register an OpenCL C translation unit as one application device image (§4.11.1).

    Args:
        source: the OpenCL C text; its ``__kernel`` functions become application kernels.
        options: compiler options used whenever the unit is compiled (``-D``, ``-cl-...``).
        device_has: aspects every kernel of the unit needs, like ``[[sycl::device_has]]``;
            using ``double``/``half``/64-bit atomics adds fp64/fp16/atomic64 implicitly.
        origin: where the source came from, for messages.

    Returns:
        The ids of the unit's kernels, in source order.

    Raises:
        sycl.exception: ``errc.invalid`` if a kernel name is already registered, the unit
            defines no kernel, or an aspect is not a ``sycl.aspect``.
    """
    opts = tuple(str(o) for o in options)
    aspects = _aspects(device_has)
    decls = parse_kernels(source, definitions_from_options(opts))
    if not decls:
        raise exception(
            errc.invalid,
            f"{origin} defines no __kernel function; register units that define kernels",
        )
    text = strip_comments(source)
    identifiers = frozenset(_IDENTIFIER.findall(text))
    implicit = {a for pattern, a in _IMPLICIT_ASPECTS if pattern.search(text)}
    image = ImageSource(
        source, opts, aspects | implicit, {d.name: d for d in decls}, identifiers, origin
    )
    with _lock:
        clashes = [d.name for d in decls if d.name in _ids] + _duplicates(decls)
        if clashes:
            raise exception(
                errc.invalid,
                f"kernel name(s) {sorted(set(clashes))} from {origin} are already registered; "
                "every application kernel needs a unique name",
            )
        image.ids = tuple(kernel_id._make(d.name, image) for d in decls)
        _images.append(image)
        _ids.update((k.get_name(), k) for k in image.ids)
    return list(image.ids)


def register_kernel_file(
    path: str | Path, *, options: Iterable[str] = (), device_has: Iterable[aspect] = ()
) -> list[kernel_id]:
    """Register the OpenCL C file at ``path`` (see :func:`register_kernel_source`, §4.11.1).

    Raises:
        sycl.exception: ``errc.invalid`` if the file cannot be read.
    """
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise exception(errc.invalid, f"cannot read kernel file {path}: {error}") from error
    return register_kernel_source(text, options=options, device_has=device_has, origin=str(path))


def _aspects(device_has: Iterable[aspect]) -> frozenset[aspect]:
    values = list(device_has)
    bad = [a for a in values if not isinstance(a, aspect)]
    if bad:
        raise exception(errc.invalid, f"device_has takes sycl.aspect members, got {bad!r}")
    return frozenset(values)


def _duplicates(decls: list[KernelDecl]) -> list[str]:
    names = [d.name for d in decls]
    return [n for n in names if names.count(n) > 1]


def lookup(name: str) -> kernel_id:
    """The id of the registered kernel ``name``; ``errc.invalid`` if there is none."""
    try:
        return _ids[name]
    except KeyError:
        raise exception(
            errc.invalid,
            f"no application kernel is named {name!r}; register its OpenCL C source with "
            "sycl.register_kernel_source / register_kernel_file first",
        ) from None


def all_images() -> list[ImageSource]:
    """Every registered unit, in registration order."""
    with _lock:
        return list(_images)


def all_ids() -> list[kernel_id]:
    """Every application kernel id, in registration order."""
    with _lock:
        return [k for image in _images for k in image.ids]
