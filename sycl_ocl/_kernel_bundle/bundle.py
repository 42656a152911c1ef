"""``sycl::kernel_bundle`` (SYCL 2020 §4.11.3 / §4.11.12)."""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .._backend import backend
from .._exception import errc, exception
from ._device_image import device_image
from ._kernel import kernel
from ._kernel_id import kernel_id
from .registry import LAUNCHABLE, as_kernel_id, not_a_kernel
from .spec_constants import checked_spec_id, live_constants, specialization_id
from .state import bundle_state

if TYPE_CHECKING:
    import pyopencl as cl

    from .._context import context
    from .._device import device


class kernel_bundle:
    """A set of device images of one context, for a set of devices, in one state (§4.11.3).

    Obtained from ``sycl.get_kernel_bundle``, ``compile``, ``link``, ``build``, ``join`` or
    ``make_kernel_bundle``; never constructed directly. Copies are the same object.
    """

    __slots__ = ("_context", "_devices", "_images", "_lock", "_resolved", "_spec_values", "state")

    _context: context
    _devices: tuple[device, ...]
    _images: tuple[device_image, ...]
    _spec_values: dict[specialization_id, Any]
    _resolved: dict[Hashable, kernel]
    _lock: threading.Lock
    state: bundle_state

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # §4.11.3: no public constructor.
        raise TypeError(
            "sycl.kernel_bundle cannot be constructed; use sycl.get_kernel_bundle(state, ctx, ...)"
        )

    @classmethod
    def _make(
        cls,
        ctx: context,
        devices: Sequence[device],
        state: bundle_state,
        images: Sequence[device_image],
        spec_values: dict[specialization_id, Any] | None = None,
    ) -> kernel_bundle:
        self = object.__new__(cls)
        self._context = ctx
        self._devices = tuple(devices)
        self.state = state
        self._images = tuple(dict.fromkeys(images))  # duplicates removed, order kept
        self._spec_values = dict(spec_values or {})
        self._resolved = {}
        self._lock = threading.Lock()
        return self

    @classmethod
    def _of_kernel(cls, k: kernel) -> kernel_bundle:
        """The executable bundle of the image ``k`` comes from (``kernel.get_kernel_bundle``)."""
        ctx = k.get_context()
        image = k._image
        if image is None:
            raise exception(errc.invalid, f"{k!r} does not come from a device image")
        return cls._make(ctx, image._devices, bundle_state.executable, [image])

    # --- queries (§4.11.12) --------------------------------------------------------------

    def empty(self) -> bool:
        """Whether the bundle has no device image (§4.11.12)."""
        return not self._images

    def get_backend(self) -> backend:
        """Always ``backend.opencl`` (§4.11.12)."""
        return backend.opencl

    def get_context(self) -> context:
        """The bundle's context (§4.11.12)."""
        return self._context

    def get_devices(self) -> list[device]:
        """The bundle's associated devices (§4.11.12)."""
        return list(self._devices)

    def has_kernel(self, kid: kernel_id | str, dev: device | None = None) -> bool:
        """Whether an image holds the kernel (compatible with ``dev``, if given) (§4.11.12).

        Args:
            kid: a ``kernel_id`` or an application kernel's name.
            dev: a device of the bundle, or None for any.
        """
        kid = as_kernel_id(kid)
        return any(img.has_kernel(kid, dev) for img in self._images)

    def get_kernel_ids(self) -> list[kernel_id]:
        """The ids of the kernels of the bundle's images that some bundle device can run (§4.11.12)."""
        return list(dict.fromkeys(k for img in self._images for k in img._ids if img.has_kernel(k)))

    def get_kernel(self, kid: kernel_id | str) -> kernel:
        """The kernel object of ``kid`` (executable bundles only, §4.11.12).

        Args:
            kid: a ``kernel_id`` or an application kernel's name.

        Raises:
            sycl.exception: ``errc.invalid`` if the bundle is not executable or lacks the kernel.
        """
        kid = as_kernel_id(kid)
        if self.state is not bundle_state.executable:
            raise exception(
                errc.invalid,
                f"get_kernel needs an executable bundle, this one is {self.state.name}; build it first",
            )
        for img in self._images:
            if img.has_kernel(kid):
                return img._kernel(kid)
        raise exception(
            errc.invalid,
            f"the bundle has no kernel {kid.get_name()!r}; it holds "
            f"{[k.get_name() for k in self.get_kernel_ids()]}",
        )

    def __iter__(self) -> Iterator[device_image]:
        """The device images (§4.11.12, ``begin()``/``end()``)."""
        return iter(self._images)

    def __len__(self) -> int:
        return len(self._images)

    # --- specialization constants (§4.11.12) ------------------------------------------------

    def contains_specialization_constants(self) -> bool:
        """Whether an image mentions a specialization constant (§4.11.12)."""
        return any(
            img._spec_values or any(live_constants(unit.identifiers) for unit in img._units())
            for img in self._images
        ) or any(self.has_specialization_constant(s) for s in self._spec_values)

    def native_specialization_constant(self) -> bool:
        """Always False (§4.11.12): OpenCL C has no specialization constants; sycl_ocl emulates
        them with compile-time definitions (docs/kernels.md)."""
        return False

    def has_specialization_constant(self, spec: specialization_id) -> bool:
        """Whether an image uses ``spec``: its name occurs in the source (§4.11.12)."""
        name = checked_spec_id(spec, "has_specialization_constant").name
        return any(img._uses(name) for img in self._images)

    def set_specialization_constant(self, spec: specialization_id, value: Any) -> None:
        """Set the value ``spec`` gets when the bundle is compiled or built (input state only,
        §4.11.12).

        Raises:
            sycl.exception: ``errc.invalid`` if the bundle is not in the input state, since
                an object or executable image's constants were fixed when it was compiled.
        """
        if self.state is not bundle_state.input:
            raise exception(
                errc.invalid,
                f"specialization constants are set on input bundles, this one is {self.state.name}; "
                "set them before compile/build",
            )
        checked_spec_id(spec, "set_specialization_constant")
        with self._lock:
            self._spec_values[spec] = spec.convert(value)

    def get_specialization_constant(self, spec: specialization_id) -> Any:
        """The value of ``spec`` in this bundle, its default if never set (§4.11.12)."""
        checked_spec_id(spec, "get_specialization_constant")
        if spec in self._spec_values:
            return self._spec_values[spec]
        for img in self._images:
            fixed = img._spec_values.get(spec.name)
            if fixed is not None and fixed[0] is spec:
                return fixed[1]
        return spec.default

    # --- launches -----------------------------------------------------------------------------

    def _kernel_for_launch(self, spec: Any, ctx: context, dev: device) -> kernel:
        """The kernel a command group using this bundle runs on ``dev`` of ``ctx`` (§4.9.4.4);
        cached per device."""
        key = (spec, dev._handle)
        try:
            found = self._resolved.get(key)
        except TypeError:  # an unhashable spec (no cost to the common case, unlike a check)
            raise not_a_kernel(spec, LAUNCHABLE) from None
        if found is not None:
            return found
        found = self._resolved[key] = self._find_for_launch(spec, ctx, dev)
        return found

    def _find_for_launch(self, spec: Any, ctx: context, dev: device) -> kernel:
        if self.state is not bundle_state.executable:
            raise exception(
                errc.invalid,
                f"use_kernel_bundle needs an executable bundle, this one is {self.state.name}",
            )
        if self._context != ctx:
            raise exception(errc.invalid, "the kernel bundle's context is not the queue's context")
        if dev not in self._devices:
            raise exception(
                errc.invalid, f"the kernel bundle has no image for the queue's device {dev!r}"
            )
        if isinstance(spec, kernel):
            if not any(spec._image is img for img in self._images):
                raise exception(
                    errc.kernel_not_supported, f"{spec!r} is not in the bundle given to use_kernel_bundle"
                )
            return spec
        # A name first matches the bundle's own kernels (those of interop programs have no
        # registered name), then the application's.
        named = (k for k in self.get_kernel_ids() if k.get_name() == spec) if isinstance(spec, str) else ()
        kid = next(iter(named), None) or as_kernel_id(spec, LAUNCHABLE)
        for img in self._images:
            if img.has_kernel(kid, dev):
                return img._kernel(kid)
        raise exception(
            errc.kernel_not_supported,
            f"the bundle given to use_kernel_bundle has no kernel {kid.get_name()!r} for {dev!r}",
        )

    def _get_native(self) -> list[cl.Program]:
        return [img._program for img in self._images]

    def __copy__(self) -> kernel_bundle:
        return self  # equality is identity: a copy must compare equal (§4.5.2)

    def __deepcopy__(self, memo: dict[int, Any]) -> kernel_bundle:
        return self

    def __repr__(self) -> str:
        return f"<sycl.kernel_bundle {self.state.name}, {len(self._images)} image(s)>"
