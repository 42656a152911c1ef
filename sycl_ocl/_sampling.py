"""Reading an image as a kernel does, on the host (OpenCL C 1.2 §8.2-§8.3): the pixel values a
kernel's ``read_image{f,i,ui}`` returns, and sampling with an ``image_sampler``.

``host_sampled_image_accessor.read`` and ``host_unsampled_image_accessor.read`` use it; the
tests and the conformance suite compare devices with it. Linear filtering is computed in
float64: a device may weight with less precision (docs/images.md gives the tolerance).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ._image import Format, image_sampler

# Where each channel of a read's (r, g, b, a) comes from in a stored pixel (None: 0, or 1 for
# alpha), by channel order (OpenCL C §8.3.1.1, table 8.11).
_SWIZZLE: dict[str, tuple[int | None, ...]] = {
    "r": (0, None, None, None), "a": (None, None, None, 0), "rg": (0, 1, None, None),
    "ra": (0, None, None, 1), "rgba": (0, 1, 2, 3), "bgra": (2, 1, 0, 3), "argb": (1, 2, 3, 0),
    "abgr": (3, 2, 1, 0), "intensity": (0, 0, 0, 0), "luminance": (0, 0, 0, None),
}
_NORM = {"unorm": {1: 255.0, 2: 65535.0}, "snorm": {1: 127.0, 2: 32767.0}}
_ALPHA = frozenset({"a", "ra", "rgba", "bgra", "argb", "abgr", "intensity"})


def to_kernel(pixels: np.ndarray, fmt: Format) -> np.ndarray:
    """Stored pixels ``(..., channels)`` as a kernel reads them, ``(..., 4)`` in (r, g, b, a):
    unorm and snorm normalized to float32, float as float32, integers as they are."""
    kind = fmt.kind
    if kind in _NORM:
        values = pixels.astype(np.float32) / np.float32(_NORM[kind][fmt.dtype.itemsize])
        if kind == "snorm":
            values = np.maximum(values, np.float32(-1.0))
    elif kind == "float":
        values = pixels.astype(np.float32)
    else:
        values = pixels.astype(np.int64 if kind == "uint" else np.int32)
    one = 1.0 if values.dtype.kind == "f" else 1
    out = np.zeros((*values.shape[:-1], 4), values.dtype)
    for channel, source in enumerate(_SWIZZLE[fmt.order]):
        if source is not None:
            out[..., channel] = values[..., source]
        elif channel == 3:
            out[..., channel] = one
    return out.astype(np.uint32) if kind == "uint" else out


def from_kernel(color: np.ndarray, fmt: Format) -> np.ndarray:
    """A kernel's ``write_image`` value ``(..., 4)`` in (r, g, b, a) as it is stored: unorm and
    snorm scaled, rounded to the nearest and saturated (OpenCL C §8.3.1)."""
    color = np.asarray(color)
    stored = np.zeros((*color.shape[:-1], fmt.channels), np.float64)
    for channel, source in enumerate(_SWIZZLE[fmt.order]):
        if source is not None:
            stored[..., source] = color[..., channel]
    if fmt.kind in _NORM:
        info = np.iinfo(fmt.dtype)
        stored = np.clip(np.rint(stored * _NORM[fmt.kind][fmt.dtype.itemsize]), info.min, info.max)
    return stored.astype(fmt.dtype)


def sample(pixels: np.ndarray, fmt: Format, sampler: image_sampler, coords: Any) -> np.ndarray:
    """What ``read_image{f,i,ui}(img, sampler, coords)`` returns for each row of ``coords``
    (``(n, dims)``, x first, float) of an image whose stored pixels are ``pixels`` (numpy shape,
    ``(..., height, width, channels)``); ``(n, 4)``."""
    values = to_kernel(pixels, fmt)
    coords = np.atleast_2d(np.asarray(coords, np.float64))
    sizes = values.shape[-2::-1]  # width first
    normalized = sampler.coordinate.name == "normalized"
    border = np.zeros(4, values.dtype)
    if fmt.order not in _ALPHA:
        border[3] = 1
    axes = [_axis(coords[:, d], sizes[d], normalized, sampler.addressing.name, sampler.filtering.name)
            for d in range(len(sizes))]
    out = np.zeros((coords.shape[0], 4), np.float64)
    for corner in np.ndindex(*([len(axes[0][0])] * len(sizes))):
        weight = np.ones(coords.shape[0])
        index = []
        inside = np.ones(coords.shape[0], bool)
        for d, k in enumerate(corner):
            idx, w = axes[d][0][k], axes[d][1][k]
            weight = weight * w
            inside &= (idx >= 0) & (idx < sizes[d])
            index.append(np.clip(idx, 0, sizes[d] - 1))
        texel = values[tuple(reversed(index))].astype(np.float64)
        texel[~inside] = border
        out += weight[:, None] * texel
    return out.astype(values.dtype) if values.dtype.kind == "f" else np.rint(out).astype(values.dtype)


def _axis(s: np.ndarray, n: int, normalized: bool, addressing: str, filtering: str
          ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The pixel indices along one axis that a read at ``s`` combines, and their weights
    (OpenCL C §8.2: -1 and ``n`` stand for the border of ``clamp``)."""
    if addressing in ("repeat", "mirrored_repeat"):
        # repeat: the fraction of s; mirrored: its distance to the nearest even integer
        u = (s - np.floor(s) if addressing == "repeat" else np.abs(s - 2.0 * np.rint(0.5 * s))) * n
        if filtering == "nearest":
            i = np.floor(u).astype(np.int64)
            i = np.where(i > n - 1, i - n, i) if addressing == "repeat" else np.minimum(i, n - 1)
            return [i], [np.ones_like(u)]
        i0 = np.floor(u - 0.5).astype(np.int64)
        a = (u - 0.5) - np.floor(u - 0.5)
        i1 = i0 + 1
        if addressing == "repeat":
            i0, i1 = np.where(i0 < 0, i0 + n, i0), np.where(i1 > n - 1, i1 - n, i1)
        else:
            i0, i1 = np.maximum(i0, 0), np.minimum(i1, n - 1)
        return [i0, i1], [1 - a, a]
    u = s * n if normalized else s
    low, high = (0, n - 1) if addressing == "clamp_to_edge" else (-1, n)
    if filtering == "nearest":
        return [np.clip(np.floor(u).astype(np.int64), low, high)], [np.ones_like(u)]
    i0 = np.floor(u - 0.5).astype(np.int64)
    a = (u - 0.5) - np.floor(u - 0.5)
    return [np.clip(i0, low, high), np.clip(i0 + 1, low, high)], [1 - a, a]
