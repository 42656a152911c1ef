"""The on-disk build cache (placeholder: builds from source)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pyopencl as cl

from . import _program

if TYPE_CHECKING:
    from ..context import context
    from ..device import device


def load_or_build(
    ctx: context, devices: Sequence[device], source: str, options: Sequence[str], what: str
) -> cl.Program:
    """An executable program of ``source`` for ``devices``."""
    prg = _program.from_source(ctx, source)
    return _program.build(prg, ctx, devices, options, what)
