"""What an OpenCL C unit declares: its ``__kernel`` functions (names, parameters, attributes),
the functions it defines and those it calls.

Read from the preprocessed tokens, so application kernels are known before any compile
(SYCL 2020 §4.11.6), each parameter's declared type drives argument conversion, and a unit's
calls say which library units it is linked with.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._exception import errc, exception
from ._preprocess import Macro, Preprocessor, integer_value

_ADDRESS_SPACES = {
    "__global": "global", "global": "global",
    "__local": "local", "local": "local",
    "__constant": "constant", "constant": "constant",
    "__private": "private", "private": "private",
}
_QUALIFIERS = frozenset(
    {"const", "volatile", "restrict", "__restrict", "__read_only", "read_only", "__write_only",
     "write_only", "__read_write", "read_write", "struct", "union", "enum"}
)
# OpenCL C scalar types -> numpy dtypes (size_t & co. follow the device: see KernelParam.dtype_for).
_SCALARS: dict[str, str] = {
    "char": "int8", "signed char": "int8", "uchar": "uint8", "unsigned char": "uint8",
    "short": "int16", "ushort": "uint16", "unsigned short": "uint16",
    "int": "int32", "signed": "int32", "unsigned": "uint32", "uint": "uint32",
    "unsigned int": "uint32", "signed int": "int32",
    "long": "int64", "ulong": "uint64", "unsigned long": "uint64",
    "float": "float32", "double": "float64", "half": "float16",
}
_ADDRESS_SIZED = frozenset({"size_t", "ptrdiff_t", "intptr_t", "uintptr_t"})
# Pointers to these take memory of any element type (raw bytes).
_ANY_ELEMENT = frozenset({"void", "char", "signed char", "uchar", "unsigned char"})


@dataclass(frozen=True)
class KernelParam:
    """One kernel parameter as declared: ``kind`` is global/local/constant/value/image/sampler."""

    name: str
    type_name: str
    kind: str

    def declaration(self) -> str:
        """The parameter as OpenCL C declares it: ``__global float *x``, ``uint n``."""
        space = "" if self.kind in ("value", "image", "sampler") else f"__{self.kind} "
        pointer = " *" if self.kind in ("global", "local", "constant") else " "
        return f"{space}{self.type_name}{pointer}{self.name}".replace("  ", " ").strip()

    def dtype_for(self, address_bits: int) -> np.dtype | None:
        """The numpy dtype a by-value argument is converted to; None for memory/other kinds."""
        if self.kind != "value":
            return None
        return _numpy_type(self.type_name, address_bits)

    def element_dtype(self, address_bits: int) -> np.dtype | None:
        """The element type of a ``__global``/``__constant`` pointer parameter; None when any
        element type fits (``void*``, ``char*``, ``uchar*``) or has no numpy type (a struct)."""
        if self.kind not in ("global", "constant") or self.type_name in _ANY_ELEMENT:
            return None
        return _numpy_type(self.type_name, address_bits)


@dataclass(frozen=True)
class KernelDecl:
    """A ``__kernel`` function: name, parameters, required work-group size (OpenCL order) and
    required sub-group size (``intel_reqd_sub_group_size``), each None when not given."""

    name: str
    params: tuple[KernelParam, ...]
    reqd_work_group_size: tuple[int, ...] | None
    reqd_sub_group_size: int | None = None


# The kernel attributes read at registration, by spelling: the KernelDecl field each sets.
# ``intel_reqd_sub_group_size`` is cl_intel_required_subgroup_size's (OpenCL C has no other).
_ATTRIBUTES = {
    "reqd_work_group_size": "reqd_work_group_size",
    "__reqd_work_group_size__": "reqd_work_group_size",
    "intel_reqd_sub_group_size": "reqd_sub_group_size",
    "__intel_reqd_sub_group_size__": "reqd_sub_group_size",
}
Attributes = dict[str, tuple[int, ...]]


def _numpy_type(type_name: str, address_bits: int) -> np.dtype | None:
    """The numpy dtype of an OpenCL C scalar or vector type; None for other types."""
    if type_name in _ADDRESS_SIZED:
        signed = type_name in ("ptrdiff_t", "intptr_t")
        return np.dtype(f"{'int' if signed else 'uint'}{address_bits}")
    if type_name in _SCALARS:
        return np.dtype(_SCALARS[type_name])
    import pyopencl.cltypes as cltypes

    found = getattr(cltypes, type_name, None)  # float4, int2, ...
    if isinstance(found, np.dtype) or (isinstance(found, type) and issubclass(found, np.generic)):
        return np.dtype(found)
    return None


@dataclass(frozen=True)
class UnitSignature:
    """A unit's kernels; the functions it exports (defined at file scope, not ``static``); the
    functions it calls (or declares) without defining them."""

    kernels: tuple[KernelDecl, ...]
    exports: frozenset[str]
    needs: frozenset[str]


_IDENTIFIER = re.compile(r"[A-Za-z_]\w*\Z")


def parse_unit(source: str, macros: dict[str, Macro]) -> UnitSignature:
    """The signature of ``source`` preprocessed with ``macros``."""
    tokens = Preprocessor(macros).run(source)
    defined, exported = _definitions(tokens)
    called = {
        tokens[i - 1] for i in range(1, len(tokens)) if tokens[i] == "(" and _IDENTIFIER.match(tokens[i - 1])
    }
    return UnitSignature(tuple(_kernels(tokens)), frozenset(exported), frozenset(called - defined))


def parse_kernels(source: str, macros: dict[str, Macro]) -> list[KernelDecl]:
    """Every ``__kernel`` function defined in ``source`` (declarations without a body skipped)."""
    return list(parse_unit(source, macros).kernels)


def _definitions(tokens: list[str]) -> tuple[set[str], set[str]]:
    """The functions defined at file scope, and those of them not ``static`` (exported)."""
    found = _function_definitions(tokens)
    return {name for name, _, _ in found}, {name for name, static, _ in found if not static}


def function_bodies(tokens: list[str]) -> dict[str, list[str]]:
    """The tokens of the body of each function defined at file scope, by name."""
    return {name: body for name, _, body in _function_definitions(tokens)}


def _function_definitions(tokens: list[str]) -> list[tuple[str, bool, list[str]]]:
    """Each function defined at file scope: its name, whether it is ``static``, its body's tokens."""
    found = []
    start = i = 0  # start: the first token of the current file-scope declaration
    while i < len(tokens):
        tok = tokens[i]
        if tok == ";":
            start = i + 1
        elif tok == "{":  # a struct body or an initializer at file scope
            i = _matching(tokens, i, "{", "}") - 1
        elif tok == "(" and i and _IDENTIFIER.match(tokens[i - 1]):
            after = _matching(tokens, i)
            while after < len(tokens) and tokens[after] == "__attribute__":
                after = _matching(tokens, after + 1)
            if after < len(tokens) and tokens[after] == "{":
                end = _matching(tokens, after, "{", "}")
                found.append((tokens[i - 1], "static" in tokens[start:i - 1], tokens[after + 1:end - 1]))
                i = start = end
                continue
            i = after - 1
        i += 1
    return found


def _kernels(tokens: list[str]) -> list[KernelDecl]:
    typedefs = _typedefs(tokens)
    kernels = []
    before: Attributes = {}  # attributes ahead of ``__kernel``
    i = 0
    while i < len(tokens):
        if tokens[i] == "__attribute__":
            i = _read_attributes(tokens, i, before)
        elif tokens[i] in ("__kernel", "kernel") and (i == 0 or tokens[i - 1] in (";", "}", ")")):
            decl, i = _kernel_at(tokens, i + 1, typedefs, before)
            before = {}
            if decl is not None:
                kernels.append(decl)
        else:
            if tokens[i] in (";", "{", "}"):
                before = {}
            i += 1
    return kernels


def _typedefs(tokens: list[str]) -> dict[str, str]:
    """Simple scalar typedefs (``typedef float real;``), so parameters of those types convert."""
    names: dict[str, str] = {}
    for i, tok in enumerate(tokens):
        if tok != "typedef":
            continue
        end = i + 1
        while end < len(tokens) and tokens[end] not in (";", "{"):
            end += 1
        if end < len(tokens) and tokens[end] == ";" and end - i >= 3:
            base = " ".join(t for t in tokens[i + 1:end - 1] if t not in _QUALIFIERS)
            names[tokens[end - 1]] = names.get(base, base)
    return names


def _kernel_at(
    tokens: list[str], i: int, typedefs: dict[str, str], before: Attributes
) -> tuple[KernelDecl | None, int]:
    attributes = dict(before)
    name = ""
    while i < len(tokens) and tokens[i] != "(":
        if tokens[i] == "__attribute__":
            i = _read_attributes(tokens, i, attributes)
            continue
        name = tokens[i]
        i += 1
    close = _matching(tokens, i)
    after = close
    while after < len(tokens) and tokens[after] == "__attribute__":
        after = _read_attributes(tokens, after, attributes)
    if not name or after >= len(tokens) or tokens[after] != "{":
        return None, close
    params = tuple(
        p for p in (_param(group, typedefs) for group in _split_commas(tokens[i + 1:close - 1]))
        if p is not None
    )
    sub_group = attributes.get("reqd_sub_group_size")
    decl = KernelDecl(
        name, params, attributes.get("reqd_work_group_size"), sub_group[0] if sub_group else None
    )
    return decl, after


def _matching(tokens: list[str], open_index: int, opening: str = "(", closing: str = ")") -> int:
    """The index just after the bracket that closes ``tokens[open_index]``."""
    depth = 0
    for j in range(open_index, len(tokens)):
        if tokens[j] == opening:
            depth += 1
        elif tokens[j] == closing:
            depth -= 1
            if depth == 0:
                return j + 1
    return len(tokens)


def _split_commas(tokens: list[str]) -> list[list[str]]:
    groups: list[list[str]] = [[]]
    depth = 0
    for tok in tokens:
        if tok in "([":
            depth += 1
        elif tok in ")]":
            depth -= 1
        if tok == "," and depth == 0:
            groups.append([])
        else:
            groups[-1].append(tok)
    return [g for g in groups if g and g != ["void"]]


def _read_attributes(tokens: list[str], at: int, found: Attributes) -> int:
    """Add the known attributes of the ``__attribute__((...))`` at ``at`` to ``found`` (those
    with integer arguments); returns the index just after it."""
    end = _matching(tokens, at + 1)
    attr = tokens[at + 1:end]
    for j, tok in enumerate(attr):
        field = _ATTRIBUTES.get(tok)
        if field is not None and j + 1 < len(attr) and attr[j + 1] == "(":
            inner = attr[j + 2:_matching(attr, j + 1) - 1]
            values = [integer_value(group) for group in _split_commas(inner)]
            if values and all(v is not None for v in values):
                found[field] = tuple(int(v) for v in values if v is not None)
    return end


def _param(tokens: list[str], typedefs: dict[str, str]) -> KernelParam | None:
    if "[" in tokens:
        tokens = [*tokens[:tokens.index("[")], "*"]
    space = next((_ADDRESS_SPACES[t] for t in tokens if t in _ADDRESS_SPACES), None)
    words = [t for t in tokens if t not in _ADDRESS_SPACES and t not in _QUALIFIERS]
    if not words:
        return None
    name = words[-1] if len(words) > 1 and words[-1] != "*" else ""
    type_words = [w for w in (words[:-1] if name else words) if w != "*"]
    type_name = " ".join(type_words)
    type_name = typedefs.get(type_name, type_name)
    if "*" in words:
        kind = space if space in ("global", "local", "constant") else "global"
    elif type_name.startswith("image") or type_name in ("pipe",):
        kind = "image"
    elif type_name == "sampler_t":
        kind = "sampler"
    else:
        kind = "value"
    return KernelParam(name, type_name, kind)


DECLARATIONS_EXAMPLE = '{"vadd": ["global float *out", "global const float *x", "uint n"]}'


def declared_params(name: str, given: Any, what: str = "arg_types") -> tuple[KernelParam, ...]:
    """Kernel ``name``'s parameters from ``given``: OpenCL C declarations, one string or a list
    (``"global float *y, float a"``), for kernels whose program gives no argument information
    (SPIR-V modules, program binaries).

    Raises:
        sycl.exception: ``errc.invalid`` for anything but declarations.
    """
    if not isinstance(given, (str, list, tuple)) or not all(isinstance(g, str) for g in given):
        raise exception(
            errc.invalid,
            f"{what}[{name!r}] lists OpenCL C declarations (str), e.g. {DECLARATIONS_EXAMPLE}; got {given!r}",
        )
    text = given if isinstance(given, str) else ", ".join(given)
    found = parse_kernels(f"__kernel void {name}({text}) {{}}", {})
    return found[0].params if found else ()
