"""Requirements: what a command asks of a memory object (SYCL 2020 §3.8.1).

The handler turns each accessor into a :class:`Requirement`; the scheduler sees nothing else
of it. A command with no requirement (a USM operation, a host task without accessors) is
ordered by its explicit dependencies and its queue alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from .memory_object import MemoryObject

# Access kinds as the DAG sees them: a read, a write, a read by a host accessor (which holds
# back every later user of its bytes, readers included: docs/scheduler.md rule S4).
READ, WRITE, HOST_READ = 0, 1, 2
# The accesses a memory object's frontier keeps at most (docs/scheduler.md rule S15); a command
# graph's nodes keep as many per memory object.
FRONTIER_CAP = 16


def conflicts(kind: int, other: int) -> bool:
    """Whether an access of ``kind`` waits for an earlier one of kind ``other`` on an
    overlapping view: a write on either side, or a read after a host hold (docs/scheduler.md
    rules S2, S4). The one statement of the rule: planning, the plan cache and command graphs
    ask it."""
    return kind == WRITE or other == WRITE or (kind == READ and other == HOST_READ)


class Requirement(NamedTuple):
    """An access to bytes ``[lo, hi)`` of a memory object.

    ``view_lo`` / ``view_hi`` bound the buffer or sub-buffer the accessor was made from: two
    requirements overlap, and so are ordered when one writes, when their views overlap
    (§3.8.1), even where their byte windows do not (docs/scheduler.md rule S2).
    """

    memory: MemoryObject
    lo: int
    hi: int
    writes: bool
    needs_old: bool  # the old contents must be there first (false for a discarding write)
    view_lo: int
    view_hi: int

    def discarding(self) -> Requirement:
        """The same access, overwriting every byte of its window (no copy-in)."""
        return self._replace(writes=True, needs_old=False)
