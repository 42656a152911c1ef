"""``sycl::kernel_id`` (SYCL 2020 §4.11.5): names an application or a device built-in kernel."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._device import device
    from .registry import ImageSource


class kernel_id:
    """Identifies one kernel (§4.11.5). Obtained from ``sycl.get_kernel_id``/``get_kernel_ids``
    or ``info.device.built_in_kernel_ids``; never constructed directly.

    Each kernel has exactly one ``kernel_id`` object, so equality and hashing are identity.
    """

    __slots__ = ("_builtin_device", "_image", "_name")

    _name: str
    _image: ImageSource | None
    _builtin_device: device | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # §4.11.5: kernel_id has no public constructor.
        raise TypeError(
            "sycl.kernel_id cannot be constructed; use sycl.get_kernel_id(name), "
            "sycl.get_kernel_ids() or dev.get_info(sycl.info.device.built_in_kernel_ids)"
        )

    @classmethod
    def _make(
        cls, name: str, image: ImageSource | None, builtin_device: device | None = None
    ) -> kernel_id:
        self = object.__new__(cls)
        self._name = name
        self._image = image
        self._builtin_device = builtin_device
        return self

    def get_name(self) -> str:
        """The kernel's name: the ``__kernel`` function name (§4.11.5)."""
        return self._name

    def _is_builtin(self) -> bool:
        return self._builtin_device is not None

    def __copy__(self) -> kernel_id:
        return self  # one object per kernel: a copy must compare equal (§4.5.2)

    def __deepcopy__(self, memo: dict[int, Any]) -> kernel_id:
        return self

    def __repr__(self) -> str:
        kind = "built-in kernel" if self._builtin_device is not None else "kernel"
        return f"<sycl.kernel_id {kind} {self._name!r}>"
