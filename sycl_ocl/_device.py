"""``sycl::device`` (SYCL 2020 §4.6.4)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import pyopencl as cl

from . import (
    _discovery,
    info,  # its descriptor namespaces load on first use (see info/__init__.py)
)
from ._aspect import aspect, device_aspects
from ._backend import backend
from ._exception import errc, exception
from ._handles import NativeWrapper, remember
from ._native import backend_info, translate
from .info import enums
from .info._descriptor import cached_query, check_namespace

if TYPE_CHECKING:
    from ._platform import platform


class device(NativeWrapper):
    """An OpenCL device seen as a SYCL device (§4.6.4).

    Args:
        selector: a device selector (any callable ``device -> int``); the device with the
            highest non-negative score is chosen. Or a device filter string such as
            ``"opencl:gpu:1"`` (an extension, docs/device-selection.md). Defaults to
            ``default_selector_v``. ``SYCL_OCL_DEVICE`` (a regular expression over
            "platform / device") and ``SYCL_OCL_DEVICE_SELECTOR`` restrict every selector.

    Raises:
        sycl.exception: ``errc.runtime`` when every device scores negative (the message lists
            them); ``errc.invalid`` for a selector that is not a callable returning an int, or
            a malformed filter string.

    Example::

        gpu = sycl.device(sycl.gpu_selector_v)
        fp64 = sycl.device(sycl.aspect_selector(sycl.aspect.fp64))
        second_gpu = sycl.device("opencl:gpu:1")  # as `python -m sycl_ocl ls` numbers it
        every = sycl.device.get_devices()
    """

    __slots__ = ("_aspects", "_info", "_platform", "_raw")
    _aspects: frozenset[aspect] | None
    _info: dict[str, Any]
    _platform: platform | None
    _raw: dict[str, Any]

    def __new__(cls, selector: Callable[[device], Any] | str | None = None) -> device:
        from .selector import (  # device(selector) and selectors of devices (§4.6.1)
            default_selector_v,
            select_device,
        )

        return select_device(selector if selector is not None else default_selector_v)

    @classmethod
    def _from_native(cls, native: cl.Device, plat: platform | None = None) -> device:
        self = object.__new__(cls)
        self._bind(native)
        self._platform = plat
        self._info = {}
        self._raw = {}
        self._aspects = None
        return remember(self)

    @staticmethod
    def get_devices(device_type: enums.device_type = enums.device_type.all) -> list[device]:
        """Every root device of every platform of the given type (§4.6.4.1)."""
        return [d for p in _discovery.all_platforms() for d in p.get_devices(device_type)]

    def get_backend(self) -> backend:
        """Always ``backend.opencl`` (§4.6.4.1)."""
        return backend.opencl

    def get_platform(self) -> platform:
        """The platform the device belongs to (§4.6.4.1)."""
        if self._platform is None:
            from ._platform import platform  # platform and device name each other (§4.6.2, §4.6.4)

            self._platform = next(
                (p for p in _discovery.all_platforms() if p._native == self._native.platform),
                None,
            ) or platform._from_native(self._native.platform)
        return self._platform

    def is_cpu(self) -> bool:
        """Whether the device is a CPU (§4.6.4.1)."""
        return self.has(aspect.cpu)

    def is_gpu(self) -> bool:
        """Whether the device is a GPU (§4.6.4.1)."""
        return self.has(aspect.gpu)

    def is_accelerator(self) -> bool:
        """Whether the device is an accelerator (§4.6.4.1)."""
        return self.has(aspect.accelerator)

    def has(self, asp: aspect) -> bool:
        """Whether the device has an aspect (§4.6.4.3)."""
        if not isinstance(asp, aspect):
            raise exception(errc.invalid, f"device.has() takes a sycl.aspect member, got {asp!r}")
        return asp in self._aspect_set()

    def _aspect_set(self) -> frozenset[aspect]:
        if self._aspects is None:
            self._aspects = frozenset(device_aspects(self))
        return self._aspects

    def _aspect_list(self) -> list[aspect]:
        """The aspects the device has, in the order of ``sycl.aspect``."""
        return [a for a in aspect if a in self._aspect_set()]

    def has_extension(self, extension: str) -> bool:
        """Whether the device supports an OpenCL extension (§4.6.4.1, deprecated)."""
        return extension in self.get_info(info.device.extensions)

    def get_info(self, desc: Any) -> Any:
        """The value of a ``sycl.info.device`` descriptor (§4.6.4.2)."""
        return cached_query(self._info, check_namespace(desc, "device", "device"), self)

    def get_backend_info(self, desc: Any) -> Any:
        """OpenCL information by its ``pyopencl.device_info`` name, e.g. ``"OPENCL_C_VERSION"`` (§4.6.4.1)."""
        return backend_info(self._native, cl.device_info, desc, "device")

    def create_sub_devices(self, prop: enums.partition_property, arg: Any) -> list[device]:
        """Partition the device (§4.6.4.1, ``clCreateSubDevices``).

        Args:
            prop: how to partition.
            arg: the count for ``partition_equally``, the list of counts for
                ``partition_by_counts`` (one sub-device per non-zero count: ``[0]`` makes
                none), the ``partition_affinity_domain`` otherwise.

        Raises ``errc.feature_not_supported`` when the device cannot partition that way and
        ``errc.invalid`` when the counts exceed the device's compute units or sub-device limit.
        """
        if prop not in self.get_info(info.device.partition_properties):
            raise exception(
                errc.feature_not_supported,
                f"{self!r} cannot be partitioned with {prop}; it supports "
                f"{self.get_info(info.device.partition_properties)} "
                "(see get_info(sycl.info.device.partition_properties))",
            )
        spec = _partition_spec(prop, arg, self)
        if spec == [cl.device_partition_property.BY_COUNTS, 0]:
            return []  # no non-zero count: no sub-device (§4.6.4.1); OpenCL would refuse the empty list
        try:
            natives = self._native.create_sub_devices(spec)
        except cl.Error as error:
            raise translate(error, f"partitioning the device with {prop.name}({arg!r})") from error
        return [device._from_native(n, self.get_platform()) for n in natives]

    # --- raw OpenCL queries, cached; used by descriptors and aspects -------------------

    def _cl_info(self, name: str) -> Any:
        try:
            return self._raw[name]
        except KeyError:
            pass
        try:
            value = self._native.get_info(getattr(cl.device_info, name))
        except cl.Error as error:
            raise translate(error, f"querying CL_DEVICE_{name}") from error
        self._raw[name] = value
        return value

    def _int_info(self, name: str, default: int = 0) -> int:
        """An integer query that some drivers do not answer (then ``default``)."""
        try:
            return int(self._cl_info(name))
        except (exception, AttributeError):
            return default

    def _extensions(self) -> frozenset[str]:
        return frozenset(self._cl_info("EXTENSIONS").split())

    def _c_features(self) -> frozenset[str]:
        try:
            return frozenset(f.name for f in self._cl_info("OPENCL_C_FEATURES"))
        except (exception, AttributeError):
            return frozenset()

    def _svm_capabilities(self) -> int:
        return self._int_info("SVM_CAPABILITIES")

    def __repr__(self) -> str:
        return f"<sycl.device {_discovery.device_label(self)!r}>"


def _partition_spec(prop: enums.partition_property, arg: Any, dev: device) -> list[int]:
    P = enums.partition_property
    if prop is P.partition_equally:
        return [cl.device_partition_property.EQUALLY, _equal_count(arg, dev)]
    if prop is P.partition_by_counts:
        return [cl.device_partition_property.BY_COUNTS, *_counts(arg, dev), 0]
    if prop is P.partition_by_affinity_domain:
        return [cl.device_partition_property.BY_AFFINITY_DOMAIN, _affinity_domain(arg, dev).value]
    raise exception(errc.invalid, f"{prop} is not a way to partition a device")


def _compute_units(dev: device) -> int:
    return int(dev.get_info(info.device.max_compute_units))


def _equal_count(arg: Any, dev: device) -> int:
    count = _as_int(arg, "partition_equally")
    if not 0 < count <= _compute_units(dev):
        raise exception(
            errc.invalid,
            f"partition_equally needs a count between 1 and the device's {_compute_units(dev)} "
            f"compute units, got {arg!r}",
        )
    return count


def _counts(arg: Any, dev: device) -> list[int]:
    counts = [_as_int(c, "partition_by_counts") for c in _as_sequence(arg)]
    nonzero = [c for c in counts if c]  # OpenCL ends the list at the first 0
    limit = int(dev.get_info(info.device.partition_max_sub_devices))
    if any(c < 0 for c in counts):
        raise exception(errc.invalid, f"partition_by_counts needs counts >= 0; got {arg!r}")
    if len(nonzero) > limit:
        raise exception(
            errc.invalid, f"partition_by_counts wants {len(nonzero)} sub-devices; the device allows {limit}"
        )
    if sum(nonzero) > _compute_units(dev):
        raise exception(
            errc.invalid,
            f"partition_by_counts wants {sum(nonzero)} compute units; the device has {_compute_units(dev)}",
        )
    return nonzero


def _affinity_domain(arg: Any, dev: device) -> enums.partition_affinity_domain:
    if not isinstance(arg, enums.partition_affinity_domain):
        raise exception(
            errc.invalid,
            f"partition_by_affinity_domain takes a sycl.info.partition_affinity_domain, got {arg!r}",
        )
    offered = dev.get_info(info.device.partition_affinity_domains)
    if arg not in offered:
        raise exception(
            errc.feature_not_supported,
            f"{dev!r} cannot be partitioned by {arg}; it offers {offered}",
        )
    return arg


def _as_int(value: Any, what: str) -> int:
    try:
        return int(value.__index__())
    except (AttributeError, TypeError):
        raise exception(errc.invalid, f"{what} takes integer counts, got {value!r}") from None


def _as_sequence(arg: Any) -> Sequence[Any]:
    return arg if isinstance(arg, Sequence) else [arg]
