"""``sycl::device_image`` (SYCL 2020 §4.11.12): one OpenCL program in one bundle state."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import pyopencl as cl

from .._exception import errc, exception
from .._native import translate
from ._builtin_functions import BUILTIN_FUNCTIONS
from ._kernel import kernel
from .compat import kernel_compatible
from .state import bundle_state

if TYPE_CHECKING:
    from .._device import device
    from ._kernel_id import kernel_id
    from ._signature import KernelDecl
    from .registry import ImageSource
    from .spec_constants import specialization_id


class device_image:
    """A device image: the kernels of one program, for a set of devices, in one state (§4.11.12).

    Images are immutable and shared between bundles (a build is cached); they are obtained by
    iterating a ``kernel_bundle``, never constructed directly.
    """

    __slots__ = (
        "_devices",
        "_ids",
        "_kernels",
        "_key",
        "_lock",
        "_program",
        "_sources",
        "_spec_values",
        "_state",
    )

    _state: bundle_state
    _devices: tuple[device, ...]
    _program: cl.Program
    _sources: tuple[ImageSource, ...]
    _ids: tuple[kernel_id, ...]
    _spec_values: dict[str, tuple[specialization_id, Any]]
    _key: tuple[Any, ...]
    _kernels: dict[str, kernel]
    _lock: threading.Lock

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # §4.11.12: no public constructor.
        raise TypeError("sycl.device_image cannot be constructed; iterate a sycl.kernel_bundle")

    @classmethod
    def _make(
        cls,
        state: bundle_state,
        devices: tuple[device, ...],
        program: cl.Program,
        sources: tuple[ImageSource, ...],
        ids: tuple[kernel_id, ...],
        spec_values: dict[str, tuple[specialization_id, Any]],
        key: tuple[Any, ...],
    ) -> device_image:
        self = object.__new__(cls)
        self._state = state
        self._devices = devices
        self._program = program
        self._sources = sources
        self._ids = ids
        self._spec_values = spec_values
        self._key = key
        self._kernels = {}
        self._lock = threading.Lock()
        return self

    def has_kernel(self, kid: kernel_id, dev: device | None = None) -> bool:
        """Whether the image holds ``kid`` usable on ``dev`` (without ``dev``: on one of the
        image's devices) (§4.11.12). Never raises."""
        if kid not in self._ids:
            return False
        if dev is None:
            return any(kernel_compatible(kid, d) for d in self._devices)
        return dev in self._devices and kernel_compatible(kid, dev)

    def _units(self) -> tuple[ImageSource, ...]:
        """The image's units and the library units they are linked with (or will be)."""
        return tuple(dict.fromkeys(u for src in self._sources for u in (src, *src.libraries())))

    def _uses(self, name: str) -> bool:
        return any(unit.uses(name) for unit in self._units())

    def _kernel(self, kid: kernel_id) -> kernel:
        """The executable kernel ``kid`` of this image, created once."""
        found = self._kernels.get(kid.get_name())
        if found is not None:
            return found
        with self._lock:
            found = self._kernels.get(kid.get_name())
            if found is None:
                found = self._kernels[kid.get_name()] = self._create_kernel(kid)
        return found

    def _create_kernel(self, kid: kernel_id) -> kernel:
        if self._state is not bundle_state.executable:
            raise exception(
                errc.invalid, f"kernels come from executable images, this one is {self._state.name}"
            )
        name = kid.get_name()
        try:
            native = cl.Kernel(self._program, name)
        except cl.Error as error:
            raise translate(error, f"creating kernel {name!r}", detail=_builtin_name_note(name)) from error
        decl = self._declaration(name)
        return kernel._make(native, self._program, self, decl.params if decl else None)

    def _declaration(self, name: str) -> KernelDecl | None:
        """How kernel ``name`` is declared in the image's source (None for an interop program)."""
        return next((src.kernels[name] for src in self._sources if name in src.kernels), None)

    def __copy__(self) -> device_image:
        return self  # equality is identity: a copy must compare equal (§4.5.2)

    def __deepcopy__(self, memo: dict[int, Any]) -> device_image:
        return self

    def __repr__(self) -> str:
        names = ", ".join(k.get_name() for k in self._ids)
        return f"<sycl.device_image {self._state.name} [{names}] on {len(self._devices)} device(s)>"


def _builtin_name_note(name: str) -> str:
    """Why creating a kernel of that name may fail: it is an OpenCL C built-in function's."""
    if name not in BUILTIN_FUNCTIONS:
        return ""
    return (
        f"{name!r} is the name of an OpenCL C built-in function; this driver cannot create a "
        "kernel of that name (PoCL renames it), so rename the kernel"
    )
