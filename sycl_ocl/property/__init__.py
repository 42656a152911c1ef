"""``sycl::property``: the properties of SYCL 2020 (§4.5.4, §4.6.5.3, §4.7.2.2, §4.7.6)."""

from . import buffer, image, queue, reduction
from ._base import Property, is_property, is_property_of, property_list
from .accessor import no_init

__all__ = [
    "Property",
    "buffer",
    "image",
    "is_property",
    "is_property_of",
    "no_init",
    "property_list",
    "queue",
    "reduction",
]
