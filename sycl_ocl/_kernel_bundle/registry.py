"""Registered OpenCL C translation units (SYCL 2020 §4.11.1, §4.11.6).

A unit that defines ``__kernel`` functions is one device image of application kernels. A unit
that defines none is a *library unit*: it is never an image of its own, but is compiled and
linked (``clCompileProgram`` + ``clLinkProgram``) into every image whose unit calls one of its
functions (the role of ``SYCL_EXTERNAL`` functions and of DPC++'s device libraries). The rule,
read from the preprocessed source: a unit *needs* every function it calls or declares without
defining it; a library unit *exports* every function it defines at file scope that is not
``static``; a unit is linked with the library units exporting what it needs, and with theirs in
turn.

Registering the same text with the same options and aspects again returns the same ids (so a
notebook cell can run twice); another unit that reuses a kernel name, or a library function
name, is ``errc.invalid``. Kernels, parameters and required work-group sizes are read at
registration, before any compile.

``APPLICATION`` holds the application's units; the kernel library shipped with sycl_ocl has a
registry of its own (``sycl_ocl.library``), so it takes no names from the application.
"""

from __future__ import annotations

import difflib
import hashlib
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._aspect import aspect
from .._exception import errc, exception
from ._kernel_id import kernel_id
from ._preprocess import definitions_from_options, strip_comments
from ._reducers import with_prelude
from ._signature import KernelDecl, parse_unit
from ._spirv import declared_kernels, read_module

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
    """One translation unit: the source of one device image, or a library unit (no kernels).
    A unit registered as a SPIR-V module holds it in ``il`` (and no source)."""

    source: str
    options: tuple[str, ...]
    device_has: frozenset[aspect]
    kernels: dict[str, KernelDecl]
    identifiers: frozenset[str]
    origin: str
    exports: frozenset[str] = frozenset()
    needs: frozenset[str] = frozenset()
    registry: Registry | None = None
    digest: str = field(init=False)
    ids: tuple[kernel_id, ...] = ()
    il: bytes = b""

    def __post_init__(self) -> None:
        # A module's kernels are part of what was registered: their declared parameter types.
        declared = repr(sorted(self.kernels.items())).encode() if self.il else b""
        self.digest = hashlib.sha256(
            "\0".join((self.source, *self.options)).encode() + self.il + declared
        ).hexdigest()

    def uses(self, identifier: str) -> bool:
        """Whether the source mentions ``identifier`` (a specialization constant's name)."""
        return identifier in self.identifiers

    def libraries(self) -> tuple[ImageSource, ...]:
        """The library units this unit is linked with (see the module's rule)."""
        return (self.registry or APPLICATION).libraries_for(self)


def read_unit(
    source: str, options: tuple[str, ...], device_has: frozenset[aspect], origin: str | None
) -> ImageSource:
    """Parse ``source`` (preprocessed with ``options``' ``-D`` definitions) into a unit; without
    ``origin``, messages name it by what it defines. A unit whose kernels take reducers gets
    their plain definitions ahead of its text (``_reducers.PRELUDE``)."""
    source = with_prelude(source)
    signature = parse_unit(source, definitions_from_options(options))
    names = [d.name for d in signature.kernels]
    origin = origin or _unit_name(names, sorted(signature.exports))
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise exception(errc.invalid, f"{origin} defines kernel(s) {twice} more than once")
    text = strip_comments(source)
    implicit = {a for pattern, a in _IMPLICIT_ASPECTS if pattern.search(text)}
    return ImageSource(
        source, options, device_has | implicit, {d.name: d for d in signature.kernels},
        frozenset(_IDENTIFIER.findall(text)), origin, signature.exports, signature.needs,
    )


def _unit_name(kernels: list[str], functions: list[str]) -> str:
    """A unit in messages, by its kernels, else by its library functions."""
    names = list(dict.fromkeys(kernels)) or functions
    if not names:
        return "the unit"
    listed = ", ".join(map(repr, names[:3])) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    kind = "kernel" if kernels else "library function"
    return f"the unit of {kind}{'s' if len(names) > 1 else ''} {listed}"


class Registry:
    """A set of registered units, their kernel ids and the functions their library units export."""

    def __init__(self, what: str, hint: str) -> None:
        self.what = what  # for messages: "application", "sycl_ocl kernel library"
        self._hint = hint  # how to find a kernel that is not there
        self._lock = threading.Lock()
        self._units: list[ImageSource] = []
        self._known: dict[tuple[str, frozenset[aspect]], ImageSource] = {}
        self._ids: dict[str, kernel_id] = {}
        self._exports: dict[str, ImageSource] = {}  # function name -> the library unit defining it

    def register(
        self, source: str, options: Iterable[str], device_has: Iterable[aspect], origin: str | None
    ) -> list[kernel_id]:
        """Add a unit; see :func:`register_kernel_source`."""
        if not isinstance(source, str):
            raise exception(errc.invalid, f"a kernel source is OpenCL C text (a str), got {source!r}")
        unit = read_unit(source, tuple(str(o) for o in options), _aspects(device_has), origin)
        if not unit.kernels and not unit.exports:
            raise exception(
                errc.invalid,
                f"{unit.origin} defines no __kernel function and no function to link (a static "
                "function is private to its unit); register units that define kernels or functions",
            )
        return self.add(unit)

    def add(self, unit: ImageSource) -> list[kernel_id]:
        """Add a read unit; the ids of its kernels (those it got before if it is known)."""
        unit.registry = self
        with self._lock:
            known = self._known.get((unit.digest, unit.device_has))
            if known is not None:
                return list(known.ids)  # the same unit again (a notebook cell run twice)
            self._check_names(unit)
            unit.ids = tuple(kernel_id._make(name, unit) for name in unit.kernels)
            self._units.append(unit)
            self._known[(unit.digest, unit.device_has)] = unit
            self._ids.update((k.get_name(), k) for k in unit.ids)
            if not unit.kernels:
                self._exports.update(dict.fromkeys(unit.exports, unit))
        return list(unit.ids)

    def _check_names(self, unit: ImageSource) -> None:
        """``errc.invalid`` if another unit already took one of the unit's kernel names (or, for
        a library unit, one of its function names)."""
        names = list(unit.kernels) if unit.kernels else sorted(unit.exports)
        taken = self._ids if unit.kernels else self._exports
        clashes = sorted(n for n in names if n in taken)
        if clashes:
            what = "kernel name(s)" if unit.kernels else "library function(s)"
            raise exception(
                errc.invalid,
                f"{what} {clashes} from {unit.origin} are already registered by another unit of "
                f"the {self.what}; every kernel and library function needs a unique name",
            )

    def lookup(self, name: str) -> kernel_id:
        """The id of the registered kernel ``name``; ``errc.invalid`` if there is none."""
        try:
            return self._ids[name]
        except KeyError:
            with self._lock:
                names = list(self._ids)
            close = difflib.get_close_matches(name, names, n=1)
            guess = f"did you mean {close[0]!r}? " if close else ""
            raise exception(
                errc.invalid,
                f"no kernel of the {self.what} is named {name!r}; {guess}{self._hint}",
            ) from None

    def kernel_units(self) -> list[ImageSource]:
        """Every unit that defines kernels (one device image each), in registration order."""
        with self._lock:
            return [unit for unit in self._units if unit.kernels]

    def ids(self) -> list[kernel_id]:
        """Every kernel id, in registration order."""
        with self._lock:
            return [k for unit in self._units for k in unit.ids]

    def libraries_for(self, unit: ImageSource) -> tuple[ImageSource, ...]:
        """The library units that export what ``unit`` needs, and what they need in turn."""
        if not self._exports:  # no library unit: the common case, on the launch path
            return ()
        with self._lock:
            exports = dict(self._exports)
        found: list[ImageSource] = []
        pending = [unit]
        while pending:
            for name in sorted(pending.pop().needs):
                library = exports.get(name)
                if library is not None and library is not unit and library not in found:
                    found.append(library)
                    pending.append(library)
        return tuple(found)


APPLICATION = Registry(
    "application",
    "register its OpenCL C source with sycl.register_kernel_source / register_kernel_file first "
    "(the kernels shipped with sycl_ocl are sycl_ocl.library.get_kernel_id(name))",
)

# What a kernel may be given as, for the messages of :func:`not_a_kernel`.
NAME = "a registered kernel's name (str)"
NAME_OR_ID = f"{NAME} or a sycl.kernel_id"
LAUNCHABLE = f"{NAME}, a sycl.kernel_id or a sycl.kernel"


def as_kernel_id(spec: Any, accepted: str = NAME_OR_ID) -> kernel_id:
    """``spec`` itself if it is a ``kernel_id``, else the id of the application kernel it names.

    Raises:
        sycl.exception: ``errc.invalid`` for an unknown name or anything else (``accepted``
            says what the caller takes, for the message).
    """
    if isinstance(spec, kernel_id):
        return spec
    if isinstance(spec, str):
        return APPLICATION.lookup(spec)
    raise not_a_kernel(spec, accepted)


def not_a_kernel(spec: Any, accepted: str) -> exception:
    """The ``errc.invalid`` for a kernel given as ``spec``, which is none of ``accepted``."""
    return exception(
        errc.invalid, f"a kernel is given as {accepted}, got {spec!r} of type {type(spec).__name__}"
    )


def register_kernel_source(
    source: str,
    *,
    options: Iterable[str] = (),
    device_has: Iterable[aspect] = (),
    origin: str | None = None,
) -> list[kernel_id]:
    """Register an OpenCL C translation unit of the application (§4.11.1).

    A unit that defines ``__kernel`` functions is one device image of application kernels. A
    unit that defines only functions is a library unit: it is linked into every image whose
    unit calls one of its (not ``static``) functions, in ``get_kernel_bundle``, ``link``,
    ``build`` and at launch. Declare such a function in the calling unit before using it::

        sycl.register_kernel_source("float scale(float x) { return 2 * x; }")
        sycl.register_kernel_source(
            "float scale(float x);"
            "__kernel void twice(__global float *a) { a[get_global_id(0)] = scale(a[get_global_id(0)]); }"
        )

    Args:
        source: the OpenCL C text.
        options: compiler options used whenever the unit is compiled (``-D``, ``-cl-...``).
        device_has: aspects every kernel of the unit needs, like ``[[sycl::device_has]]``;
            using ``double``/``half``/64-bit atomics adds fp64/fp16/atomic64 implicitly.
        origin: where the source came from, for messages (build errors name the unit by it);
            by default the unit is named by its kernels ("the unit of kernel 'scale'").

    Returns:
        The ids of the unit's kernels, in source order (none for a library unit). Registering
        the same text with the same options and aspects again returns the same ids.

    Raises:
        sycl.exception: ``errc.invalid`` if another unit already registered one of the unit's
            kernel names (or library function names), the unit defines neither a kernel nor a
            function, or an aspect is not a ``sycl.aspect``.
    """
    return APPLICATION.register(source, options, device_has, origin)


def register_kernel_file(
    path: str | Path, *, options: Iterable[str] = (), device_has: Iterable[aspect] = ()
) -> list[kernel_id]:
    """Register the OpenCL C file at ``path`` (see :func:`register_kernel_source`, §4.11.1).

    ``options`` and ``device_has`` are those of ``register_kernel_source``; messages name the file.
    The file's own folder is not searched for its ``#include "..."`` files (the compiler
    reads the text, not the file): pass ``options=[f"-I{folder}"]``.

    Returns:
        The ids of the file's kernels, in source order.

    Raises:
        sycl.exception: ``errc.invalid`` if the file cannot be read, and as
            ``register_kernel_source``.
    """
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise exception(errc.invalid, f"cannot read kernel file {path}: {error}") from error
    return register_kernel_source(text, options=options, device_has=device_has, origin=str(path))


def register_kernel_il(
    il_bytes: bytes | bytearray | memoryview,
    arg_types: Mapping[str, str | Sequence[str]] | None = None,
    options: Iterable[str] = (),
    *,
    device_has: Iterable[aspect] = (),
    origin: str | None = None,
) -> list[kernel_id]:
    """Register the kernels of a SPIR-V module, like :func:`register_kernel_source` (§4.11.1).

    The kernels (the module's entry points of the Kernel execution model) get ids, join
    bundles and launch by name like those of OpenCL C source. Their programs are created with
    ``clCreateProgramWithIL``, on devices that accept SPIR-V (``CL_DEVICE_IL_VERSION`` names
    SPIR-V, or ``cl_khr_il_program``); on any other device the kernels are incompatible
    (§4.11.9): bundles leave them out and a launch there raises ``errc.kernel_not_supported``.

    A driver gives no argument info for IL, so the parameters come from the module's types,
    where integers have no sign (``i32``): a Python ``int`` converts only for an integer
    parameter declared in ``arg_types``; numpy scalars always work::

        sycl.register_kernel_il(Path("axpy.spv").read_bytes(), arg_types={
            "axpy": ["global float *y", "global const float *x", "float a", "uint n"]})

    Args:
        il_bytes: the SPIR-V module (``bytes``, ``bytearray`` or ``memoryview``).
        arg_types: for any of the module's kernels, its parameters as OpenCL C declarations
            (a list of them, or one comma-separated string); checked against the module's
            count, address spaces and sizes.
        options: compiler options used whenever the module is built (``-cl-...``).
        device_has: aspects every kernel of the module needs, like ``[[sycl::device_has]]``.
        origin: where the module came from, for messages (default: "the SPIR-V module of
            kernel(s) ...").

    Returns:
        The ids of the module's kernels, in the module's order. Registering the same module
        with the same ``arg_types``, options and aspects again returns the same ids.

    Raises:
        sycl.exception: ``errc.invalid`` if ``il_bytes`` is no SPIR-V module or has no kernel,
            ``arg_types`` does not fit the module, another unit (or this module with other
            ``arg_types``) already registered one of its kernel names, or an aspect is not a
            ``sycl.aspect``.
    """
    if not isinstance(il_bytes, (bytes, bytearray, memoryview)):
        raise exception(
            errc.invalid,
            f"register_kernel_il takes the SPIR-V module as bytes, got {type(il_bytes).__name__}",
        )
    il = bytes(il_bytes)
    kernels = declared_kernels(read_module(il), arg_types)
    if not kernels:
        raise exception(
            errc.invalid,
            f"{origin or 'the SPIR-V module'} has no kernel (no OpEntryPoint of the Kernel execution model)",
        )
    origin = origin or _unit_name(list(kernels), []).replace("the unit", "the SPIR-V module", 1)
    options = tuple(str(o) for o in options)
    return APPLICATION.add(
        ImageSource("", options, _aspects(device_has), kernels, frozenset(), origin, il=il)
    )


def _aspects(device_has: Iterable[aspect]) -> frozenset[aspect]:
    values = list(device_has)
    bad = [a for a in values if not isinstance(a, aspect)]
    if bad:
        raise exception(errc.invalid, f"device_has takes sycl.aspect members, got {bad!r}")
    return frozenset(values)
