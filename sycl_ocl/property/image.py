"""``sycl::property::image`` (SYCL 2020 §4.7.3.4): the buffer properties, for images."""

from __future__ import annotations

from . import buffer

_IMAGES = frozenset({"unsampled_image", "sampled_image"})


class use_host_ptr(buffer.use_host_ptr):
    """The image uses the host memory it was given, never a copy of it (§4.7.3.4); the memory
    must hold the pixels packed (no pitch) and be writeable."""

    __slots__ = ()
    applies_to = _IMAGES


class use_mutex(buffer.use_mutex):
    """The runtime holds ``mutex`` while it uses the image's host memory (§4.7.3.4)."""

    __slots__ = ()
    applies_to = _IMAGES


class context_bound(buffer.context_bound):
    """The image may only be used in ``ctx`` (§4.7.3.4)."""

    __slots__ = ()
    applies_to = _IMAGES
