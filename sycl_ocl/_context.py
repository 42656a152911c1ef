"""``sycl::context`` (SYCL 2020 §4.6.3)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import pyopencl as cl

from . import _discovery
from ._async_errors import AsyncErrors
from ._backend import backend
from ._device import device
from ._exception import errc, exception, exception_list
from ._handles import NativeWrapper, cached_wrapper, remember
from ._native import backend_info, translate
from .info._descriptor import check_namespace
from .property._base import PropertyHolder, make_property_list, property_list

if TYPE_CHECKING:
    from ._platform import platform

AsyncHandler = Callable[[exception_list], Any]

_default_lock = threading.Lock()
_default_contexts: dict[int, context] = {}


class context(NativeWrapper, PropertyHolder):
    """A set of devices of one platform that share memory objects (§4.6.3).

    Args:
        devices: a device or a list of devices of one platform; defaults to the device
            chosen by ``default_selector_v``.
        async_handler: receives the asynchronous errors of work in this context.
        prop_list: context properties (SYCL 2020 defines none).

    Raises:
        sycl.exception: ``errc.invalid`` for an empty list, devices of several platforms or
            something that is not a ``sycl.device``; ``errc.runtime`` when no device exists.

    Example::

        ctx = sycl.context(sycl.device.get_devices())   # raises unless one platform has them all
        q = sycl.queue(ctx, ctx.get_devices()[0])
    """

    __slots__ = ("_async_errors", "_devices", "_props")

    def __init__(
        self,
        devices: device | Iterable[device] | None = None,
        async_handler: AsyncHandler | None = None,
        prop_list: property_list | Iterable[Any] | None = None,
    ) -> None:
        props = make_property_list(prop_list, "context")
        devs = _device_list(devices)
        platforms = {d._native.platform.int_ptr for d in devs}
        if len(platforms) != 1:
            raise exception(
                errc.invalid,
                "a context's devices must all belong to one platform; "
                f"got {', '.join(map(repr, devs))}",
            )
        try:
            native = cl.Context(devices=[d._native for d in devs])
        except cl.Error as error:
            raise translate(error, "creating a context") from error
        self._setup(native, devs, async_handler, props)
        remember(self)  # so make_context(get_native(ctx)) is ctx itself, with its handler

    def _setup(
        self,
        native: cl.Context,
        devs: list[device],
        async_handler: AsyncHandler | None,
        props: property_list,
    ) -> None:
        self._bind(native)
        self._devices = devs
        self._async_errors = AsyncErrors(async_handler)
        self._props = props

    @classmethod
    def _from_native(cls, native: cl.Context) -> context:
        existing = cached_wrapper(cls, native)
        if existing is not None and existing._native is native:
            return existing
        self = object.__new__(cls)
        devs = [_wrap_device(d) for d in native.devices]
        self._setup(native, devs, None, property_list())
        return remember(self)

    @classmethod
    def _default_for(cls, plat: platform) -> context:
        """The implicit context of a platform, shared by default queues: its devices that the
        environment's device filters let selectors see (all of them where the filters hide
        every one), so a process restricted to one GPU (an MPI rank) has a context of that GPU."""
        def visible() -> list[device]:
            seen = set(_discovery.selectable_devices())
            return [d for d in plat.get_devices() if d in seen] or plat.get_devices()
        return cls._shared(plat._handle, visible)

    @classmethod
    def _default_for_device(cls, dev: device) -> context:
        """The implicit context of ``queue(dev)``: the platform's, where it holds the device. A
        sub-device, or a device the filters hide, gets one of its own: OpenCL drivers may refuse
        a queue on a sub-device whose context holds only its parent (Intel's CPU runtime does)."""
        shared = cls._default_for(dev.get_platform())
        if dev in shared._devices:
            return shared
        return cls._shared(dev._handle, lambda: [dev])

    @classmethod
    def _shared(cls, key: int, devices: Callable[[], list[device]]) -> context:
        with _default_lock:
            ctx = _default_contexts.get(key)
            if ctx is None:
                ctx = _default_contexts[key] = cls(devices())
        return ctx

    def get_backend(self) -> backend:
        """Always ``backend.opencl`` (§4.6.3.1)."""
        return backend.opencl

    def get_devices(self) -> list[device]:
        """The devices of the context (§4.6.3.1)."""
        return list(self._devices)

    def get_platform(self) -> platform:
        """The platform of the context's devices (§4.6.3.1)."""
        return self._devices[0].get_platform()

    def get_info(self, desc: Any) -> Any:
        """The value of a ``sycl.info.context`` descriptor (§4.6.3.2)."""
        return check_namespace(desc, "context", "context").query(self)

    def get_backend_info(self, desc: Any) -> Any:
        """OpenCL information by its ``pyopencl.context_info`` name, e.g. ``"NUM_DEVICES"`` (§4.6.3.1)."""
        return backend_info(self._native, cl.context_info, desc, "context")

    def _has_device(self, dev: device) -> bool:
        """Whether ``dev`` is a device of the context or a sub-device of one (§4.6.5.1, §4.11.7)."""
        members = {d._handle for d in self._devices}
        native: cl.Device | None = dev._native
        while native is not None:
            if native.int_ptr in members:
                return True
            try:
                native = native.parent_device
            except cl.Error:  # a driver without OpenCL 1.2 sub-devices: a root device
                return False
        return False

    def _check_device(self, dev: device) -> None:
        """``errc.invalid`` unless ``dev`` is a device of the context or a sub-device of one (§4.6.5.1)."""
        if not self._has_device(dev):
            raise exception(
                errc.invalid,
                f"{dev!r} is not one of the devices of this context "
                f"({', '.join(map(repr, self._devices))}); create the context with it",
                self,
            )

    def __repr__(self) -> str:
        return f"<sycl.context on {', '.join(map(repr, self._devices))}>"


def _wrap_device(native: cl.Device) -> device:
    for dev in _discovery.all_devices():
        if dev._native == native:
            return dev
    return device._from_native(native)


def _device_list(devices: device | Iterable[device] | None) -> list[device]:
    if devices is None:
        return [device()]
    if isinstance(devices, device):
        return [devices]
    if not isinstance(devices, Iterable):
        raise exception(errc.invalid, f"a context takes a sycl.device or a list of them, got {devices!r}")
    devs = list(devices)
    if not devs:
        raise exception(errc.invalid, "a context needs at least one device")
    for d in devs:
        if not isinstance(d, device):
            raise exception(errc.invalid, f"a context takes sycl.device objects, got {d!r}")
    return list(dict.fromkeys(devs))
