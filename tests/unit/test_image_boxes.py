"""An image's transfers by pixel boxes (scheduler/image_memory.py): the boxes of a byte span of
the packed host copy cover exactly its pixels, in order, each box contiguous in the host copy:
at most five per span (a partial row, whole rows, whole slices, whole rows, a partial row)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sycl_ocl.scheduler.image_memory import boxes


def _pixels_of(box: tuple, extent: tuple[int, ...]) -> list[int]:
    """The packed pixel indices a box reaches."""
    origin, region = (*box[0], 0, 0)[:3], (*box[1], 1, 1)[:3]
    width = extent[0]
    height = extent[1] if len(extent) > 1 else 1
    return [x + width * (y + height * z)
            for z in range(origin[2], origin[2] + region[2])
            for y in range(origin[1], origin[1] + region[1])
            for x in range(origin[0], origin[0] + region[0])]


@pytest.mark.parametrize("extent", [(7,), (5, 3), (4, 3, 2)], ids=["1d", "2d", "3d"])
def test_boxes_cover_each_span_of_whole_pixels_in_order(extent: tuple[int, ...]) -> None:
    pixel = 8
    count = int(np.prod(extent))
    for lo, hi in itertools.combinations(range(count + 1), 2):
        found = boxes(lo * pixel, hi * pixel, extent, pixel)
        assert 1 <= len(found) <= 5
        reached: list[int] = []
        for box in found:
            indices = _pixels_of(box, extent)
            assert (box[2], box[3]) == (indices[0] * pixel, (indices[-1] + 1) * pixel)
            assert indices == list(range(indices[0], indices[-1] + 1))  # contiguous in the host copy
            assert len(box[0]) == len(box[1]) == len(extent)
            reached += indices
        assert reached == list(range(lo, hi))


def test_a_whole_image_is_one_box() -> None:
    assert boxes(0, 4 * 3 * 2 * 16, (4, 3, 2), 16) == [((0, 0, 0), (4, 3, 2), 0, 4 * 3 * 2 * 16)]
