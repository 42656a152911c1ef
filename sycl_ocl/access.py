"""Access modes and mode tags (SYCL 2020 §4.7.6.2, §4.7.6.9.1)."""

from __future__ import annotations

import enum
from typing import Any

from ._exception import errc, exception


class access_mode(enum.Enum):
    """How an accessor uses its data (§4.7.6.2)."""

    read = "read"
    write = "write"
    read_write = "read_write"
    discard_write = "discard_write"  # deprecated: write + no_init
    discard_read_write = "discard_read_write"  # deprecated: read_write + no_init
    atomic = "atomic"  # deprecated: read_write

    # Members are singletons: identity hashing is correct and, unlike Enum's, runs in C.
    __hash__ = object.__hash__

    @property
    def reads(self) -> bool:
        """Whether the mode needs the previous contents."""
        return self in _READS

    @property
    def writes(self) -> bool:
        """Whether the mode may change the contents."""
        return self is not access_mode.read


_READS = frozenset({access_mode.read, access_mode.read_write, access_mode.atomic})


class target(enum.Enum):
    """Where an accessor's data is used (§4.7.6.3)."""

    device = "device"
    host_task = "host_task"
    constant_buffer = "constant_buffer"
    host_buffer = "host_buffer"


class mode_tag_t:
    """A deduction tag standing for an access mode: ``sycl.read_only`` etc. (§4.7.6.9.1)."""

    __slots__ = ("mode", "name")

    def __init__(self, mode: access_mode, name: str) -> None:
        self.mode = mode
        self.name = name

    def __repr__(self) -> str:
        return f"sycl.{self.name}"


read_only = mode_tag_t(access_mode.read, "read_only")
write_only = mode_tag_t(access_mode.write, "write_only")
read_write = mode_tag_t(access_mode.read_write, "read_write")


def as_mode(value: Any) -> access_mode:
    """An ``access_mode`` from a mode or a tag; ``errc.invalid`` otherwise."""
    if isinstance(value, access_mode):
        return value
    if isinstance(value, mode_tag_t):
        return value.mode
    raise exception(
        errc.invalid,
        f"an access mode is a sycl.access_mode member or a tag (sycl.read_only, "
        f"sycl.write_only, sycl.read_write), got {value!r}",
    )


def resolve_no_init(mode: access_mode, no_init: bool) -> tuple[access_mode, bool]:
    """Fold the deprecated discard modes into ``no_init``; reject ``no_init`` with read."""
    if mode is access_mode.discard_write:
        return access_mode.write, True
    if mode is access_mode.discard_read_write:
        return access_mode.read_write, True
    if mode is access_mode.atomic:
        mode = access_mode.read_write
    if no_init and mode is access_mode.read:
        raise exception(
            errc.invalid,
            "the no_init property cannot be used with a read-only accessor (§4.7.6.4); "
            "drop no_init or use a write mode",
        )
    return mode, no_init
