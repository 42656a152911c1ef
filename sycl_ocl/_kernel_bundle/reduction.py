"""The generated variants of kernels launched with reductions (SYCL 2020 §4.9.2; docs/reductions.md).

A launch ``parallel_for(rng, red1, ..., kernel, *args)`` runs a variant of the kernel's unit,
rendered from ``kernels_cl/_reduction.mako`` around the unit's own text:

- the kernel becomes a function (its body untouched) whose reducer parameters point at private
  accumulators: ``SYCL_COMBINE(name, v)`` combines into the work-item's accumulator;
- a ``__kernel`` of the kernel's name calls it, over a range once per item in a loop of each
  work-item (``get_global_id`` & co. in the body are the item's), over an nd_range once; then
  each work-group combines its accumulators in a local-memory tree into one partial result;
- the last work-group to finish (an atomic counter says which) combines the partials in a
  fixed order (and the variable's value, unless ``initialize_to_identity``) into the
  reduction variable: one kernel, one enqueue.

Each variant is an ordinary unit (linked with the application's library units), built and cached
by the same path as any kernel; variants are generated once per configuration.
"""

from __future__ import annotations

import functools
import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._exception import errc, exception
from ..functional import C_TYPES, c_literal
from ..library import KERNELS_DIR
from ._kernel_id import kernel_id
from ._preprocess import strip_comments
from ._reducers import PRELUDE_LINES, reducer_name, reducers
from .registry import read_unit

if TYPE_CHECKING:
    import numpy as np
    from mako.template import Template

    from ..functional import combiner
    from .registry import ImageSource

# The largest work-group of a launch over a range (a GPU's; a CPU's are smaller).
GROUP_SIZE = 256


@dataclass(frozen=True, eq=False)
class Reduction:
    """What the code of one reduction depends on: element type, combiner, identity (None: none
    known, §4.9.2), and whether the variable's value is left out (``initialize_to_identity``).
    Compared by identity: the handler layer keeps one per kind of reduction
    (``sycl_ocl.reduction``), and variants are kept by ``key``."""

    dtype: np.dtype[Any]
    op: combiner
    identity: Any
    initialize: bool
    count: int = 1  # the variable's elements: a span's extent, else 1

    @functools.cached_property
    def key(self) -> tuple[str, str, str | None, bool, int]:
        """What the generated code depends on."""
        return (self.dtype.name, self.op._expression(), self.literal, self.initialize, self.count)

    @property
    def literal(self) -> str | None:
        """The identity as an OpenCL C literal (None: no identity)."""
        return None if self.identity is None else c_literal(self.identity, self.dtype)

    @property
    def partial_bytes(self) -> int:
        """The bytes of one work-group's partial results: a value per element, and without an
        identity a ``uint`` per element saying whether it holds one."""
        return self.count * (self.dtype.itemsize + (4 if self.identity is None else 0))


@dataclass(frozen=True)
class Variant:
    """A generated unit: its launch kernel and its source."""

    main: kernel_id
    source: str


@dataclass(frozen=True)
class _Code:
    """One reduction as the template takes it."""

    name: str
    ctype: str
    expr: str
    identity: str | None
    initialize: bool
    count: int


_lock = threading.Lock()
_variants: dict[tuple[Any, ...], Variant] = {}


def variant(kid: kernel_id, reductions: tuple[Reduction, ...], items: int,
            local_size: tuple[int, ...], chunked: bool = False, atomics64: bool = True,
            empty: bool = False) -> Variant:
    """The variant of ``kid``'s unit for ``reductions``, over a range of ``items`` dimensions
    (work-groups of ``local_size``, chosen by the caller) or over an nd_range (``items`` 0,
    ``local_size`` the nd_range's, in OpenCL order). ``chunked``: over a range, each work-item
    takes a contiguous run of items (for CPUs), not every global-size-th item (for GPUs).
    ``atomics64``: the device has ``cl_khr_int64_base_atomics`` (64-bit partial results move
    between work-groups by atomics; without, by volatile accesses). ``empty``: the variant of an
    empty nd_range, one work-group that calls no body.

    Raises:
        sycl.exception: ``errc.kernel_argument`` when the kernel's reducer parameters do not
            match the reductions (count, order, element type); ``errc.invalid`` for a kernel
            that is not an application kernel given in OpenCL C source.
    """
    key = (kid, tuple(r.key for r in reductions), items, local_size, chunked, atomics64, empty)
    found = _variants.get(key)
    if found is not None:
        return found
    made = _make(kid, reductions, items, local_size, chunked, atomics64, empty)
    with _lock:
        return _variants.setdefault(key, made)


def generated_sources(name: str) -> list[str]:
    """The source of every variant generated so far for the kernel ``name``."""
    with _lock:
        return [v.source for v in _variants.values() if v.main.get_name() == name]


def _make(kid: kernel_id, reductions: tuple[Reduction, ...], items: int,
          local_size: tuple[int, ...], chunked: bool, atomics64: bool, empty: bool) -> Variant:
    name = kid.get_name()
    src = kid._image
    if src is None or kid._is_builtin() or name not in src.kernels:
        raise exception(errc.invalid, f"kernel {name!r} is not an application kernel in OpenCL C source; "
                                      "reductions launch registered OpenCL C kernels only")
    codes = _codes(src, name, reductions)
    text = strip_comments(src.source)
    head = _find_kernel(text, name)
    params = _split_params(text[head.open + 1:head.close])
    decl = src.kernels[name]
    if len(params) != len(decl.params):
        raise exception(errc.invalid, f"cannot read the parameters of kernel {name!r} for its reductions; "
                                      "write them without macros (docs/reductions.md)")
    k = len(codes)
    body_params = [re.sub(r"\bSYCL_REDUCER\b", "SYCL_REDUCER_ACC", p) for p in params[:k]] + params[k:]
    hidden = [f"const size_t __sycl_{v}{d}" for v in "ir" for d in range(3)] if items else []
    body = text[head.body:head.end]
    if items:
        for builtin, replacement in _ITEM_BUILTINS:
            body = re.sub(rf"\b{builtin}\b", replacement, body)
    others = sorted({reducer_name(p) for d in src.kernels.values() if d.name != name for p in reducers(d)})
    total = 1
    for size in local_size:
        total *= size
    template = _template()
    fp64 = any(c.ctype == "double" for c in codes)
    header = "\n" * text[head.start:head.body].count("\n")
    source = "".join((
        "#undef SYCL_REDUCER\n#undef SYCL_COMBINE\n#undef SYCL_COMBINE_AT\n",
        template.get_def("prelude").render(reds=codes, others=others, fp64=fp64, items=items),
        text[:head.start], "\n",
        template.get_def("ops").render(reds=codes),
        f"#line {_line(text, head.start)}\n",
        f"static inline void {name}_sycl_body({', '.join(hidden + body_params)})", header,
        body, "\n",
        template.get_def("restore").render(reds=codes),
        f"#line {_line(text, head.end)}\n",
        text[head.end:],
        template.get_def("kernels").render(
            name=name, body=f"{name}_sycl_body", reds=codes, params=params[k:],
            args=[p.name for p in decl.params[k:]],
            reqd=", ".join(str(s) for s in (*local_size, 1, 1)[:3]), items=items, chunked=chunked, L=total,
            P=_power_of_two(total), atomics64=atomics64, empty=empty),
    ))
    unit = read_unit(source, src.options, src.device_has, f"{src.origin} (reduction variant of {name})")
    ids = {n: kernel_id._make(n, unit) for n in unit.kernels}
    unit.ids = tuple(ids.values())
    return Variant(ids[name], source)


# Over a range, the work-item builtins of the kernel body that name the item.
_ITEM_BUILTINS = (
    ("get_global_id", "__SYCL_GID"),
    ("get_global_size", "__SYCL_GSIZE"),
    ("get_global_linear_id", "__SYCL_GLINEAR"),
    ("get_work_dim", "__SYCL_WORK_DIM"),
)


def _codes(src: ImageSource, name: str, reductions: tuple[Reduction, ...]) -> list[_Code]:
    """The reductions matched with the kernel's reducer parameters (the first parameters)."""
    decl = src.kernels[name]
    found = reducers(decl)
    if not found:
        raise exception(
            errc.kernel_argument,
            f"kernel {name!r} declares no reducer, but the launch has {len(reductions)} reduction(s); "
            "declare one per reduction as its first parameters, SYCL_REDUCER(T, name), and combine "
            "with SYCL_COMBINE(name, value) (docs/reductions.md)",
        )
    if len(found) != len(reductions) or list(decl.params[:len(found)]) != found:
        raise exception(
            errc.kernel_argument,
            f"kernel {name!r} declares {len(found)} reducer(s) "
            f"({', '.join(reducer_name(p) for p in found)}), the launch has {len(reductions)} "
            "reduction(s); the reducers are the kernel's first parameters, one per reduction, in order",
        )
    codes = []
    for param, red in zip(found, reductions, strict=True):
        declared = param.element_dtype(64)
        if declared != red.dtype:
            raise exception(
                errc.kernel_argument,
                f"reducer {reducer_name(param)!r} of kernel {name!r} is declared {param.type_name}, but "
                f"its reduction's variable holds {red.dtype.name}; declare "
                f"SYCL_REDUCER({C_TYPES[red.dtype.name]}, {reducer_name(param)})",
            )
        codes.append(_Code(reducer_name(param), C_TYPES[red.dtype.name], red.op._expression(),
                           red.literal, red.initialize, red.count))
    return codes


@dataclass(frozen=True)
class _KernelText:
    """Where a kernel's definition is in its unit's text: the start of its head (``__kernel``),
    its parameter list's parentheses, the start of its body (``{``) and the end of its body."""

    start: int
    open: int
    close: int
    body: int
    end: int


def _find_kernel(text: str, name: str) -> _KernelText:
    pattern = rf"(?<!\w)(?:__kernel|kernel)(?!\w)[^;{{}}]*?(?<!\w)void\s+{re.escape(name)}\s*\("
    for m in re.finditer(pattern, text):
        close = _matching(text, m.end() - 1, "(", ")")
        after = close + 1
        while True:
            gap = re.match(r"\s*__attribute__\s*", text[after:])
            if gap is None:
                break
            after = _matching(text, after + gap.end(), "(", ")") + 1
        space = re.match(r"\s*", text[after:])
        body = after + (space.end() if space else 0)
        if text.startswith("{", body):
            return _KernelText(m.start(), m.end() - 1, close, body, _matching(text, body, "{", "}") + 1)
    raise exception(errc.invalid, f"cannot find the definition of kernel {name!r} in its source for its "
                                  "reductions; define it as `__kernel void name(...) {...}`, without "
                                  "macros around its head (docs/reductions.md)")


def _matching(text: str, at: int, opening: str, closing: str) -> int:
    """The index of the bracket that closes ``text[at]`` (string and character literals skipped)."""
    depth = 0
    i = at
    while i < len(text):
        c = text[i]
        if c in "\"'":
            i += 1
            while i < len(text) and text[i] != c:
                i += 2 if text[i] == "\\" else 1
        elif c == opening:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(text) - 1


def _split_params(text: str) -> list[str]:
    """A parameter list split at its top-level commas (``void`` alone: none)."""
    parts: list[str] = []
    depth = start = 0
    for i, c in enumerate(text):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    params = [" ".join(p.split()) for p in parts]
    return [] if params in ([""], ["void"]) else params


def _line(text: str, at: int) -> int:
    """The line of the unit's own text (as the compiler numbers it) at ``text[at]``."""
    return text.count("\n", 0, at) - PRELUDE_LINES + 1


def _power_of_two(n: int) -> int:
    """The least power of two >= n."""
    return 1 << max(0, (n - 1).bit_length())


@functools.cache
def _template() -> Template:
    from mako.template import Template  # deferred: mako costs import time

    return Template(filename=str(KERNELS_DIR / "_reduction.mako"), strict_undefined=True)
