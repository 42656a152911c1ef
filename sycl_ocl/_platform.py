"""``sycl::platform`` (SYCL 2020 §4.6.2)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pyopencl as cl

from . import _discovery
from ._backend import backend
from ._device import device
from ._exception import errc, exception
from ._handles import NativeWrapper, remember
from ._native import backend_info, translate
from .info import enums
from .info._descriptor import cached_query, check_namespace

if TYPE_CHECKING:
    from ._aspect import aspect

_lock = threading.Lock()  # guards the one-time enumeration of each platform's devices


class platform(NativeWrapper):
    """An OpenCL platform seen as a SYCL platform (§4.6.2).

    Args:
        selector: a device selector or a device filter string (``"opencl:0"``,
            docs/device-selection.md); the platform is that of the selected device (default:
            the default device's platform).

    Raises:
        sycl.exception: ``errc.runtime`` when the selector finds no device.

    Example::

        for plat in sycl.platform.get_platforms():
            print(plat.get_info(sycl.info.platform.name), plat.get_devices())
    """

    __slots__ = ("_info", "_roots")
    _roots: list[device] | None
    _info: dict[str, Any]

    def __new__(cls, selector: Callable[[Any], int] | str | None = None) -> platform:
        return device(selector).get_platform() if selector is not None else device().get_platform()

    @classmethod
    def _from_native(cls, native: cl.Platform) -> platform:
        self = object.__new__(cls)
        self._bind(native)
        self._roots = None
        self._info = {}
        return remember(self)

    @staticmethod
    def get_platforms() -> list[platform]:
        """Every available platform (§4.6.2.1)."""
        return _discovery.all_platforms()

    def get_backend(self) -> backend:
        """Always ``backend.opencl`` (§4.6.2.1)."""
        return backend.opencl

    def get_devices(self, device_type: enums.device_type = enums.device_type.all) -> list[device]:
        """The root devices of this platform of the given type (§4.6.2.1)."""
        if not isinstance(device_type, enums.device_type):
            raise exception(
                errc.invalid, f"get_devices takes a sycl.info.device_type member, got {device_type!r}"
            )
        roots = self._root_devices()
        if device_type in (enums.device_type.all, enums.device_type.automatic):
            return list(roots)
        # By the one SYCL type of each device, so the result agrees with info.device.device_type.
        return [d for d in roots if enums.primary_device_type(d._native.type) is device_type]

    def _root_devices(self) -> list[device]:
        """The platform's root devices, enumerated once (under a lock, so wrappers are unique)."""
        with _lock:
            if self._roots is None:
                try:
                    natives = self._native.get_devices()
                except cl.Error as error:
                    if error.code != cl.status_code.DEVICE_NOT_FOUND:
                        raise translate(error, "listing the devices of a platform") from error
                    natives = []
                self._roots = [device._from_native(d, self) for d in natives]
            return self._roots

    def get_info(self, desc: Any) -> Any:
        """The value of a ``sycl.info.platform`` descriptor (§4.6.2.2)."""
        return cached_query(self._info, check_namespace(desc, "platform", "platform"), self)

    def get_backend_info(self, desc: Any) -> Any:
        """OpenCL information by its ``pyopencl.platform_info`` name, e.g. ``"PROFILE"`` (§4.6.2.1)."""
        return backend_info(self._native, cl.platform_info, desc, "platform")

    def has(self, asp: aspect) -> bool:
        """Whether every device of the platform has the aspect (§4.6.2.1)."""
        return all(d.has(asp) for d in self.get_devices())

    def has_extension(self, extension: str) -> bool:
        """Whether the platform and all its devices support an OpenCL extension (§4.6.2.1, deprecated)."""
        return extension in self._native.extensions.split() and all(
            d.has_extension(extension) for d in self.get_devices()
        )

    def __repr__(self) -> str:
        return f"<sycl.platform {self._native.name!r}>"
