"""What a SPIR-V module declares: its kernels and their parameters (SYCL 2020 §4.11.6).

Read from the module's instructions (the SPIR-V specification's "Physical Layout" and
"Logical Layout" of a module), so a module's kernels are known at registration like
those of OpenCL C source, without a driver. A driver gives no argument info for a program
made from IL, so the parameters come from the module's types; SPIR-V integers carry no sign in
OpenCL modules, so an integer parameter is named ``i32`` (``i8``, ``i16``, ``i64``) and has no
numpy type until the application declares it (``register_kernel_il``'s ``arg_types``).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from .._exception import errc, exception
from ._signature import DECLARATIONS_EXAMPLE as _EXAMPLE
from ._signature import KernelDecl, KernelParam, declared_params

MAGIC = 0x07230203
_HEADER_WORDS = 5

# Opcodes, execution models, execution modes and storage classes: the SPIR-V specification's
# "Binary Form" chapter.
_OP_NAME, _OP_ENTRY_POINT, _OP_EXECUTION_MODE = 5, 15, 16
_OP_TYPE_INT, _OP_TYPE_FLOAT, _OP_TYPE_VECTOR = 21, 22, 23
_OP_TYPE_IMAGE, _OP_TYPE_SAMPLER, _OP_TYPE_POINTER = 25, 26, 32
_OP_FUNCTION, _OP_FUNCTION_PARAMETER = 54, 55
_KERNEL_MODEL = 6  # Execution model Kernel
_LOCAL_SIZE, _SUBGROUP_SIZE = 17, 35  # Execution modes LocalSize, SubgroupSize
# Storage class of a pointer parameter (UniformConstant, Workgroup, CrossWorkgroup, Generic)
# -> the OpenCL C address space.
_SPACES = {0: "constant", 4: "local", 5: "global", 8: "global"}
_FLOATS = {16: "half", 32: "float", 64: "double"}


@dataclass(frozen=True)
class ModuleParam:
    """A kernel parameter as the module types it: ``param`` for launches, ``size`` the bytes of
    a by-value scalar or vector (None for memory, images, samplers and aggregates)."""

    param: KernelParam
    size: int | None


Module = dict[str, tuple[KernelDecl, tuple[ModuleParam, ...]]]
ArgTypes = Mapping[str, "str | Sequence[str]"]


def read_module(il: bytes) -> Module:
    """Each kernel (entry point of the Kernel execution model) of the module ``il``, by name.

    Raises:
        sycl.exception: ``errc.invalid`` if ``il`` is not a SPIR-V module.
    """
    try:
        return _kernels(_instructions(_words(il)))
    except IndexError:  # an instruction with fewer operands than its opcode has
        raise _not_spirv("an instruction lacks operands") from None


def _kernels(instructions: Iterator[tuple[int, tuple[int, ...]]]) -> Module:
    names: dict[int, str] = {}
    entries: dict[int, str] = {}
    modes: dict[int, dict[int, tuple[int, ...]]] = {}
    types: dict[int, tuple[int, ...]] = {}
    params: dict[int, list[tuple[int, int]]] = {}  # function id -> (type id, parameter id)
    function = None
    for op, operands in instructions:
        if op == _OP_NAME:
            names[operands[0]] = _string(operands[1:])
        elif op == _OP_ENTRY_POINT and operands[0] == _KERNEL_MODEL:
            entries[operands[1]] = _string(operands[2:])
        elif op == _OP_EXECUTION_MODE:
            modes.setdefault(operands[0], {})[operands[1]] = tuple(operands[2:])
        elif op in (_OP_TYPE_INT, _OP_TYPE_FLOAT, _OP_TYPE_VECTOR, _OP_TYPE_IMAGE, _OP_TYPE_SAMPLER,
                    _OP_TYPE_POINTER):
            types[operands[0]] = (op, *operands[1:])
        elif op == _OP_FUNCTION:
            function = operands[1]
            params[function] = []
        elif op == _OP_FUNCTION_PARAMETER and function is not None:
            params[function].append((operands[0], operands[1]))
    kernels = {}
    for fid, name in entries.items():
        typed = tuple(_param(names.get(pid, ""), tid, types) for tid, pid in params.get(fid, ()))
        local = modes.get(fid, {}).get(_LOCAL_SIZE)
        sub_group = modes.get(fid, {}).get(_SUBGROUP_SIZE)
        decl = KernelDecl(
            name, tuple(p.param for p in typed), local if local and any(local) else None,
            sub_group[0] if sub_group else None,
        )
        kernels[name] = (decl, typed)
    return kernels


def _words(il: bytes) -> tuple[int, ...]:
    order = next((o for o in "<>" if len(il) >= 4 and struct.unpack_from(f"{o}I", il)[0] == MAGIC), None)
    if order is None:
        start = il[:4].hex() or "nothing"
        raise _not_spirv(f"it starts with {start}, not the SPIR-V magic number {MAGIC:#010x}")
    if len(il) < 4 * _HEADER_WORDS or len(il) % 4:
        raise _not_spirv(f"{len(il)} bytes, not a whole number of 32-bit words after a 5-word header")
    return struct.unpack(f"{order}{len(il) // 4}I", il)


def _not_spirv(why: str) -> exception:
    return exception(
        errc.invalid,
        f"register_kernel_il takes a SPIR-V module (bytes), but {why}; for OpenCL C text use "
        "register_kernel_source",
    )


def _instructions(words: tuple[int, ...]) -> Iterator[tuple[int, tuple[int, ...]]]:
    at = _HEADER_WORDS
    while at < len(words):
        count, op = words[at] >> 16, words[at] & 0xFFFF
        if count == 0 or at + count > len(words):
            raise _not_spirv(f"the instruction at word {at} has a word count of {count}")
        yield op, words[at + 1:at + count]
        at += count


def _string(words: tuple[int, ...]) -> str:
    """A literal string operand: UTF-8, nul-terminated, packed into words low byte first."""
    raw = struct.pack(f"<{len(words)}I", *words)
    return raw.split(b"\0", 1)[0].decode("utf-8", "replace")


def _param(name: str, type_id: int, types: dict[int, tuple[int, ...]]) -> ModuleParam:
    found = types.get(type_id, ())
    if found[:1] == (_OP_TYPE_POINTER,):
        space = _SPACES.get(found[1], "global")
        return ModuleParam(KernelParam(name, _type_name(found[2], types)[0], space), None)
    if found[:1] == (_OP_TYPE_IMAGE,):
        return ModuleParam(KernelParam(name, "image", "image"), None)
    if found[:1] == (_OP_TYPE_SAMPLER,):
        return ModuleParam(KernelParam(name, "sampler_t", "sampler"), None)
    type_name, size = _type_name(type_id, types)
    return ModuleParam(KernelParam(name, type_name, "value"), size)


def _type_name(type_id: int, types: dict[int, tuple[int, ...]]) -> tuple[str, int | None]:
    """The OpenCL C name of a scalar or vector type (``iN`` for a signless integer) and its
    size in bytes; ``struct`` and None for any other type."""
    found = types.get(type_id, ())
    if found[:1] == (_OP_TYPE_FLOAT,) and found[1] in _FLOATS:
        return _FLOATS[found[1]], found[1] // 8
    if found[:1] == (_OP_TYPE_INT,):
        return f"i{found[1]}", found[1] // 8
    if found[:1] == (_OP_TYPE_VECTOR,):
        element, size = _type_name(found[1], types)
        if size is not None:
            # OpenCL C's 3-element vectors take the room of 4 (OpenCL C §6.1.5).
            joint = "x" if element.startswith("i") else ""  # i32x4, but float4 as in OpenCL C
            return f"{element}{joint}{found[2]}", size * (4 if found[2] == 3 else found[2])
    return "struct", None



def declared_kernels(module: Module, arg_types: ArgTypes | None) -> dict[str, KernelDecl]:
    """The module's kernels, each with the parameters ``arg_types`` declares for it (OpenCL C
    declarations, checked against the module's types) or else those the module types.

    Raises:
        sycl.exception: ``errc.invalid`` if ``arg_types`` is no mapping of kernel names to
            declarations, names a kernel the module lacks, or declares parameters that differ
            from the module's in number, address space or size.
    """
    if arg_types is None:
        arg_types = {}
    if not isinstance(arg_types, Mapping):
        raise exception(
            errc.invalid,
            f"arg_types maps kernel names to their parameters' OpenCL C declarations, e.g. {_EXAMPLE}; "
            f"got {type(arg_types).__name__}",
        )
    unknown = sorted(set(arg_types) - set(module))
    if unknown:
        raise exception(
            errc.invalid,
            f"arg_types names kernel(s) {unknown} that the module lacks; it has {sorted(module)}",
        )
    kernels = {}
    for name, (decl, typed) in module.items():
        given = arg_types.get(name)
        params = decl.params if given is None else _declared(name, given, typed)
        kernels[name] = KernelDecl(name, params, decl.reqd_work_group_size, decl.reqd_sub_group_size)
    return kernels


def _declared(
    name: str, given: str | Sequence[str], typed: tuple[ModuleParam, ...]
) -> tuple[KernelParam, ...]:
    """The parameters declared for kernel ``name``, checked against the module's ``typed``."""
    params = declared_params(name, given)
    text = given if isinstance(given, str) else ", ".join(given)
    if len(params) != len(typed):
        raise exception(
            errc.invalid,
            f"arg_types[{name!r}] declares {len(params)} parameter(s) ({text!r}); the module's kernel "
            f"takes {len(typed)}: {_listing(tuple(t.param for t in typed))}",
        )
    for index, (param, module) in enumerate(zip(params, typed, strict=True)):
        sizes = {d.itemsize for d in (param.dtype_for(32), param.dtype_for(64)) if d is not None}
        if param.kind != module.param.kind or (sizes and module.size and module.size not in sizes):
            raise exception(
                errc.invalid,
                f"arg_types[{name!r}] declares parameter {index} as {_listing((param,))}, but the "
                f"module types it {_listing((module.param,))}; declare it with that address space "
                "and size",
            )
    return tuple(
        p if p.name else KernelParam(t.param.name, p.type_name, p.kind)
        for p, t in zip(params, typed, strict=True)
    )



def _listing(params: tuple[KernelParam, ...]) -> str:
    return "(" + ", ".join(p.declaration() for p in params) + ")"
