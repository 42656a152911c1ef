"""The launch shape of ``range`` kernels: sycl_ocl chooses their work-group size (SYCL 2020
§4.9.4.2 leaves it to the implementation; docs/kernels.md "Launch shape of range kernels").

OpenCL without a local size lets the driver pick one that divides the global size: 1 for a
prime size, which runs the device at a fraction of its speed (neither NVIDIA's OpenCL nor PoCL
has non-uniform work-groups), and PoCL compiles the kernel again for each size it picks. So a
``range`` launch of a kernel that reads nothing of the launch's work-groups runs in work-groups
of our choice (``GROUP`` work-items on a GPU, ``CPU_GROUP`` on others, fewer where the kernel
or the device allow fewer or the range is smaller; powers of two, so a kernel meets few
distinct sizes):

- a range that is a whole number of work-groups runs the kernel as it is;
- any other runs the unit's *guarded variant* over the range rounded up to whole work-groups:
  each kernel of the unit that may be served takes the range as three hidden ``ulong``
  parameters after its own, returns at once outside the range, and reads the range through
  ``get_global_size``. The variant is an ordinary unit, built
  and cached like any (one build per unit and device, whatever the sizes).

A kernel is served when its unit is OpenCL C source without ``#include`` (a header's code is
not seen) and, after preprocessing, neither it nor a function it calls reads a work-group
(``get_local_id``, ``barrier``, ``__local``, ``get_global_linear_id``, ...;
``UNSERVED_WORDS``), the functions it calls
do not read the range (``get_global_size``: the hidden parameters are the kernel's alone), and
each function it calls is defined in the unit, its library units or OpenCL C, and no function
calls it nor declares it ahead (neither would pass the hidden parameters). The rewrite works on
the unit's text and is checked on the variant preprocessed (``_misread``): a kernel whose
rewrite does not show there (its head in an ``#if`` branch not taken, a brace of a macro's) is
not served. A kernel with a required work-group size (the driver's) runs in work-groups of that
size. Any other kernel keeps the driver's choice, as do all on a queue with
``property.queue.no_range_rounding`` and with ``SYCL_OCL_RANGE_ROUNDING=0``.

Measured (docs/performance.md "Awkward sizes"): the guarded variant is one launch, where the
other candidate, whole work-groups then the remainder at a global offset, is up to 2^d
launches, and costs a launch's overhead more on every awkward size.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._exception import errc, exception
from .._native import cl
from ._builtin_functions import BUILTIN_FUNCTIONS
from ._images import executable_image, image_options
from ._kernel_id import kernel_id
from ._preprocess import Preprocessor, definitions_from_options, strip_comments, tokenize
from ._reducers import PRELUDE, PRELUDE_LINES
from ._signature import function_bodies
from .reduction import _find_kernel as find_kernel
from .registry import read_unit

if TYPE_CHECKING:
    from .._device import device
    from ._kernel import kernel
    from .registry import ImageSource

# The work-items of a work-group we choose on a GPU: a multiple of every preferred multiple seen
# (32 on NVIDIA), within the usual 128-256 of GPUs; on other devices the most they allow up to
# CPU_GROUP: PoCL's own choice for sizes it divides (so those run as before), and as fast as 256
# on PoCL for sizes it does not (docs/performance.md "Awkward sizes").
GROUP = 256
CPU_GROUP = 4096
# The hidden parameters of a kernel of the guarded variant: the range, in OpenCL order.
HIDDEN = ("__sycl_r0", "__sycl_r1", "__sycl_r2")

# What a kernel that runs in work-groups of our choice must not read (OpenCL C 3.0 §6.15.1,
# §6.15.9, §6.15.14 and the sub-group and work-group functions).
UNSERVED_WORDS = frozenset({
    "get_local_id", "get_local_size", "get_enqueued_local_size", "get_group_id", "get_num_groups",
    "get_local_linear_id", "get_sub_group_size", "get_max_sub_group_size", "get_num_sub_groups",
    "get_enqueued_num_sub_groups", "get_sub_group_id", "get_sub_group_local_id", "barrier",
    "work_group_barrier", "sub_group_barrier", "__local", "local", "async_work_group_copy",
    "async_work_group_strided_copy", "wait_group_events", "enqueue_kernel",
    "get_global_linear_id",  # OpenCL C 2.0: reads the range through no get_global_size
})
_COLLECTIVES = ("work_group_", "sub_group_")  # and every function of a work-group or sub-group
# What reads the range, which only a served kernel's own body may (its hidden parameters).
RANGE_WORDS = frozenset({"get_global_size"})
# Words before "(" that call no function.
_NOT_CALLS = frozenset({"if", "for", "while", "switch", "return", "sizeof", "__attribute__",
                        "__attribute", "vec_step", "alignof", "__alignof__", "_Alignof"})
_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include\b", re.MULTILINE)
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*\Z")


def enabled_by_default() -> bool:
    """Whether queues choose the work-group size of ``range`` launches: yes, unless the
    environment variable ``SYCL_OCL_RANGE_ROUNDING`` is ``0`` (read when a queue is made)."""
    return os.environ.get("SYCL_OCL_RANGE_ROUNDING", "1").strip() != "0"


class Guarded:
    """A launch on a kernel of the guarded variant: the kernel with the user's range (``tail``,
    OpenCL order, 1 past its dimensions) set after the launch's own arguments; what a launch
    needs of a kernel (``scheduler.actions.Kernel``). ``tail`` changes only on a kernel of the
    queue shortcuts' own, between launches (``usm.launch.Shortcut``)."""

    __slots__ = ("_name", "kernel", "tail")

    def __init__(self, variant: kernel, tail: tuple[int, int, int]) -> None:
        self.kernel = variant
        self.tail = tail
        self._name = variant._name

    def _enqueue(self, cl_queue: cl.CommandQueue, global_size: tuple[int, ...],
                 local_size: tuple[int, ...] | None, offset: tuple[int, ...] | None,
                 args: Sequence[Any], wait_for: list[cl.Event] | None) -> cl.Event:
        return self.kernel._enqueue(cl_queue, global_size, local_size, offset, self._all_args(args), wait_for)

    def _private(self, args: Sequence[Any] | None) -> cl.Kernel:
        return self.kernel._private(None if args is None else self._all_args(args))

    def _set_on(self, native: cl.Kernel, args: Sequence[Any]) -> None:
        self.kernel._set_on(native, self._all_args(args))

    def _all_args(self, args: Sequence[Any]) -> list[Any]:
        return [*args, *self.tail]


@dataclass(slots=True)
class _Served:
    """How a served kernel runs on one device: the largest work-group we give it (a power of
    two), the largest per dimension, and its guarded variant (made on first need)."""

    limit: int
    dims: tuple[int, ...]
    variant: kernel | None = None


Launch = tuple[Any, tuple[int, ...], tuple[int, ...] | None]


def range_launch(k: kernel, dev: device | None, global_size: tuple[int, ...], svm_args: int) -> Launch:
    """The kernel, global and local size of a launch of ``k`` over the range ``global_size``
    (OpenCL order) on ``dev``: in work-groups of our choice where ``k`` may be served, else
    (and without ``dev``: on a queue that does not round) as it is, with no local size; on
    ``k``'s twin for the SVM arguments ``svm_args`` (``kernel._for_svm``).

    A kernel with a required work-group size runs in work-groups of that size where they
    divide the range. A kernel whose variant fails to compile (a rewrite this module got wrong:
    the unit itself compiled) runs as it is on that device from then on, built once.

    Raises:
        sycl.exception: what building the variant raises but a compile error (a device out
            of resources, ...).
    """
    own = k._for_svm(svm_args) if svm_args else k
    if dev is None or 0 in global_size:
        return own, global_size, None
    if k._reqd is not None:  # the driver's word, whatever the attribute's spelling or place
        local = k._reqd[:len(global_size)]
        whole = all(n % size == 0 for n, size in zip(global_size, local, strict=True))
        return own, global_size, local if whole else None
    if (served := _served(k, dev)) is None:
        return own, global_size, None
    local = _local_size(global_size, served)
    if all(n % size == 0 for n, size in zip(global_size, local, strict=True)):
        return own, global_size, local
    variant = served.variant
    if variant is None:
        try:
            variant = served.variant = _variant_kernel(k, dev)
        except exception as error:
            if error.code() is not errc.build:
                raise
            variant = None
        if variant is None:  # not rewritten, or its rewrite does not build: as it is from now on
            k._range_plans[dev._handle] = None
            return own, global_size, None
    padded = tuple(-(-n // size) * size for n, size in zip(global_size, local, strict=True))
    return Guarded(variant._for_svm(svm_args) if svm_args else variant, tail(global_size)), padded, local


def tail(global_size: tuple[int, ...]) -> tuple[int, int, int]:
    """The hidden arguments of a guarded launch over ``global_size``: the range, 1 past it."""
    return (*global_size, 1, 1)[:3]  # type: ignore[return-value]  # 1-3 dimensions


def _local_size(global_size: tuple[int, ...], served: _Served) -> tuple[int, ...]:
    """Work-groups of ``served.limit`` work-items, the fastest dimension first, none larger
    than the range asks (a power of two: few distinct sizes, as PoCL compiles one per size)."""
    room = served.limit
    local = []
    for n, most in zip(global_size, served.dims, strict=False):
        size = min(room, 1 << max(0, (n - 1).bit_length()), most)
        local.append(size)
        room //= size
    return tuple(local)


_lock = threading.Lock()
# Per (unit digest, kernel name): whether the kernel may be served (``_servable``).
_verdicts: dict[tuple[str, str], bool] = {}
# Per unit digest: its guarded variant (the unit, and its kernels' ids by name).
_variants: dict[str, tuple[ImageSource, dict[str, kernel_id]]] = {}


def _served(k: kernel, dev: device) -> _Served | None:
    """How ``k`` runs on ``dev`` in work-groups of our choice; None: as it is."""
    plans = k._range_plans
    handle = dev._handle
    try:
        return plans[handle]
    except KeyError:
        pass
    found = _Served(*_limits(k, dev)) if _source_of(k) is not None else None
    plans[handle] = found
    return found


def _limits(k: kernel, dev: device) -> tuple[int, tuple[int, ...]]:
    """The largest work-group for ``k`` on ``dev`` (``preferred_group`` at most) and per
    dimension, powers of two."""
    native = dev._native
    try:
        most = int(k._native.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, native))
    except cl.Error:
        most = int(native.max_work_group_size)
    limit = _power_of_two_below(min(preferred_group(dev), most, int(native.max_work_group_size)))
    return limit, tuple(_power_of_two_below(int(n)) for n in native.max_work_item_sizes)


def preferred_group(dev: device) -> int:
    """The work-items of the work-groups we choose on ``dev`` (``GROUP``, ``CPU_GROUP``)."""
    return GROUP if dev._native.type & cl.device_type.GPU else CPU_GROUP


def _power_of_two_below(n: int) -> int:
    """The largest power of two <= n (1 for less)."""
    return 1 << max(0, n.bit_length() - 1)


def _source_of(k: kernel) -> ImageSource | None:
    """The unit of ``k`` when it may be served: built alone from OpenCL C source (with its
    library units) as ``executable_image`` builds it, and ``_servable``."""
    image = k._image
    if image is None or not image._sources or getattr(image, "_key", ("",))[0] != "executable":
        return None
    src = image._sources[0]
    if src.il or k._name not in src.kernels or image._sources != (src, *src.libraries()):
        return None
    if image._key[3] != image_options(src, image._spec_values):
        return None  # built with other options (a bundle's build): its variant would differ
    return src if _verdict(src, k._name) else None


def _verdict(src: ImageSource, name: str) -> bool:
    """Whether kernel ``name`` of ``src`` may be served (``_servable``, once per unit and kernel)."""
    key = (src.digest, name)
    verdict = _verdicts.get(key)
    if verdict is None:
        verdict = _verdicts[key] = _servable(src, name)
    return verdict


def _servable(src: ImageSource, name: str) -> bool:
    """Whether kernel ``name`` of ``src`` may run in work-groups of our choice (the module's rule)."""
    decl = src.kernels[name]
    if decl.reqd_work_group_size is not None or decl.reqd_sub_group_size is not None:
        return False
    units = (src, *src.libraries())
    if any(_INCLUDE.search(strip_comments(u.source)) for u in units):
        return False
    bodies: dict[str, list[str]] = {}
    mentions = 0
    for unit in units:
        tokens = Preprocessor(definitions_from_options(unit.options)).run(unit.source)
        bodies.update(function_bodies(tokens))
        mentions += tokens.count(name)
    if name not in bodies or not _head_found(src, name):
        return False
    if mentions != 1 + bodies[name].count(name):
        return False  # declared ahead, or called: without the hidden parameters
    seen = {name}
    pending = [name]
    while pending:
        current = pending.pop()
        body = bodies[current]
        words = set(body)
        if (words & UNSERVED_WORDS or (current != name and words & RANGE_WORDS)
                or any(w.startswith(_COLLECTIVES) for w in words)):
            return False
        for i in range(1, len(body)):
            callee = body[i - 1]
            if body[i] != "(" or not _IDENTIFIER.match(callee) or callee in _NOT_CALLS:
                continue
            if callee in bodies:
                if callee not in seen:
                    seen.add(callee)
                    pending.append(callee)
            elif callee not in BUILTIN_FUNCTIONS:
                return False  # a function this reader cannot see (a macro's, a header's)
    return True


def _variant_kernel(k: kernel, dev: device) -> kernel | None:
    """``k``'s kernel of its unit's guarded variant on ``dev``, built (or loaded from the cache)
    with ``k``'s specialization constants; None where the variant could not rewrite ``k``."""
    src = _source_of(k)
    assert src is not None  # _served checked it
    found = _variants.get(src.digest)
    if found is None:
        made = _variant_unit(src)
        with _lock:
            found = _variants.setdefault(src.digest, made)
    unit, ids = found
    if k._name not in ids or not _verdict(src, k._name):
        return None
    values = dict(k._image._spec_values.values())
    return executable_image(k.get_context(), unit, (dev,), values)._kernel(ids[k._name])


def _variant_unit(src: ImageSource) -> tuple[ImageSource, dict[str, kernel_id]]:
    """The guarded variant of ``src``: each kernel that may be served takes the range as its
    hidden last parameters, returns outside it and reads it through ``get_global_size``.

    The rewrite works on the text, the compiler sees it preprocessed: a kernel whose rewrite
    the preprocessed variant does not show (a head or brace in an ``#if`` branch not taken, or
    in a macro) is not served, and the variant is rewritten without it."""
    served = [name for name in src.kernels if _verdict(src, name)]
    while True:
        unit = read_unit(_rewritten(src, served), src.options, src.device_has,
                         f"{src.origin} (guarded range variant)")
        misread = _misread(src, unit, served)
        if not misread:
            break
        for name in misread:
            _verdicts[(src.digest, name)] = False
        served = [name for name in served if name not in misread]
    unit.registry = src.registry
    ids = {n: kernel_id._make(n, unit) for n in unit.kernels}
    unit.ids = tuple(ids.values())
    return unit, ids


def _rewritten(src: ImageSource, served: list[str]) -> str:
    """The text of ``src`` with the kernels ``served`` rewritten (``_variant_unit``), and the
    function they read the range through ahead of it."""
    text = strip_comments(src.source)
    heads = [find_kernel(text, name) for name in served]
    hidden = ", ".join(f"const ulong {h}" for h in HIDDEN)
    for head in sorted(heads, key=lambda h: h.start, reverse=True):  # from the end: earlier offsets hold
        end = head.end - 1  # the body's closing brace
        params = text[head.open + 1:head.close]
        params = hidden if params.strip() in ("", "void") else f"{params}, {hidden}"
        text = "".join((
            text[:head.open + 1], params, text[head.close:head.body + 1], _GUARD,
            f"\n{_ENTER}\n#line {_line(text, head.body + 1)}\n", text[head.body + 1:end],
            f"\n{_LEAVE}\n#line {_line(text, end)}\n", text[end:],
        ))
    if heads:  # ahead of the unit's own text (no attribute before a head binds to it), lines kept
        at = len(PRELUDE) if text.startswith(PRELUDE) else 0
        text = f"{text[:at]}{_RANGE}\n#line 1\n{text[at:]}"
    return text


def _misread(src: ImageSource, unit: ImageSource, served: list[str]) -> list[str]:
    """The kernels of ``served`` whose rewrite the preprocessed variant ``unit`` does not show:
    the hidden parameters last, the guard first, ``get_global_size`` read nowhere else."""
    tokens = Preprocessor(definitions_from_options(unit.options)).run(unit.source)
    bodies = function_bodies(tokens)
    guard = tokenize(_GUARD)
    wrong = []
    for name in served:
        decl, body = unit.kernels.get(name), bodies.get(name, [])
        params = [p.name for p in src.kernels[name].params] + list(HIDDEN)
        if (decl is None or [p.name for p in decl.params] != params or body[:len(guard)] != guard
                or "get_global_size" in body):
            wrong.append(name)
    return wrong


_GUARD = (f" if (get_global_id(0) >= {HIDDEN[0]} || get_global_id(1) >= {HIDDEN[1]} || "
          f"get_global_id(2) >= {HIDDEN[2]}) return;")
# The range of dimension d, d read once (it may have side effects), 1 past the three (OpenCL C).
_RANGE = ("size_t __sycl_range(uint d, ulong r0, ulong r1, ulong r2) "
          "{ return (size_t)(d == 0 ? r0 : d == 1 ? r1 : d == 2 ? r2 : 1); }")
_ENTER = f"#define get_global_size(d) __sycl_range((d), {', '.join(HIDDEN)})"
_LEAVE = "#undef get_global_size"


def _head_found(src: ImageSource, name: str) -> bool:
    """Whether the variant can rewrite kernel ``name``'s head (no macro hides it)."""
    try:
        find_kernel(strip_comments(src.source), name)
    except exception:
        return False
    return True


def _line(text: str, at: int) -> int:
    """The line the compiler numbers ``text[at]`` with (after a reducer prelude's ``#line 1``)."""
    line = text.count("\n", 0, at) + 1
    return line - PRELUDE_LINES if text.startswith(PRELUDE) else line
